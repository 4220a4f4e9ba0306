"""Game records on disk: the per-game row schema, one Parquet file per chunk, atomic writes.

Layout of a run folder:

    RUN_DIR/manifest.json                     experiment, run hash, cells (see runner.py)
    RUN_DIR/logs/cell=0003/chunk-000012.parquet

A chunk file holds one row per game (DESIGN.md, "Records"): identifiers (`cell`, `game_index`,
`deal`, `seed`, `rotation`, `players`), the game's per-game columns (`turns`, `rounds`,
`end_reason`, counters) and, for every seat s in turn order, `slot_s` (which seating slot, and
so which policy, sat there), `score_s`, `rank_s` (1 = best; the game's own ranking if it returns
one, else equal scores share a rank), `win_s` and the game's per-seat counters. Files are written under a temporary name and renamed, so a
file that exists is complete.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

LOGS_DIR = "logs"


def cell_dir(run_dir: Path, cell_index: int) -> Path:
    return Path(run_dir) / LOGS_DIR / f"cell={cell_index:04d}"


def chunk_path(run_dir: Path, cell_index: int, chunk_index: int) -> Path:
    return cell_dir(run_dir, cell_index) / f"chunk-{chunk_index:06d}.parquet"


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


def write_table_atomic(table: pa.Table, path: Path) -> None:
    """Write a Parquet file so that it either exists whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, temporary, compression="zstd")
    os.replace(temporary, path)


def finished_chunks(run_dir: Path, cell_index: int) -> set[int]:
    """Chunk indices of a cell whose files exist (and so are complete)."""
    folder = cell_dir(run_dir, cell_index)
    if not folder.is_dir():
        return set()
    return {int(path.stem.split("-")[1]) for path in folder.glob("chunk-*.parquet")}


def iter_chunk_tables(run_dir: Path, cell_index: int, columns: list[str] | None = None) -> Iterator[pa.Table]:
    """A cell's chunk tables in chunk order, one at a time (memory stays flat)."""
    for path in sorted(cell_dir(run_dir, cell_index).glob("chunk-*.parquet")):
        yield pq.read_table(path, columns=columns)


def remove_temporaries(run_dir: Path) -> None:
    """Delete half-written files left by a killed run."""
    for path in (Path(run_dir) / LOGS_DIR).glob("cell=*/.*.tmp"):
        path.unlink(missing_ok=True)
