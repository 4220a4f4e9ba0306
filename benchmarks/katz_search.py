"""Strength and speed of the Katz search policies (issue #9's goals for `ismcts`: at least 60% of
2-player games against `expectimax`, seats rotated, over at least 2,000 deals; at least 30
four-player games per second per core).

Strength: the candidate's win share against the opponent in 2-player games, every deal played in
both seat orders (tune_heuristics.head_to_head: common random numbers, a shared win counts 1/2),
with a 95% Wilson interval; deals are split over --jobs processes. Speed: four-player games per
second on one core with the candidate in every seat (as `zoosim bench`), with the load average
at the time (speed under load is a lower bound).

    python benchmarks/katz_search.py --deals 2000 --jobs 2
    python benchmarks/katz_search.py --candidate ismcts --params '{"iterations": 50}' --deals 300
    python benchmarks/katz_search.py --candidate oracle --opponent ismcts --deals 500 --speed 0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tune_heuristics import deal_seeds, head_to_head, wilson  # noqa: E402

from simulator.games.katz import GAME  # noqa: E402


def share_of(candidate, opponent, seeds) -> float:
    return head_to_head(GAME, candidate, opponent, seeds)


def four_player_speed(candidate, seconds: float) -> tuple[float, float]:
    """Four-player games per second on this core, the candidate in every seat: per wall-clock
    second and per CPU second of this process (less affected by a loaded machine)."""
    params = GAME.make_params({"players": 4})
    seating = GAME.seat_policies([candidate] * 4)
    GAME.play_batch(params, seating, np.arange(2, dtype=np.uint64), np.zeros(2, np.int8))  # compile
    played, elapsed, cpu, batch = 0, 0.0, 0.0, 8
    while elapsed < seconds:
        started, cpu_started = time.perf_counter(), time.process_time()
        GAME.play_batch(params, seating, np.arange(1_000 + played, 1_000 + played + batch, dtype=np.uint64),
                        np.zeros(batch, np.int8))
        elapsed += time.perf_counter() - started
        cpu += time.process_time() - cpu_started
        played += batch
        batch *= 2
    return played / elapsed, played / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", default="ismcts")
    parser.add_argument("--params", default="{}", help="candidate's parameters as JSON")
    parser.add_argument("--opponent", default="expectimax")
    parser.add_argument("--opponent-params", default="{}", help="opponent's parameters as JSON")
    parser.add_argument("--deals", type=int, default=2000, help="deals, each played in both seat orders")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--speed", type=float, default=20.0, help="seconds of the speed measurement (0: none)")
    args = parser.parse_args()

    candidate = (args.candidate, json.loads(args.params))
    opponent = (args.opponent, json.loads(args.opponent_params))
    GAME.seat_policies([candidate, opponent])  # refuses impossible parameters before any work
    if args.deals:
        seeds = deal_seeds(args.seed, args.deals)
        parts = np.array_split(seeds, max(1, args.jobs))
        began = time.perf_counter()
        shares = Parallel(n_jobs=args.jobs)(delayed(share_of)(candidate, opponent, part) for part in parts)
        share = sum(s * len(p) for s, p in zip(shares, parts)) / len(seeds)
        low, high = wilson(share, 2 * args.deals)
        print(f"{args.candidate} {json.dumps(candidate[1])} vs {args.opponent}: win share {share:.3f} "
              f"[{low:.3f}, {high:.3f}] over {args.deals} deals x 2 seat orders "
              f"({time.perf_counter() - began:.0f} s, {args.jobs} jobs)")
    if args.speed:
        rate, cpu_rate = four_player_speed(candidate, args.speed)
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        print(f"{args.candidate}: {rate:.1f} four-player games/s on one core, {cpu_rate:.1f} per CPU "
              f"second (load average {load})")


if __name__ == "__main__":
    main()
