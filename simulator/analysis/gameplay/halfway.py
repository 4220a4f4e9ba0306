"""Figure `halfway_leader`: the share of games the leader at the halfway point goes on to win,
from the cell's trajectory sample (per-round scores, Game.round_scores).

Definition: the halfway round of a game of R rounds is ceil(R / 2); its leader is the seat with
the top score alone after it (a game whose top score is shared there is left out); the leader
wins when it is among the game's winners (a shared win counts). Interval: Wilson on the
deal-clustered effective sample (figure.deal_share).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import (
    CellGames, Trajectories, deal_share, item, register, sample_rows, trajectory_figure,
)

ITEM = "halfway leader wins"


def halfway_rounds(sample: Trajectories) -> np.ndarray:
    """(games,) each game's halfway round, ceil(R / 2), from 1."""
    return -(-sample.rounds // 2)


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    sample = games.trajectories
    codes, deals = sample.deal_codes()
    leader = sample.at_round(sample.leaders(), halfway_rounds(sample))
    led = leader >= 0
    won = led & sample.win[np.arange(sample.games), np.maximum(leader, 0)]
    interval = deal_share(codes, deals, won, led, confidence)
    return sample_rows("halfway_leader", [item(ITEM, interval, "share of games with a halfway leader",
                                               games=int(led.sum()))], sample, "clustered Wilson interval")


register(trajectory_figure(
    name="halfway_leader",
    title="Halfway leader",
    reduce=reduce,
    order=51,
    note="The share of games the seat leading alone after half the rounds went on to win (sampled deals).",
))
