"""Progress of a run in games, updated while chunks are in play, for every backend.

A worker plays its chunk in sub-batches (runner.play_in_sub_batches) and after each writes how
many games it has played to the chunk's progress file (`rundir.progress_path`). The parent's
`ProgressBar` polls those files (local processes, threads and dask workers all share the run
folder) and shows finished plus in-play games, so the bar moves and its estimate holds even when
one chunk takes many seconds.
"""

from __future__ import annotations

import threading
from pathlib import Path


from simulator.rundir import LOGS_DIR

POLL_SECONDS = 0.5


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
