"""Where a `zoosim run`'s CPU goes, stage by stage, and the best end-to-end ratio it allows (issue #25).

    python benchmarks/cost_account.py                    # 1 M four-player random Katz games, 2 jobs
    python benchmarks/cost_account.py --games 4000000

Measured in one sitting, so every figure sees the same machine (CPU seconds; their ratios hardly
depend on other load, wall-clock seconds do):

  engine      the kernel alone: `play_batch` in this process (CPU s per the run's games)
  bare        a process that imports numba and calls one cached kernel (`python -c pass` apart):
              what any Python + numba engine pays before its first game, the floor of start-up
  katz        a process that plays 4 Katz games from the kernel cache (the engine's own start-up)
  run fixed   `zoosim run` of one chunk of 1,000 games, --no-report: start-up, plan, run folder,
              one chunk, the session record (the per-game cost of 1,000 games is subtracted)
  report      the same with its report, minus `run fixed`: the report's imports and building
  stages      benchmarks/timeline.py's stages of the run's play phase, in process (threading)
  whole run   `zoosim run` of the games with its report (the account's check: it should be close
              to run fixed + kernel + stages + report)

The ratio `zoosim run` / engine per core on an idle machine follows from the structure of a run:
start-up and the report's end run on one core, the play phase on `jobs` cores, so

    wall = start + (kernel + stages) / jobs + report,   ideal = kernel / jobs,
    ratio = kernel / (jobs * start + kernel + stages + jobs * report)

printed for the measured costs and for the floor (start-up = bare, no stages, no report): no
pipeline in Python and numba can beat the floor's ratio, whatever its stages cost.

The play phase itself is CPU-bound (timeline.py's "cores busy"), so its speed against `jobs`
kernels alone is at most kernel / (kernel + stages): 0.9 allows stages of a ninth of the kernel.
Last, one chunk's Parquet write is timed with the run's encodings and with the cheapest pyarrow
has (no compression, plain encoding), and that bound printed again with the cheapest write.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import timeline  # noqa: E402  (benchmarks/timeline.py)
from end_to_end import children_cpu, engine_speed  # noqa: E402  (benchmarks/end_to_end.py)
from machine import machine_line  # noqa: E402  (benchmarks/machine.py)

BARE_KERNEL = textwrap.dedent("""
    import numba
    @numba.njit(cache=True)
    def total(values):
        s = 0
        for value in values:
            s += value
        return s
""")
KATZ_START = ("import numpy as np; from simulator.games import get_game; g = get_game('katz'); "
              "g.play_batch(g.make_params({'players': 4}), g.seat_policies([('random', {})] * 4), "
              "np.arange(4, dtype=np.uint64), np.zeros(4, dtype=np.int8))")


def process_cpu(command: list[str], repeats: int, cwd: Path = REPO, env: dict | None = None) -> float:
    """Median CPU seconds (user + system) of `repeats` runs of a command."""
    seconds = []
    for _ in range(repeats):
        started = children_cpu()
        subprocess.run(command, check=True, capture_output=True, cwd=cwd, env=env)
        seconds.append(children_cpu() - started)
    return statistics.median(seconds)


def experiment_file(folder: Path, name: str, games: int, chunk_games: int, players: int, policy: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(f"name: {name}\nseed: 1\ngames: {games}\nchunk_games: {chunk_games}\n"
                    f"studies: [{{game: katz, rules: {{players: {players}}}, seats: [{policy}]}}]\n")
    return path


def stage_cpu(games: int, jobs: int, players: int, policy: str, chunk_games: int) -> dict[str, float]:
    recorder, _, _ = timeline.run_with_timeline(games, jobs, players, policy, chunk_games)
    totals: dict[str, float] = defaultdict(float)
    for span in recorder.spans:
        totals[span.stage] += span.cpu
    return totals


def chunk_table(players: int, policy: str, chunk_games: int):
    """One chunk's Arrow table as a run hands it to rundir.write_chunk."""
    import simulator.api
    from simulator import runner

    tables, write = [], runner.write_chunk

    def keep(run_dir, identity, table, summary):
        tables.append(table)
        write(run_dir, identity, table, summary)

    runner.write_chunk = keep
    try:
        with tempfile.TemporaryDirectory() as folder:
            simulator.api.run_experiment(timeline.katz_experiment(chunk_games, players, policy, chunk_games),
                                         out=Path(folder) / "chunk", jobs=1, report=False)
    finally:
        runner.write_chunk = write
    return tables[0]


def write_cpu(table, options: dict, repeats: int) -> tuple[float, int]:
    """(median CPU seconds, bytes) of writing `table` to memory as Parquet with `options`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    seconds = []
    for _ in range(repeats):
        sink = pa.BufferOutputStream()
        started = time.thread_time()
        pq.write_table(table, sink, **options)
        seconds.append(time.thread_time() - started)
    return statistics.median(seconds), sink.getvalue().size


def ratio(kernel: float, start: float, stages: float, report: float, jobs: int) -> float:
    return kernel / (jobs * start + kernel + stages + jobs * report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    timeline.add_arguments(parser)
    parser.add_argument("--repeats", type=int, default=5, help="runs of each start-up measurement (median)")
    arguments = parser.parse_args()
    games, jobs = arguments.games, arguments.jobs
    print(f"before: {machine_line()}")
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "bare_kernel.py").write_text(BARE_KERNEL)
        bare_env = {"NUMBA_CACHE_DIR": str(folder / "numba"), "PATH": "/usr/bin:/bin"}
        bare_call = [python, "-c", "import bare_kernel, numpy; bare_kernel.total(numpy.arange(3))"]
        process_cpu(bare_call, 1, cwd=folder, env=bare_env)  # compile it into the cache
        interpreter = process_cpu([python, "-c", "pass"], arguments.repeats)
        bare = process_cpu(bare_call, arguments.repeats, cwd=folder, env=bare_env) - interpreter
        katz = process_cpu([python, "-c", KATZ_START], arguments.repeats) - interpreter
        zoosim = [python, "-m", "simulator.cli", "run", "--jobs", str(jobs), "--quiet", "--force"]
        tiny = experiment_file(folder, "tiny", 1_000, 1_000, arguments.players, arguments.policy)
        run_fixed = process_cpu(zoosim + [str(tiny), "--out", str(folder / "tiny"), "--no-report"], arguments.repeats)
        with_report = process_cpu(zoosim + [str(tiny), "--out", str(folder / "tiny")], arguments.repeats)
        _, engine_per_cpu = engine_speed(arguments.players, arguments.policy, min(games, 400_000))
        kernel = games / engine_per_cpu
        stages = stage_cpu(games, jobs, arguments.players, arguments.policy, arguments.chunk_games)
        whole = experiment_file(folder, "whole", games, arguments.chunk_games, arguments.players, arguments.policy)
        whole_cpu = process_cpu(zoosim + [str(whole), "--out", str(folder / "whole")], 1)
    per_1000 = sum(stages.values()) / games * 1_000  # the tiny run's own games
    start = run_fixed - interpreter - per_1000
    report = with_report - run_fixed
    besides = sum(cpu for stage, cpu in stages.items() if stage != "kernel")
    print(f"katz, {arguments.players} players, {arguments.policy}, {games:,} games, {jobs} jobs, "
          f"chunks of {arguments.chunk_games:,}; CPU seconds (medians of {arguments.repeats} processes)")
    print(f"  interpreter alone (python -c pass)      {interpreter:7.2f}")
    print(f"  bare numba + one cached kernel          {bare:7.2f}   (the floor of start-up)")
    print(f"  Katz engine start (4 games from cache)  {katz:7.2f}")
    print(f"  zoosim run start-up (fixed, 1 chunk)    {start:7.2f}")
    print(f"  report (imports + building)             {report:7.2f}")
    print(f"  engine alone, {games:,} games       {kernel:7.2f}   ({engine_per_cpu:,.0f} games per CPU s)")
    for stage in timeline.STAGES:
        print(f"    stage {stage:8}                       {stages[stage]:7.2f}")
    print(f"  stages besides the kernel               {besides:7.2f}")
    account = start + interpreter + stages["kernel"] + besides + report
    print(f"  account: start + interpreter + stages + report = {account:.2f}; whole run measured {whole_cpu:.2f}")
    print(f"  idle ratio from these costs:            {ratio(stages['kernel'], start, besides, report, jobs):7.2f}")
    print(f"    with start-up at the bare floor:      {ratio(stages['kernel'], bare, besides, report, jobs):7.2f}")
    print(f"    ... and no report:                    {ratio(stages['kernel'], bare, besides, 0.0, jobs):7.2f}")
    print(f"    floor only (no stages, no report):    {ratio(stages['kernel'], bare, 0.0, 0.0, jobs):7.2f}")
    # The play phase on `jobs` threads is CPU-bound (timeline.py: cores busy ~0.93), so against
    # `jobs` kernels alone it reaches kernel / (kernel + stages) at most: 0.9 needs stages <= kernel / 9.
    from simulator import rundir
    table = chunk_table(arguments.players, arguments.policy, arguments.chunk_games)
    chunks = games / arguments.chunk_games
    shipped, shipped_bytes = write_cpu(table, rundir.parquet_options(table.schema), 15)
    cheapest, cheapest_bytes = write_cpu(table, {"compression": "none", "use_dictionary": False,
                                                 "write_statistics": False}, 15)
    required = besides - stages["write"] + cheapest * chunks
    print(f"  two-thread play phase / twice one thread, at most: {stages['kernel'] / (stages['kernel'] + besides):.2f}"
          f"   (0.9 allows stages of {stages['kernel'] / 9:.2f} CPU s)")
    print(f"    one chunk's Parquet write: shipped {shipped * 1e3:.1f} ms ({shipped_bytes:,} bytes), no compression"
          f" and plain encoding {cheapest * 1e3:.1f} ms ({cheapest_bytes:,} bytes), median of 15")
    print(f"    stages with the cheapest write instead: {required:.2f} CPU s, at most "
          f"{stages['kernel'] / (stages['kernel'] + required):.2f}")
    print(f"after:  {machine_line()}")


if __name__ == "__main__":
    main()
