"""Figure `lead_change`: how often the lead changes hands in a game, from the cell's trajectory
sample (per-round scores by the game's own measure, Game.round_scores).

Definition: after each round the leader is the seat with the top score alone; a round where the
top score is shared has no leader and keeps the last one. A lead change is a round whose leader
differs from the last leader before it (the first leader is no change). Rows: the share of games
with 0, 1, 2, 3 and MANY_CHANGES or more lead changes (Wilson intervals on the deal-clustered
effective sample, figure.deal_share) and the mean per game (ratio mean with its linearised
deal-level variance, figure.deal_mean).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import (
    CellGames, Chart, Trajectories, deal_mean, deal_share, item, register, sample_rows, trajectory_figure,
)

MANY_CHANGES = 4  # the last bar of the distribution: this many lead changes or more
MEAN_ITEM = "mean lead changes per game"


def distribution_item(changes: int) -> str:
    return f"{changes}+ lead changes" if changes == MANY_CHANGES else f"{changes} lead change{'s' * (changes != 1)}"


def lead_changes(sample: Trajectories) -> np.ndarray:
    """(games,) each sampled game's lead changes (module doc), over its own rounds."""
    leaders = sample.leaders()
    changes = np.zeros(sample.games, dtype=np.int64)
    held = np.full(sample.games, -1)
    for round_index in range(leaders.shape[1]):
        playing = round_index < sample.rounds
        leader = leaders[:, round_index]
        led = playing & (leader >= 0)
        changes += led & (held >= 0) & (leader != held)
        held = np.where(led, leader, held)
    return changes


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    sample = games.trajectories
    codes, deals = sample.deal_codes()
    changes = lead_changes(sample)
    every = np.ones(sample.games, dtype=bool)
    items = []
    for count in range(MANY_CHANGES + 1):
        hits = changes >= count if count == MANY_CHANGES else changes == count
        items.append(item(distribution_item(count), deal_share(codes, deals, hits, every, confidence), "share of games"))
    items.append(item(MEAN_ITEM, deal_mean(codes, deals, changes.astype(float), every, confidence), "lead changes"))
    return sample_rows("lead_change", items, sample, "clustered Wilson interval (shares), linearised t interval (mean)")


register(trajectory_figure(
    name="lead_change",
    title="Lead changes",
    reduce=reduce,
    order=50,
    note=("How often the lead changed hands, by the game's per-round score, in a sample of deals replayed "
          "round by round (the leader leads alone; a shared top score keeps the last leader)."),
    chart=Chart("bars", "Lead changes per game", "share of games (%)", percent=True,
                items=lambda row: row["item"] != MEAN_ITEM, tick=lambda row: row["item"].split(" ")[0]),
))
