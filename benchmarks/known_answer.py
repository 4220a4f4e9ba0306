"""Coverage of zoosim's 95% intervals on a game with a known answer (issue #40 item 4).

Plays examples/zoosim-tictactoe/known_answer.yaml (uniformly random tic-tac-toe, whose exact
shares are known: the example's README) at --seeds seeds 1, 2, ..., each with --games games,
through the ordinary plan, runner and analysis (the report's tables at 95%), and counts how often
each interval covers its exact value: seat 0's and seat 1's win shares (817/1260, 443/1260: a
draw is a win shared by both seats) and the tie rate (8/63, with the report's standard error,
tie_rate +- 1.96 se). A well-calibrated interval covers in about 95% of seeds; with 100 seeds
the coverage's own standard error is about 2.2 points. Seat 1's share is 1 minus seat 0's, so
its coverage equals seat 0's.

    python benchmarks/known_answer.py                  # 100 seeds of 1,000 games
    python benchmarks/known_answer.py --seeds 20 --games 4000 --jobs 2

Needs the example installed (`pip install -e examples/zoosim-tictactoe`) or registers it from its
source folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import simulator.games as registry  # noqa: E402
from simulator.analysis.tables import analyze_run  # noqa: E402
from simulator.config import Experiment, load_experiment  # noqa: E402
from simulator.plan import build_plan  # noqa: E402
from simulator.rundir import read_manifest  # noqa: E402
from simulator.runner import run_plan  # noqa: E402

EXAMPLE = REPO / "examples" / "zoosim-tictactoe"
EXACT = {"seat 0 win share": Fraction(817, 1260), "seat 1 win share": Fraction(443, 1260),
         "tie rate": Fraction(8, 63)}
Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def covered(run_dir: Path) -> dict[str, bool]:
    """Whether each 95% interval of the run covers its exact value."""
    analysis = analyze_run(run_dir, read_manifest(run_dir, Experiment), confidence=0.95)
    seats = analysis.seats.sort_values("seat")
    cell = analysis.cells.iloc[0]
    found = {}
    for seat, (_, row) in enumerate(seats.iterrows()):
        found[f"seat {seat} win share"] = row["ci_low"] <= EXACT[f"seat {seat} win share"] <= row["ci_high"]
    spread = Z_95 * cell["tie_rate_se"]
    found["tie rate"] = cell["tie_rate"] - spread <= EXACT["tie rate"] <= cell["tie_rate"] + spread
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1)
    options = parser.parse_args()
    if "tictactoe" not in registry.game_names():
        sys.path.insert(0, str(EXAMPLE))
        registry.register_game("tictactoe", "zoosim_tictactoe:GAME")
    counts = dict.fromkeys(EXACT, 0)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zoosim-known-answer-") as folder:
        for seed in range(1, options.seeds + 1):
            experiment, _ = load_experiment(EXAMPLE / "known_answer.yaml", games=options.games, seed=seed)
            run_dir = Path(folder) / f"seed-{seed}"
            run_plan(build_plan(experiment), run_dir, "", jobs=options.jobs, progress=False)
            for name, inside in covered(run_dir).items():
                counts[name] += inside
    elapsed = time.perf_counter() - started
    print(f"{options.seeds} seeds x {options.games:,} random tic-tac-toe games ({elapsed:.0f} s):")
    for name, count in counts.items():
        print(f"  95% interval of the {name} covers {float(EXACT[name]):.5f} in {count}/{options.seeds} "
              f"seeds ({count / options.seeds:.2f})")


if __name__ == "__main__":
    main()
