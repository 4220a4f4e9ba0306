"""A live run: one cell's deals played in order on warm engines in this process, their seat win
shares followed by confidence sequences (analysis/anytime.py) until the verdict is decided at the
margin or the run is stopped.

The games are the plan's: chunk c of the cell plays its deal seeds in every rotation, exactly as
`zoosim run` plays them (plan.Chunk.game_seeds_and_rotations), cut into sub-batches of whole deals
that `jobs` threads play at once through the game's play_batch (numba kernels release the
interpreter lock, so threads use every core, and the kernels stay loaded between runs). Results
are taken in deal order, so the sequences and the games counted are always the cell's first
`deals` deals: saving them as `games: deals x rotations` replays the same games (a chunk's seeds
are a prefix-stable draw, plan.deal_seeds).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from simulator.analysis.anytime import LIVE_CONFIDENCE, deal_shares, live_verdict, margin_sequences
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import batch_problem
from simulator.plan import Cell

# A sub-batch is sized to take about this long on one thread, so the view moves several times a
# second and the stop comes soon after the decision.
SUB_BATCH_SECONDS = 0.15
FIRST_SUB_BATCH_DEALS = 16
MAX_GROWTH = 4.0
# A pinned result and the current one are compared with each side's sequences at this level, so
# that their differences hold at LIVE_CONFIDENCE jointly (union bound over the two sides).
PAIRED_CONFIDENCE = 1.0 - (1.0 - LIVE_CONFIDENCE) / 2
# How many sub-batches per thread are in flight ahead of the one being read.
AHEAD_PER_JOB = 2


@dataclass
class LiveState:
    """What the page shows of a live run (a snapshot; numbers as plain Python values)."""

    status: str  # "running", "decided", "stopped", "finished" (the cap), "failed"
    games: int
    deals: int
    seconds: float
    shares: list[float]
    lows: list[float]
    highs: list[float]
    verdict: str
    paired_lows: list[float]  # the sequences at PAIRED_CONFIDENCE, for comparisons
    paired_highs: list[float]
    error: str = ""

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "games_per_second": self.games_per_second}


def warm_up(game_name: str, cell: Cell) -> None:
    """Play one game of the cell, so its kernels are loaded (compiled once, into the cache, if
    needed) before the designer presses Play."""
    chunk = cell.chunk(0)
    seeds, rotations = chunk.game_seeds_and_rotations()
    get_game(game_name).play_batch(cell.params, cell.seat_policies(), seeds[:1], rotations[:1], check=False)


class LiveRun:
    """Plays `cell` on `jobs` threads, following its seats' confidence sequences at `margin` (a
    share); `snapshot()` may be read from any thread at any time."""

    def __init__(self, cell: Cell, margin: float, jobs: int):
        self.cell, self.margin, self.jobs = cell, margin, max(1, jobs)
        self.sequences = margin_sequences(cell.players, margin)
        self.paired = margin_sequences(cell.players, margin, PAIRED_CONFIDENCE)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._status, self._error = "running", ""
        self._started = time.perf_counter()
        self._ended: float | None = None
        self._thread = threading.Thread(target=self._run, name="zoosim-studio-live", daemon=True)

    def start(self) -> "LiveRun":
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the run to stop and wait until it has (the deals already read stay counted)."""
        self._stop.set()
        self._thread.join()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def snapshot(self) -> LiveState:
        with self._lock:
            sequences = self.sequences
            deals = sequences.deals
            shares = sequences.means.tolist() if deals else [None] * self.cell.players
            verdict = live_verdict(sequences.low, sequences.high, self.margin) if deals else "undecided"
            end = self._ended if self._ended is not None else time.perf_counter()
            return LiveState(self._status, deals * self.cell.games_per_deal, deals, end - self._started, shares,
                             sequences.low.tolist(), sequences.high.tolist(), verdict, self.paired.low.tolist(),
                             self.paired.high.tolist(), self._error)

    def _run(self) -> None:
        game = get_game(self.cell.game)
        seat_policies = self.cell.seat_policies()
        status = "finished"
        try:
            with ThreadPoolExecutor(self.jobs, thread_name_prefix="zoosim-studio-play") as pool:
                pending: deque[Future] = deque()
                batches = self._sub_batches()
                while True:
                    while len(pending) < self.jobs * AHEAD_PER_JOB and not self._stop.is_set():
                        batch = next(batches, None)
                        if batch is None:
                            break
                        pending.append(pool.submit(self._play, game, seat_policies, batch))
                    if not pending:
                        break
                    if self._stop.is_set():
                        status = "stopped"
                        break
                    win = pending.popleft().result()
                    self._take(deal_shares(win, self.cell.games_per_deal))
                    if live_verdict(self.sequences.low, self.sequences.high, self.margin) != "undecided":
                        status = "decided"
                        break
                self._stop.set()  # the pool's threads skip what is queued
                for future in pending:
                    future.cancel()
        except Exception as error:  # noqa: BLE001 - shown in the page in one line, the server goes on
            status = "failed"
            with self._lock:
                self._error = str(error) if isinstance(error, ZoosimError) else f"{type(error).__name__}: {error}"
        with self._lock:
            self._status = status
            self._ended = time.perf_counter()

    def _sub_batches(self) -> Iterator[tuple[np.ndarray, np.ndarray, list[int]]]:
        """(seeds, rotations, size) of successive sub-batches of whole deals, in deal order, chunk
        by chunk; `size` (one shared, mutable entry) is the deals a sub-batch takes now."""
        per_deal = self.cell.games_per_deal
        size = [FIRST_SUB_BATCH_DEALS]
        for chunk in self.cell.all_chunks():
            seeds, rotations = chunk.game_seeds_and_rotations()
            done = 0
            while done < chunk.deals:
                stop = min(chunk.deals, done + size[0])
                yield seeds[done * per_deal:stop * per_deal], rotations[done * per_deal:stop * per_deal], size
                done = stop

    def _play(self, game, seat_policies, batch) -> np.ndarray:
        """One sub-batch on a pool thread: its `win` column, checked against the game contract;
        the sub-batch size follows the time it took."""
        seeds, rotations, size = batch
        if self._stop.is_set():
            return np.zeros((0, self.cell.players), dtype=bool)
        started = time.perf_counter()
        columns = game.play_batch(self.cell.params, seat_policies, seeds, rotations, check=False)
        problem = batch_problem(game, columns, len(seeds), self.cell.players)
        if problem is not None:
            raise ZoosimError(f"game '{self.cell.game}' broke the game contract: {problem}")
        deals = len(seeds) // self.cell.games_per_deal
        growth = min(MAX_GROWTH, SUB_BATCH_SECONDS / max(time.perf_counter() - started, 1e-4))
        size[0] = max(1, round(deals * growth))
        return columns["win"]

    def _take(self, shares: np.ndarray) -> None:
        with self._lock:
            self.sequences.update(shares)
            self.paired.update(shares)

