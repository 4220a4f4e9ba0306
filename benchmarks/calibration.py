"""Calibration table of the report's seat statistics (issue 20): coverage, levels and power per
deal-correlation regime, on the test-only calibration game (tests/analysis/calibration_game.py).

    .venv/bin/python benchmarks/calibration.py [--replications 1000]

Rows: regime (none / luck with the hand / luck with the seat) x situation (a fair game; a seat
exactly at the margin). Columns: per-seat and simultaneous coverage of the true shares (nominal
95%), the chi-square test's rejection rate at 5% (its level, for the fair game), and how often
the verdict says balanced / unbalanced; then precision mode's games and coverage per regime,
against the former Hoeffding sequence and the fewest games any interval of that width needs at
95% true coverage.
Monte Carlo standard error of a rate p over R
replications: sqrt(p (1 - p) / R).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))

import numpy as np  # noqa: E402
from calibration_game import (  # noqa: E402
    REGIMES, hoeffding_sequence_games, hoeffding_sequence_halfwidth, play_records, precision_run, replicate,
)

from simulator.analysis import stats  # noqa: E402
from simulator.analysis.summary import summarize_columns  # noqa: E402

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
    print_precision_table(max(1, replications // 10), args.seed)


def print_precision_table(runs: int, seed: int) -> None:
    """Precision mode against the former Hoeffding sequence, per regime, at equal TRUE coverage:
    the former one stopped at a fixed count whatever the data; the fewest games any fixed-count
    interval of the target width needs at 95% true simultaneous coverage is
    z^2 p (1 - p) d / h^2 (z Bonferroni over the seats, d the seats' measured design effect),
    the floor that no method keeping the coverage can beat."""
    seats, shares = 4, np.full(4, 0.25)
    former = hoeffding_sequence_games(PRECISION_TARGET, seats)
    joint = stats.bonferroni_confidence(0.95, seats)
    former_half_width = hoeffding_sequence_halfwidth(former, joint, tuned_trials=(1.5 / PRECISION_TARGET) ** 2)
    print(f"\nprecision mode, ±{PRECISION_TARGET} at {seats} fair seats, {runs} runs per regime; the former Hoeffding "
          f"sequence stopped at {former:,} games in every regime")
    header = (f"{'regime':<6} {'games':>8} {'fewer':>6} {'coverage':>9} {'fewest at 95%':>14} "
              f"{'former coverage':>16}")
    print(header)
    print("-" * len(header))
    z = stats.two_sided_z(joint)
    for regime in REGIMES:
        rng = np.random.default_rng(seed)
        results = [precision_run(rng, shares, regime, PRECISION_TARGET) for _ in range(runs)]
        games = np.mean([totals.games for totals, _ in results])
        covered = np.mean([covered for _, covered in results])
        effect = np.mean([totals.seat_design_effects().max() for totals, _ in results])
        fewest = z**2 * 0.25 * 0.75 * effect / PRECISION_TARGET**2
        former_covered = np.mean([
            np.all(np.abs(summarize_columns(play_records(rng, shares, former // seats, regime), seats, mixed=False,
                                            games_per_deal=seats).share_sum / former - shares) <= former_half_width)
            for _ in range(runs)])
        print(f"{regime:<6} {games:>8,.0f} {former / games:>5.2f}x {covered:>9.1%} {fewest:>14,.0f} {former_covered:>16.1%}")
    print("games: precision mode's mean; coverage: its shown simultaneous intervals' true coverage (nominal 95%);\n"
          "fewest at 95%: the fixed-count floor at the measured design effect; former coverage: the Hoeffding\n"
          "sequence's true coverage where it stopped (it bought more coverage than it showed, with the games).")

if __name__ == "__main__":
    main()
