"""zoosim studio's speed (issue 42): from pressing Play on warm engines to a decided verdict, and
the live stream's throughput against `zoosim bench` for the same cell on the same cores.

    .venv/bin/python benchmarks/studio_speed.py [--repeats 3] [--seconds 5]

Rows: Katz 4 players greedy_tuned at ±1 point and New York Zoo 2 players learned at ±2 points,
each played live (simulator/studio/live.py) on --jobs threads after one warm-up game, timed until
decided; then the stream on one thread for --seconds at a margin it cannot decide against
`zoosim bench`'s games/s per core for the same game, players and policy.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import machine_line  # noqa: E402

from simulator.bench import run_bench  # noqa: E402
from simulator.studio.form import checked_cell, experiment_document  # noqa: E402
from simulator.studio.live import LiveRun, warm_up  # noqa: E402

CASES = (
    # (game, preset, players, policy, margin in points)
    ("katz", "spec", 4, "greedy_tuned", 1.0),
    ("nyz", "bga", 2, "learned", 2.0),
)
UNDECIDABLE_MARGIN = 0.0001  # a share: no run of seconds decides it


def cell_of(game: str, preset: str, players: int, policy: str):
    settings = {"game": game, "preset": preset, "players": players, "knobs": {},
                "seats": [{"policy": policy, "params": {}}] * players}
    return checked_cell(experiment_document(settings))[1]


def play(cell, margin: float, jobs: int, seconds: float | None = None):
    run = LiveRun(cell, margin, jobs).start()
    if seconds is not None:
        time.sleep(seconds)
        run.stop()
    while run.running:
        time.sleep(0.01)
    return run.snapshot()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(machine_line())
    for game, preset, players, policy, margin in CASES:
        cell = cell_of(game, preset, players, policy)
        warm_up(game, cell)
        for repeat in range(args.repeats):
            state = play(cell, margin / 100, args.jobs)
            print(f"{game} {players}p {policy} ±{margin:g}: {state.status} {state.verdict} after "
                  f"{state.games:,} games in {state.seconds:.2f} s ({state.games_per_second:,.0f} games/s, "
                  f"{args.jobs} threads)", flush=True)
        stream = play(cell, UNDECIDABLE_MARGIN, 1, args.seconds)
        bench = list(run_bench([game], (players,), (policy,), args.seconds))
        print(f"{game} {players}p {policy} stream on 1 thread: {stream.games_per_second:,.0f} games/s over "
              f"{stream.seconds:.1f} s; zoosim bench: {' | '.join(bench)}", flush=True)


if __name__ == "__main__":
    main()
