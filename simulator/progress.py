"""Progress of a run in games, updated while chunks are in play, for every backend.

A worker plays its chunk in sub-batches sized to take about `SUB_BATCH_SECONDS` each
(`play_in_sub_batches`) and after each writes how many games it has played to the chunk's
progress file (`rundir.progress_path`). The parent's `ProgressBar` polls those files (local
processes, threads and dask workers all share the run folder) and shows finished plus in-play
games, so the bar moves and its estimate holds even when one chunk takes many seconds.
Sub-batches play exactly the games one batch would (each game depends only on its seed and
rotation, and the pieces are concatenated in order), so the logs do not depend on them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable

import numpy as np

from simulator.rundir import LOGS_DIR

SUB_BATCH_SECONDS = 0.5
FIRST_SUB_BATCH_GAMES = 64
POLL_SECONDS = 0.5


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


class ProgressBar:
    """A tqdm bar over a run's games: finished chunks (`chunk_done`) plus in-play progress files,
    refreshed every POLL_SECONDS by a background thread."""

    def __init__(self, run_dir: Path, total: int, finished: int, description: str, enabled: bool):
        from tqdm import tqdm

        self.run_dir = Path(run_dir)
        self.finished = finished
        self.bar = tqdm(total=total, initial=finished, unit="game", unit_scale=True, disable=not enabled,
                        desc=description, smoothing=0.1)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True) if enabled else None
        if self.thread:
            self.thread.start()

    def chunk_done(self, games: int) -> None:
        self.finished += games

    def close(self) -> None:
        if self.thread:
            self.stop.set()
            self.thread.join()
        self._show(self.finished)
        self.bar.close()

    def _poll(self) -> None:
        while not self.stop.wait(POLL_SECONDS):
            self._show(self.finished + self._in_play())

    def _in_play(self) -> int:
        games = 0
        for path in self.run_dir.glob(f"{LOGS_DIR}/cell=*/.*.progress"):
            try:
                games += int(path.read_text() or 0)
            except (OSError, ValueError):
                pass  # finished or being rewritten just now
        return games

    def _show(self, games: int) -> None:
        if games > self.bar.n:
            self.bar.update(games - self.bar.n)
