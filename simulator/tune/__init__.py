"""`zoosim tune`: search a game's rule knobs for the fairest setting and confirm it on fresh deals.

config.py   the tune file's schema (`tune:` section), loading with one-line errors
space.py    search entries -> optimiser parameters (per-seat expansion), knobs of a trial
search.py   the optimiser loop: batches, racing, common random numbers, the tune folder
balance.py  the seat-balance step: a fitted model of seat deviations proposes part of each batch
best.py     choosing the best trial (Pareto front, fewer changes), best.yaml, confirmation
report.py   the HTML tune report
command.py  what the CLI calls: validate, optimise, confirm, report
"""
