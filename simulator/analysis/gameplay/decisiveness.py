"""Figure `decisiveness`: when a game is decided, and how much drama it has, from the cell's
trajectory sample (per-round scores by the game's own measure, Game.round_scores).

Rows (games won by one seat alone; shared wins are left out):
- "decided at": the round from which the eventual winner leads alone for good, as a share of the
  game's rounds (T / R; 1/R: it led from the first round, 1: it led alone only at the end; a
  winner that never leads alone, by the tie-break, counts as 1);
- "drama": the share of rounds the eventual winner spent not leading alone (trailing, or tied at
  the top), over rounds 1 .. R - 1. Ludii's Drama measure (Browne, C. (2008), Automatic
  generation and evaluation of recombination games, PhD thesis, QUT, 7.4) looks at the states
  in which the eventual winner is not in the lead; this is its share of the game.
Intervals: ratio means with their linearised deal-level variance (figure.deal_mean).

Kingmaking (how often the last-placed seat's moves decide between the others, at 3+ players)
is left out: measuring it needs, at each decision of the last-placed seat, every alternative
move played out to the end under the seats' policies (a counterfactual replay per legal move),
which multiplies a replay's cost by the moves' count and the rounds left; the trajectory sample
replays each game once, so it cannot tell whose moves decided.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import (
    CellGames, Trajectories, deal_mean, item, register, sample_rows, trajectory_figure,
)

DECIDED_ITEM = "decided at (share of the game)"
DRAMA_ITEM = "drama (share of rounds the winner did not lead)"


def decided_at(sample: Trajectories) -> np.ndarray:
    """(games,) T / R for games won alone (module doc), NaN for the others."""
    winner = sample.sole_winner()
    leads = sample.leaders() == winner[:, None]
    rounds = sample.rounds
    decided = np.full(sample.games, np.nan)
    for game in np.flatnonzero(winner >= 0):
        length = rounds[game]
        behind = np.flatnonzero(~leads[game, :length])
        first_for_good = behind[-1] + 2 if len(behind) else 1  # the round after the last one not led
        decided[game] = min(first_for_good, length) / length
    return decided


def drama(sample: Trajectories) -> np.ndarray:
    """(games,) the share of rounds 1 .. R - 1 the sole winner did not lead alone, NaN for
    games not won alone and games of one round."""
    winner = sample.sole_winner()
    not_leading = sample.leaders() != winner[:, None]
    before_end = np.arange(sample.scores.shape[1])[None, :] < (sample.rounds - 1)[:, None]
    counted = np.maximum(sample.rounds - 1, 0)
    share = np.divide((not_leading & before_end).sum(axis=1), counted, out=np.full(sample.games, np.nan),
                      where=counted > 0)
    return np.where(winner >= 0, share, np.nan)


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    sample = games.trajectories
    codes, deals = sample.deal_codes()
    items = []
    for name, values in ((DECIDED_ITEM, decided_at(sample)), (DRAMA_ITEM, drama(sample))):
        counted = ~np.isnan(values)
        items.append(item(name, deal_mean(codes, deals, np.nan_to_num(values), counted, confidence),
                          "share", games=int(counted.sum())))
    return sample_rows("decisiveness", items, sample, "linearised t interval, deal-clustered")


register(trajectory_figure(
    name="decisiveness",
    title="Decisiveness and drama",
    reduce=reduce,
    order=53,
    shown=(("item", "", "text"), ("estimate", "mean", "pct"), ("low", "95% low", "pct"), ("high", "95% high", "pct"),
           ("games", "games won alone", "int"), ("deals", "sampled deals", "int")),
    note=("When the eventual winner took the lead for good, as a share of the game, and how much of the game it "
          "spent not leading (a Ludii-style drama), in a sample of deals. Kingmaking is not measured: it needs "
          "every alternative move of the last-placed seat played out, which the sample's single replay cannot "
          "tell."),
))
