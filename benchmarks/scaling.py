"""Budget scaling of a search policy (issue #19, item 1): does twice the thought ever play worse?

For B = the policy's shipped `iterations` x 1, 2, 4, ... (--doublings values), plays the policy
with 2B iterations against itself with B in 2-player games, every deal in both seat orders
(common random numbers; a shared win counts 1/2), and prints 2B's win share with a 95% interval.
The deal is the sampling unit: a deal's value is 2B's mean share over its two games, and the
interval is the t interval over deals (analysis.stats.mean_interval), so the correlation of the
two games of a deal is accounted for. A search gains or holds strength at a doubling unless that
interval lies entirely below 50%.

    python benchmarks/scaling.py nyz mcts --deals 1000 --jobs 2
    python benchmarks/scaling.py katz ismcts --deals 200 --doublings 3
    python benchmarks/scaling.py nyz mcts --params '{"width": 3}' --deals 300
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tune_heuristics import GAMES, deal_seeds, deal_shares  # noqa: E402

from simulator.analysis.stats import mean_interval  # noqa: E402
from simulator.errors import ZoosimError  # noqa: E402

BUDGET = "iterations"  # the budget parameter of every shipped search policy
CONFIDENCE = 0.95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("policy", help="a search policy with an `iterations` parameter")
    parser.add_argument("--params", default="{}", help="the policy's other parameters as JSON")
    parser.add_argument("--deals", type=int, default=1000, help="deals per pair, each played in both seat orders")
    parser.add_argument("--doublings", type=int, default=5, help="pairs: B = shipped x 1, 2, 4, ...")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()

    game = GAMES[args.game]
    policy = game.policies.get(args.policy)
    try:
        overrides = json.loads(args.params)
    except json.JSONDecodeError as error:
        parser.exit(2, f"scaling.py: --params is not JSON ({error})\n")
    if not isinstance(overrides, dict):
        parser.exit(2, "scaling.py: --params must be a JSON object of parameter names and values\n")
    if policy is None or BUDGET not in policy.params:
        searches = sorted(name for name, spec in game.policies.items() if BUDGET in spec.params)
        parser.exit(2, f"scaling.py: policy {args.policy!r} of {args.game} has no {BUDGET!r}; "
                       f"allowed: {', '.join(searches)}\n")
    if args.deals < 2 or args.doublings < 1 or args.jobs < 1:
        parser.exit(2, "scaling.py: --deals must be at least 2, --doublings and --jobs at least 1\n")
    shipped = int(overrides.get(BUDGET, policy.params[BUDGET]))
    try:
        game.seat_policies([(args.policy, {**overrides, BUDGET: shipped})])
    except (ValueError, ZoosimError) as error:
        parser.exit(2, f"scaling.py: --params: {error}\n")

    seeds = deal_seeds(args.seed, args.deals)
    parts = [part for part in np.array_split(seeds, args.jobs) if len(part)]
    print(f"{args.game} {args.policy} {json.dumps(overrides)}: 2B against B, {args.deals} deals "
          f"x 2 seat orders per pair, {CONFIDENCE:.0%} t interval over deals")
    print(f"{'B':>6} {'2B':>6} {'2B share':>9} {'interval':>17}  verdict")
    for doubling in range(args.doublings):
        budget = shipped * 2 ** doubling
        smaller = (args.policy, {**overrides, BUDGET: budget})
        larger = (args.policy, {**overrides, BUDGET: 2 * budget})
        shares = np.concatenate(Parallel(n_jobs=args.jobs)(
            delayed(deal_shares)(game, larger, smaller, part) for part in parts))
        low, high = mean_interval(shares, CONFIDENCE)
        verdict = "LOSES" if high < 0.5 else ("gains" if low > 0.5 else "holds")
        print(f"{budget:>6} {2 * budget:>6} {shares.mean():>9.3f} [{float(low):.3f}, {float(high):.3f}]  {verdict}",
              flush=True)


if __name__ == "__main__":
    main()
