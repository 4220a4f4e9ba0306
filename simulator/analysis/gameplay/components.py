"""Figure `component`: component strength. For each component the game declares
(`Game.components`: per-seat record columns counting what a seat took, e.g. Katz cats held,
New York Zoo attractions), the difference in win share between seat-games where the seat took
it (count > 0) and seat-games where it did not, adjusted for the seat by stratification: the
difference is taken within each seat (turn position) and averaged over the seats with equal
weights (every seat plays every game; a seat where all or none took it is left out). Games
without a winner are left out, as in the seat table.

Interval: the estimator is a weighted sum of differences of ratio means; its variance is the
Taylor-linearised variance with the deal as the unit: per deal d the influence
z_d = sum_s w_s [(y1_ds - p1_s n1_ds) / N1_s - (y0_ds - p0_s n0_ds) / N0_s] (y the deal's summed
win shares, n its seat-games, in the took (1) and did-not (0) groups of seat s), variance
D / (D - 1) sum_d z_d^2, and a t interval on D - 1 degrees of freedom.
Reference: Cochran, W. G. (1977), Sampling Techniques, 3rd ed., Wiley, 5A.7 (stratified
estimates) and 6.13 (ratio estimates from clusters); Wolter, K. M. (2007), Introduction to
Variance Estimation, 2nd ed., ch. 6 (Taylor series).

A component is flagged out of line when its whole interval lies beyond the designer's margin
(GameplayOptions.component_margin_points) either way. This is association under the seated
players, not cause: a strong player takes what it values, and taking one thing goes with
taking others. `zoosim explain` and `zoosim compare` test a rule change's effect causally.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.analysis import stats
from simulator.analysis.gameplay.figure import Chart, CellGames, Figure, item, register, rows

POINTS = 100.0  # win-share points per unit of share


def took_difference(games: CellGames, took: np.ndarray, confidence: float) -> tuple[float, float, float, float]:
    """(difference in win share, low, high, share of seat-games that took it) for `took`
    (games, players) bool, stratified by seat (module doc); NaNs where no seat has both groups
    or fewer than 2 deals."""
    shares, rated = games.win_shares()
    codes, deals = games.deal_codes()
    codes = codes[rated]
    shares, took = shares[rated], took[rated]
    strata = []
    for seat in range(games.players):
        groups = []
        for group in (took[:, seat], ~took[:, seat]):
            y = np.bincount(codes, weights=np.where(group, shares[:, seat], 0.0), minlength=deals)
            n = np.bincount(codes, weights=group.astype(float), minlength=deals)
            groups.append((y, n))
        if groups[0][1].sum() > 0 and groups[1][1].sum() > 0:
            strata.append(groups)
    took_rate = float(took.mean()) if took.size else float("nan")
    if not strata or deals < 2:
        return float("nan"), float("nan"), float("nan"), took_rate
    weight = 1.0 / len(strata)
    estimate = 0.0
    influence = np.zeros(deals)
    for (y1, n1), (y0, n0) in strata:
        p1, p0 = y1.sum() / n1.sum(), y0.sum() / n0.sum()
        estimate += weight * (p1 - p0)
        influence += weight * ((y1 - p1 * n1) / n1.sum() - (y0 - p0 * n0) / n0.sum())
    used = np.count_nonzero(np.bincount(codes, minlength=deals))
    variance = used / (used - 1) * float(np.square(influence).sum()) if used >= 2 else float("nan")
    half = stats.two_sided_t(confidence, max(used - 1, 1)) * np.sqrt(variance)
    return estimate, estimate - half, estimate + half, took_rate


def reduce(games: CellGames, confidence: float, options) -> pd.DataFrame:
    margin = options.component_margin_points
    items = []
    for column, name in games.components.items():
        if column not in games.seat:
            continue  # a run recorded before the game kept this column
        difference, low, high, took_rate = took_difference(games, np.asarray(games.seat[column]) > 0, confidence)
        points = (POINTS * difference, POINTS * low, POINTS * high)
        items.append(item(name, points, "win-share points", took_rate=took_rate, margin=margin,
                          flag=bool(points[1] > margin or points[2] < -margin)))
    frame = rows("component", items, games, "seat-stratified difference, deal-linearised t interval")
    return frame.sort_values("estimate", ascending=False, ignore_index=True)


register(Figure(
    name="component",
    title="Component strength",
    reduce=reduce,
    order=30,
    seat_columns=("win",),
    reads_components=True,
    applies=lambda games: games.players > 1 and bool(games.components),
    shown=(("item", "component", "text"), ("took_rate", "seat-games that took it", "pct"),
           ("estimate", "win share, took − did not (points)", "signed"), ("low", "95% low", "signed"),
           ("high", "95% high", "signed"), ("flag", "out of line", "yes_no")),
    note=("Win-share difference between seat-games where the seat took the component and those where it "
          "did not, adjusted for the seat (stratified). This is association under the seated players, "
          "not a proven cause: use zoosim explain or zoosim compare to test a change's effect."),
    chart=Chart("forest", "Component strength, strongest first", "win share, took − did not (points)"),
))
