"""The Python API for notebooks and scripts: open a run folder, or run an experiment, and get its
games and the report's tables as pandas DataFrames.

    import simulator
    run = simulator.open_run("reports/seat_bias-1a2b3c4d")
    run.verdicts                     # one row per cell: verdict and sentence, as the report says them
    run.seats                        # one row per cell and seat: win rate with its intervals
    run.gameplay()                   # how the game plays: lengths, end reasons, components
    games = run.games()              # one row per game and seat, the cell's knobs as columns
    games.groupby(["players", "seat"])["win_share"].mean()

    run = simulator.run_experiment("experiments/seat_bias.yaml", games=2000, out="/tmp/sb")

Everything is read through the modules the command line uses: the run folder's verified chunks
(rundir), the analysis the report shows (analysis.tables.analyze_run), the runner and the report
builder; nothing here computes a statistic of its own. Importing this module imports neither
pandas, pyarrow nor numba: they load when a run is first opened or played.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for annotations: importing the API stays cheap
    import pandas as pd

    from simulator.analysis.tables import Analysis

# Identifier columns of every game (logs.py; `cell` is the chunk's folder); the rest are the game's own.
GAME_ID_COLUMNS = ("cell", "game_index", "deal", "seed", "rotation", "players")
DESCRIPTION_COLUMNS = ("study", "label", "game")  # of the cell, from the manifest
PER_SEAT_COLUMN = re.compile(r"^(?P<measure>.+)_(?P<seat>\d+)$")


class Run:
    """A run folder, read: its cells, seat table and verdicts as the report shows them, and its
    games. Tables are computed on first use and kept; `games()` reads the logs on every call."""

    def __init__(self, path: str | os.PathLike[str]):
        from simulator.rundir import read_manifest

        self.path = Path(path)
        self.manifest: dict[str, Any] = read_manifest(self.path)

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}: {len(self.manifest['cells'])} cells)"

    @functools.cached_property
    def analysis(self) -> Analysis:
        """Every table of the report (`simulator.analysis.tables.Analysis`), from the chunks'
        summaries, as `zoosim report` computes them."""
        from simulator.analysis.tables import analyze_run

        return analyze_run(self.path, self.manifest)

    @property
    def cells(self) -> pd.DataFrame:
        """One row per cell with games: label, game, players, the swept knobs (`sweep:<knob>`),
        games, the seat uniformity test, the verdict and its sentence, mean game lengths."""
        return self.analysis.cells

    @property
    def seats(self) -> pd.DataFrame:
        """The seat table: one row per cell and seat, win rate with its 95% and simultaneous
        intervals, deviation from a fair share in points, mean score and margin."""
        return self.analysis.seats

    @property
    def verdicts(self) -> pd.DataFrame:
        """One row per cell: its verdict (balanced, unbalanced, inconclusive, solo) and the
        sentence the report and the terminal give it."""
        return self.cells[["cell", "label", "game", "players", "verdict", "sentence"]]

    def gameplay(self, component_margin_points: float | None = None, confidence: float = 0.95) -> pd.DataFrame:
        """How the game plays (issue #43), as the report's "How the game plays" sections show it:
        one row per cell, figure and item (`figure` is `length`, `end_reason` or `component`),
        the `estimate` with its interval (`low`, `high`) at `confidence`, the deal as the unit,
        in `unit`, over `games` in `deals`, the interval's `method`, and `flag` (a component out
        of line: its whole interval beyond `component_margin_points`, default 5). Read from the
        logs on every call (simulator.analysis.gameplay.run_gameplay)."""
        from simulator.analysis.gameplay import GameplayOptions, run_gameplay

        options = GameplayOptions() if component_margin_points is None else GameplayOptions(component_margin_points)
        return run_gameplay(self.path, self.manifest, confidence, options)

    def games(self, cells: list[int] | None = None) -> pd.DataFrame:
        """One row per game and seat (tidy) of every verified chunk, or of the cells listed:
        the game's identifiers and per-game columns (turns, end reason, ...), `seat`, `policy`
        (who sat there), the seat's columns without their seat suffix (`score`, `rank`, `win`,
        and the game's per-seat counters), `win_share` (a win shared by k players counts 1/k,
        as in the report), and the cell's `study`, `label`, `game` and knobs as columns: every
        knob its study sweeps or lists in `cases:`, by its dotted name (`grid.rows`). The end
        reason is its name (`zoosim rules GAME` lists them)."""
        import pandas as pd

        from simulator.rundir import iter_chunk_tables

        frames = []
        for cell in self.manifest["cells"]:
            if cells is not None and cell["index"] not in cells:
                continue
            for table in iter_chunk_tables(self.path, cell):
                frames.append(_tidy(table.to_pandas(), cell))
        knobs = self.knobs()
        if not frames:
            return pd.DataFrame(columns=[*GAME_ID_COLUMNS, "seat", "policy", *DESCRIPTION_COLUMNS, *knobs])
        games = pd.concat(frames, ignore_index=True)
        for knob in knobs:  # every cell's knobs, whichever cells were read: the same columns
            if knob not in games:
                games[knob] = float("nan")
        return games[[column for column in games.columns if column not in knobs] + knobs]

    def knobs(self) -> list[str]:
        """The knobs the run's studies sweep or list in `cases:` (dotted names), which `games()`
        has as columns (empty where a cell's study does not set it)."""
        named = (knob for cell in self.manifest["cells"] for knob in cell["sweep_values"])
        return [knob for knob in dict.fromkeys(named) if knob not in (*GAME_ID_COLUMNS, *DESCRIPTION_COLUMNS)]


def _tidy(chunk: pd.DataFrame, cell: dict[str, Any]) -> pd.DataFrame:
    """A chunk's games (one row per game, per-seat columns `score_0, score_1, ...`) as one row
    per game and seat, with the cell's description."""
    import numpy as np
    import pandas as pd

    players = cell["players"]
    if "cell" not in chunk:  # the cell is the chunk's folder (logs.py), not one of its columns
        chunk.insert(0, "cell", cell["index"])
    per_seat: dict[str, list[str]] = {}
    for column in chunk.columns:
        match = PER_SEAT_COLUMN.match(column)
        if match and int(match["seat"]) < players:
            per_seat.setdefault(match["measure"], []).append(column)
    per_seat = {measure: columns for measure, columns in per_seat.items() if len(columns) == players}
    seat_columns = {column for columns in per_seat.values() for column in columns}
    per_game = chunk[[column for column in chunk.columns if column not in seat_columns]]
    seats = []
    for seat in range(players):
        rows = per_game.copy()
        rows["seat"] = seat
        for measure, columns in per_seat.items():
            rows[measure] = chunk[f"{measure}_{seat}"].to_numpy()
        seats.append(rows)
    tidy = pd.concat(seats, ignore_index=True)  # seat 0's games, then seat 1's, ...
    if "win" in per_seat:
        winners = np.tile(chunk[per_seat["win"]].sum(axis=1).to_numpy(), players)
        tidy["win_share"] = np.divide(tidy["win"].to_numpy(), winners, out=np.zeros(len(tidy)), where=winners > 0)
    if "slot" in tidy:  # the seating slot that sat in the seat says who played it
        tidy["policy"] = np.asarray(cell["seats"])[tidy["slot"].to_numpy()]
    if "end_reason" in tidy:
        reasons = np.asarray(cell["end_reasons"] + ["unknown"])
        codes = tidy["end_reason"].to_numpy()
        tidy["end_reason"] = reasons[np.where(codes < len(cell["end_reasons"]), codes, -1)]
    described = {name: cell[name] for name in DESCRIPTION_COLUMNS}
    for knob, value in cell["sweep_values"].items():  # a per-seat list as its JSON text, as in `Run.cells`
        described[knob] = json.dumps(value) if isinstance(value, (list, dict)) else value
    return tidy.assign(**{name: value for name, value in described.items() if name not in tidy})


def open_run(path: str | os.PathLike[str]) -> Run:
    """The run folder at `path` (written by `zoosim run` or `run_experiment`), to read.

    A folder that is not a zoosim run, or whose manifest is damaged, raises
    `simulator.errors.ZoosimError` with the one line `zoosim report` would print."""
    return Run(path)


def run_experiment(
    experiment: str | os.PathLike[str] | dict[str, Any],
    *,
    out: str | os.PathLike[str] | None = None,
    games: int | None = None,
    seed: int | None = None,
    jobs: int | None = None,
    backend: str = "threading",
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    check: bool = False,
    report: bool = True,
    progress: bool = False,
) -> Run:
    """Run an experiment as `zoosim run` does, and return its Run.

    `experiment` is an experiment file's path or the same document as a dict (its `name`
    then names the run; default "experiment"). The keyword arguments are `zoosim run`'s options:
    `games` and `seed` override the file's, `out` is the run folder (default
    reports/<name>-<run hash>, resumed when it exists, as the command line does), `jobs`
    (default: every core), `backend` (threading, loky or dask, with `scheduler`), `resume`,
    `force`, `check`; `report=False` is `--no-report`, `progress=True` shows the progress bar.
    Bad input raises `simulator.errors.ZoosimError` with the line the command line prints."""
    import yaml

    from simulator.config import load_experiment, parse_experiment, with_overrides
    from simulator.plan import build_plan
    from simulator.runner import run_experiment as run_plan_to_the_end

    if isinstance(experiment, dict):
        document = with_overrides({"name": "experiment", **experiment}, games=games, seed=seed)
        text = yaml.safe_dump(dict(experiment), sort_keys=False, allow_unicode=True)
        model, source = parse_experiment(document), None
    else:
        model, text = load_experiment(experiment, games=games, seed=seed)
        source = str(experiment)
    plan = build_plan(model, file=source)
    if out is None:  # where `zoosim run` puts it, and resumed as there
        from simulator.rundir import default_run_dir

        out = default_run_dir(model.name, plan.run_hash)
        resume = resume or not force
    run_plan_to_the_end(plan, Path(out), text, source=source, jobs=jobs or os.cpu_count() or 1,
                        backend=backend, scheduler=scheduler, resume=resume, force=force, check=check,
                        progress=progress)
    if report:
        from simulator.report.build import build_report

        build_report(Path(out))
    return Run(out)
