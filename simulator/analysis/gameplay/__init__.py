"""How the game plays (issue #43): per-cell figures beyond the seat edge (game length, victory
reasons, component strength), each with a 95% interval on the deal as the unit.

Each figure is one unit: a module of this package that registers a `figure.Figure` (what it
reads, how it reduces, how it is shown). This module finds the units (every module of the
package, imported in name order), reads a cell's games once with the columns the figures ask
for (`cell_games`), runs every figure that applies (`cell_gameplay`, `run_gameplay`) and
compares two runs' figures (`compare_gameplay`), the same way for every figure. Adding a
figure touches its unit and its test only (docs/adding-a-figure.md).

The figures read the logs (the chunk files' record columns), not the chunk summaries: a quantile
or a stratified difference does not add up over chunks. The trajectory figures read the cell's
trajectory sample (per-round scores of its first deals, simulator/trajectories.py) instead.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any, Collection, Mapping

import numpy as np
import pandas as pd

from simulator.analysis.gameplay.figure import FIGURES, ROW_COLUMNS, CellGames, Figure, GameplayOptions, Trajectories
from simulator.manifest_cell import ManifestCell
from simulator.rundir import chunk_path, read_trajectories, verified_chunks

__all__ = ["FIGURES", "ROW_COLUMNS", "CellGames", "Figure", "GameplayOptions", "Trajectories", "cell_games",
           "cell_gameplay", "run_gameplay", "compare_gameplay"]

UNIT_MODULES = ("figure",)  # modules of the package that are not figure units


def _load_units() -> None:
    for unit in sorted(module.name for module in pkgutil.iter_modules(__path__)):
        if unit not in UNIT_MODULES:
            importlib.import_module(f"{__name__}.{unit}")


_load_units()


def _read_columns(figures: list[Figure], components: Mapping[str, str]) -> tuple[set[str], set[str]]:
    game_columns = {name for figure in figures for name in figure.game_columns}
    seat_columns = {name for figure in figures for name in figure.seat_columns}
    if any(figure.reads_components for figure in figures):
        seat_columns |= set(components)
    return game_columns, seat_columns


def components_of(cell: ManifestCell) -> dict[str, str]:
    """The components the cell's game declares (Game.components), as the manifest cell carries
    them; a run written before the manifest carried them has none."""
    return {column: name for column, name in cell.components}


def cell_games(run_dir: Path, cell: ManifestCell, figures: list[Figure] | None = None) -> CellGames:
    """A cell's verified games with the record columns `figures` (default all) read, and only
    those; a column a chunk lacks (a run recorded before it existed) is left out."""
    import pyarrow.parquet as pq

    figures = list(FIGURES.values()) if figures is None else figures
    players = int(cell.players)
    components = components_of(cell)
    game_columns, seat_columns = _read_columns(figures, components)
    wanted = ["deal", *sorted(game_columns), *(f"{name}_{seat}" for name in sorted(seat_columns) for seat in range(players))]
    parts: dict[str, list[np.ndarray]] = {}
    for index in verified_chunks(run_dir, cell, set_aside=False):
        path = chunk_path(run_dir, cell.index, index)
        present = set(pq.read_schema(path).names)  # a chunk of an older run may lack a column
        table = pq.read_table(path, columns=[name for name in wanted if name in present])
        for name in table.column_names:
            parts.setdefault(name, []).append(table.column(name).to_numpy())
    joined = {name: np.concatenate(values) for name, values in parts.items()}
    deal = joined.pop("deal", np.zeros(0, dtype=np.int64))
    seat = {name: np.stack([joined[f"{name}_{s}"] for s in range(players)], axis=1)
            for name in seat_columns if all(f"{name}_{s}" in joined for s in range(players))}
    game = {name: joined[name] for name in game_columns if name in joined}
    trajectories = None
    if any(figure.reads_trajectories for figure in figures):
        table = read_trajectories(run_dir, cell)
        if table is not None and table.num_rows:
            trajectories = Trajectories.from_table({name: table.column(name).to_numpy() for name in table.column_names},
                                                   players)
    return CellGames(players, deal, game, seat, tuple(cell.end_reasons), components, trajectories)


def cell_gameplay(games: CellGames, confidence: float = 0.95, options: GameplayOptions | None = None) -> pd.DataFrame:
    """Every figure that applies to a cell's games, as tidy rows (figure.ROW_COLUMNS, plus a
    figure's own columns), figures in registry order."""
    options = options or GameplayOptions()
    frames = []
    for figure in FIGURES.values():
        if not figure.applies(games):
            continue
        if any(name not in games.game for name in figure.game_columns) or any(name not in games.seat for name in figure.seat_columns):
            continue  # a run recorded before the columns this figure reads existed
        if figure.reads_trajectories and games.trajectories is None:
            continue  # no trajectory sample: none asked, the game declares no per-round score, or an older run
        frames.append(figure.reduce(games, confidence, options))
    frames = [frame for frame in frames if len(frame)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(ROW_COLUMNS))


def run_gameplay(run_dir: Path, manifest: Mapping[str, Any], confidence: float = 0.95,
                 options: GameplayOptions | None = None, cells: Collection[int] | None = None) -> pd.DataFrame:
    """The figures of every cell of a run with games (only of the cells numbered in `cells`, when
    given: each reads the cell's logs): tidy rows with the cell's index and label."""
    frames = []
    for cell in manifest["cells"]:
        if cells is not None and cell.index not in cells:
            continue
        games = cell_games(Path(run_dir), cell)
        if games.games == 0:
            continue
        rows = cell_gameplay(games, confidence, options)
        rows.insert(0, "label", cell.label)
        rows.insert(0, "cell", cell.index)
        frames.append(rows)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["cell", "label", *ROW_COLUMNS])


def compare_gameplay(before: pd.DataFrame, after: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """The change of every figure two runs share (matched by cell label, figure and item):
    after - before with an interval for the difference of the two independent estimates.

    Method: MOVER (the method of variance estimates recovery), which builds the difference's
    interval from the two intervals' own half-widths on each side, as Newcombe's interval for
    two rates does (stats.difference_interval), so it serves intervals that are not symmetric:
    low = d - sqrt((b - l_b)^2 + (u_a - a)^2), high = d + sqrt((u_b - b)^2 + (a - l_a)^2).
    The runs' intervals must be at `confidence`.
    Reference: Zou, G. Y. and Donner, A. (2008), Construction of confidence limits about
    effect measures: a general approach, Statistics in Medicine 27:1693-1702."""
    keys = ["label", "figure", "item"]
    merged = before[[*keys, "unit", "estimate", "low", "high"]].merge(
        after[[*keys, "estimate", "low", "high"]], on=keys, suffixes=("_before", "_after"))
    a, la, ua = (merged[f"{name}_before"].to_numpy(dtype=float) for name in ("estimate", "low", "high"))
    b, lb, ub = (merged[f"{name}_after"].to_numpy(dtype=float) for name in ("estimate", "low", "high"))
    change = b - a
    merged["change"] = change
    merged["change_low"] = change - np.sqrt(np.square(b - lb) + np.square(ua - a))
    merged["change_high"] = change + np.sqrt(np.square(ub - b) + np.square(a - la))
    merged["changed"] = (merged["change_low"] > 0) | (merged["change_high"] < 0)
    return merged
