"""Does the tune's printed confirmation power say how often its confirmation shows balance?

For each seed, a small tune of the `coin` test game (tests/conftest.py: seat 0 gets +5 with
probability `first_seat_bonus`, so 0 is exactly fair and every other value favours seat 0)
searches `first_seat_bonus` over a few choices, with its single changes and `prefer:
fewer_changes`, as `zoosim tune` does. The chosen trial's printed power
(`best.confirmation_power`, what the closing lines print) is noted, then the confirmation is
played as the tune plays it (best.yaml's run, on fresh seeds) and its verdict for the chosen
setting read. Over the seeds, the mean printed power and the share of confirmations that came
back "balanced" should differ by at most 10 points (issue #44); the table by printed power
shows where they differ. The games per confirmation are set so the power is neither 0 nor 100%,
where a comparison says nothing.

    python benchmarks/tune_power_calibration.py                  # the measured setting (docs/benchmarks.md)
    python benchmarks/tune_power_calibration.py --seeds 20 --confirm-games 900
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tests.conftest  # noqa: E402,F401 - registers the coin test game

from simulator.analysis import stats  # noqa: E402
from simulator.analysis.tables import analyze_run  # noqa: E402
from simulator.config import Experiment, load_experiment  # noqa: E402
from simulator.plan import build_plan  # noqa: E402
from simulator.rundir import read_manifest  # noqa: E402
from simulator.runner import run_experiment  # noqa: E402
from simulator.tune import best  # noqa: E402
from simulator.tune.command import load_checked  # noqa: E402
from simulator.tune.search import optimise, prepare_tune_dir, resolve_sampler, start_tune_dir  # noqa: E402

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0001)  # printed power, for the table


def tune_file(folder: Path, seed: int, confirm_games: int, margin: float) -> Path:
    path = folder / f"coin-{seed}.yaml"
    path.write_text(yaml.safe_dump({
        "name": f"coin-power-{seed}", "seed": seed, "rotate_seats": False,  # independent games: a design effect of 1
        "tune": {"game": "coin", "players": [3], "search": {"first_seat_bonus": [0.0, 0.05, 0.1, 0.2]},
                 "prefer": "fewer_changes",
                 "budget": {"trials": 2, "batch": 4, "games": {"start": 300, "max": 1200}},
                 "confirm": {"games": confirm_games, "margin_points": margin}},
    }))
    return path


def plug_in_power(experiment, trial) -> float:
    """The power printed before issue #44: the trial's measured rates taken as the true ones."""
    measured = trial.user_attrs["by_players"]["3"]
    rates = [1 / 3 + d / 100 for d in measured["seat_deviation_points"]]
    confirm = experiment.tune.confirm
    return stats.balanced_power(rates, confirm.games, 3, confirm.margin_points, effects=measured["seat_design_effects"])


def one_seed(folder: Path, seed: int, confirm_games: int, margin: float) -> tuple[float, float, str, str]:
    """(printed power, plug-in power, verdict of the chosen setting's confirmation, its setting)."""
    path = tune_file(folder, seed, confirm_games, margin)
    experiment, text, parameters = load_checked(path)
    out = folder / f"tune-{seed}"
    sampler = resolve_sampler(experiment, parameters)
    prepare_tune_dir(out, experiment, resume=False, force=True)
    start_tune_dir(out, experiment, text, str(path), sampler, force=True)
    run = optimise(out, experiment, parameters, sampler, jobs=1, backend="threading", scheduler=None, progress=False)
    chosen = best.choose_best(run.study, experiment).best
    power, _ = best.confirmation_power(experiment, chosen)[3]
    best_file = best.write_best(out, best.best_document(experiment, parameters, chosen))
    model, best_text = load_experiment(best_file)
    run_dir = out / "confirm"
    run_experiment(build_plan(model), run_dir, best_text, source=str(best_file), jobs=1, backend="threading",
                   scheduler=None, resume=False, progress=False)
    cells = analyze_run(run_dir, read_manifest(run_dir, Experiment)).cells
    verdict = cells[cells["label"].str.startswith(best.best_study_name(experiment.name, chosen.number))]["verdict"].iloc[0]
    return power, plug_in_power(experiment, chosen), verdict, chosen.user_attrs["setting_text"]


def _mean(rows, column: int) -> str:
    return f"{100 * statistics.mean(row[column] for row in rows):.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=100, help="number of seeds (1, 2, ...)")
    parser.add_argument("--confirm-games", type=int, default=900)
    parser.add_argument("--margin", type=float, default=5.0, help="confirm.margin_points")
    args = parser.parse_args()
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(1, args.seeds + 1):
            power, plug_in, verdict, setting = one_seed(Path(folder), seed, args.confirm_games, args.margin)
            rows.append((power, verdict == "balanced", plug_in))
            print(f"seed {seed:>3}: printed power {100 * power:5.1f}% (plug-in {100 * plug_in:5.1f}%), "
                  f"confirmation {verdict:<12} ({setting})", flush=True)
    print(f"\n{len(rows)} seeds, {args.confirm_games:,} confirmation games, margin ±{args.margin:g} points, "
          f"{time.perf_counter() - started:.0f} s")
    print("| printed power | seeds | mean printed | mean plug-in (before #44) | observed balanced |")
    print("|---|---|---|---|---|")
    for low, high in zip(BINS, BINS[1:]):
        inside = [row for row in rows if low <= row[0] < high]
        if inside:
            print(f"| {100 * low:.0f}-{min(100, 100 * high):.0f}% | {len(inside)} | {_mean(inside, 0)} | "
                  f"{_mean(inside, 2)} | {_mean(inside, 1)} |")
    printed, observed = statistics.mean(r[0] for r in rows), statistics.mean(r[1] for r in rows)
    gap = 100 * abs(printed - observed)
    print(f"| all | {len(rows)} | {_mean(rows, 0)} | {_mean(rows, 2)} | {_mean(rows, 1)} |")
    print(f"difference {gap:.1f} points (goal <= 10: {'met' if gap <= 10 else 'not met'})")


if __name__ == "__main__":
    main()
