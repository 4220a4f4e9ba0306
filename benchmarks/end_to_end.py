"""End-to-end speed of `zoosim run` as a ratio to the engine's own speed (issue #11 goal: >= 0.8).

    python benchmarks/end_to_end.py                       # 1 M four-player random Katz games, 2 jobs
    python benchmarks/end_to_end.py --games 4000000 --jobs 2
    python benchmarks/end_to_end.py --timeline            # then the play phase's time line

1. The engine alone: `play_batch` of the same games in this process, one core, after compiling
   (games per second per core).
2. The whole pipeline: `zoosim run` in a fresh process (start, worker start-up, playing, logs,
   summaries, report included), wall-clock time -> games per second per core (games / time / jobs).
3. `zoosim report` alone on the finished run folder (summaries merged, HTML written).
Prints both speeds, their ratio (the goal), and the report time. Run on an otherwise idle
machine: other load lowers the pipeline's share of the cores more than the one-core engine
measurement's. The CPU ratio (engine CPU seconds per game / the whole run's CPU seconds per game,
workers included) shows the pipeline's own overhead and hardly depends on other load.
The machine (CPU model, cores, load average) and the date are printed before and after the
figures. `--timeline` then plays the same run in this process with the threading backend and
prints benchmarks/timeline.py's time line of it (what each worker thread did when, the CPU
seconds of each stage, the share of the play phase under the interpreter lock).
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from machine import machine_line  # noqa: E402  (benchmarks/machine.py)


def engine_speed(players: int, policy: str, games: int) -> tuple[float, float]:
    """(games per second, games per CPU second) of this process playing `games` games in
    batches of 50,000."""
    import numpy as np

    from simulator.games import get_game

    game = get_game("katz")
    params = game.make_params({"players": players})
    seats = game.seat_policies([(policy, {})] * players)
    seeds = np.random.SeedSequence(1).generate_state(games, dtype=np.uint64)
    rotations = (np.arange(games) % players).astype(np.int8)
    game.play_batch(params, seats, seeds[:100], rotations[:100])  # compile or load the cache
    started, cpu = time.perf_counter(), time.process_time()
    for first in range(0, games, 50_000):
        game.play_batch(params, seats, seeds[first:first + 50_000], rotations[first:first + 50_000])
    return games / (time.perf_counter() - started), games / (time.process_time() - cpu)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and every process it waited for, output)."""
    started, cpu = time.perf_counter(), children_cpu()
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    if result.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    return time.perf_counter() - started, children_cpu() - cpu, result.stderr + result.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--chunk-games", type=int, default=50_000)
    parser.add_argument("--backend", default=None, help="zoosim run --backend (default: zoosim's default)")
    parser.add_argument("--timeline", action="store_true", help="then the play phase's time line (benchmarks/timeline.py)")
    parser.add_argument("--timeline-html", type=Path, default=None, help="with --timeline: also as an HTML file")
    arguments = parser.parse_args()
    print(f"before: {machine_line()}")
    engine, engine_per_cpu = engine_speed(arguments.players, arguments.policy, min(arguments.games, 400_000))
    with tempfile.TemporaryDirectory() as folder:
        experiment = Path(folder) / "end_to_end.yaml"
        experiment.write_text(
            f"name: end_to_end\nseed: 1\ngames: {arguments.games}\nchunk_games: {arguments.chunk_games}\n"
            f"studies: [{{game: katz, rules: {{players: {arguments.players}}}, seats: [{arguments.policy}]}}]\n"
        )
        out = Path(folder) / "run"
        zoosim = [sys.executable, "-m", "simulator.cli"]
        backend = ["--backend", arguments.backend] if arguments.backend else []
        run_seconds, run_cpu, output = timed(zoosim + ["run", str(experiment), "--out", str(out), "--jobs", str(arguments.jobs),
                                                       "--quiet"] + backend)
        report_seconds, report_cpu, _ = timed(zoosim + ["report", str(out)])
    played = re.search(r"played ([\d,]+) games in ([\d.]+) s", output)
    pipeline = arguments.games / run_seconds / arguments.jobs
    print(f"katz, {arguments.players} players, {arguments.policy}, {arguments.games:,} games, {arguments.jobs} jobs, "
          f"backend {arguments.backend or 'default'}")
    print(f"  engine alone:         {engine:10,.0f} games/s per core")
    print(f"  zoosim run + report:  {pipeline:10,.0f} games/s per core ({run_seconds:.1f} s; "
          f"playing {played.group(2) if played else '?'} s)")
    print(f"  ratio:                {pipeline / engine:10.2f}")
    print(f"  CPU ratio:            {arguments.games / run_cpu / engine_per_cpu:10.2f} "
          f"({run_cpu:.1f} CPU s for the run, {arguments.games / engine_per_cpu:.1f} for the engine alone)")
    print(f"  zoosim report alone:  {report_seconds:10.2f} s (whole process, {report_cpu:.2f} CPU s)")
    print(f"after:  {machine_line()}")
    if arguments.timeline:
        import timeline

        for line in timeline.report(arguments.games, arguments.jobs, arguments.players, arguments.policy,
                                    arguments.chunk_games, arguments.timeline_html):
            print(line)
        print(f"after the time line: {machine_line()}")


if __name__ == "__main__":
    main()
