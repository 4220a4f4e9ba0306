"""Figure `end_reason`: how the games ended, as the share of games per end reason (the game's
own `end_reasons` names), each with a 95% Wilson interval on the deal as the unit
(stats.clustered_rate_interval). Every end reason of the game gets a row, those no game reached
too (share 0 and its upper bound)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import CellGames, Figure, clustered_share, item, register, rows

UNIT = "share of games"


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    codes = np.asarray(games.game["end_reason"])
    items = []
    for code, name in enumerate(games.end_reasons):
        items.append(item(name, clustered_share(games, codes == code, confidence), UNIT))
    unknown = ~np.isin(codes, np.arange(len(games.end_reasons)))
    if unknown.any():  # a code the game does not name (a record from a newer engine)
        items.append(item("unknown", clustered_share(games, unknown, confidence), UNIT))
    return rows("end_reason", items, games, "clustered Wilson interval")


register(Figure(
    name="end_reason",
    title="Victory reasons",
    reduce=reduce,
    order=20,
    game_columns=("end_reason",),
    shown=(("item", "end reason", "text"), ("estimate", "share of games", "pct"), ("low", "95% low", "pct"),
           ("high", "95% high", "pct"), ("games", "games", "int"), ("deals", "deals", "int")),
    note="The share of games that ended each way, with 95% intervals on the deal as the unit.",
))
