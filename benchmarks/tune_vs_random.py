"""`zoosim tune` against random search: games needed to reach a fairness target.

For each seed, the tune file is optimised twice over the same space and budget: as `zoosim tune`
does it (its own sampler, `auto`: TPE, CMA-ES or NSGA-II, with the seat-balance step of
simulator/tune/balance.py) and with optuna's RandomSampler (`sampler: random`, which has no
seat-balance step). Both use the same racing and the same deals, so only the choice of trials
differs. A run *reaches the target* at the first trial that played the last rung (`games.max`
games per player count) with its first objective below the target; the games needed are all
games played by the trials of the batches up to and including that trial's. A run that never
reaches it counts as needing its whole budget (and is marked): that flatters random search, so
choose a target random search reaches on most seeds (the summary says on how many it did). The
goal: tune's median is at most one third of random search's.

    python benchmarks/tune_vs_random.py                       # the measured setting (docs/benchmarks.md)
    python benchmarks/tune_vs_random.py my.yaml --seeds 1 2 3 --trials 24 --start 2000 --max 16000 --target 1.5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.tune.command import load_checked  # noqa: E402
from simulator.tune.search import optimise, prepare_tune_dir, resolve_sampler, start_tune_dir  # noqa: E402


def games_to_target(study, batch: int, target: float) -> tuple[int, bool]:
    """Games played up to the batch in which a last-rung trial first beat the target."""
    trials = sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)
    last_rung = max((t.user_attrs.get("rung", 0) for t in trials), default=0)
    games_by_batch: dict[int, int] = {}
    reached_in = None
    for trial in trials:
        games_by_batch[trial.number // batch] = games_by_batch.get(trial.number // batch, 0) + trial.user_attrs.get("games_played", 0)
        attrs = trial.user_attrs
        if reached_in is None and attrs.get("rung") == last_rung and attrs.get("feasible") and attrs["objectives"][0] < target:
            reached_in = trial.number // batch
    if reached_in is None:
        return sum(games_by_batch.values()), False
    return sum(games for index, games in games_by_batch.items() if index <= reached_in), True


def run_one(path: Path, seed: int, sampler: str | None, overrides: dict, out: Path, jobs: int) -> tuple[int, bool, float]:
    experiment, text, parameters = load_checked(path)
    budget = experiment.tune.budget
    games = budget.games.model_copy(update={k: v for k, v in overrides.items() if k in ("start", "max")})
    budget = budget.model_copy(update={"games": games, **{k: v for k, v in overrides.items() if k == "trials"}})
    section = experiment.tune.model_copy(update={"budget": budget, **({"sampler": sampler} if sampler else {})})
    experiment = experiment.model_copy(update={"seed": seed, "tune": section})
    kind = resolve_sampler(experiment, parameters)
    prepare_tune_dir(out, experiment, resume=False, force=True)
    start_tune_dir(out, experiment, text, str(path), kind, force=True)
    started = time.perf_counter()
    run = optimise(out, experiment, parameters, kind, jobs=jobs, backend="loky", scheduler=None, progress=False)
    needed, reached = games_to_target(run.study, budget.batch, overrides["target"])
    return needed, reached, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tune_file", type=Path, nargs="?", default=Path(__file__).resolve().parent / "tune_katz_bonus.yaml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--target", type=float, default=2.5, help="first objective to beat (points)")
    parser.add_argument("--trials", type=int, help="override budget.trials")
    parser.add_argument("--start", type=int, help="override budget.games.start")
    parser.add_argument("--max", type=int, help="override budget.games.max")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    overrides = {k: v for k, v in (("trials", args.trials), ("start", args.start), ("max", args.max)) if v is not None}
    overrides["target"] = args.target
    needed: dict[str, list[int]] = {"tune": [], "random": []}
    reached_on: dict[str, int] = {"tune": 0, "random": 0}
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:
            for name, sampler in (("tune", None), ("random", "random")):
                games, reached, seconds = run_one(args.tune_file, seed, sampler, overrides, Path(folder) / f"{name}-{seed}", args.jobs)
                needed[name].append(games)
                reached_on[name] += reached
                mark = "" if reached else " (target not reached: whole budget)"
                print(f"seed {seed} {name:>6}: {games:>12,} games to reach {args.target:g}{mark} [{seconds:.0f} s]", flush=True)
    tune_median, random_median = statistics.median(needed["tune"]), statistics.median(needed["random"])
    ratio = tune_median / random_median if random_median else float("nan")
    verdict = "met" if ratio <= 1 / 3 else "not met"
    seeds = len(args.seeds)
    print(f"target reached on {reached_on['tune']}/{seeds} seeds by tune, {reached_on['random']}/{seeds} by random")
    print(f"median games: tune {tune_median:,.0f}, random {random_median:,.0f}; ratio {ratio:.2f} "
          f"(goal <= 0.33: {verdict})")


if __name__ == "__main__":
    main()
