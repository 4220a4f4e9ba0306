"""A time line of `zoosim run`'s play phase (issue #25): what each worker thread does when.

    python benchmarks/timeline.py                       # 1 M four-player random Katz games, 2 jobs
    python benchmarks/timeline.py --games 400000 --html timeline.html
    python benchmarks/end_to_end.py --timeline          # the same after the end-to-end figures

The run is played in this process with the threading backend (simulator.api.run_experiment,
report off), with the pipeline's stages wrapped where runner.py calls them, so nothing in the
runner knows about it. Stages, per worker thread:

  kernel    the Katz kernel (play.play_games; runs without the GIL)
  batch     the rest of play_batch and the contract check (Python: allocation, unpacking)
  records   logs.record_columns (flattening to the chunk's columns)
  summary   analysis.summary.summarize_columns (numba kernels without the GIL, issue #25)
  table     logs.records_table (the Arrow table)
  write     rundir.write_chunk (Parquet file, summary sidecar, rename)
  wait      none of these (joblib's dispatch, sub-batch bookkeeping, waiting for the GIL or a core)

For each stage it prints wall seconds and CPU seconds of the thread (time.thread_time) summed
over the workers, the kernel's games per CPU second (the engine per core while the other worker
runs), the pipeline's CPU besides the kernel, how busy the cores were (all stages' CPU over
jobs x the play phase: at 1.00 the play phase is CPU-bound, and only less CPU per game makes it
faster, not more overlap), and the GIL share: CPU seconds of the stages that may hold the
interpreter lock (LOCK_STAGES) over the wall time of the play phase - an upper bound of the part
of the run that cannot run in parallel (pyarrow encodes and compresses a chunk without the lock,
`with nogil` around WriteTable). The chart shows each thread's stages over time, one character
per bin.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from machine import machine_line  # noqa: E402  (benchmarks/machine.py)

# stage -> chart character, in chart priority order (a bin shows the stage that filled most of it)
STAGES = {"kernel": "K", "batch": "b", "records": "r", "summary": "s", "table": "t", "write": "w"}
WAIT = "."
# stages run as Python or hold the GIL for part of their time; the kernel and the summary's
# kernels run without it
LOCK_STAGES = ("batch", "records", "table", "write")


@dataclass(frozen=True)
class Span:
    thread: str
    stage: str
    start: float
    end: float
    cpu: float  # CPU seconds of the thread inside the span
    games: int = 0


class Recorder:
    """Collects spans from every thread; `wrap(module, name, stage)` times a module global."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.lock = threading.Lock()
        self.origin = time.perf_counter()
        self.depth = threading.local()  # a stage inside another (kernel inside batch) is cut out of it
        self.restore: list[tuple[object, str, object]] = []  # (module, name, original) to put back

    def wrap(self, module, name: str, stage: str, games=lambda args: 0):
        original = getattr(module, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            stack = self.depth.__dict__.setdefault("stack", [])
            for outer in stack:  # pause the enclosing stage
                outer["cpu"] += time.thread_time() - outer["cpu_started"]
                self._add(outer["stage"], outer["started"], time.perf_counter(), outer["cpu"], 0)
            frame = {"stage": stage, "started": time.perf_counter(), "cpu_started": time.thread_time(), "cpu": 0.0}
            stack.append(frame)
            try:
                return original(*args, **kwargs)
            finally:
                stack.pop()
                frame["cpu"] += time.thread_time() - frame["cpu_started"]
                self._add(stage, frame["started"], time.perf_counter(), frame["cpu"], games(args))
                for outer in stack:  # resume it
                    outer["started"], outer["cpu_started"], outer["cpu"] = time.perf_counter(), time.thread_time(), 0.0

        self.restore.append((module, name, original))
        setattr(module, name, timed)

    def _add(self, stage: str, start: float, end: float, cpu: float, games: int) -> None:
        span = Span(threading.current_thread().name, stage, start - self.origin, end - self.origin, cpu, games)
        with self.lock:
            self.spans.append(span)


@contextlib.contextmanager
def instrumented(recorder: Recorder):
    """The pipeline's stages wrapped where runner.py (and play_batch) look them up."""
    from simulator import runner
    from simulator.games.katz import play

    recorder.wrap(play, "play_games", "kernel", games=lambda args: len(args[7]))
    recorder.wrap(runner, "_play_games", "batch")
    recorder.wrap(runner, "record_columns", "records")
    recorder.wrap(runner, "summarize_columns", "summary")
    recorder.wrap(runner, "records_table", "table")
    recorder.wrap(runner, "write_chunk", "write")
    try:
        yield recorder
    finally:
        for module, name, original in reversed(recorder.restore):
            setattr(module, name, original)


def katz_experiment(games: int, players: int, policy: str, chunk_games: int) -> dict:
    """The measured run: one Katz study with `policy` in every seat."""
    return {"name": "timeline", "seed": 1, "games": games, "chunk_games": chunk_games,
            "studies": [{"game": "katz", "rules": {"players": players}, "seats": [policy]}]}


def run_with_timeline(games: int, jobs: int, players: int, policy: str, chunk_games: int) -> tuple[Recorder, float, float]:
    """(the recorder, play-phase start, end) of one in-process run (threading backend)."""
    import simulator.api

    experiment = katz_experiment(games, players, policy, chunk_games)
    with tempfile.TemporaryDirectory() as folder:
        simulator.api.run_experiment(experiment, out=Path(folder) / "warm", games=chunk_games, jobs=1, report=False)
        recorder = Recorder()
        with instrumented(recorder):
            started = time.perf_counter() - recorder.origin
            simulator.api.run_experiment(experiment, out=Path(folder) / "run", jobs=jobs, backend="threading", report=False)
            ended = time.perf_counter() - recorder.origin
    return recorder, started, ended


def stage_table(spans: list[Span], wall: float) -> list[str]:
    threads = sorted({span.thread for span in spans})
    lines = [f"{'stage':8} {'wall s':>8} {'CPU s':>8}   (summed over {len(threads)} worker threads; play phase {wall:.2f} s wall)"]
    totals = defaultdict(lambda: [0.0, 0.0])
    for span in spans:
        totals[span.stage][0] += span.end - span.start
        totals[span.stage][1] += span.cpu
    busy = sum(total[0] for total in totals.values())
    for stage in STAGES:
        lines.append(f"{stage:8} {totals[stage][0]:8.2f} {totals[stage][1]:8.2f}")
    lines.append(f"{'wait':8} {len(threads) * wall - busy:8.2f}")
    kernel_games = sum(span.games for span in spans if span.stage == "kernel")
    kernel_cpu = totals["kernel"][1]
    if kernel_cpu:
        lines.append(f"kernel: {kernel_games:,} games, {kernel_games / kernel_cpu:,.0f} games per CPU second, "
                     f"{kernel_games / max(totals['kernel'][0], 1e-9):,.0f} per wall second of its spans")
    besides = sum(totals[stage][1] for stage in STAGES if stage != "kernel")
    lines.append(f"pipeline: {besides:.2f} CPU s besides the kernel's {kernel_cpu:.2f} "
                 f"({besides / max(kernel_cpu, 1e-9):.2f} of it)")
    lines.append(f"cores busy: {besides + kernel_cpu:.2f} CPU s / ({len(threads)} x {wall:.2f} s) = "
                 f"{(besides + kernel_cpu) / (len(threads) * wall):.2f}")
    lock_cpu = sum(totals[stage][1] for stage in LOCK_STAGES)
    lines.append(f"GIL share: {lock_cpu:.2f} CPU s of Python stages ({', '.join(LOCK_STAGES)}) / {wall:.2f} s = "
                 f"{lock_cpu / wall:.2f} of the play phase may hold the interpreter lock (at most)")
    return lines


def chart(spans: list[Span], start: float, end: float, width: int = 100) -> list[str]:
    """One row per thread, one character per bin: the stage that filled most of the bin."""
    step = (end - start) / width
    rows = []
    for thread in sorted({span.thread for span in spans}):
        filled = [defaultdict(float) for _ in range(width)]
        for span in (s for s in spans if s.thread == thread):
            first, last = int((span.start - start) / step), int((span.end - start) / step)
            for index in range(max(first, 0), min(last, width - 1) + 1):
                low, high = start + index * step, start + (index + 1) * step
                filled[index][span.stage] += max(0.0, min(high, span.end) - max(low, span.start))
        row = "".join(STAGES[max(b, key=b.get)] if b and max(b.values()) > step / 2 else WAIT for b in filled)
        rows.append(f"{thread[:14]:14} |{row}|")
    legend = ", ".join(f"{char} {stage}" for stage, char in STAGES.items())
    return rows + [f"{'':14}  {step:.3f} s per character; {legend}, {WAIT} wait"]


def html_chart(spans: list[Span], start: float, end: float) -> str:
    """A self-contained SVG time line, one lane per thread."""
    colours = {"kernel": "#4c78a8", "batch": "#f58518", "records": "#e45756", "summary": "#72b7b2",
               "table": "#54a24b", "write": "#b279a2"}
    threads = sorted({span.thread for span in spans})
    width, lane = 1000, 28
    scale = width / (end - start)
    shapes = []
    for row, thread in enumerate(threads):
        shapes.append(f'<text x="0" y="{row * lane + 18}" font-size="11">{html.escape(thread)}</text>')
        for span in (s for s in spans if s.thread == thread):
            x = 120 + (span.start - start) * scale
            shapes.append(f'<rect x="{x:.1f}" y="{row * lane + 4}" width="{max((span.end - span.start) * scale, 0.5):.1f}" '
                          f'height="{lane - 8}" fill="{colours[span.stage]}"><title>{span.stage} '
                          f'{span.end - span.start:.4f} s, CPU {span.cpu:.4f} s</title></rect>')
    legend = " ".join(f'<span style="color:{colour}">&#9632; {stage}</span>' for stage, colour in colours.items())
    height = len(threads) * lane + 8
    return (f"<!doctype html><meta charset=utf-8><title>zoosim run time line</title>"
            f"<p>{legend} (white: wait); {end - start:.2f} s</p>"
            f'<svg width="{width + 130}" height="{height}">{"".join(shapes)}</svg>\n')


def report(games: int, jobs: int, players: int, policy: str, chunk_games: int, html_path: Path | None) -> list[str]:
    recorder, start, end = run_with_timeline(games, jobs, players, policy, chunk_games)
    spans = [span for span in recorder.spans if span.end > span.start]
    lines = [f"time line: katz, {players} players, {policy}, {games:,} games, {jobs} threads, chunks of {chunk_games:,}"]
    lines += stage_table(spans, end - start)
    lines += chart(spans, start, end)
    if html_path is not None:
        html_path.write_text(html_chart(spans, start, end), encoding="utf-8")
        lines.append(f"HTML time line: {html_path}")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--chunk-games", type=int, default=50_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.add_argument("--html", type=Path, default=None, help="also write the time line as an HTML file")
    arguments = parser.parse_args()
    print(machine_line())
    for line in report(arguments.games, arguments.jobs, arguments.players, arguments.policy, arguments.chunk_games,
                       arguments.html):
        print(line)
    print(machine_line())


if __name__ == "__main__":
    main()
