"""`zoosim studio`: change a rule in the browser and watch the verdict settle (docs/studio.md).

A layer above the runner and the analysis (docs/design.md, "Layers"); nothing below imports it.
`form.py` turns a game's knobs and policies into the page's controls and the page's settings
into an experiment document, checked on the CLI's path (config, plan); `live.py` plays a cell's
deals on warm engines in this process and follows their confidence sequences
(analysis/anytime.py); `session.py` holds what every tab sees (the live run, pins, saves);
`server.py` serves the page and its events; `page.html` is the page.
"""
