"""Tune a game's greedy weights by head-to-head play with optuna (issue #9, item 2).

Objective: the candidate's win share against a fixed opponent policy (default `greedy`) in
2-player games, every deal played in both seat orders (common random numbers: every trial plays
the same deals), a shared win counting 1/2. TPE proposes the weights; trial 0 plays the
opponent's own weights. For nyz, `--solo-weight` mixes in the solo win rate.

    python benchmarks/tune_heuristics.py nyz --trials 40 --deals 300           # a few minutes
    python benchmarks/tune_heuristics.py katz --trials 60 --deals 1000
    python benchmarks/tune_heuristics.py nyz --trials 400 --deals 2000 --seed 7  # a long run

Longer runs: raise --trials (TPE needs ~10x the number of weights to settle) and --deals (the
standard error of a win share is about 0.5/sqrt(2*deals)); a final check of the best weights on
fresh deals (--check-deals, default 2,000) is printed with a 95% Wilson interval. Paste the printed
weights into the game's `greedy_tuned` preset (simulator/games/<game>/policies.py).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import optuna  # noqa: E402

from simulator.games.katz import GAME as KATZ  # noqa: E402
from simulator.games.matches import deal_seeds, deal_shares, head_to_head, solo_rate  # noqa: E402,F401
from simulator.games.nyz import GAME as NYZ  # noqa: E402

GAMES = {"katz": KATZ, "nyz": NYZ}

# search ranges per weight: (low, high); integer weights have a third entry True
RANGES = {
    "nyz": {
        "tile_value": (0.0, 4.0), "animal_value": (0.0, 5.0), "fill_bonus": (0.0, 15.0),
        "breeding_value": (0.0, 5.0), "house_value": (0.0, 2.0), "contact_weight": (0.0, 3.0),
        "hole_weight": (0.0, 6.0), "dead_end_weight": (0.0, 3.0), "pair_value": (0.0, 6.0),
        "ahead_spaces": (0, 12, True), "breeding_ahead": (0.0, 3.0), "opponent_breeding": (0.0, 3.0),
    },
    "katz": {
        "extra_turn_value": (0.0, 8.0), "skip_cost": (0.0, 8.0), "replace_threshold": (-3.0, 5.0),
        "blocked_cost": (0.0, 10.0),
    },
}


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--deals", type=int, default=300, help="deals per trial (each played twice)")
    parser.add_argument("--check-deals", type=int, default=2000)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--start", default="greedy", help="policy whose weights trial 0 plays")
    parser.add_argument("--solo-weight", type=float, default=0.0, help="nyz: objective += this * solo win rate")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    game = GAMES[args.game]
    ranges = RANGES[args.game]
    base = game.policies["greedy"].params
    opponent = (args.opponent, {})
    seeds = deal_seeds(args.seed, args.deals)

    def objective(trial: optuna.Trial) -> float:
        weights = {}
        for name, spec in ranges.items():
            if len(spec) == 3:
                weights[name] = float(trial.suggest_int(name, spec[0], spec[1]))
            else:
                weights[name] = trial.suggest_float(name, spec[0], spec[1])
        value = head_to_head(game, ("greedy", weights), opponent, seeds)
        if args.solo_weight:
            value += args.solo_weight * solo_rate(game, ("greedy", weights), seeds)
        return value

    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=args.seed, n_startup_trials=10))
    start = dict(game.policies[args.start].params)
    study.enqueue_trial({k: (int(v) if len(ranges[k]) == 3 else v) for k, v in start.items() if k in ranges})
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    began = time.perf_counter()
    study.optimize(objective, n_trials=args.trials)
    best = {k: round(float(v), 2) for k, v in study.best_params.items()}
    print(f"{args.trials} trials in {time.perf_counter() - began:.0f} s; best objective {study.best_value:.3f}")
    print("weights:", ", ".join(f"{k}={v}" for k, v in best.items()))
    check = deal_seeds(args.seed + 10_000, args.check_deals)
    share = head_to_head(game, ("greedy", {**base, **best}), opponent, check)
    low, high = wilson(share, 2 * args.check_deals)
    print(f"check on {args.check_deals} fresh deals, seats rotated: win share vs {args.opponent} "
          f"{share:.3f} [{low:.3f}, {high:.3f}]")
    if args.game == "nyz":
        rate = solo_rate(game, ("greedy", {**base, **best}), check)
        low, high = wilson(rate, args.check_deals)
        print(f"solo win rate {rate:.3f} [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
