"""One player's strength and speed, as docs/benchmarks.md reports them for a player's parameters.

    python benchmarks/head_to_head.py nyz learned --params '{"width": 3}' --opponent mcts_duel
    python benchmarks/head_to_head.py nyz learned --solo
    python benchmarks/head_to_head.py nyz learned --speed --players 2
    python benchmarks/head_to_head.py nyz expert --opponent strong --players 4

Strength: the candidate's win share against the opponent over `--deals` deals of
`matches.deal_seeds(SEED, DEALS)`, every deal in both seat orders (2 players), with a 95% t
interval over deals (the deal is the unit); with `--players N` above 2, one candidate among N - 1
opponents, every deal in all N seats, its win share (fair: 1/N; a shared win counts 1/winners)
with a t interval over deals; `--solo`: its solo win rate over one game per seed,
with a Wilson interval. The deals are split into parts played on `--jobs` processes; the figures
do not depend on the split. Speed: games per CPU second of this thread (not wall time, so a
busy machine slows it less), the best of three batches of `--games` games with the candidate
in every seat, after one small batch that compiles; pin it to a core (`taskset -c 1`) and
report the machine and its load beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tune_heuristics import GAMES  # noqa: E402

from simulator.analysis.stats import mean_interval, wilson_interval  # noqa: E402
from simulator.games.matches import deal_seeds, deal_shares, solo_rate  # noqa: E402


def solo_wins(game, candidate, seeds) -> float:
    return solo_rate(game, candidate, seeds) * len(seeds)


def one_among_opponents(game, candidate, opponent, players: int, seeds) -> np.ndarray:
    """The candidate's win share per deal, one candidate (slot 0) among players - 1 opponents,
    the mean over the deal played with the candidate in each seat."""
    params = game.make_params({"players": players})
    seating = game.seat_policies([candidate] + [opponent] * (players - 1))
    every = np.tile(seeds, players)
    rotations = np.repeat(np.arange(players, dtype=np.int64), len(seeds))
    win = game.play_batch(params, seating, every, rotations)["win"].astype(float)
    share = win / np.maximum(win.sum(axis=1, keepdims=True), 1)
    return share[np.arange(len(every)), rotations].reshape(players, len(seeds)).mean(axis=0)


def games_per_cpu_second(game, candidate, players: int, games: int) -> float:
    params = game.make_params({"players": players})
    seating = game.seat_policies([candidate] * players)
    rotations = np.zeros(games, dtype=np.int64)
    game.play_batch(params, seating, np.arange(4, dtype=np.uint64), rotations[:4])  # compiles
    best = 0.0
    for batch in range(3):
        seeds = np.arange(games, dtype=np.uint64) + np.uint64(7 + batch * games)
        start = time.thread_time()
        game.play_batch(params, seating, seeds, rotations)
        best = max(best, games / (time.thread_time() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("policy")
    parser.add_argument("--params", default="{}", help="the candidate's parameters (JSON)")
    parser.add_argument("--opponent", help="the opponent's policy (2 players)")
    parser.add_argument("--opponent-params", default="{}", help="the opponent's parameters (JSON)")
    parser.add_argument("--solo", action="store_true", help="the solo win rate instead")
    parser.add_argument("--speed", action="store_true", help="games per CPU second instead")
    parser.add_argument("--players", type=int, default=2, help="players per game (--speed, --opponent)")
    parser.add_argument("--games", type=int, default=1000, help="--speed: games per batch")
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    if sum([args.opponent is not None, args.solo, args.speed]) != 1:
        parser.error("give exactly one of --opponent, --solo and --speed")
    game = GAMES[args.game]
    candidate = (args.policy, json.loads(args.params))
    label = f"{args.policy} {args.params}"
    if args.speed:
        rate = games_per_cpu_second(game, candidate, args.players, args.games)
        print(f"{label}, {args.players} players: {rate:,.0f} games per CPU second "
              f"(best of 3 x {args.games})")
        return
    seeds = deal_seeds(args.seed, args.deals)
    parts = np.array_split(seeds, 4 * args.jobs)
    if args.solo:
        wins = sum(Parallel(n_jobs=args.jobs)(delayed(solo_wins)(game, candidate, part) for part in parts))
        low, high = wilson_interval(round(wins), len(seeds))
        print(f"{label} solo: {100 * wins / len(seeds):.1f}% [{100 * low:.1f}, {100 * high:.1f}] "
              f"of {len(seeds):,} games, deal_seeds({args.seed}, {args.deals})")
        return
    opponent = (args.opponent, json.loads(args.opponent_params))
    if args.players > 2:
        shares = np.concatenate(Parallel(n_jobs=args.jobs)(
            delayed(one_among_opponents)(game, candidate, opponent, args.players, part) for part in parts))
        orders = f"one among {args.players - 1}, every seat (fair {100 / args.players:.1f}%)"
    else:
        shares = np.concatenate(Parallel(n_jobs=args.jobs)(
            delayed(deal_shares)(game, candidate, opponent, part) for part in parts))
        orders = "both seat orders"
    low, high = mean_interval(shares)
    print(f"{label} against {args.opponent} {args.opponent_params}: {100 * shares.mean():.1f}% "
          f"[{100 * float(low):.1f}, {100 * float(high):.1f}] over {len(seeds):,} deals, "
          f"deal_seeds({args.seed}, {args.deals}), {orders}")


if __name__ == "__main__":
    main()
