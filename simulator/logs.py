"""Game records: the per-game row schema of the chunk files (their place in the run folder, and
how they are written and verified, is rundir.py's).

A chunk file holds one row per game (DESIGN.md, "Records"): identifiers (`cell`, `game_index`,
`deal`, `seed`, `rotation`, `players`), the game's per-game columns (`turns`, `rounds`,
`end_reason`, counters) and, for every seat s in turn order, `slot_s` (which seating slot, and
so which policy, sat there), `score_s`, `rank_s` (1 = best; the game's own ranking if it returns
one, else equal scores share a rank), `win_s` and the game's per-seat counters.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Rank per seat, 1 = best, equal scores share the better rank: (games, n) -> int8."""
    higher = (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    return (1 + higher).astype(np.int8)


def records_table(
    columns: dict[str, np.ndarray],
    *,
    cell_index: int,
    first_game: int,
    games_per_deal: int,
    seeds: np.ndarray,
    rotations: np.ndarray,
) -> pa.Table:
    """Flatten a play_batch result into the chunk's Parquet table (schema in the module doc)."""
    games, players = columns["score"].shape
    game_index = np.arange(first_game, first_game + games, dtype=np.int64)
    seats = np.arange(players)
    slots = (seats[None, :] - rotations[:, None].astype(np.int64)) % players
    data: dict[str, np.ndarray] = {
        "cell": np.full(games, cell_index, dtype=np.int16),
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
    return pa.table(data)
