"""Turn-order facts of a cell (issue #24): which seat got how many turns and decisions, who moved
last, who ended the game, how often the game ended mid-round (seats got unequal turns), and each
seat's win rate split by that, so a report can say how much of a seat edge comes with the extra
turn.

The facts are the record columns of logs.TURN_ORDER_* (every game's, or logs.with_turn_order's
default). Each chunk's summary keeps what this module needs (summary.CellTotals: counts, and the
deal moments of every rate, the deal being the sampling unit of every interval here,
stats.clustered_rate_interval_from_moments), so a report reads no logs for them. A cell with a
chunk summarized before these facts were kept (an old run, or one resumed with a newer zoosim)
has no complete facts: `turn_order_from_totals` then returns None and the report says so.

Win rates are win shares (a k-way shared win gives each winner 1/k) over games with a winner, as
everywhere in the reports (tables.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import pandas as pd

from simulator.analysis import stats
from simulator.analysis.summary import TURN_ORDER_SPLITS, CellTotals


@dataclass
class TurnOrder:
    """A cell's turn-order facts: `seats` has one row per seat, `unequal_*` the share of games
    that ended before some seat's turn of the last round, with its interval."""

    seat_rows: list[dict[str, Any]]  # one per seat: the rows of `seats`
    games: int
    unequal_rate: float
    unequal_low: float
    unequal_high: float

    @functools.cached_property
    def seats(self) -> pd.DataFrame:
        """One row per seat, built when first read: a large run's report shows few cells' tables."""
        return pd.DataFrame(self.seat_rows)


def turn_order_from_totals(totals: CellTotals, confidence: float = 0.95) -> TurnOrder | None:
    """The turn-order facts of a cell's totals; None when some of its chunks did not keep them
    (a run written before they existed) or it has no game yet."""
    if not totals.turn_order_kept or totals.games == 0:
        return None
    games = totals.games
    unequal = stats.clustered_rate_interval_from_moments(totals.unequal_moments, confidence)
    rows = []
    for seat in range(totals.players):
        row: dict[str, Any] = {"seat": seat}
        row["turns"] = float(totals.column_sums["seat_turns"][seat]) / games
        row["decisions"] = float(totals.column_sums["decisions"][seat]) / games
        row["last_mover_rate"] = totals.last_mover_games[seat] / games
        row["ender_rate"] = totals.ender_games[seat] / games
        for split, moments in zip(TURN_ORDER_SPLITS, totals.split_win_moments[:, seat]):
            rate, low, high = stats.clustered_rate_interval_from_moments(moments, confidence)
            row[f"win_rate_{split}"], row[f"win_{split}_low"], row[f"win_{split}_high"] = rate, low, high
            row[f"games_{split}"] = int(moments[stats.RATIO_MOMENTS.index("trials")])
        rows.append(row)
    return TurnOrder(rows, games, *unequal)


def lead_sentence(turn_order: TurnOrder, players: int) -> str:
    """One sentence leading the table: how often turns were unequal and what seat 0 won in
    those games and in the others."""
    if players < 2:
        return "A solo game has no turn order to compare."
    unequal = (f"{stats.percent_text(turn_order.unequal_rate)} "
               f"[{stats.percent_text(turn_order.unequal_low)}, {stats.percent_text(turn_order.unequal_high)}]")
    first = turn_order.seats.iloc[0]
    parts = []
    for split, words in (("unequal", "of those games"), ("equal", "of the games with equal turns")):
        if first[f"games_{split}"] > 0:
            parts.append(f"{stats.percent_text(first[f'win_rate_{split}'])} "
                         f"[{stats.percent_text(first[f'win_{split}_low'])}, "
                         f"{stats.percent_text(first[f'win_{split}_high'])}] {words}")
    won = f"; seat 0 won {' and '.join(parts)}" if parts else ""
    return (f"The game ended before every seat had its turn of the last round (seats got unequal "
            f"turns) in {unequal} of {stats.count_text(turn_order.games)} games{won}.")
