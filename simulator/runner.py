"""Executes a plan's chunks in parallel: the run loop.

Backends: `threading` (the default: the numba kernels release the GIL, and one process loads
numba and the kernels once), joblib's `loky` (worker processes) and `dask` (an existing
dask.distributed cluster, via joblib's dask backend). Each worker plays
one chunk, summarizes it and writes its Parquet file and sidecar itself (rundir.py), so the parent
never holds game records and memory stays flat however many games a run has; the first worker
out of chunks draws the report's sample games (samples.py). The parent itself never loads a
game's kernels once they are in the cache (`_compile_kernels`).

A run holds the run folder's lock from start to end. A folder holding a different experiment is
never reused without `--force`, and a folder holding this experiment is continued only with
`--resume`: finished chunks that verify are skipped, bad ones set aside and played again; every
game is determined by its seed, so the result is the same as an uninterrupted run. Worker
processes die with the parent (SIGKILL included), a worker keeps the memory it frees for its next
chunk (worker_memory.py), worker threads abandon their chunks when a run
ends early (`_threads_stop_on_error`), SIGTERM ends a run like Ctrl-C, and a full disk or a
permission error ends it in one line that keeps every finished chunk and says how to resume.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from simulator.analysis.summary import CellTotals, summarize_columns
from simulator.config import PrecisionGames
from simulator.errors import WriteFailed, ZoosimError
from simulator.games import get_game
from simulator.games.base import batch_problem, source_module
from simulator.logs import record_columns, records_table
from simulator.options import check_backend
from simulator.plan import Chunk, Plan, deal_seeds
from simulator.processes import (
    ctrl_c_deferred, follow_parent, quiet_resource_tracker, terminate_on_sigterm, workers_block_ctrl_c,
)
from simulator.progress import CellWork, ProgressBar, cost_weight
from simulator.samples import draw_samples, read_samples, write_samples
from simulator.trajectories import cells_to_replay, record_trajectories
from simulator.rundir import (
    RunLock, chunk_identity, chunk_path, clear_run, prepare_run_dir, progress_path, record_session,
    remove_temporaries, remove_unfinished_chunks, resume_command, verified_chunks, write_chunk, write_manifest,
)
from simulator.worker_memory import keep_freed_memory

class ChunkFailed(ZoosimError):
    """A chunk raised: names its cell, chunk and seed so the game can be replayed."""


@dataclass
class RunSummary:
    run_dir: Path
    games_played: int
    games_total: int
    seconds: float
    chunks_skipped: int
    compile_seconds: float = 0.0  # of `seconds`: numba compiling kernels not yet in its cache


# A worker plays its chunk in sub-batches sized to take about SUB_BATCH_SECONDS each and notes
# its progress after each (progress.py shows it). Sub-batches play exactly the games one batch
# would (each game depends only on its seed and rotation, and the pieces are concatenated in
# order), so the logs do not depend on them.
SUB_BATCH_SECONDS = 0.5
FIRST_SUB_BATCH_GAMES = 64


def play_in_sub_batches(
    play: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
    seeds: np.ndarray,
    rotations: np.ndarray,
    granule: int,
    progress_file: Path,
    between: Callable[[], None] = lambda: None,
) -> dict[str, np.ndarray]:
    """`play(seeds, rotations)` over all games in sub-batches of whole deals (`granule` games),
    noting progress after each and calling `between()` (e.g. a check that the parent lives)."""
    parts, done, total = [], 0, len(seeds)
    size = granule * max(1, FIRST_SUB_BATCH_GAMES // granule)
    while done < total:
        started = time.perf_counter()
        stop = min(total, done + size)
        parts.append(play(seeds[done:stop], rotations[done:stop]))
        done = stop
        if done < total:
            _note(progress_file, done)
            between()
            grow = SUB_BATCH_SECONDS / max(time.perf_counter() - started, 1e-4)
            size = granule * max(1, round(size * min(grow, 8.0) / granule))
    progress_file.unlink(missing_ok=True)
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def _note(progress_file: Path, games: int) -> None:
    try:
        progress_file.parent.mkdir(parents=True, exist_ok=True)  # a cell's first chunks come before its folder
        progress_file.write_text(str(games))
    except OSError:
        pass  # progress is informative; a full disk is reported by the chunk's own write


def play_chunk(chunk: Chunk, run_dir: Path, check: bool = False, parent_pid: int | None = None) -> tuple[int, int, int, float]:
    """Play one chunk, summarize it and write its file and sidecar. Runs in a worker; with
    `parent_pid` (a local process pool) the worker ends when that parent dies.
    Returns (cell, chunk, games, seconds)."""
    with _chunk_in_play():
        return _play_chunk(chunk, run_dir, check, parent_pid)


def _play_chunk(chunk: Chunk, run_dir: Path, check: bool, parent_pid: int | None) -> tuple[int, int, int, float]:
    started = time.perf_counter()
    follow_parent(parent_pid)
    keep_freed_memory()  # once per process: its chunks reuse the memory the earlier ones freed
    cell = chunk.cell
    seeds, rotations = chunk.game_seeds_and_rotations()
    columns = play_in_sub_batches(
        lambda some_seeds, some_rotations: _play_games(chunk, some_seeds, some_rotations, check),
        seeds, rotations, cell.games_per_deal, progress_path(chunk_path(run_dir, cell.index, chunk.index)),
        between=lambda: _between_sub_batches(parent_pid),
    )
    if check:
        _raise_on_violation(chunk, columns, seeds, rotations)
    records, summary = _records_and_summary(chunk, columns, seeds, rotations)
    identity = chunk_identity(cell.describe(), chunk.index, seeds=seeds[::cell.games_per_deal])
    write_chunk(run_dir, identity, records_table(records), summary.to_json())
    return cell.index, chunk.index, chunk.games, time.perf_counter() - started


def _records_and_summary(chunk: Chunk, columns: dict, seeds, rotations) -> tuple[dict[str, np.ndarray], CellTotals]:
    """The chunk's record columns (logs.py) and their summary (analysis/summary.py)."""
    cell = chunk.cell
    records = record_columns(columns, first_game=chunk.first_game, games_per_deal=cell.games_per_deal, seeds=seeds,
                             rotations=rotations)
    return records, summarize_columns(records, cell.players, len(set(cell.seat_labels)) > 1, cell.games_per_deal)


# Set while a run of this process ends early (Ctrl-C, SIGTERM, a failed chunk): its worker
# threads, which cannot be killed, abandon their chunks at the next sub-batch; the run waits for
# them (`_IN_PLAY` counts the chunks in play in this process) before it lets go of the folder.
_RUN_ENDING = threading.Event()
_IN_PLAY = threading.Condition()
_in_play_count = 0


class _Abandoned(Exception):
    """A chunk given up between sub-batches because its run is ending."""


@contextlib.contextmanager
def _chunk_in_play():
    global _in_play_count
    with _IN_PLAY:
        _in_play_count += 1
    try:
        yield
    finally:
        with _IN_PLAY:
            _in_play_count -= 1
            _IN_PLAY.notify_all()


def _between_sub_batches(parent_pid: int | None) -> None:
    follow_parent(parent_pid)
    if _RUN_ENDING.is_set():
        raise _Abandoned()


def _play_games(chunk: Chunk, seeds, rotations, check: bool) -> dict:
    """The game's play_batch, its result checked against the contract where it arrives
    (base.batch_problem); whatever it raises or breaks comes back naming the cell, chunk and
    replay, in one line."""
    cell = chunk.cell
    game = get_game(cell.game)
    try:
        columns = game.play_batch(cell.params, cell.seat_policies(), seeds, rotations, check=check)
    except Exception as error:  # noqa: BLE001 - re-raised with what is needed to replay it
        raise _chunk_failed(chunk, f"{type(error).__name__}: {error}", seeds, rotations) from error
    problem = batch_problem(game, columns, len(seeds), cell.players, check=check)
    if problem is not None:
        raise _chunk_failed(chunk, f"game '{cell.game}' broke the game contract: {problem}", seeds, rotations)
    return columns


def _chunk_failed(chunk: Chunk, problem: str, seeds, rotations) -> ChunkFailed:
    cell = chunk.cell
    return ChunkFailed(f"cell {cell.index} ({cell.label}) chunk {chunk.index} failed: {problem}. "
                       f"Replay its first game with: {cell.replay_command(int(seeds[0]), int(rotations[0]))}")


@dataclass
class _WarmUpPlan:
    """What a run's warm-up compiles, and where (`_warm_up_plan`): each game's warm-ups (one
    chunk per kernel variant, with its warm marker: `_warm_up`), in a process per game
    (`games_apart`) or in this one (`games_here`), and the chunk summaries' kernels, which are
    the same for every game, once for the whole run (`_warm_up_summaries`): `summaries_marker`
    is their warm marker when they compile, else None, `summaries_apart` whether in a process of
    their own."""

    games_apart: list[list[tuple[Chunk, Path | None]]]
    games_here: list[list[tuple[Chunk, Path | None]]]
    summaries_marker: Path | None = None
    summaries_apart: bool = False


def _warm_up_plan(todo: list[Chunk], jobs: int, check: bool = False) -> _WarmUpPlan:
    """The warm-ups `todo` needs (see `_compile_kernels`): the first chunk of each game and
    kernel variant (base.Game.kernel_variant: with or without a search policy; `check`: the
    checked specialisation, under a marker of its own) whose warm marker is missing, and the
    chunk summaries' kernels unless their marker says they are cached. With `jobs` above 1, two
    or more games compile in processes of their own, one each, and the summaries in another
    whenever a game compiles too (never inside a game's process: with two games both would
    compile them)."""
    from simulator.games.kernel_cache import warm_marker

    first_chunks = {}
    for chunk in reversed(todo):
        first_chunks[chunk.cell.game, _kernel_variant(chunk, check)] = chunk
    by_game: dict[str, list[tuple[Chunk, Path | None]]] = {}
    for (name, variant), chunk in sorted(first_chunks.items()):
        marker = warm_marker(importlib.util.find_spec(source_module(get_game(name).play_batch)).origin, variant)
        if marker is None or not marker.exists():
            by_game.setdefault(name, []).append((chunk, marker))
    # Games outside simulator/games/ (plugins) have no marker and may be registered only in
    # this process: they always warm up here.
    apart = [warm_ups for warm_ups in by_game.values() if all(marker is not None for _, marker in warm_ups)]
    if jobs < 2 or len(apart) < 2:
        apart = []
    summaries = warm_marker(importlib.util.find_spec("simulator.analysis.summary_kernels").origin, "summaries")
    if summaries is not None and summaries.exists():
        summaries = None
    return _WarmUpPlan(apart, [warm_ups for warm_ups in by_game.values() if warm_ups not in apart], summaries,
                       summaries is not None and jobs >= 2 and bool(by_game))


def _kernel_variant(chunk: Chunk, check: bool) -> str:
    """The kernel specialisation `chunk` plays (base.Game.kernel_variant), "-checked" with `check`."""
    game = get_game(chunk.cell.game)
    return game.kernel_variant(name for name, _ in chunk.cell.seats) + ("-checked" if check else "")


def _compile_kernels(todo: list[Chunk], progress: bool, jobs: int, sample_cells: list,
                     check: bool = False, overlap: bool = False) -> "_WarmUps":
    """Play one game of the first cell of each game and kernel variant here, so that numba
    compiles those kernels once (and caches them) before the workers start, instead of once in
    every worker, and compile the chunk summaries' kernels once (`_warm_up_plan`); a game warmed
    up also draws the report's samples of its cells among `sample_cells` (the step API's
    kernels compile then, not after the last game). A warm-up whose warm marker says an earlier
    one left its kernels in the cache is skipped: the workers load them themselves, in parallel,
    and this process never pays numba's start-up (kernel_cache.py).
    When several games compile and `jobs` allows, each game compiles in a process of its own at
    once, writing the shared cache, and the summaries in one more, started first
    (`_warm_up_in_processes`); with `overlap` (worker threads of this process, which can wait on
    those processes) this returns as soon as one game and the summaries are compiled, and the
    chunks of the other games wait for theirs (`_WarmUps.chunk_task`), so a core whose game is
    compiled plays while another game still compiles. With `progress`, each kernel compiled is
    reported."""
    plan = _warm_up_plan(todo, jobs, check)
    summaries_apart = plan.summaries_marker if plan.summaries_apart else None
    warm = (_warm_up_in_processes(plan.games_apart, progress, jobs, sample_cells, check, summaries_apart)
            if plan.games_apart or summaries_apart else _WarmUps())
    try:
        if plan.summaries_marker is not None and not plan.summaries_apart:
            # first: their marker is written early, for another zoosim process that starts on
            # another core (tests/run-all.sh warms up one game per core)
            _warm_up_summaries(plan.summaries_marker, progress)
        for warm_ups in plan.games_here:
            name = warm_ups[0][0].cell.game
            warm.samples.update(_warm_up(warm_ups, progress, [cell for cell in sample_cells if cell.game == name],
                                         check))
        warm.wait(all_games=not overlap)
    except BaseException:
        warm.stop()
        raise
    return warm


def _warm_up(warm_ups: list[tuple[Chunk, Path | None]], progress: bool, sample_cells: list,
             check: bool = False, shared_terminal: bool = False,
             status_file: Path | None = None) -> dict[str, dict[str, str]]:
    """Play one game of each chunk (all of one game; the chunk summaries' kernels are
    `_warm_up_summaries`'), then write its warm marker; then draw the samples of `sample_cells`
    (of the same game) and return them. `status_file` receives the compile's status line
    (kernel_cache.compile_progress), for the parent's progress bar."""
    from simulator.games.kernel_cache import compile_progress

    game = warm_ups[0][0].cell.game
    with compile_progress(game, enabled=progress, shared_terminal=shared_terminal,
                          kernel_set=warm_up_kernel_set(warm_ups, check),
                          status_file=status_file):
        for chunk, marker in warm_ups:
            seeds, rotations = chunk.game_seeds_and_rotations()
            _play_games(chunk, seeds[:1], rotations[:1], check=check)
            if marker is not None:
                _touch_marker(marker)
        return draw_samples(sample_cells) if sample_cells else {}


def warm_up_kernel_set(warm_ups: list[tuple[Chunk, Path | None]], check: bool) -> str:
    """The name a game's warm-up compile is recorded under (kernel_cache.read_compile_record):
    what it compiles depends on its variants and on the policies seated (a learned policy
    compiles its evaluation's kernels too), so the name holds both."""
    seatings = ["+".join(sorted({name for name, _ in chunk.cell.seats})) for chunk, _ in warm_ups]
    return " ".join([warm_ups[0][0].cell.game] + [f"{_kernel_variant(chunk, check)}:{seating}"
                                                  for (chunk, _), seating in zip(warm_ups, seatings)])


def _warm_up_summaries(marker: Path, progress: bool, shared_terminal: bool = False) -> None:
    """Compile the chunk summaries' kernels (summary.compile_summary_kernels), then write their
    warm marker."""
    from simulator.analysis.summary import compile_summary_kernels
    from simulator.games.kernel_cache import compile_progress

    with compile_progress("chunk summary", enabled=progress, shared_terminal=shared_terminal, noun="kernels"):
        compile_summary_kernels()
    _touch_marker(marker)


def _touch_marker(marker: Path) -> None:
    with contextlib.suppress(OSError):  # an unwritable cache only costs the next run time
        marker.touch()


def _warm_up_in_processes(by_game: list[list[tuple[Chunk, Path | None]]], progress: bool, jobs: int,
                          sample_cells: list, check: bool = False, summaries: Path | None = None) -> "_WarmUps":
    """Start `_warm_up` of each game's chunks in a fresh process of its own, and, given their
    warm marker `summaries`, `_warm_up_summaries` first (it is short, and every game's chunks
    wait for it), up to `jobs` at once (numba compiles on one core per process; its cache files
    are written atomically, so processes share the cache folder safely), and return them under
    way. loky's executor, as joblib's loky backend: its processes are started afresh, not forked
    from this one, which may already run worker threads, and it pickles with cloudpickle (a
    game's params model may be a class pickle cannot name). The processes ignore Ctrl-C; this
    one answers it once they are done, as after compiling itself, or, while the games compiled
    first play, at once, ending them (`_WarmUps.stop`). They start with SIGINT blocked
    (`workers_block_ctrl_c`: loky starts every process of the pool at its first submit, and later
    ones from its manager thread, which that submit starts), so none still importing its modules
    prints a traceback of a Ctrl-C."""
    from joblib.externals.loky import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=min(jobs, len(by_game) + (summaries is not None)), initializer=signal.signal,
                               initargs=(signal.SIGINT, signal.SIG_IGN))
    status_dir = Path(tempfile.mkdtemp(prefix="zoosim-compiling-"))
    games = [warm_ups[0][0].cell.game for warm_ups in by_game]
    with workers_block_ctrl_c(starts_processes=True):
        summaries_compiled = None if summaries is None else pool.submit(_warm_up_summaries, summaries, progress, True)
        pending = {game: pool.submit(_warm_up, warm_ups, progress, [cell for cell in sample_cells if cell.game == game],
                                     check, True, status_dir / f"{game}.status")
                   for game, warm_ups in zip(games, by_game)}
    return _WarmUps(pending, pool, summaries_compiled, status_dir)


WARM_UP_POLL_SECONDS = 0.2  # how often a chunk waiting for its game's warm-up looks whether its run ends


class _WarmUps:
    """The kernel warm-ups of a run (`_compile_kernels`): the report samples they drew, and the
    warm-ups still compiling in processes of their own (`pending`, game -> future, and
    `summaries`, the chunk summaries' future) while the chunks of the games already compiled
    play; `status_dir` holds each pending game's compile status (`compiling`, for the progress
    bar). `seconds` is the wall time before the first game could play, compiling: a run's
    recorded time leaves it out, and counts the time after it, when games are played, even while
    another game still compiles on one core."""

    def __init__(self, pending: dict | None = None, pool=None, summaries=None, status_dir: Path | None = None):
        self.started = time.perf_counter()
        self.samples: dict[str, dict[str, str]] = {}
        self.pending = dict(pending or {})
        self.summaries = summaries
        self.pool = pool
        self.status_dir = status_dir
        self.ready: float | None = None  # when the first game could play

    @classmethod
    def none(cls) -> "_WarmUps":
        """No warm-up (nothing to play, or every kernel cached)."""
        warm = cls()
        warm.ready = warm.started
        return warm

    @property
    def seconds(self) -> float:
        return (self.ready or time.perf_counter()) - self.started

    def wait(self, all_games: bool) -> None:
        """Called once the warm-ups in this process are done: wait for the summaries' warm-up
        and every pending game's, or (not `all_games`) for the first one; take the samples of
        those done and raise the error of one that failed."""
        from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, wait

        if self.summaries is not None:
            self.summaries.result()
            self.summaries = None
        if self.pending:
            wait(self.pending.values(), return_when=ALL_COMPLETED if all_games else FIRST_COMPLETED)
        for game, future in list(self.pending.items()):
            if future.done():
                self.samples.update(future.result())
                del self.pending[game]
        if not self.pending and self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None
            self._remove_status_dir()
        self.ready = self.ready or time.perf_counter()

    def stop(self) -> None:
        """The run ends early: end the warm-ups still under way (numba writes each cache file
        atomically and the warm marker only after a complete warm-up, so nothing half-written
        remains)."""
        if self.pool is not None:
            self.pool.shutdown(wait=False, kill_workers=True)
            self.pool = None
        self._remove_status_dir()

    def compiling(self) -> list[str]:
        """One line per game still compiling in a process of its own: its compile status
        ("compiling GAME: kernel 80 of 187, about 30 s left"), the progress bar's note."""
        lines = []
        for game, future in list(self.pending.items()):
            if future.done():
                continue
            status = ""
            with contextlib.suppress(OSError):  # no kernel compiled yet, or the warm-ups just ended
                status = (self.status_dir / f"{game}.status").read_text(encoding="utf-8") if self.status_dir else ""
            lines.append(status or f"compiling {game}")
        return lines

    def _remove_status_dir(self) -> None:
        if self.status_dir is not None:
            shutil.rmtree(self.status_dir, ignore_errors=True)
            self.status_dir = None

    def ready_first(self, todo: list[Chunk]) -> list[Chunk]:
        """The chunks in play order: those of games compiled already first (a game's games do
        not depend on the order its chunks are played in)."""
        return sorted(todo, key=lambda chunk: chunk.cell.game in self.pending)

    def chunk_task(self, chunk: Chunk, run_dir: Path, check: bool, parent_pid: int | None):
        """The joblib task playing `chunk`: play_chunk, after its game's pending warm-up."""
        import joblib

        future = self.pending.get(chunk.cell.game)
        if future is None:
            return joblib.delayed(play_chunk)(chunk, run_dir, check, parent_pid)
        return joblib.delayed(_play_chunk_when_compiled)(future, chunk, run_dir, check, parent_pid)

    def trajectories_task(self, cell, run_dir: Path, parent_pid: int | None):
        """The joblib task replaying `cell`'s trajectory sample, after its game's pending warm-up."""
        import joblib

        return joblib.delayed(replay_trajectories)(self.pending.get(cell.game), cell, run_dir, parent_pid)

    def samples_task(self, cells: list):
        """The joblib task that draws the samples of `cells` and collects those of the pending
        warm-ups; None when there is nothing to draw or collect."""
        import joblib

        if self.pending:
            return joblib.delayed(_draw_samples)(cells, list(self.pending.values()))
        return joblib.delayed(_draw_samples)(cells) if cells else None


def _play_chunk_when_compiled(warm_up, chunk: Chunk, run_dir: Path, check: bool, parent_pid: int | None):
    """play_chunk once `warm_up` (the future of the chunk's game's warm-up) is done (a worker
    thread: the future lives in this process); abandoned if the run ends meanwhile."""
    _wait_for_warm_ups([warm_up])
    return play_chunk(chunk, run_dir, check, parent_pid)


@dataclass
class _Replayed:
    """A cell's trajectory sample replayed and kept (trajectories.py)."""

    cell: int
    games: int


def replay_trajectories(warm_up, cell, run_dir: Path, parent_pid: int | None) -> _Replayed:
    """Replay a cell's trajectory sample and write its file (a worker; once `warm_up`, the
    future of the game's warm-up, if any, is done); abandoned between games if the run ends."""
    if warm_up is not None:
        _wait_for_warm_ups([warm_up])
    with _chunk_in_play():
        follow_parent(parent_pid)
        return _Replayed(cell.index, record_trajectories(cell, run_dir, between=lambda: _between_sub_batches(parent_pid)))


def _wait_for_warm_ups(warm_ups: list) -> list[dict[str, dict[str, str]]]:
    """The results of the warm-up futures (their samples), raising _Abandoned if the run ends
    while they compile."""
    from concurrent.futures import wait

    while wait(warm_ups, timeout=WARM_UP_POLL_SECONDS).not_done:
        if _RUN_ENDING.is_set():
            raise _Abandoned()
    return [future.result() for future in warm_ups]


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
    backend: str = "threading",
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    check: bool = False,
    progress: bool = True,
    meanwhile: Callable[[], Any] | None = None,
) -> RunSummary:
    """Play every unfinished chunk of the plan into `run_dir`, holding its lock.

    `meanwhile` is started in a background thread when the first chunk is finished: by then the
    kernels are loaded and every core is playing, so what it does (the CLI imports the report's
    libraries) delays neither the start nor the end."""
    run_dir = Path(run_dir)
    # Everything that can fail on the user's input fails here, before anything is written.
    with backend_session(backend, scheduler):
        skipped = prepare_run_dir(run_dir, plan, resume=resume, force=force)
        try:
            with RunLock(run_dir), terminate_on_sigterm():
                return _play_plan(plan, run_dir, experiment_text, source, jobs, backend, force, check, progress, skipped,
                                  meanwhile)
        except OSError as error:
            raise WriteFailed(error.strerror or str(error), str(run_dir), resume_command(source, run_dir)) from None


def _play_plan(plan: Plan, run_dir: Path, experiment_text: str, source: str | None, jobs: int, backend: str,
               force: bool, check: bool, progress: bool, skipped: int, meanwhile: Callable[[], Any] | None) -> RunSummary:
    import joblib

    if force:
        clear_run(run_dir)
    write_manifest(run_dir, plan, experiment_text, source)
    remove_temporaries(run_dir)
    todo: list[Chunk] = []
    for cell in plan.cells:
        done = verified_chunks(run_dir, cell.describe(), set_aside=True, deal_seeds=deal_seeds)
        todo += [chunk for chunk in cell.all_chunks() if chunk.index not in done]
    games_todo = sum(chunk.games for chunk in todo)
    if progress:
        print(f"{plan.experiment.name}: {len(plan.cells)} cell(s), {plan.games:,} games "
              f"({games_todo:,} to play) -> {run_dir}", file=sys.stderr)
    started = time.perf_counter()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    parent_pid = None if backend == "dask" else os.getpid()
    played, bar, warm = 0, None, _WarmUps.none()
    samples_needed, samples = bool(todo) and read_samples(run_dir, plan.run_hash) is None, {}
    _RUN_ENDING.clear()
    if backend == "loky":
        quiet_resource_tracker()
    try:
        with joblib.Parallel(n_jobs=jobs, backend=None if backend == "dask" else backend,
                             return_as="generator_unordered") as parallel, _threads_stop_on_error():
            starts_processes = backend == "loky" and jobs > 1
            if todo:  # workers start and load the game modules while this process prepares the kernels
                games = sorted({chunk.cell.game for chunk in todo})
                with ctrl_c_deferred(), workers_block_ctrl_c(starts_processes):
                    warming = parallel(joblib.delayed(_load_games)(games) for _ in range(min(jobs, len(todo))))
                with ctrl_c_deferred():
                    # with worker threads, the games compiled first play while the others compile
                    warm = _compile_kernels(todo, progress, jobs, plan.cells if samples_needed else [], check,
                                            overlap=backend == "threading")
                    samples = warm.samples
                for _ in warming:
                    pass
            bar = ProgressBar(run_dir, _cell_work(plan, todo), plan.experiment.name, progress, compiling=warm.compiling)
            tasks = [warm.chunk_task(chunk, run_dir, check, parent_pid) for chunk in warm.ready_first(todo)]
            # each cell's trajectory sample not yet kept, after the chunks (it needs none of them)
            tasks += [warm.trajectories_task(cell, run_dir, parent_pid) for cell in cells_to_replay(plan, run_dir)]
            to_draw = [cell for cell in plan.cells if cell.study not in samples and cell.game not in warm.pending
                       ] if samples_needed else []
            samples_task = warm.samples_task(to_draw) if samples_needed else None
            if samples_task is not None:
                # Last in the queue: the first worker out of chunks (its kernels loaded) draws the
                # report's sample games the warm-up did not draw while the others finish theirs.
                tasks.append(samples_task)
            elif samples_needed:
                write_samples(run_dir, plan.run_hash, _in_study_order(plan, samples))
            with workers_block_ctrl_c(starts_processes):  # the workers start here when only replays are left
                results = parallel(tasks)
            for result in results:
                if isinstance(result, _Samples):
                    write_samples(run_dir, plan.run_hash, _in_study_order(plan, {**samples, **result.samples}))
                    continue
                if isinstance(result, _Replayed):
                    continue
                if meanwhile is not None and not played:
                    threading.Thread(target=meanwhile, daemon=True).start()
                cell, _, games, seconds = result
                played += games
                bar.chunk_done(cell, games, seconds)
    except BaseException:
        warm.stop()
        if bar is not None:
            bar.close()
        _cleanup_after_failure(run_dir, started_at, time.perf_counter() - started - warm.seconds, played, jobs,
                               backend, warm.seconds)
        raise
    warm.wait(all_games=True)  # done already: every chunk of its games waited for it
    compile_seconds = warm.seconds
    bar.close()
    record_session(run_dir, started_at, time.perf_counter() - started - compile_seconds, played, jobs, backend,
                   compile_seconds)
    return RunSummary(run_dir, played, plan.games, time.perf_counter() - started, skipped, compile_seconds)


def _cell_work(plan: Plan, todo: list[Chunk]) -> dict[int, CellWork]:
    """The progress bar's view of each cell: its games, those played earlier, its cost weight and
    kind (its game and seats)."""
    to_play: dict[int, int] = {}
    for chunk in todo:
        to_play[chunk.cell.index] = to_play.get(chunk.cell.index, 0) + chunk.games
    return {cell.index: CellWork(cell.games, cell.games - to_play.get(cell.index, 0), cost_weight(cell),
                                 (cell.game, repr(cell.seats)))
            for cell in plan.cells}


# When a run stops early (Ctrl-C, an error), joblib warns about the results it had collected
# and nobody read; the run already said what was kept, so the warning is only noise.
warnings.filterwarnings("ignore", message=r"\d+ tasks (have been successfully executed|which were still being processed)",
                        category=UserWarning, module=r"joblib\.parallel")


@contextlib.contextmanager
def _threads_stop_on_error():
    """Inside the pool's block: when the run ends early, have this process's worker threads
    abandon their chunks and wait until they have (joblib does not wait for threads), so that
    nothing writes into the folder once the run has let go of it. Worker processes are stopped
    by joblib itself."""
    try:
        yield
    except BaseException:
        _RUN_ENDING.set()
        with _IN_PLAY:
            _IN_PLAY.wait_for(lambda: _in_play_count == 0)
        raise


@dataclass
class _Samples:
    samples: dict[str, dict[str, str]]


def _draw_samples(cells: list, warm_ups: list = ()) -> _Samples:
    """The samples of `cells`, and those drawn by the warm-ups `warm_ups` (futures in this
    process) once they are done."""
    samples: dict[str, dict[str, str]] = {}
    for drawn in _wait_for_warm_ups(list(warm_ups)) if warm_ups else ():
        samples.update(drawn)
    return _Samples({**samples, **(draw_samples(cells) if cells else {})})


def _in_study_order(plan: Plan, samples: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """Samples drawn in pieces (warm-ups, a worker), in the order draw_samples gives them."""
    return {study: samples[study] for study in dict.fromkeys(cell.study for cell in plan.cells) if study in samples}


def _load_games(names: list[str]) -> None:
    """Run in a starting worker: import the game modules (compiling stays the parent's job)."""
    for name in names:
        get_game(name)


def _cleanup_after_failure(run_dir: Path, started_at: str, seconds: float, played: int, jobs: int, backend: str,
                           compile_seconds: float) -> None:
    """Record the session and remove temporaries and unfinished chunks of the stopped workers,
    never hiding the error that ended the run (on a full disk these writes fail too)."""
    try:
        remove_temporaries(run_dir)
        remove_unfinished_chunks(run_dir)
        record_session(run_dir, started_at, seconds, played, jobs, backend, compile_seconds)
    except OSError:
        pass


def run_experiment(plan: Plan, run_dir: Path, experiment_text: str, **options: Any) -> RunSummary:
    """Run a plan; in precision mode, after the first round (the pilot: `games.start`) grow every
    cell whose shown seat intervals are not yet as narrow as asked to the games its pilot says
    are needed (`precision_games_needed`), and again until they are (or the cap), checked from
    the chunks' summaries. Then, with a climbing ladder, climb: judge, add the next rungs, play
    them, until every climb has stopped (simulator/climb.py)."""
    from simulator.climb import climb_once, start_climbs

    precision = isinstance(plan.experiment.games, PrecisionGames)
    climbing = any(study.climb is not None for study in plan.experiment.studies)
    if not precision and not climbing:
        return run_plan(plan, run_dir, experiment_text, **options)
    if climbing:
        start_climbs(plan)
    prepare_run_dir(Path(run_dir), plan, resume=options.get("resume", False), force=options.get("force", False))
    with RunLock(run_dir):
        summary = run_plan(plan, run_dir, experiment_text, **options)
        options = {**options, "resume": True, "force": False}
        if precision:
            summary = _grow_to_precision(plan, run_dir, experiment_text, summary, options)
        while climbing:
            climbing = bool(climb_once(plan, Path(run_dir), progress=options.get("progress", True)))
            if climbing:
                summary = _more(summary, run_plan(plan, run_dir, experiment_text, **options))
            else:  # the last judgment: the manifest keeps why each climb stopped
                write_manifest(Path(run_dir), plan, experiment_text, options.get("source"))
    return summary


def _grow_to_precision(plan: Plan, run_dir: Path, experiment_text: str, summary: RunSummary,
                       options: dict[str, Any]) -> RunSummary:
    """Precision mode's rounds after the pilot (run_experiment)."""
    from simulator.analysis.summary import merged_summaries, precision_games_needed
    from simulator.plan import grow_cell

    target = plan.experiment.games.until.halfwidth
    unsettled = {cell.index for cell in plan.cells}  # cells whose games changed since the last look
    while unsettled:
        grown = {}
        for cell in plan.cells:
            if cell.index not in unsettled:
                continue
            totals = merged_summaries(Path(run_dir), cell.describe())
            needed = precision_games_needed(totals, target)
            bigger = None if needed <= totals.games else grow_cell(cell, needed)
            if bigger is not None:
                grown[cell.index] = bigger
        unsettled = set(grown)
        if not grown:
            break
        plan.cells = [grown.get(cell.index, cell) for cell in plan.cells]
        summary = _more(summary, run_plan(plan, run_dir, experiment_text, **options))
    return summary


def _more(summary: RunSummary, more: RunSummary) -> RunSummary:
    """A run's summary with a later round's (precision growth, a climb) added."""
    return RunSummary(summary.run_dir, summary.games_played + more.games_played, more.games_total,
                      summary.seconds + more.seconds, summary.chunks_skipped,
                      summary.compile_seconds + more.compile_seconds)


# How long zoosim waits for a dask scheduler to answer (connecting and its handshake together).
SCHEDULER_WAIT_SECONDS = 10
_dask_session: list[str] = []  # the scheduler of the backend_session in force, if any


@contextlib.contextmanager
def backend_session(backend: str, scheduler: str | None):
    """Where games run, for everything inside: the options checked (`options.check_backend`) and,
    for dask, the scheduler reached within SCHEDULER_WAIT_SECONDS. A command that plays several
    runs (train, tune) opens one session before it writes anything, so an unreachable cluster is
    refused before the first file; the runs inside reuse it."""
    check_backend(backend, scheduler)
    if backend != "dask" or _dask_session == [scheduler]:
        yield
        return
    import joblib

    client = _connect(scheduler)
    _dask_session.append(scheduler)
    try:
        with client, joblib.parallel_backend("dask"):
            yield
    finally:
        _dask_session.pop()


def _connect(scheduler: str):
    """A dask Client of `scheduler`, or a one-line refusal: nothing listening, a listener that
    never answers (the wait is bounded here: dask's own timeout does not cover its handshake), or
    one that answers but not as a dask scheduler (a dashboard port's HTTP reply, read as dask's
    frame lengths, asks for exabytes)."""
    from dask.distributed import Client

    outcome: dict[str, Any] = {}

    def connect() -> None:
        try:
            outcome["client"] = Client(scheduler, timeout=f"{SCHEDULER_WAIT_SECONDS}s")
        except BaseException as error:  # noqa: BLE001 - reported below, in the calling thread
            outcome["error"] = error

    thread = threading.Thread(target=connect, name="zoosim-dask-connect", daemon=True)
    thread.start()
    thread.join(SCHEDULER_WAIT_SECONDS + 1)
    where = f"the dask scheduler at '{scheduler}'"
    if thread.is_alive():  # left behind as a daemon thread: it cannot be cancelled
        raise ZoosimError(f"{where} did not answer within {SCHEDULER_WAIT_SECONDS} s (is it a dask "
                          "scheduler's address, port 8786 by default, not its dashboard's?)", key="--scheduler")
    error = outcome.get("error")
    if isinstance(error, MemoryError):
        raise ZoosimError(f"{where} answered, but not as a dask scheduler (its dashboard, port 8787 "
                          "by default, or another service?)", key="--scheduler")
    if error is not None:
        raise ZoosimError(f"cannot reach {where}: {str(error) or type(error).__name__}", key="--scheduler")
    return outcome["client"]
