"""How long `zoosim report` takes on a run of many cells (issue #45 goal: 10,000 cells within 60 s).

    python benchmarks/report_cells.py                  # 10,000 cells of 20 games: play, then report
    python benchmarks/report_cells.py --cells 2000 --repeats 3
    python benchmarks/report_cells.py --run /tmp/cells-10000   # report an existing run again

The experiment is a Katz sweep over `seat_bonus_points` ([a, b] for a, b in -25, -24.5, ...,
24.5: up to 10,000 two-player cells) with random players, 20 games per cell and one chunk each,
so the report's per-cell work, not the games, is what is measured. The run is played once
(`zoosim run --no-report`, about 6 minutes at 2 jobs on a loaded 2-core machine), then
`zoosim report` is timed as a whole process (wall-clock and CPU seconds) per repeat.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from end_to_end import REPO, children_cpu  # noqa: E402

GAMES_PER_CELL = 20
BONUSES = [step / 2 for step in range(-50, 50)]  # 100 values: up to 100 x 100 cells


def experiment_text(cells: int) -> str:
    lists = [[a, b] for a in BONUSES for b in BONUSES][:cells]
    return (f"name: cells_{cells}\ngames: {GAMES_PER_CELL}\nchunk_games: {GAMES_PER_CELL}\nrotate_seats: false\n"
            "studies:\n  - game: katz\n    rules: {players: 2}\n    seats: [random]\n"
            f"    sweep:\n      seat_bonus_points: {json.dumps(lists)}\n")


def zoosim(*arguments: str) -> None:
    result = subprocess.run([sys.executable, "-m", "simulator.cli", *arguments], capture_output=True, text=True, cwd=REPO)
    if result.returncode:
        sys.exit(f"zoosim {' '.join(arguments)} failed:\n{result.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=10_000, help="cells of the sweep (at most 10,000)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="--jobs of the run that is played")
    parser.add_argument("--run", type=Path, default=None, help="an existing run folder to report (nothing is played)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="zoosim-cells-") as scratch:
        run = options.run
        if run is None:
            experiment = Path(scratch) / f"cells_{options.cells}.yaml"
            experiment.write_text(experiment_text(options.cells))
            run = Path(scratch) / "run"
            started = time.perf_counter()
            zoosim("run", str(experiment), "--out", str(run), "--no-report", "-q", "--jobs", str(options.jobs))
            print(f"played {options.cells:,} cells x {GAMES_PER_CELL} games in {time.perf_counter() - started:.0f} s")
        walls, cpus = [], []
        for repeat in range(options.repeats):
            cpu_before, started = children_cpu(), time.perf_counter()
            zoosim("report", str(run))
            walls.append(time.perf_counter() - started)
            cpus.append(children_cpu() - cpu_before)
            print(f"report {repeat + 1}: {walls[-1]:.1f} s wall, {cpus[-1]:.1f} s CPU")
        print(f"median: {statistics.median(walls):.1f} s wall, {statistics.median(cpus):.1f} s CPU")


if __name__ == "__main__":
    main()
