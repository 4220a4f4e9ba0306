"""Coverage of the studio's live intervals under "stop the moment it looks decided" (issue 42).

    .venv/bin/python benchmarks/anytime_coverage.py [--watchers 200] [--max-deals 25000]

Each watcher plays deals of the calibration game (tests/analysis/calibration_game.py: 4 seats,
known seat shares, every deal in all 4 rotations, deal luck in one of three regimes) and looks at
the verdict after EVERY deal, stopping at the first decided one (balanced / unbalanced at the
margin, simulator/analysis/anytime.live_verdict) or at --max-deals. Columns: how often every
seat's interval at the stopping moment covers its true share (nominal 95%, jointly), the verdicts
reached, and the median games at the stop. For contrast, the same watchers with fixed-sample
intervals (Bonferroni-simultaneous normal intervals on the per-deal means, 95% jointly at one
pre-set count) looked at every LOOK_DEALS deals: watching breaks their level.
Monte Carlo standard error of a coverage p over W watchers: sqrt(p (1 - p) / W).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from calibration_game import REGIMES, play_records  # noqa: E402
from machine import machine_line  # noqa: E402

from simulator.analysis import stats  # noqa: E402
from simulator.analysis.anytime import deal_shares, live_verdict, margin_sequences  # noqa: E402

MARGIN = 0.01  # 1 point
SEATS = 4
BLOCK_DEALS = 2000  # deals played per block while a watcher has not stopped
LOOK_DEALS = 100  # the fixed-sample watcher looks this often
SITUATIONS = (
    # (name, true shares, the right verdict)
    ("fair", [0.25] * 4, "balanced"),
    ("seat 0 at the margin", [0.26] + [0.74 / 3] * 3, None),  # neither call is right
    ("seat 0 +1.5 pts", [0.265] + [0.735 / 3] * 3, "unbalanced"),
    ("seat 0 +2 pts", [0.27] + [0.73 / 3] * 3, "unbalanced"),
)


def decided(lows, highs) -> np.ndarray:
    """Per row of bounds (moments, seats): the live verdict's code, 0 undecided, 1 balanced,
    2 unbalanced (anytime.live_verdict, vectorized over moments; checked against it in `watch`)."""
    fair = 1.0 / SEATS
    inside = np.all((lows >= fair - MARGIN) & (highs <= fair + MARGIN), axis=1)
    outside = np.any((highs < fair - MARGIN) | (lows > fair + MARGIN), axis=1)
    return np.where(inside, 1, np.where(outside, 2, 0))


def first_decided(lows, highs):
    codes = decided(lows, highs)
    hit = np.flatnonzero(codes)
    if not len(hit):
        return None
    index = int(hit[0])
    verdict = live_verdict(lows[index], highs[index], MARGIN)
    assert verdict == ("balanced", "unbalanced")[codes[index] - 1]
    return verdict, lows[index], highs[index], index


def watch(rng, shares, regime: str, max_deals: int) -> dict:
    """One watcher of the confidence sequences, and one of fixed-sample intervals on the same
    deals, up to the same cap."""
    sequences = margin_sequences(SEATS, MARGIN)
    z = stats.two_sided_z(stats.bonferroni_confidence(0.95, SEATS))
    total = np.zeros(SEATS)
    total_sq = np.zeros(SEATS)
    live = fixed = None
    while sequences.deals < max_deals and (live is None or fixed is None):
        records = play_records(rng, shares, min(BLOCK_DEALS, max_deals - sequences.deals), regime)
        x = deal_shares(np.stack([records[f"win_{s}"] for s in range(SEATS)], axis=1), SEATS)
        start = sequences.deals
        lows, highs = sequences.update(x)
        if live is None and (found := first_decided(lows, highs)) is not None:
            live = (*found[:3], start + found[3] + 1)
        # the fixed-sample watcher's looks in this block: running means and standard deviations
        sums, squares = total + np.cumsum(x, axis=0), total_sq + np.cumsum(x * x, axis=0)
        total, total_sq = sums[-1], squares[-1]
        looks = np.arange(LOOK_DEALS * (start // LOOK_DEALS + 1), start + len(x) + 1, LOOK_DEALS)
        if fixed is None and len(looks):
            count = looks[:, None].astype(float)
            means = sums[looks - start - 1] / count
            spread = np.sqrt(np.maximum(squares[looks - start - 1] - count * means**2, 0.0) / (count - 1))
            half = z * spread / np.sqrt(count)
            found = first_decided(means - half, means + half)
            if found is not None:
                fixed = (*found[:3], int(looks[found[3]]))
            elif sequences.deals >= max_deals:
                fixed = ("undecided", means[-1] - half[-1], means[-1] + half[-1], int(looks[-1]))
    if live is None:
        live = ("undecided", sequences.low, sequences.high, sequences.deals)
    return {"live": live, "fixed": fixed}


def row(results: list, shares, key: str) -> tuple[float, dict, float]:
    covered = np.mean([np.all((r[key][1] <= shares) & (shares <= r[key][2])) for r in results])
    verdicts = {name: np.mean([r[key][0] == name for r in results]) for name in ("balanced", "unbalanced", "undecided")}
    games = float(np.median([r[key][3] for r in results])) * SEATS
    return float(covered), verdicts, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--max-deals", type=int, default=25_000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    print(machine_line())
    print(f"{args.watchers} watchers per row; {SEATS} seats, margin ±{MARGIN * 100:g} point, stop at the first "
          f"decided deal or {args.max_deals:,} deals ({args.max_deals * SEATS:,} games)")
    header = (f"{'regime':<6} {'situation':<21} {'intervals':<22} {'coverage':>8} {'balanced':>9} {'unbal.':>7} "
              f"{'undecided':>9} {'median games':>12}")
    print(header)
    print("-" * len(header))
    for regime_index, regime in enumerate(REGIMES):
        for index, (name, shares, _) in enumerate(SITUATIONS):
            rng = np.random.default_rng([args.seed, regime_index, index])
            shares = np.asarray(shares)
            results = [watch(rng, shares, regime, args.max_deals) for _ in range(args.watchers)]
            for key, what in (("live", "confidence sequence"), ("fixed", f"fixed, looked every {LOOK_DEALS * SEATS}")):
                covered, verdicts, games = row(results, shares, key)
                print(f"{regime:<6} {name:<21} {what:<22} {covered:>8.1%} {verdicts['balanced']:>9.1%} "
                      f"{verdicts['unbalanced']:>7.1%} {verdicts['undecided']:>9.1%} {games:>12,.0f}", flush=True)


if __name__ == "__main__":
    main()
