"""Calibration table of the report's seat statistics (issue 20): coverage, levels and power per
deal-correlation regime, on the test-only calibration game (tests/analysis/calibration_game.py).

    .venv/bin/python benchmarks/calibration.py [--replications 1000]

Rows: regime (none / luck with the hand / luck with the seat) x situation (a fair game; a seat
exactly at the margin). Columns: per-seat and simultaneous coverage of the true shares (nominal
95%), the chi-square test's rejection rate at 5% (its level, for the fair game), and how often
the verdict says balanced / unbalanced; then precision mode's games and coverage per regime.
Monte Carlo standard error of a rate p over R
replications: sqrt(p (1 - p) / R).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))

import numpy as np  # noqa: E402
from calibration_game import REGIMES, hoeffding_sequence_games, precision_run, replicate  # noqa: E402

PRECISION_TARGET = 0.005  # half-width asked of precision mode, at 4 seats

SITUATIONS = (
    # (name, seat shares, deals, margin in points)
    ("fair, 20,000 games, ±1", [0.25] * 4, 5000, 1.0),
    ("seat 0 at the margin, 4,000 games, ±3", [0.28, 0.24, 0.24, 0.24], 1000, 3.0),
    ("seat 0 at the margin, 20,000 games, ±1", [0.26, 0.74 / 3, 0.74 / 3, 0.74 / 3], 5000, 1.0),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=400)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    replications = args.replications
    print(f"{replications} replications per row; 4 seats, every deal in all 4 rotations")
    header = f"{'regime':<6} {'situation':<40} {'seat cov':>8} {'sim cov':>8} {'chi2 5%':>8} {'balanced':>9} {'unbal.':>7}"
    print(header)
    print("-" * len(header))
    for regime in REGIMES:
        for index, (name, shares, deals, margin) in enumerate(SITUATIONS):
            seed = args.seed * 100 + REGIMES.index(regime) * 10 + index
            result = replicate(shares, deals, regime, replications, seed, margin)
            print(f"{regime:<6} {name:<40} {result['seat_coverage']:>8.1%} {result['joint_coverage']:>8.1%} "
                  f"{result['rejects_at_5']:>8.1%} {result['balanced']:>9.1%} {result['unbalanced']:>7.1%}")
    former = hoeffding_sequence_games(PRECISION_TARGET, 4)
    print(f"\nprecision mode, ±{PRECISION_TARGET} at 4 fair seats ({replications // 10} runs per regime; "
          f"the former Hoeffding sequence played {former:,} games)")
    for regime in REGIMES:
        rng = np.random.default_rng(args.seed)
        runs = [precision_run(rng, np.full(4, 0.25), regime, PRECISION_TARGET) for _ in range(max(1, replications // 10))]
        games = np.mean([totals.games for totals, _ in runs])
        covered = np.mean([covered for _, covered in runs])
        print(f"{regime:<6} mean games {games:>9,.0f} ({former / games:.2f}x fewer), simultaneous coverage {covered:.1%}")


if __name__ == "__main__":
    main()
