"""Progress of a run, updated while chunks are in play, for every backend.

A worker plays its chunk in sub-batches (runner.play_in_sub_batches) and after each writes how
many games it has played to the chunk's progress file (`rundir.progress_path`). The parent's
`ProgressBar` polls those files (local processes, threads and dask workers all share the run
folder) and shows finished plus in-play games, so the bar moves and its estimate holds even when
one chunk takes many seconds. It fills by work, not games, and estimates the time left from each
cell's measured speed. On a terminal the bar is tqdm's, redrawn in place; when stderr is not a
terminal (`zoosim run ... 2> file`, a pipe) it is plain lines instead (`LineBar`): one when a cell's
games are all played, one every LINE_SECONDS while games play, and a last one.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from simulator.games import get_game
from simulator.rundir import LOGS_DIR

POLL_SECONDS = 0.5
# Between two progress lines when stderr is not a terminal: at most LINE_SECONDS while games
# play, and a line when a cell's games are all played unless one came less than
# CELL_LINE_SECONDS ago (a sweep of thousands of small cells would write a line for each).
LINE_SECONDS = 15.0
CELL_LINE_SECONDS = 1.0


@dataclass
class CellWork:
    """What the bar knows of one cell before it plays: its games, those already played (an
    earlier session of the run), `weight`, the expected cost of one of its games relative to
    the run's other cells (`cost_weight`) until its own chunks have measured it, and `kind`, its
    game and seats (cells of one kind cost alike per unit of weight: `ProgressBar._costs`)."""

    games: int
    finished: int
    weight: float
    kind: tuple = ()  # (game, seats); a cell without one is of the kind of every other without


# Relative cost of one game per search iteration a seat runs, against 1 for a seat playing a
# heuristic (a rollout costs about as much as a heuristic's game); a cell's measured speed
# replaces the estimate as soon as one of its chunks is done.
SEARCH_ITERATION_WEIGHT = 1.0
DEFAULT_ITERATIONS = 100.0  # for a search policy without an `iterations` parameter


def cost_weight(cell) -> float:
    """Expected cost of one game of a plan cell relative to a heuristic-only game: the mean over
    its seats of 1 for a heuristic and 1 + iterations for a search policy (Game.search_policies)."""
    game = get_game(cell.game)
    weights = []
    for name, overrides in cell.seats:
        if name in game.search_policies:
            iterations = overrides.get("iterations", game.policies[name].params.get("iterations", DEFAULT_ITERATIONS))
            weights.append(1.0 + SEARCH_ITERATION_WEIGHT * float(iterations))
        else:
            weights.append(1.0)
    return sum(weights) / len(weights)


class ProgressBar:
    """A tqdm bar over a run's work: finished chunks (`chunk_done`) plus in-play progress files,
    refreshed every POLL_SECONDS by a background thread. It fills by work, not games (a game of
    a cell costs its measured seconds per game, or its `CellWork.weight` until measured), and
    the time left is the time this session has played so far scaled by the work left over the
    work done, so a cell of search games ahead weighs as much as it will take. The clock starts
    with the bar, once the first game's kernels are compiled; while another game still compiles
    (its cells wait, the others play), `compiling` gives its status lines, shown after the games.
    It writes to `stream` (default stderr): a tqdm bar on a terminal, a `LineBar` otherwise."""

    WORK_STEPS = 1000  # the bar's resolution

    def __init__(self, run_dir: Path, cells: dict[int, CellWork], description: str, enabled: bool,
                 clock: Callable[[], float] = time.perf_counter, compiling: Callable[[], list[str]] = list,
                 stream: TextIO | None = None):
        self.run_dir = Path(run_dir)
        self.compiling = compiling
        self.cells = cells
        self.finished = {index: work.finished for index, work in cells.items()}
        self.measured: dict[int, tuple[int, float]] = {}  # cell -> (games, seconds) of its done chunks
        # a chunk in play, by its progress file -> (clock, games) when the bar first read it
        self.first_read: dict[Path, tuple[float, int]] = {}
        self.playing: dict[int, tuple[int, float]] = {}  # cell -> (games, seconds) of its chunks in play since
        self.clock = clock
        self.started = clock()
        stream = sys.stderr if stream is None else stream
        if not enabled or stream.isatty():
            self.bar = _work_bar(self.WORK_STEPS, description, enabled, stream)
        else:
            self.bar = LineBar(self.WORK_STEPS, description, stream, clock)
        self.lock = threading.Lock()  # the poll thread and chunk_done both show the progress
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True) if enabled else None
        self._show(reading=False)
        if self.thread:
            self.thread.start()

    def chunk_done(self, cell: int, games: int, seconds: float) -> None:
        """A chunk of `cell` is written: `games` games played in `seconds` (by its worker)."""
        with self.lock:  # the poll thread reads these counts
            self.finished[cell] += games
            measured_games, measured_seconds = self.measured.get(cell, (0, 0.0))
            self.measured[cell] = (measured_games + games, measured_seconds + seconds)
            cell_finished = self.finished[cell] >= self.cells[cell].games
        if cell_finished and isinstance(self.bar, LineBar):
            self._show(after=CELL_LINE_SECONDS)  # a line for a cell finished

    def refresh(self) -> None:
        """Show the progress now, with the games in play (the poll thread calls it)."""
        self._show()

    def close(self) -> None:
        if self.thread:
            self.stop.set()
            self.thread.join()
        self._show(after=0.0, reading=False)
        self.bar.close()

    def games_done(self, in_play: dict[int, int]) -> int:
        return sum(self.finished.values()) + sum(in_play.values())

    def seconds_left(self, in_play: dict[int, int]) -> float | None:
        """Estimated seconds until every game is played; None before this session played any."""
        costs = self._costs()
        done = sum((self.finished[cell] - work.finished + in_play.get(cell, 0)) * costs[cell]
                   for cell, work in self.cells.items())
        if done <= 0:
            return None
        return (self.clock() - self.started) * self._work_left(costs, in_play) / done

    def work_fraction(self, in_play: dict[int, int]) -> float:
        costs = self._costs()
        total = sum(work.games * costs[cell] for cell, work in self.cells.items())
        return 1.0 if total <= 0 else min(1.0, max(0.0, 1.0 - self._work_left(costs, in_play) / total))

    def _costs(self) -> dict[int, float]:
        """Seconds per game of each cell: measured (by its finished chunks, else by its chunks in
        play), or its weight times the seconds per unit of weight of the measured cells of its
        kind (game and seats), else of its game, else of every measured cell (a search player's
        game costs far more than its weight says, and the cheap games of another game measured
        first told a study of them it was nearly done); plain weights while no cell is measured."""
        measured = [(self.cells[cell], games, seconds) for cell, (games, seconds) in self.measured.items()
                    if games > 0 and seconds > 0]
        measured += [(self.cells[cell], games, seconds) for cell, (games, seconds) in self.playing.items()
                     if games > 0 and seconds > 0 and cell not in self.measured]
        by_kind: dict[tuple, list] = {}
        by_game: dict[tuple, list] = {}
        for entry in measured:
            by_kind.setdefault(entry[0].kind, []).append(entry)
            by_game.setdefault(entry[0].kind[:1], []).append(entry)

        def scale(group: list) -> float | None:
            weight = sum(games * work.weight for work, games, _ in group)
            return sum(seconds for _, _, seconds in group) / weight if weight > 0 else None

        every = scale(measured) or 1.0
        costs = {}
        for cell, work in self.cells.items():
            games, spent = self.measured.get(cell) or self.playing.get(cell, (0, 0.0))
            if games > 0 and spent > 0:
                costs[cell] = spent / games
            else:
                costs[cell] = work.weight * (scale(by_kind.get(work.kind, [])) or scale(by_game.get(work.kind[:1], []))
                                             or every)
        return costs

    def _work_left(self, costs: dict[int, float], in_play: dict[int, int]) -> float:
        return sum(max(0, work.games - self.finished[cell] - in_play.get(cell, 0)) * costs[cell]
                   for cell, work in self.cells.items())

    def _poll(self) -> None:
        while not self.stop.wait(POLL_SECONDS):
            self.refresh()

    def _in_play(self) -> dict[int, int]:
        """Games played so far by the chunks in play, per cell (their progress files). Also
        measures the chunks' speed since the bar first read each (`playing`): a cell whose first
        chunk is still in play, in a game no finished chunk has measured yet, costs what its
        chunks take instead of what the other game's cells took."""
        games: dict[int, int] = {}
        now = self.clock()
        playing: dict[int, tuple[int, float]] = {}
        first_read = {}
        for path in self.run_dir.glob(f"{LOGS_DIR}/cell=*/.*.progress"):
            try:
                cell = int(path.parent.name.split("=", 1)[1])
                played = int(path.read_text())
            except (OSError, ValueError):  # finished, or read empty while its worker rewrites it
                if path in self.first_read:
                    first_read[path] = self.first_read[path]
                continue
            if cell not in self.cells:
                continue
            games[cell] = games.get(cell, 0) + played
            first_read[path] = since, played_then = self.first_read.get(path, (now, played))
            games_since, seconds_since = playing.get(cell, (0, 0.0))
            playing[cell] = (games_since + played - played_then, seconds_since + now - since)
        self.first_read, self.playing = first_read, playing
        return games

    def _show(self, after: float = LINE_SECONDS, reading: bool = True) -> None:
        """Update the bar's text and work done, with the games in play (`reading`: read from the
        chunks' progress files, `_in_play`), and show them; a LineBar writes its line when
        `after` seconds have passed since its last one. Under the lock: the poll thread and
        chunk_done both show the progress, and `_in_play` swaps its measurements in."""
        with self.lock:
            self._update(self._in_play() if reading else {})
            if isinstance(self.bar, LineBar):
                self.bar.refresh(after)
            else:
                self.bar.refresh()

    def _update(self, in_play: dict[int, int]) -> None:
        total = sum(work.games for work in self.cells.values())
        left = self.seconds_left(in_play)
        text = f"{min(self.games_done(in_play), total):,}/{total:,} games"
        if self.games_done(in_play) < total:
            text += ", estimating the time left" if left is None else f", {self.bar.format_interval(left)} left"
        for line in self.compiling():
            text += f"; {line}"
        steps = round(self.WORK_STEPS * self.work_fraction(in_play))
        self.bar.games = text
        if steps > self.bar.n:  # never backwards, when a measurement revises the work done
            self.bar.update(steps - self.bar.n)


class LineBar:
    """The progress as plain lines ("seat_bias: 40% 4,000/10,000 games, 00:12 left") for a stream
    that is not a terminal: `refresh` writes one when `after` seconds have passed since the last,
    never the same line twice. It has the part of tqdm's interface that ProgressBar uses
    (`games`, `n`, `update`, `refresh`, `close`, `format_interval`)."""

    def __init__(self, steps: int, description: str, stream: TextIO, clock: Callable[[], float]):
        self.steps = steps
        self.description = description
        self.stream = stream
        self.clock = clock
        self.games = ""
        self.n = 0
        self.last_time = clock()
        self.last_line = ""

    def update(self, steps: int) -> None:
        self.n += steps

    def refresh(self, after: float = LINE_SECONDS) -> None:
        if self.clock() - self.last_time < after:
            return
        self.last_time = self.clock()
        line = f"{self.description}: {100 * self.n / self.steps:.0f}% {self.games}"
        if line != self.last_line:
            self.last_line = line
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        pass

    @staticmethod
    def format_interval(seconds: float) -> str:
        return _tqdm().format_interval(seconds)


def _tqdm():
    from tqdm import tqdm

    return tqdm


def _work_bar(steps: int, description: str, enabled: bool, stream: TextIO):
    """A tqdm bar of `steps` steps of work that shows its `games` text after the bar (tqdm's own
    counts and estimate would be of the steps)."""
    class WorkBar(_tqdm()):
        games = ""

        @property
        def format_dict(self):
            return {**super().format_dict, "games": self.games}

    return WorkBar(total=steps, disable=not enabled, desc=description, file=stream,
                   bar_format="{desc}: {percentage:3.0f}%|{bar}| {games}")
