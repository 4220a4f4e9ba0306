"""The Python API for notebooks and scripts: open a run folder, or run an experiment, and get its
games and the report's tables as pandas DataFrames.

    import simulator
    run = simulator.open_run("reports/seat_bias-1a2b3c4d")
    run.verdicts                     # one row per cell: verdict and sentence, as the report says them
    run.seats                        # one row per cell and seat: win rate with its intervals
    run.gameplay()                   # how the game plays: lengths, end reasons, components, lead changes, comebacks
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
import math
import os
import re
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulator.errors import ZoosimError

if TYPE_CHECKING:  # only for annotations: importing the API stays cheap
    import pandas as pd

    from simulator.analysis.tables import Analysis
    from simulator.manifest_cell import ManifestCell

# Identifier columns of every game (logs.py; `cell` is the chunk's folder); the rest are the game's own.
GAME_ID_COLUMNS = ("cell", "game_index", "deal", "seed", "rotation", "players")
DESCRIPTION_COLUMNS = ("study", "label", "game")  # of the cell, from the manifest
CELL_COLUMNS = ("cell", *DESCRIPTION_COLUMNS, "players")  # what `where` selects whole cells by
# A bare games() of a run with more rows (games x seats) than this warns: at about ROW_BYTES of
# memory a row (the quick start's 3.5 million rows took 1.78 GB), a few hundred MB and up.
LARGE_RUN_ROWS = 1_000_000
ROW_BYTES = 500
PER_SEAT_COLUMN = re.compile(r"^(?P<measure>.+)_(?P<seat>\d+)$")


class Run:
    """A run folder, read: its cells, seat table and verdicts as the report shows them, and its
    games. Tables are computed on first use and kept; `games()` reads the logs on every call."""

    def __init__(self, path: str | os.PathLike[str]):
        from simulator.options import checked_path
        from simulator.rundir import read_manifest

        self.path = checked_path(path, key="path", what="a run folder's path")
        self.manifest: dict[str, Any] = read_manifest(self.path)

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}: {len(self.manifest['cells'])} cells)"

    @functools.cached_property
    def analysis(self) -> Analysis:
        """Every table of the report (`simulator.analysis.tables.Analysis`), from the chunks'
        summaries, as `zoosim report` computes them."""
        from simulator.analysis.tables import analyze_run
        from simulator.rundir import no_games_error

        analysis = analyze_run(self.path, self.manifest)
        if not any(totals.games for totals in analysis.totals.values()):
            raise no_games_error(self.path, self.manifest)  # the tables would have no columns to read
        return analysis

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
        one row per cell, figure and item (`figure` is `length`, `end_reason`, `component`, or,
        from the cell's trajectory sample, `leader`, `lead_change`, `halfway_leader`, `comeback` or
        `decisiveness`; docs/api.md lists the items),
        the `estimate` with its interval (`low`, `high`) at `confidence`, the deal as the unit,
        in `unit`, over `games` in `deals`, the interval's `method`, and `flag` (a component out
        of line: its whole interval beyond `component_margin_points`, default 5). Read from the
        logs on every call (simulator.analysis.gameplay.run_gameplay)."""
        from simulator.analysis.gameplay import GameplayOptions, run_gameplay

        if not _is_number(confidence) or not 0 < confidence < 1:
            raise ZoosimError(f"must be a number between 0 and 1, exclusive (got {confidence!r})", key="confidence")
        if component_margin_points is None:
            options = GameplayOptions()
        elif not _is_number(component_margin_points) or not component_margin_points > 0 or math.isinf(component_margin_points):
            raise ZoosimError(f"must be a number of points above 0 (got {component_margin_points!r})",
                              key="component_margin_points")
        else:
            options = GameplayOptions(component_margin_points)
        return run_gameplay(self.path, self.manifest, confidence, options)

    def games(self, cells: list[int] | None = None, *, columns: list[str] | None = None,
              where: dict[str, Any] | None = None) -> pd.DataFrame:
        """One row per game and seat (tidy) of every verified chunk, or of the cells listed:
        the game's identifiers and per-game columns (turns, end reason, ...), `seat`, `policy`
        (who sat there), the seat's columns without their seat suffix (`score`, `rank`, `win`,
        and the game's per-seat counters), `win_share` (a win shared by k players counts 1/k,
        as in the report), `has_winner` (whether the game has one: the report's win rates count
        only those games), and the cell's `study`, `label`, `game` and knobs as columns: every
        knob its study sweeps or lists in `cases:`, by its dotted name (`grid.rows`). The end
        reason is its name (`zoosim rules GAME` lists them).

        `columns` keeps only those columns (in that order), and reads only the log columns they
        need; `where` keeps only the rows whose column has the value given (or one of the values
        of a list), for any column of the cell (`players`, `label`, a knob: other cells are not
        read), `seat`, or a per-game column of the logs (`turns`: read through a Parquet filter).
        A bare `games()` of a large run warns once with its size (`LARGE_RUN_ROWS`)."""
        import pandas as pd
        import pyarrow as pa

        from simulator.rundir import iter_chunk_tables, no_games_error, verified_chunks

        pool = pa.default_memory_pool()
        cells, columns = self._checked_cells(cells), _checked_columns(columns)
        where = _checked_where(where, self.knobs())
        if cells is None and columns is None and not where:
            self._warn_if_large()
        chosen = [cell for cell in self.manifest["cells"]
                  if (cells is None or cell.index in cells) and _cell_matches(cell, where, self.knobs())]
        seats = where.get("seat")
        per_game = {name: values for name, values in where.items() if name not in (*CELL_COLUMNS, "seat", *self.knobs())}
        frames = []
        for cell in chosen:
            log_columns, log_filter = _log_reading(self.path, cell, columns, per_game)
            for table in iter_chunk_tables(self.path, cell, columns=log_columns, filters=log_filter):
                frames.append(_tidy(table.to_pandas(), cell, seats, columns))
                del table
                pool.release_unused()  # arrow keeps a chunk's freed buffers for reuse otherwise
        knobs = [knob for knob in self.knobs() if columns is None or knob in columns]
        if not frames and not any(verified_chunks(self.path, cell, set_aside=False, read_logs=False)
                                  for cell in self.manifest["cells"]):
            raise no_games_error(self.path, self.manifest)  # no logs at all, as the tables say
        if not frames:
            return pd.DataFrame(columns=columns if columns is not None else
                                [*GAME_ID_COLUMNS, "seat", "policy", *DESCRIPTION_COLUMNS, *knobs])
        games = pd.concat(frames, ignore_index=True)
        frames.clear()  # the chunks' frames are copied into `games`: let them go before anything else
        for knob in knobs:  # every cell's knobs, whichever cells were read: the same columns
            if knob not in games:
                games[knob] = float("nan")
        if columns is not None:
            missing = [column for column in columns if column not in games]
            if missing:
                raise ZoosimError(f"no column {', '.join(map(repr, missing))} in the games of this run "
                                  "(games(cells=[0]).columns lists them)", key="columns")
            return games if list(games.columns) == list(columns) else games[list(columns)]
        return games[[column for column in games.columns if column not in knobs] + knobs]

    def _checked_cells(self, cells: Any) -> list[int] | None:
        """`games(cells=)`: None, or a list of indices of this run's cells."""
        if cells is None:
            return None
        if not isinstance(cells, (list, tuple)) or not all(type(index) is int for index in cells):
            raise ZoosimError(f"must be a list of cell indices (got {cells!r})", key="cells")
        indices = [cell.index for cell in self.manifest["cells"]]
        unknown = [index for index in cells if index not in indices]
        if unknown:
            raise ZoosimError(f"no cell {unknown[0]} in this run (cells {min(indices)} to {max(indices)})", key="cells")
        return list(cells)

    def _warn_if_large(self) -> None:
        rows = sum(cell.games * cell.players for cell in self.manifest["cells"])
        if rows > LARGE_RUN_ROWS:
            games = sum(cell.games for cell in self.manifest["cells"])
            warnings.warn(
                f"games() of {self.path} reads {games:,} games as {rows:,} rows (about "
                f"{rows * ROW_BYTES / 1e9:.1f} GB in memory); read what you need with "
                "games(columns=['seat', 'win_share', ...], where={'players': 2, 'seat': 0}) "
                "or games(cells=[0, 1])", LargeRunWarning, stacklevel=3)

    def knobs(self) -> list[str]:
        """The knobs the run's studies sweep or list in `cases:` (dotted names), which `games()`
        has as columns (empty where a cell's study does not set it)."""
        named = (knob for cell in self.manifest["cells"] for knob in cell.sweep_values)
        return [knob for knob in dict.fromkeys(named) if knob not in (*GAME_ID_COLUMNS, *DESCRIPTION_COLUMNS)]


_UNSET = object()  # the value of a knob a cell's study does not set


class LargeRunWarning(UserWarning):
    """A bare `Run.games()` of a run of more than LARGE_RUN_ROWS rows (python -W can silence it)."""


def _checked_columns(columns: Any) -> list[str] | None:
    """`games(columns=)`: None, or a list of names (a single name as text would be read letter
    by letter)."""
    if columns is not None and (not isinstance(columns, (list, tuple)) or not all(isinstance(name, str) for name in columns)):
        raise ZoosimError(f"must be a list of column names (got {columns!r})", key="columns")
    return None if columns is None else list(columns)


def _is_number(value: Any) -> bool:
    """A real number (int or float, not a bool) that is not NaN."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _checked_where(where: Any, knobs: list[str]) -> dict[str, tuple[Any, ...]]:
    """`where` as column -> the values kept (a tuple)."""
    if where is None:
        return {}
    if not isinstance(where, dict) or not all(isinstance(name, str) for name in where):
        raise ZoosimError(f"must map column names to a value or a list of values (got {where!r})", key="where")
    return {name: tuple(values) if isinstance(values, (list, tuple, set, frozenset)) else (values,)
            for name, values in where.items()}


def _cell_matches(cell: ManifestCell, where: dict[str, tuple[Any, ...]], knobs: list[str]) -> bool:
    """Whether a manifest cell passes the conditions on its own columns (cell, study, label,
    game, players) and knobs; a knob the cell's study does not set is empty, so never matches."""
    described = {"cell": cell.index, **{name: getattr(cell, name) for name in (*DESCRIPTION_COLUMNS, "players")}}
    for name, values in where.items():
        if name in described and described[name] not in values:
            return False
        if name in knobs and cell.sweep_values.get(name, _UNSET) not in values:
            return False
    return True


def _log_reading(run_dir: Path, cell: ManifestCell, columns: list[str] | None,
                 per_game: dict[str, tuple[Any, ...]]) -> tuple[list[str] | None, Any]:
    """The log columns a cell's chunks are read with (None: all) and the Parquet filter of the
    per-game conditions (None: none). A tidy column comes from the log column of that name or
    from the per-seat ones `NAME_0 ... NAME_{n-1}`; `win_share` and `has_winner` need `win`,
    `policy` needs `slot`."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from simulator.rundir import chunk_path, verified_chunks

    first = next(iter(verified_chunks(run_dir, cell, set_aside=False, read_logs=False)), None)
    if first is None:
        return None, None
    names = pq.read_schema(chunk_path(run_dir, cell.index, first)).names
    unknown = [name for name in per_game if name not in names]
    if unknown:
        raise ZoosimError(f"cannot select rows by {unknown[0]!r}: where takes the cell's columns ("
                          f"{', '.join(CELL_COLUMNS)}, knobs), seat, or a per-game column of the logs "
                          f"({', '.join(name for name in names if not PER_SEAT_COLUMN.match(name))})", key="where")
    condition = None
    for name, values in per_game.items():
        test = pc.field(name).isin(list(values))
        condition = test if condition is None else condition & test
    if columns is None:
        return None, condition
    wanted = set(columns) | set(per_game)
    wanted |= {"win"} if wanted & {"win_share", "has_winner"} else set()
    wanted |= {"slot"} if "policy" in wanted else set()
    kept = [name for name in names
            if name in wanted or ((match := PER_SEAT_COLUMN.match(name)) and match["measure"] in wanted)]
    return kept, condition


def _tidy(chunk: pd.DataFrame, cell: ManifestCell, seats: tuple[int, ...] | None = None,
          columns: list[str] | None = None) -> pd.DataFrame:
    """A chunk's games (one row per game, per-seat columns `score_0, score_1, ...`) as one row
    per game and seat (of `seats` only, when given), with the cell's description (its columns
    named in `columns` only, when given)."""
    import numpy as np
    import pandas as pd

    players = cell.players
    if "cell" not in chunk:  # the cell is the chunk's folder (logs.py), not one of its columns
        chunk.insert(0, "cell", cell.index)
    per_seat: dict[str, list[str]] = {}
    for column in chunk.columns:
        match = PER_SEAT_COLUMN.match(column)
        if match and int(match["seat"]) < players:
            per_seat.setdefault(match["measure"], []).append(column)
    per_seat = {measure: columns for measure, columns in per_seat.items() if len(columns) == players}
    seat_columns = {column for columns in per_seat.values() for column in columns}
    per_game = chunk[[column for column in chunk.columns if column not in seat_columns]]
    chosen = [seat for seat in range(players) if seats is None or seat in seats]
    seat_type = np.int8 if players <= np.iinfo(np.int8).max else np.int32  # the seat column's memory
    rows_of_seats = []
    for seat in chosen:
        rows = per_game.copy()
        rows["seat"] = seat_type(seat)
        for measure in per_seat:
            rows[measure] = chunk[f"{measure}_{seat}"].to_numpy()
        rows_of_seats.append(rows)
    tidy = pd.concat(rows_of_seats, ignore_index=True)  # seat 0's games, then seat 1's, ...
    if "win" in per_seat:
        winners = np.tile(chunk[per_seat["win"]].sum(axis=1).to_numpy(), len(chosen))
        tidy["win_share"] = np.divide(tidy["win"].to_numpy(), winners, out=np.zeros(len(tidy)), where=winners > 0)
        tidy["has_winner"] = winners > 0
    if "slot" in tidy:  # the seating slot that sat in the seat says who played it
        tidy["policy"] = np.asarray(cell.seats)[tidy["slot"].to_numpy()]
    if "end_reason" in tidy:
        reasons = np.asarray(cell.end_reasons + ["unknown"])
        codes = tidy["end_reason"].to_numpy()
        tidy["end_reason"] = reasons[np.where(codes < len(cell.end_reasons), codes, -1)]
    described = {name: getattr(cell, name) for name in DESCRIPTION_COLUMNS}
    for knob, value in cell.sweep_values.items():  # a per-seat list as its JSON text, as in `Run.cells`
        described[knob] = json.dumps(value) if isinstance(value, (list, dict)) else value
    tidy = tidy.assign(**{name: value for name, value in described.items()
                          if name not in tidy and (columns is None or name in columns)})
    return tidy if columns is None else tidy[[name for name in columns if name in tidy]]


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
    from simulator.options import check_backend, checked_flag, checked_jobs, checked_out, checked_path, jobs_or_every_core

    # the command line's checks of its options, with its messages, before anything is read or written
    if not isinstance(experiment, dict):
        checked_path(experiment, key="experiment", what="an experiment file's path or a document (a dict)")
    jobs, out = checked_jobs(jobs, key="jobs"), checked_out(out, key="out")
    check_backend(backend, scheduler, keys=("backend", "scheduler"))
    for name, flag in (("resume", resume), ("force", force), ("check", check), ("report", report), ("progress", progress)):
        checked_flag(flag, key=name)
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
    run_plan_to_the_end(plan, Path(out), text, source=source, jobs=jobs_or_every_core(jobs),
                        backend=backend, scheduler=scheduler, resume=resume, force=force, check=check,
                        progress=progress)
    if report:
        from simulator.report.build import build_report

        build_report(Path(out))
    return Run(out)
