"""Executes a plan's chunks in parallel and keeps the run folder consistent.

Backends: joblib's `loky` (processes, the default), `threading` (numba kernels release the GIL)
and `dask` (an existing dask.distributed cluster, via joblib's dask backend). Each worker plays
one chunk and writes its Parquet file itself, so the parent never holds game records and memory
stays flat however many games a run has.

The run folder's `manifest.json` records the run hash; a folder holding a different experiment
is never reused without `--force`, and a folder holding this experiment is continued only with
`--resume` (finished chunks are skipped; every game is determined by its seed, so the result is
the same as an uninterrupted run). `run.json` accumulates wall time and settings of each session.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from simulator import __version__
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.logs import chunk_path, finished_chunks, records_table, remove_temporaries, write_table_atomic
from simulator.config import PrecisionGames
from simulator.plan import Chunk, Plan

BACKENDS = ("loky", "threading", "dask")
MANIFEST = "manifest.json"
RUN_INFO = "run.json"


class ChunkFailed(ZoosimError):
    """A chunk raised: names its cell, chunk and seed so the game can be replayed."""


@dataclass
class RunSummary:
    run_dir: Path
    games_played: int
    games_total: int
    seconds: float
    chunks_skipped: int


def prepare_run_dir(run_dir: Path, plan: Plan, *, resume: bool, force: bool) -> int:
    """Check (before writing anything) that the folder may hold this run; returns chunks done.

    Creates the folder and writes the manifest only when every check has passed.
    """
    run_dir = Path(run_dir)
    manifest_path = run_dir / MANIFEST
    if run_dir.exists() and not run_dir.is_dir():
        raise ZoosimError("output path exists and is not a folder", file=str(run_dir))
    existing = _read_manifest(manifest_path)
    done = 0
    if existing is not None and not force:
        if existing.get("run_hash") != plan.run_hash:
            raise ZoosimError(
                f"holds a different experiment (hash {existing.get('run_hash')}, this one is "
                f"{plan.run_hash}); choose another --out or pass --force to replace it",
                file=str(run_dir),
            )
        done = sum(len(finished_chunks(run_dir, cell.index)) for cell in plan.cells)
        if not resume:
            raise ZoosimError(
                f"already holds this experiment ({done} of {len(plan.chunks())} chunks done); "
                "pass --resume to continue it or --force to start over",
                file=str(run_dir),
            )
    elif existing is None and run_dir.is_dir() and any(run_dir.iterdir()) and not force:
        raise ZoosimError(
            "is not empty and holds no zoosim run; choose another --out or pass --force",
            file=str(run_dir),
        )
    _check_writable(run_dir)
    if force and run_dir.is_dir():
        for name in ("logs", MANIFEST, RUN_INFO, "report.html", "experiment.yaml"):
            target = run_dir / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        done = 0
    return done


def _check_writable(run_dir: Path) -> None:
    probe = run_dir
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ZoosimError(f"cannot write here ({probe} is not a writable folder)", file=str(run_dir))


def _read_manifest(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ZoosimError(f"unreadable manifest ({error}); pass --force to start over", file=str(path)) from None


def write_manifest(run_dir: Path, plan: Plan, experiment_text: str, source: str | None) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "zoosim_version": __version__,
        "run_hash": plan.run_hash,
        "experiment": plan.experiment.model_dump(mode="json"),
        "experiment_file": source,
        "cells": [cell.describe() for cell in plan.cells],
    }
    _write_json_atomic(run_dir / MANIFEST, manifest)
    (run_dir / "experiment.yaml").write_text(experiment_text, encoding="utf-8")


def _write_json_atomic(path: Path, data: Any) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(data, indent=2, sort_keys=True, default=str))
    os.replace(temporary, path)


def play_chunk(chunk: Chunk, run_dir: Path, check: bool = False) -> tuple[int, int, int, float]:
    """Play one chunk and write its file. Runs in a worker. Returns (cell, chunk, games, seconds)."""
    started = time.perf_counter()
    cell = chunk.cell
    seeds, rotations = chunk.game_seeds_and_rotations()
    columns = _play_games(chunk, seeds, rotations, check)
    if check:
        _raise_on_violation(chunk, columns, seeds, rotations)
    table = records_table(
        columns,
        cell_index=cell.index,
        first_game=chunk.first_game,
        games_per_deal=cell.games_per_deal,
        seeds=seeds,
        rotations=rotations,
    )
    write_table_atomic(table, chunk_path(run_dir, cell.index, chunk.index))
    return cell.index, chunk.index, chunk.games, time.perf_counter() - started


def _play_games(chunk: Chunk, seeds, rotations, check: bool) -> dict:
    """The game's play_batch; whatever it raises comes back naming the cell, chunk and replay."""
    cell = chunk.cell
    try:
        return get_game(cell.game).play_batch(cell.params, cell.seat_policies(), seeds, rotations, check=check)
    except Exception as error:  # noqa: BLE001 - re-raised with what is needed to replay it
        raise ChunkFailed(
            f"cell {cell.index} ({cell.label}) chunk {chunk.index} failed: "
            f"{type(error).__name__}: {error}. Replay its first game with: "
            f"{cell.replay_command(int(seeds[0]), int(rotations[0]))}"
        ) from error


def _compile_kernels(todo: list[Chunk], progress: bool) -> None:
    """Play one game of each game's first cell here, so that numba compiles the kernels once
    (and caches them) before the workers start, instead of once in every worker; afterwards
    this only loads the cache. With `progress`, each kernel compiled is reported (nothing when
    the cache is warm)."""
    from simulator.games.kernel_cache import compile_progress

    first_chunks = {chunk.cell.game: chunk for chunk in reversed(todo)}
    for name, chunk in first_chunks.items():
        seeds, rotations = chunk.game_seeds_and_rotations()
        with compile_progress(name, enabled=progress):
            _play_games(chunk, seeds[:1], rotations[:1], check=False)


def _raise_on_violation(chunk: Chunk, columns: dict, seeds, rotations) -> None:
    cell = chunk.cell
    bad = np.flatnonzero(columns["check_violations"])
    if len(bad) == 0:
        return
    first = int(bad[0])
    names = get_game(cell.game).violation_names
    code = int(columns["first_violation"][first])
    name = names[code] if 0 <= code < len(names) else f"code {code}"
    raise ChunkFailed(
        f"cell {cell.index} ({cell.label}) chunk {chunk.index}: {len(bad)} game(s) broke a rule "
        f"invariant, first game {chunk.first_game + first} ({name}). Replay it with: "
        f"{cell.replay_command(int(seeds[first]), int(rotations[first]))}"
    )


def run_plan(
    plan: Plan,
    run_dir: Path,
    experiment_text: str,
    *,
    source: str | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    check: bool = False,
    progress: bool = True,
) -> RunSummary:
    """Play every unfinished chunk of the plan into `run_dir`."""
    import joblib
    from tqdm import tqdm

    if backend not in BACKENDS:
        raise ZoosimError(f"unknown backend '{backend}' (allowed: {', '.join(BACKENDS)})")
    run_dir = Path(run_dir)
    # Everything that can fail on the user's input fails here, before anything is written.
    with _backend_context(backend, scheduler):
        skipped = prepare_run_dir(run_dir, plan, resume=resume, force=force)
        write_manifest(run_dir, plan, experiment_text, source)
        remove_temporaries(run_dir)
        todo: list[Chunk] = []
        for cell in plan.cells:
            done = finished_chunks(run_dir, cell.index)
            todo += [chunk for chunk in cell.all_chunks() if chunk.index not in done]
        games_todo = sum(chunk.games for chunk in todo)
        if progress:
            print(f"{plan.experiment.name}: {len(plan.cells)} cell(s), {plan.games:,} games "
                  f"({games_todo:,} to play) -> {run_dir}", file=sys.stderr)
        started = time.perf_counter()
        started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        if todo:
            _compile_kernels(todo, progress)
        bar = tqdm(total=plan.games, initial=plan.games - games_todo, unit="game", unit_scale=True,
                   disable=not progress, desc=plan.experiment.name, smoothing=0.1)
        played = 0
        try:
            parallel = joblib.Parallel(
                n_jobs=jobs, backend=None if backend == "dask" else backend, return_as="generator_unordered"
            )
            for _, _, games, _ in parallel(joblib.delayed(play_chunk)(c, run_dir, check) for c in todo):
                played += games
                bar.update(games)
        finally:
            bar.close()
            _record_session(run_dir, started_at, time.perf_counter() - started, played, jobs, backend)
    return RunSummary(run_dir, played, plan.games, time.perf_counter() - started, skipped)


def run_experiment(plan: Plan, run_dir: Path, experiment_text: str, **options: Any) -> RunSummary:
    """Run a plan; in precision mode, keep doubling the games of every cell whose seat win rates
    are not yet as precise as asked (anytime-valid intervals, checked after each round)."""
    from simulator.analysis.tables import precision_halfwidth, summarize_cell
    from simulator.plan import grow_cell

    summary = run_plan(plan, run_dir, experiment_text, **options)
    precision = plan.experiment.games
    if not isinstance(precision, PrecisionGames):
        return summary
    target = precision.model_dump()
    options = {**options, "resume": True, "force": False}
    unsettled = {cell.index for cell in plan.cells}  # cells whose games changed since the last look
    while unsettled:
        grown = {}
        for cell in plan.cells:
            if cell.index not in unsettled:
                continue
            totals = summarize_cell(Path(run_dir), cell.describe())
            precise = precision_halfwidth(totals.share_sum, totals.rated_games, target) <= precision.until.halfwidth
            bigger = None if precise else grow_cell(cell)
            if bigger is not None:
                grown[cell.index] = bigger
        unsettled = set(grown)
        if not grown:
            return summary
        plan.cells = [grown.get(cell.index, cell) for cell in plan.cells]
        more = run_plan(plan, run_dir, experiment_text, **options)
        summary = RunSummary(Path(run_dir), summary.games_played + more.games_played, more.games_total,
                             summary.seconds + more.seconds, summary.chunks_skipped)


def _backend_context(backend: str, scheduler: str | None):
    import contextlib

    import joblib

    if backend != "dask":
        if scheduler:
            raise ZoosimError("--scheduler is only used with --backend dask")
        return contextlib.nullcontext()
    try:
        from dask.distributed import Client
    except ImportError:
        raise ZoosimError("the dask backend needs the optional extra: pip install 'zoosim[dask]'") from None
    if not scheduler:
        raise ZoosimError("--backend dask needs --scheduler ADDRESS (e.g. tcp://10.0.0.5:8786)")
    try:
        client = Client(scheduler, timeout="5s")
    except (OSError, TimeoutError, ValueError) as error:
        raise ZoosimError(f"cannot reach the dask scheduler at '{scheduler}': {error}") from None
    stack = contextlib.ExitStack()
    stack.enter_context(client)
    stack.enter_context(joblib.parallel_backend("dask"))
    return stack


def _record_session(run_dir: Path, started_at: str, seconds: float, games: int, jobs: int, backend: str) -> None:
    path = run_dir / RUN_INFO
    info = json.loads(path.read_text()) if path.exists() else {"sessions": []}
    info["sessions"].append(
        {
            "started": started_at,
            "seconds": round(seconds, 3),
            "games_played": games,
            "jobs": jobs,
            "backend": backend,
            "machine": machine_description(),
        }
    )
    _write_json_atomic(path, info)


def machine_description() -> str:
    return f"{platform.node()} · {platform.system()} {platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}"


def read_manifest(run_dir: Path) -> dict[str, Any]:
    manifest = _read_manifest(Path(run_dir) / MANIFEST)
    if manifest is None:
        raise ZoosimError("not a zoosim run folder (no manifest.json)", file=str(run_dir))
    return manifest


def read_run_info(run_dir: Path) -> dict[str, Any]:
    path = Path(run_dir) / RUN_INFO
    return json.loads(path.read_text()) if path.exists() else {"sessions": []}
