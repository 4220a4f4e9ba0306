"""Turn-order facts of a cell (issue #24): which seat got how many turns and decisions, who moved
last, who ended the game, how often the game ended mid-round (seats got unequal turns), and each
seat's win rate split by that, so a report can say how much of a seat edge comes with the extra
turn.

The facts are the record columns of logs.TURN_ORDER_* (every game's, or logs.with_turn_order's
default); this module reads them from the cell's logs one chunk at a time and keeps one row of
sums per deal, the sampling unit of every interval here (stats.clustered_rate_interval). A cell
with a chunk written before these columns existed (an old run, or one resumed with a newer
zoosim) has no complete facts: `cell_turn_order` then returns None and the report says so.

Win rates are win shares (a k-way shared win gives each winner 1/k) over games with a winner, as
everywhere in the reports (tables.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from simulator.analysis import stats
from simulator.logs import TURN_ORDER_GAME_COLUMNS, TURN_ORDER_SEAT_COLUMNS
from simulator.rundir import iter_chunk_tables

# per-deal sums kept for each seat, in this order (the last axis of DealSums.seat)
SEAT_SUMS = (
    "turns", "decisions", "last_mover", "ender",
    "share_unequal", "rated_unequal", "share_equal", "rated_equal",
)


@dataclass
class TurnOrder:
    """A cell's turn-order facts: `seats` has one row per seat, `unequal_*` the share of games
    that ended before some seat's turn of the last round, with its interval."""

    seats: pd.DataFrame
    games: int
    unequal_rate: float
    unequal_low: float
    unequal_high: float


def _seat_columns(players: int) -> list[str]:
    names = ["deal", "unequal_turns", *TURN_ORDER_GAME_COLUMNS]
    for base in ("win", *TURN_ORDER_SEAT_COLUMNS):
        names += [f"{base}_{seat}" for seat in range(players)]
    return names


def _chunk_deal_sums(table, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(deal ids, per-deal games and unequal games (deals, 2), per-deal seat sums
    (deals, players, len(SEAT_SUMS))) of one chunk."""
    deals, index = np.unique(table.column("deal").to_numpy(), return_inverse=True)
    unequal = table.column("unequal_turns").to_numpy().astype(bool)
    win = np.stack([table.column(f"win_{seat}").to_numpy() for seat in range(players)], axis=1).astype(float)
    winners = win.sum(axis=1)
    rated = winners > 0
    share = np.divide(win, winners[:, None], out=np.zeros_like(win), where=rated[:, None])
    seat_of = {name: table.column(name).to_numpy() for name in TURN_ORDER_GAME_COLUMNS}
    per_game = np.empty((len(unequal), players, len(SEAT_SUMS)))
    for seat in range(players):
        per_game[:, seat, 0] = table.column(f"seat_turns_{seat}").to_numpy()
        per_game[:, seat, 1] = table.column(f"decisions_{seat}").to_numpy()
        per_game[:, seat, 2] = seat_of["last_mover"] == seat
        per_game[:, seat, 3] = seat_of["ender"] == seat
        per_game[:, seat, 4] = share[:, seat] * unequal
        per_game[:, seat, 5] = rated & unequal
        per_game[:, seat, 6] = share[:, seat] * ~unequal
        per_game[:, seat, 7] = rated & ~unequal
    game_sums = np.zeros((len(deals), 2))
    np.add.at(game_sums, index, np.stack([np.ones(len(unequal)), unequal], axis=1))
    seat_sums = np.zeros((len(deals), players, len(SEAT_SUMS)))
    np.add.at(seat_sums, index, per_game)
    return deals, game_sums, seat_sums


def cell_turn_order(run_dir: Path, cell: dict[str, Any], confidence: float = 0.95) -> TurnOrder | None:
    """The turn-order facts of a cell's verified games; None when its logs do not record them
    (a run written before they existed) or it has no game yet."""
    players = cell["players"]
    columns = _seat_columns(players)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    try:
        for table in iter_chunk_tables(run_dir, cell, columns):
            if any(name not in table.column_names for name in columns):
                return None
            parts.append(_chunk_deal_sums(table, players))
    except pa.ArrowInvalid:  # a chunk without the columns: Parquet finds no field of that name
        return None
    if not parts:
        return None
    deals = np.concatenate([part[0] for part in parts])
    game_sums = np.concatenate([part[1] for part in parts])
    seat_sums = np.concatenate([part[2] for part in parts])
    if len(np.unique(deals)) != len(deals):  # a deal split across chunks: add its parts up
        deals, index = np.unique(deals, return_inverse=True)
        game_sums = _sum_by(index, len(deals), game_sums)
        seat_sums = _sum_by(index, len(deals), seat_sums)
    return turn_order_from_deal_sums(game_sums, seat_sums, confidence)


def _sum_by(index: np.ndarray, groups: int, values: np.ndarray) -> np.ndarray:
    out = np.zeros((groups, *values.shape[1:]))
    np.add.at(out, index, values)
    return out


def turn_order_from_deal_sums(game_sums: np.ndarray, seat_sums: np.ndarray, confidence: float = 0.95) -> TurnOrder:
    """The TurnOrder of per-deal sums (`_chunk_deal_sums`' layout)."""
    deal_games = game_sums[:, 0]
    games = int(deal_games.sum())
    unequal = stats.clustered_rate_interval(game_sums[:, 1], deal_games, confidence)
    players = seat_sums.shape[1]
    rows = []
    for seat in range(players):
        sums = {name: seat_sums[:, seat, position] for position, name in enumerate(SEAT_SUMS)}
        row: dict[str, Any] = {"seat": seat}
        row["turns"] = sums["turns"].sum() / games
        row["decisions"] = sums["decisions"].sum() / games
        for fact in ("last_mover", "ender"):
            row[f"{fact}_rate"] = sums[fact].sum() / games
        for split in ("unequal", "equal"):
            rate, low, high = stats.clustered_rate_interval(sums[f"share_{split}"], sums[f"rated_{split}"], confidence)
            row[f"win_rate_{split}"], row[f"win_{split}_low"], row[f"win_{split}_high"] = rate, low, high
            row[f"games_{split}"] = int(sums[f"rated_{split}"].sum())
        rows.append(row)
    return TurnOrder(pd.DataFrame(rows), games, *unequal)


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
