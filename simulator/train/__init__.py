"""`zoosim train`: expert iteration of a game's learned evaluation under any rules (issue #23).

settings.py  what a training is (game, rules, rounds, games, seed, start, players) and its checks
loop.py      the rounds: record, fit, gate through the ordinary runner, the training folder, resume
report.py    the HTML training report (DIR/report.html)

Layer: beside `simulator.tune` (cli -> tune/train -> report/runner -> ...). A game is trained
through the training role its `Game` declares (`Game.training`, games/base.py's Training: its
training code's record and fit, and its defaults).
"""
