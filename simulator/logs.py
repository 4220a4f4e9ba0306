"""Game records: the per-game row schema of the chunk files (their place in the run folder, and
how they are written and verified, is rundir.py's).

A chunk file holds one row per game (docs/design.md, "Records"): identifiers (`game_index`, `deal`,
`seed`, `rotation`, `players`), the game's per-game columns (`turns`, `rounds`,
`end_reason`, counters) and, for every seat s in turn order, `slot_s` (which seating slot, and
so which policy, sat there), `score_s`, `rank_s` (1 = best; the game's own ranking if it returns
one, else equal scores share a rank), `win_s` and the game's per-seat counters, and the turn-order
facts every run records (issue #24; `with_turn_order`): per game `last_mover` and `ender`, per
seat `seat_turns_s` and `decisions_s` (whether seats got unequal turns follows from these,
`unequal_turns`, and is not stored; runs written before issue #25 have it as a column
`unequal_turns`). The cell is not a
column of the file but its folder, `cell=0003` (rundir.py): a hive partition, which dataset
readers (`pd.read_parquet(RUN_DIR / "logs")`) turn into a column `cell`, and which would clash
with a column of the same name.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Rank per seat, 1 = best, equal scores share the better rank: (games, n) -> int8."""
    by_seat = np.ascontiguousarray(scores.T)
    ranks = np.ones(by_seat.shape, dtype=np.int8)
    for seat, seat_scores in enumerate(by_seat):
        for other_scores in by_seat:
            ranks[seat] += other_scores > seat_scores
    return ranks.T


# Turn-order facts (the game contract, games/base.py). Per seat: `seat_turns` = turns that came
# round to the seat in turn order (lost and passed ones included, extra turns not), `decisions` =
# moves it chose among two or more legal ones. Per game: `last_mover` = the seat that made the
# last move, `ender` = the seat whose move (or pass) triggered the end (-1: none, e.g. a turn
# cap). Derived, not stored: `unequal_turns` = the game ended before some seat's turn of the last
# round (seats got unequal seat_turns).
TURN_ORDER_SEAT_COLUMNS = ("seat_turns", "decisions")
TURN_ORDER_GAME_COLUMNS = ("last_mover", "ender")
NO_SEAT = -1


def with_turn_order(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The columns with the turn-order facts completed. A game that does not record them (a
    plugin) gets the reading of plain round-robin play from seat 0 with one seat turn per turn
    and nothing skipped: seat s had ceil((turns - s) / n) turns, each one decision, and the seat of
    the last turn moved last and ended the game."""
    players = columns["score"].shape[1]
    out = dict(columns)
    turns = columns["turns"].astype(np.int64)
    if "seat_turns" not in out:
        seats = np.arange(players)
        out["seat_turns"] = np.maximum(0, (turns[:, None] - seats[None, :] + players - 1) // players).astype(np.int16)
    out.setdefault("decisions", out["seat_turns"])
    last_turn_seat = np.where(turns > 0, (turns - 1) % players, NO_SEAT).astype(np.int8)
    out.setdefault("last_mover", last_turn_seat)
    out.setdefault("ender", last_turn_seat)
    return out


def unequal_turns(seat_turns: np.ndarray) -> np.ndarray:
    """Per game, whether it ended before some seat's turn of the last round: (games, n) seat
    turns -> (games,) bool."""
    return seat_turns.max(axis=1) != seat_turns.min(axis=1)


def record_columns(
    columns: dict[str, np.ndarray],
    *,
    first_game: int,
    games_per_deal: int,
    seeds: np.ndarray,
    rotations: np.ndarray,
) -> dict[str, np.ndarray]:
    """Flatten a play_batch result into the chunk's columns, by Parquet name (schema in the
    module doc)."""
    columns = with_turn_order(columns)
    games, players = columns["score"].shape
    game_index = np.arange(first_game, first_game + games, dtype=np.int64)
    seats = np.arange(players)
    slots = (seats[None, :] - rotations[:, None].astype(np.int64)) % players
    data: dict[str, np.ndarray] = {
        "game_index": game_index,
        "deal": game_index // games_per_deal,
        "seed": seeds.astype(np.uint64),
        "rotation": rotations.astype(np.int8),
        "players": np.full(games, players, dtype=np.int8),
    }
    per_seat = {"slot": slots.astype(np.int8)}
    for name, values in columns.items():
        if values.ndim == 1:
            data[name] = values
        else:
            per_seat[name] = values
    if "rank" not in per_seat:  # a game with its own tie-break ranks its seats itself
        per_seat["rank"] = competition_ranks(columns["score"])
    for name, values in per_seat.items():
        for seat in range(players):
            data[f"{name}_{seat}"] = np.ascontiguousarray(values[:, seat])
    return data


def records_table(records: dict[str, np.ndarray]) -> pa.Table:
    """The Arrow table of a chunk's record columns, sharing their memory. Built from the numpy
    buffers directly: pa.array() would import pandas (a quarter of a second per process) only to
    ask whether the arrays are pandas objects."""
    arrays = []
    for values in map(np.ascontiguousarray, records.values()):
        if values.dtype == np.bool_:  # Arrow packs booleans into bits
            arrays.append(pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(np.packbits(values, bitorder="little"))]))
        else:
            arrays.append(pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)]))
    return pa.Table.from_arrays(arrays, names=list(records))
