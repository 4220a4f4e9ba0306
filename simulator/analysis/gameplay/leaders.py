"""Figure `leader`: who leads as the game goes on, from the cell's trajectory sample (per-round
scores by the game's own measure, Game.round_scores).

Definition: a game of R rounds is looked at after a quarter, half, three quarters and all of its
rounds (after round ceil(q R / 4) for q = 1 .. 4, so games of different lengths are compared at
the same point of their course); there the leader is the seat with the top score alone (a shared
top score: no leader). Rows: per seat and point, the share of sampled games that seat leads alone
(Wilson interval on the deal-clustered effective sample, figure.deal_share). The chart follows
the first seat through the game: an edge it holds early and loses late shows as a falling curve.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import (
    CellGames, Chart, Trajectories, deal_share, item, register, sample_rows, trajectory_figure,
)

# (quarters of the game's rounds, what the report calls the point)
POINTS = ((1, "after a quarter"), (2, "after half"), (3, "after three quarters"), (4, "at the end"))
# the chart's short label of each point (the share of the rounds played)
POINT_TICKS = {"after a quarter": "1/4", "after half": "1/2", "after three quarters": "3/4", "at the end": "end"}


def point_rounds(sample: Trajectories, quarters: int) -> np.ndarray:
    """(games,) the round of each game at `quarters` quarters of its rounds, ceil(q R / 4), from 1."""
    return np.maximum(-(-sample.rounds * quarters // 4), 1)


def item_name(seat: int, point: str) -> str:
    return f"seat {seat} leads {point}"


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    sample = games.trajectories
    codes, deals = sample.deal_codes()
    leaders = sample.leaders()
    every = np.ones(sample.games, dtype=bool)
    items = []
    for seat in range(games.players):
        for quarters, point in POINTS:
            leads = sample.at_round(leaders, point_rounds(sample, quarters)) == seat
            items.append(item(item_name(seat, point), deal_share(codes, deals, leads, every, confidence),
                              "share of games", seat=seat, point=point))
    return sample_rows("leader", items, sample, "clustered Wilson interval")


register(trajectory_figure(
    name="leader",
    title="Who leads",
    reduce=reduce,
    order=49,
    note=("The share of games each seat leads alone after a quarter, half and three quarters of the rounds "
          "and at the end, by the game's per-round score, in a sample of deals replayed round by round."),
    chart=Chart("curve", "The first seat leads alone, by rounds played", "share of games (%)", percent=True,
                items=lambda row: row["seat"] == 0, tick=lambda row: POINT_TICKS[row["point"]]),
))
