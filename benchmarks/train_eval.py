"""Train a game's learned evaluation (issue #19 item 2) and write its weights file.

1. Regression. Plays self-play games and fits the evaluation by simulator/games/nyz/training.py
   (record() and fit(), the training contract `zoosim train` shares; its docstring says what is
   recorded and fitted per set). The card's `fit` has the fit's quality.
2. Tuning (--tune-trials, 0 to skip): training.tune(), the tuning for play `zoosim train` runs
   each round too (its docstring: a seeded TPE search scored by `learned`'s win share against
   greedy_duel over --tune-deals deals, and its solo win rate). The card's `tuning` has the scores.
Writes NAME.npz with its card NAME.json (learned.py). Reproducible: the same arguments give the
same file, for any --jobs.

    python benchmarks/train_eval.py nyz --seed 1                       # the shipped weights
    python benchmarks/train_eval.py nyz --seed 2 --games 400 --out /tmp/try.npz
    python benchmarks/train_eval.py nyz --seed 1 --policies learned greedy_duel   # a 2nd round
    python benchmarks/train_eval.py katz --seed 1 --games 1000 --jobs 2   # Katz's shipped weights
                                      # (train_katz over katz/training.py; only --seed, --games,
                                      # --jobs, --out, --katz-policy and --start apply)
    python benchmarks/train_eval.py katz --katz-policy strong --start round1.npz --out round2.npz
                                      # a second round on the games of `strong` (expert iteration)

Policies: each game seats policies drawn (by the seed) from --policies, one per seat; a learned
policy in the list plays with the weights file given by --start (default: the shipped one).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from simulator.games import get_game  # noqa: E402
from simulator.games.base import params_hash, played_rules  # noqa: E402
from simulator.games.learned import WEIGHTS_FORMAT, save_weights  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "simulator/games/nyz/weights/default.npz"


def record_chunk(players, policy_names, start, seeds, draws):
    """training.record's data of some games, each seating the policies its draw picks."""
    from simulator.games.nyz import training

    game = get_game("nyz")
    params = game.make_params({"players": players})
    chunks = []
    for seed, draw in zip(seeds, draws):
        seats = []
        for seat in range(players):
            name = policy_names[draw[seat] % len(policy_names)]
            seats.append((name, {"weights": start} if "weights" in game.policies[name].params else {}))
        chunks.append(training.record(params, game.seat_policies(seats), [int(seed)], [0]))
    return chunks


def record(players, games, policy_names, start, seed, jobs):
    """training.record's data of `games` seeded games at `players`, the chunks in seed order."""
    sequence = np.random.SeedSequence([seed, players])
    seeds = sequence.generate_state(games, dtype=np.uint64)
    draws = np.random.default_rng(sequence.spawn(1)[0]).integers(0, 1 << 30, size=(games, players))
    chunks = np.array_split(np.arange(games), max(1, min(games, 8 * jobs)))
    results = Parallel(n_jobs=jobs)(
        delayed(record_chunk)(players, policy_names, start, seeds[chunk], draws[chunk])
        for chunk in chunks if len(chunk))
    return [data for chunk in results for data in chunk]


def concatenate(chunks):
    """record()'s chunks joined key by key, array by array (the training contract)."""
    return {name: tuple(np.concatenate(arrays) for arrays in zip(*(chunk[name] for chunk in chunks)))
            for name in chunks[0]}


def katz_chunk(policy, players, seeds, rotations):
    """Katz training data of one chunk of games, `policy` (name, parameters) in every seat."""
    from simulator.games.katz import training

    game = get_game("katz")
    seating = game.seat_policies([policy] * players)
    return training.record(game.make_params({"players": players}), seating, seeds, rotations,
                           training.TRAINING_EXPLORE)


def train_katz(seed, games, jobs, out, command, policy):
    """Katz's weights: `games` training games split by katz/training.py's TRAINING_PLAYERS and
    played by `policy` (name, parameters) in every seat, recorded in chunks over `jobs` processes (training.record), fitted (training.fit) and written
    to `out` with their card. The same seed and games give the same file for any `jobs`: a game's
    seed and seat rotation depend on its index only, and the chunks are joined in order."""
    from simulator.games.katz import training
    from simulator.games.katz.specs import FEATURE_NAMES, SET_NAMES

    tasks = []
    for players, share in training.TRAINING_PLAYERS.items():
        count = int(round(games * share))
        seeds = np.random.SeedSequence([seed, players]).generate_state(count, dtype=np.uint64)
        rotations = np.arange(count) % players
        for chunk in np.array_split(np.arange(count), max(1, min(count, 4 * jobs))):
            if len(chunk):
                tasks.append((players, seeds[chunk], rotations[chunk]))
    parts = Parallel(n_jobs=jobs)(delayed(katz_chunk)(policy, *task) for task in tasks)
    data = {name: tuple(np.concatenate([part[name][index] for part in parts])
                        for index in range(len(parts[0][name])))
            for name in parts[0]}  # the sets, and a search's visit counts (the move priors)
    weights, intercepts, fits = training.fit(data, seed)
    game = get_game("katz")
    params = game.make_params({})
    card = {
        "format": WEIGHTS_FORMAT, "game": "katz", "features": list(FEATURE_NAMES),
        "sets": list(SET_NAMES), "rules": played_rules(params),
        "rules_hash": params_hash(params, game.rules_version), "seed": int(seed),
        "training_games": int(sum(len(task[1]) for task in tasks)),
        "training_positions": int(len(data[SET_NAMES[0]][0])),
        "command": command, "fit": fits, "strength": None,
        "training": {"players": {str(k): v for k, v in training.TRAINING_PLAYERS.items()},
                     "policy": policy[0], "policy_params": policy[1],
                     "explore": training.TRAINING_EXPLORE,
                     "alpha": training.TRAINING_ALPHA},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(out, weights, intercepts, card)
    print(f"wrote {out}: {card['training_positions']} positions, move set holdout R^2 "
          f"{fits['move']['holdout_r2']:.3f}")
    return card


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=["nyz", "katz"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=1500, help="2-player training games")
    parser.add_argument("--games-3p", type=int, default=300, help="3-player training games")
    parser.add_argument("--solo-games", type=int, default=1500)
    parser.add_argument("--policies", nargs="+", default=["greedy_duel", "greedy_tuned", "greedy"])
    parser.add_argument("--solo-policies", nargs="+", default=["greedy_tuned", "greedy"])
    parser.add_argument("--start", default="default", help="weights of learned policies in --policies")
    parser.add_argument("--katz-policy", help="katz: the policy of every seat (default: katz/training.py's)")
    parser.add_argument("--alpha", type=float, default=1.0, help="ridge penalty")
    parser.add_argument("--tune-trials", type=int, default=120, help="tuning trials per set (0: none)")
    parser.add_argument("--tune-deals", type=int, default=100, help="deals per tuning trial")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    if args.game == "katz":  # Katz's procedure is its own (train_katz)
        from simulator.games.katz.specs import WEIGHTS_FILE
        from simulator.games.katz.training import TRAINING_POLICY

        name = args.katz_policy or TRAINING_POLICY
        if name not in get_game("katz").policies:
            parser.exit(2, f"train_eval.py: --katz-policy {name!r} is no katz policy; allowed: "
                           f"{', '.join(sorted(get_game('katz').policies))}\n")
        policy = (name, {"weights": args.start} if "weights" in get_game("katz").policies[name].params else {})
        train_katz(args.seed, args.games, args.jobs, WEIGHTS_FILE if args.out == DEFAULT_OUT else args.out,
                   "python benchmarks/train_eval.py " + shlex.join(sys.argv[1:]), policy)
        return

    from simulator.games.nyz import training
    from simulator.games.nyz.specs import FEATURE_NAMES, SET_NAMES

    game = get_game(args.game)
    began = time.perf_counter()
    plays = [(1, args.solo_games, args.solo_policies), (2, args.games, args.policies),
             (3, args.games_3p, args.policies)]
    chunks = []
    for players, games, policy_names in plays:
        if games > 0:
            chunks += record(players, games, policy_names, args.start, args.seed, args.jobs)
    data = concatenate(chunks)
    weights, intercepts, fits = training.fit(data, args.seed, alpha=args.alpha)
    for set_name in SET_NAMES:
        print(f"{set_name}: {len(data[set_name][0])} rows, holdout R^2 {fits[set_name]['holdout_r2']:.3f}, "
              f"RMSE {fits[set_name]['holdout_rmse']:.2f} squares")
    games_total = sum(games for _, games, _ in plays if games > 0)
    positions_total = sum(len(data[name][0]) for name in SET_NAMES)
    tuning = {}
    if args.tune_trials > 0:
        weights, tuning = training.tune(weights, intercepts, {}, args.seed, args.tune_trials, args.tune_deals)
        for set_name in SET_NAMES:
            print(f"{set_name}: tuned {tuning[set_name]}")
    params = game.make_params({"players": 2})
    card = {
        "format": WEIGHTS_FORMAT, "game": args.game, "features": list(FEATURE_NAMES),
        "sets": list(SET_NAMES), "rules": played_rules(params),
        "rules_hash": params_hash(params, game.rules_version), "seed": args.seed,
        "training_games": games_total, "training_positions": positions_total,
        "command": "python benchmarks/train_eval.py " + shlex.join(sys.argv[1:]), "fit": fits,
        "strength": None, "tuning": tuning,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(args.out, weights, intercepts, card)
    print(f"wrote {args.out} in {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
