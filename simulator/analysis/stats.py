"""Statistics the balance reports stand on (docs/design.md, "Statistics the reports stand on").

This module owns every interval, test, effect size and verdict the reports quote:

- win shares: a k-way shared win gives each winner 1/k, so seat shares sum to 1 per game;
- the deal as the sampling unit: design effects from per-deal moments (games of one deal, played
  in every seat rotation, are correlated), and intervals on the effective games;
- intervals: Wilson for a rate, Bonferroni-simultaneous Wilson across seats, Newcombe's hybrid
  score interval for the difference of two rates, t intervals for mean values (also from streamed
  moments, so analysis can aggregate chunk by chunk) and, by the delta method, for a ratio of
  paired means;
- seat uniformity: chi-square goodness of fit, largest deviation from 1/n in points, Cohen's w;
- the equivalence verdict against a designer-set margin (an intersection-union test), its
  plain-English sentence, its power and the games that decide it with 80% probability;
- Holm's step-down adjustment across many cells;
- Bradley-Terry strength ratings of policies on the Elo scale.

Everything is a pure function of NumPy arrays or scalars; nothing here reads logs or knows about
games. Rates are fractions in [0, 1]; "points" are percentage points (0.01 of a rate). Seats are
numbered as in the records: seat 0 moves first.

Distribution functions come from `scipy.special` (the functions scipy.stats itself evaluates, so
the numbers are identical); scipy.stats and scipy.sparse would cost a report process about a
second of imports, so the two rarer methods that need the latter import it where they are used.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import special

# Elo points per natural-log unit of Bradley-Terry strength: Elo = 400 * log10(strength).
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


def _require_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def two_sided_z(confidence: float) -> float:
    """The standard normal quantile z with P(|Z| <= z) = confidence."""
    _require_confidence(confidence)
    return float(-special.ndtri((1.0 - confidence) / 2.0))  # = scipy.stats.norm.isf


def one_sided_z(probability: float) -> float:
    """The standard normal quantile z with P(Z <= z) = probability (e.g. 0.84 for 80% power)."""
    _require_confidence(probability)
    return float(special.ndtri(probability))


def two_sided_t(confidence: float, degrees_of_freedom: float) -> float:
    """Student's t quantile t with P(|T| <= t) = confidence on the given degrees of freedom."""
    _require_confidence(confidence)
    return float(-special.stdtrit(degrees_of_freedom, (1.0 - confidence) / 2.0))


def bonferroni_confidence(confidence: float, comparisons: int) -> float:
    """Per-interval confidence that makes `comparisons` intervals cover jointly at `confidence`.

    Method: Bonferroni, 1 - (1 - confidence) / comparisons. By the union bound it holds under any
    dependence between the intervals (seat win rates are dependent: they sum to 1).
    Reference: Dunn, O. J. (1961), Multiple comparisons among means, JASA 56:52-64.
    """
    if comparisons < 1:
        raise ValueError(f"comparisons must be at least 1, got {comparisons}")
    _require_confidence(confidence)
    return 1.0 - (1.0 - confidence) / comparisons


def wilson_interval(successes, trials, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (low, high) for a rate successes / trials, elementwise.

    Method: invert the score test, giving
    centre = (p + z^2 / 2n) / (1 + z^2 / n) and
    half-width = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2),
    with p = successes / trials and z the two-sided normal quantile. The interval never leaves
    [0, 1]; 0 successes give low = 0 and `trials` successes give high = 1 exactly. Successes may be
    fractional (win shares summed over games). Arrays broadcast against each other.
    References: Wilson, E. B. (1927), JASA 22:209-212; Newcombe, R. G. (1998), Two-sided
    confidence intervals for the single proportion, Statistics in Medicine 17:857-872 (method 3).
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    if np.any(trials <= 0):
        raise ValueError("trials must be positive")
    if np.any((successes < 0) | (successes > trials)):
        raise ValueError("successes must lie between 0 and trials")
    z = two_sided_z(confidence)
    rate = successes / trials
    z_squared_over_n = z * z / trials
    centre = (rate + z_squared_over_n / 2.0) / (1.0 + z_squared_over_n)
    half_width = (
        z * np.sqrt(rate * (1.0 - rate) / trials + z_squared_over_n / (4.0 * trials))
    ) / (1.0 + z_squared_over_n)
    low = np.where(successes == 0, 0.0, np.clip(centre - half_width, 0.0, 1.0))
    high = np.where(successes == trials, 1.0, np.clip(centre + half_width, 0.0, 1.0))
    return low, high


def simultaneous_wilson(
    successes, trials, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson intervals for the k seats on the last axis of `successes`, covering jointly.

    Method: Bonferroni. Each seat gets a Wilson interval at 1 - (1 - confidence) / k, so all k
    intervals cover their true rates together with probability at least `confidence` whatever the
    dependence between seats. (Sidak's 1 - confidence^(1/k) would be narrower by a negligible
    amount, e.g. 98.73% against 98.75% per seat for k = 4, and needs an inequality that we would
    have to argue for the multinomial; Bonferroni needs none.) `trials` must broadcast against
    `successes`: a scalar, or e.g. games[:, None] for a (cells, seats) array.
    Reference: Goodman, L. A. (1965), On simultaneous confidence intervals for multinomial
    proportions, Technometrics 7:247-254 (Bonferroni for multinomial proportions).
    """
    successes = np.asarray(successes, dtype=float)
    seat_count = successes.shape[-1]
    return wilson_interval(successes, trials, bonferroni_confidence(confidence, seat_count))


# An estimated design effect below this is taken as this: a game whose seat rotations cancel
# nearly all deal luck gets intervals at most sqrt(10) times narrower than independent games
# would, so a noisy estimate from few deals cannot claim an interval of almost no width.
DESIGN_EFFECT_FLOOR = 0.1
# Power at which "games to decide" and "games to tell the change" are computed.
PLANNING_POWER = 0.8


def design_effects(games, deals, total, total_sq, deal_total, deal_total_sq, floor: float = DESIGN_EFFECT_FLOOR) -> np.ndarray:
    """Kish design effect of a mean over games that come in deals of equal size (elementwise,
    e.g. one per seat): the variance of the mean with the deal as the sampling unit over the
    variance it would have if the games were independent.

    Method: with G games in D deals of G / D games each, per-game values x (sum `total`, sum of
    squares `total_sq`) and per-deal mean values y (sum `deal_total`, sum of squares
    `deal_total_sq`), both around the common mean m = total / G:
    cluster variance of m = s_y^2 / D and independent variance = s_x^2 / G, with s^2 the sample
    variances; the design effect is their ratio (the inverse of the CRN gain), floored at
    `floor` (`DESIGN_EFFECT_FLOOR` for intervals; 0 to describe the design). NaN moments (a
    summary written before they were kept) give NaN. Exactly 1 where every deal is one game (nothing groups the games) or
    there are fewer than 2 deals, and 1 where the values do not vary. A design effect d means the
    games count as G / d independent ones (Kish's effective sample size); d > 1 when deal luck
    stays with the seat position, d < 1 when it travels with the hand through the rotations.
    References: Kish, L. (1965), Survey Sampling, Wiley, ch. 5 and 8.2; Cochran, W. G. (1977),
    Sampling Techniques, 3rd ed., Wiley, ch. 9 (cluster sampling with equal clusters).
    """
    total = np.asarray(total, dtype=float)
    if games == deals or deals < 2:
        return np.ones_like(total)
    mean = total / games
    per_game = (np.asarray(total_sq, dtype=float) - games * mean**2) / (games - 1)
    per_deal = np.maximum((np.asarray(deal_total_sq, dtype=float) - deals * mean**2) / (deals - 1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(per_game > 1e-15, (per_deal / deals) / (per_game / games), 1.0)
    return np.maximum(effect, floor)


# The deal moments a clustered rate needs (`clustered_rate_interval_from_moments`), summed over
# deals: successes y_d, trials n_d, y_d^2, y_d n_d, n_d^2 and the number of deals with trials. They
# add up over any grouping of deals, so chunk summaries keep them (summary.py).
RATIO_MOMENTS = ("successes", "trials", "successes_sq", "cross", "trials_sq", "deals")
# A sum of squared deviations below this share of the sum of y_d^2 is the rounding of its
# expansion into moments: no spread between deals.
EXPANSION_ROUNDING = 1e-9


def ratio_moments(deal_successes, deal_trials) -> np.ndarray:
    """The RATIO_MOMENTS of per-deal successes and trials (arrays over deals)."""
    successes = np.asarray(deal_successes, dtype=float)
    trials = np.asarray(deal_trials, dtype=float)
    return np.array([successes.sum(), trials.sum(), (successes * successes).sum(), (successes * trials).sum(),
                     (trials * trials).sum(), np.count_nonzero(trials)], dtype=float)


def clustered_rate_interval(deal_successes, deal_trials, confidence: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high) of sum(successes) / sum(trials) over deals that hold unequal numbers of
    trials (e.g. only the games of a deal that ended mid-round), the deal as the unit
    (`clustered_rate_interval_from_moments`)."""
    return clustered_rate_interval_from_moments(ratio_moments(deal_successes, deal_trials), confidence)


def clustered_rate_interval_from_moments(moments, confidence: float = 0.95) -> tuple[float, float, float]:
    """(rate, low, high) of a clustered rate from its deal moments (RATIO_MOMENTS).

    Method: the ratio estimator's linearised cluster variance, var = D / (D - 1) * sum over deals
    of (y_d - p n_d)^2 / N^2 (y_d, n_d a deal's successes and trials, N their total; the sum
    expanded into the moments), turned into Kish's effective sample size p (1 - p) / var (at
    most N / DESIGN_EFFECT_FLOOR) and a Wilson interval on it, as `seat_intervals` does for equal
    deals. NaN without trials; with fewer than 2 deals holding trials the games count as
    independent.
    Reference: Cochran, W. G. (1977), Sampling Techniques, 3rd ed., Wiley, 6.13 and 9A.7 (ratio
    estimates from clusters of unequal size).
    """
    successes, total, successes_sq, cross, trials_sq, deals = (float(value) for value in moments)
    if total <= 0:
        return math.nan, math.nan, math.nan
    rate = successes / total
    effective = total
    squares = successes_sq - 2 * rate * cross + rate * rate * trials_sq  # sum of (y_d - p n_d)^2
    if deals >= 2 and squares > EXPANSION_ROUNDING * successes_sq:
        variance = deals / (deals - 1) * squares / total**2
        effective = min(rate * (1 - rate) / variance, total / DESIGN_EFFECT_FLOOR)
    low, high = wilson_interval(rate * effective, effective, confidence)
    return float(rate), float(low), float(high)


class SeatIntervals(NamedTuple):
    """Three intervals for each seat's win rate (arrays over the seats), all with the deal as
    the sampling unit (see `seat_intervals`)."""

    low: np.ndarray  # per-seat interval at the stated confidence
    high: np.ndarray
    sim_low: np.ndarray  # simultaneous over the seats (Bonferroni) at the stated confidence
    sim_high: np.ndarray
    tost_low: np.ndarray  # per-seat interval at 1 - 2 alpha: the two one-sided tests of equivalence
    tost_high: np.ndarray


def equivalence_confidence(confidence: float) -> float:
    """Level 1 - 2 alpha of the interval whose inclusion in a band is the two one-sided tests at
    alpha = 1 - confidence (a 90% interval for a 5% test)."""
    _require_confidence(confidence)
    return 1.0 - 2.0 * (1.0 - confidence)


def seat_intervals(share_sum, trials, effects, confidence: float = 0.95) -> SeatIntervals:
    """Wilson intervals for each seat's win rate share_sum / trials with the deal as the unit.

    Method: Wilson intervals on Kish's effective sample size trials / d per seat (d its
    `design_effects`), so the interval's variance p (1 - p) d / trials is the cluster-robust one;
    d = 1 (independent games) gives the plain Wilson interval. Per seat at `confidence`,
    simultaneous over the seats by Bonferroni at `confidence`, and per seat at 1 - 2 alpha for
    the equivalence verdict (`equivalence_verdict`).
    Reference: Kish (1965), above; Korn, E. L. and Graubard, B. I. (1998), Confidence intervals
    for proportions with small expected number of positive counts estimated from survey data,
    Survey Methodology 24:193-201 (Wilson-type intervals on the effective sample size).
    """
    share_sum = np.asarray(share_sum, dtype=float)
    effective = np.asarray(trials, dtype=float) / np.asarray(effects, dtype=float)
    successes = share_sum / trials * effective
    low, high = wilson_interval(successes, effective, confidence)
    sim_low, sim_high = simultaneous_wilson(successes, effective, confidence)
    tost_low, tost_high = wilson_interval(successes, effective, equivalence_confidence(confidence))
    return SeatIntervals(low, high, sim_low, sim_high, tost_low, tost_high)


def seat_win_shares(win_matrix) -> np.ndarray:
    """Per-game win shares from a (games, seats) bool array of win flags.

    A game won by k seats together gives each of them 1/k, so every row sums to 1 and the shares
    summed over games per seat sum to the number of games. A game without a winner is an error.
    """
    wins = np.asarray(win_matrix, dtype=bool)
    if wins.ndim != 2:
        raise ValueError(f"win_matrix must be (games, seats), got shape {wins.shape}")
    winner_counts = wins.sum(axis=1, keepdims=True)
    if np.any(winner_counts == 0):
        games_without_winner = np.flatnonzero(winner_counts[:, 0] == 0)
        raise ValueError(f"games without a winner at rows {games_without_winner[:10].tolist()}")
    return wins / winner_counts


def mean_interval(values, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """t interval (low, high) for the mean of `values` along axis 0 (one interval per column).

    Method: mean +- t_{n-1} * s / sqrt(n), with s the sample standard deviation; computed through
    `mean_interval_from_moments`, so the two always agree. Meant for bounded per-game values such
    as win shares, where the central limit theorem applies quickly and the moment form is
    numerically safe.
    Reference: Student (1908), The probable error of a mean, Biometrika 6:1-25.
    """
    values = np.asarray(values, dtype=float)
    return mean_interval_from_moments(
        values.shape[0], values.sum(axis=0), np.square(values).sum(axis=0), confidence
    )


def mean_interval_from_moments(
    count, total, total_sq, confidence: float = 0.95, effects=1.0, units=None
) -> tuple[np.ndarray, np.ndarray]:
    """t interval (low, high) for a mean from its count, sum and sum of squares, elementwise.

    Method: mean = total / count, sample variance s^2 = (total_sq - total * mean) / (count - 1)
    (floored at 0 against rounding), interval mean +- t_{count-1} * s / sqrt(count). The three
    moments add across chunks, so analysis can stream games without holding them. For 0/1 values
    this is the Wald interval with the n / (n - 1) variance correction; prefer Wilson there when a
    rate is near 0 or 1. When the values come in correlated deals, `effects` (`design_effects`)
    scales the variance, making it cluster-robust, and `units` (the number of deals, the
    independent sampling units) gives t its units - 1 degrees of freedom instead of count - 1;
    fewer than 2 units give no interval (NaN).
    References: Student (1908), Biometrika 6:1-25; Cochran, W. G. (1977), Sampling Techniques,
    3rd ed., ch. 9 (a cluster sample's mean has clusters - 1 degrees of freedom).
    """
    count = np.asarray(count, dtype=float)
    total = np.asarray(total, dtype=float)
    total_sq = np.asarray(total_sq, dtype=float)
    if np.any(count < 2):
        raise ValueError("a mean interval needs at least 2 values")
    _require_confidence(confidence)
    mean = total / count
    freedom = count - 1.0 if units is None else np.asarray(units, dtype=float) - 1.0
    with np.errstate(invalid="ignore"):
        t_quantile = np.where(freedom >= 1.0, -special.stdtrit(np.maximum(freedom, 1.0), (1.0 - confidence) / 2.0),
                              np.nan)  # = scipy.stats.t.isf, elementwise
    half_width = t_quantile * mean_standard_error(count, total, total_sq, effects)
    return mean - half_width, mean + half_width


def ratio_of_means_interval(numerators, denominators, confidence: float = 0.95) -> tuple[float, float, float]:
    """(ratio, low, high) of mean(numerators) / mean(denominators) over paired units (arrays over
    the units, e.g. the per-deal explained and total deviation of an explain study).

    Method: the delta method (the ratio estimator's linearisation): with R the ratio and ybar the
    denominators' mean, var R ~ var(x_u - R y_u) / (n ybar^2), and the interval is R +- t_{n-1}
    times its root (`mean_interval` of the residuals (x_u - R y_u) / ybar, whose mean is 0). It
    is good while ybar's own interval stays well away from 0; NaN from fewer than 2 units or a
    denominator mean of 0.
    Reference: Cochran, W. G. (1977), Sampling Techniques, 3rd ed., Wiley, 6.3-6.4 (the
    variance of a ratio estimate).
    """
    numerators = np.asarray(numerators, dtype=float)
    denominators = np.asarray(denominators, dtype=float)
    if len(numerators) < 2 or not np.mean(denominators):
        return math.nan, math.nan, math.nan
    scale = float(np.mean(denominators))
    ratio = float(np.mean(numerators)) / scale
    low, high = mean_interval((numerators - ratio * denominators) / scale, confidence)
    return ratio, ratio + float(low), ratio + float(high)


def mean_standard_error(count, total, total_sq, effects=1.0):
    """Standard error of a mean over `count` values from their sum and sum of squares: the
    sample variance s^2 = (total_sq - total * mean) / (count - 1) (floored at 0 against
    rounding) times the design effect `effects` (`design_effects`; 1 for independent values),
    over count; elementwise (a plain float for scalar inputs)."""
    count = np.asarray(count, dtype=float)
    total = np.asarray(total, dtype=float)
    variance = np.maximum((np.asarray(total_sq, dtype=float) - total * total / count) / (count - 1.0), 0.0)
    error = np.sqrt(variance * np.asarray(effects, dtype=float) / count)
    return float(error) if error.ndim == 0 else error


class SeatUniformity(NamedTuple):
    """Chi-square test of equal seat win rates, with effect sizes (arrays over leading axes)."""

    chi_square: np.ndarray
    p_value: np.ndarray
    max_deviation_points: np.ndarray  # largest |seat rate - 1/n|, in percentage points
    most_deviant_seat: np.ndarray  # the seat with that deviation
    cohens_w: np.ndarray  # sqrt(sum((rate - 1/n)^2 / (1/n))) = sqrt(chi_square / games)


def seat_uniformity(win_shares_per_seat, games, effects=None) -> SeatUniformity:
    """Test whether seats win equally often: chi-square goodness of fit against 1/n per seat.

    `win_shares_per_seat` has seats on the last axis and must hold win *shares* summed over games
    (see `seat_win_shares`), which sum to `games`; raw win flags over-count shared wins and are
    rejected. Method: Pearson's X^2 = sum((observed - games/n)^2 / (games/n)) on n - 1 degrees of
    freedom. With shared wins a seat's per-game share is less variable than a 0/1 win, so the test
    is slightly conservative when ties occur (E[X^2] <= n - 1 under equal seats). Effect sizes:
    the largest absolute deviation of a seat's rate from 1/n in percentage points, and Cohen's
    w = sqrt(X^2 / games), where 0.1 / 0.3 / 0.5 are Cohen's small / medium / large.
    With `effects`, the seats' design effects (`design_effects`, seats on the last axis) when
    games come in deals, X^2 is divided by Rao and Scott's first-order correction, the mean
    generalized design effect sum_i (1 - 1/n) d_i / (n - 1) = mean(d_i), so the test keeps its
    level when the games of a deal are correlated; Cohen's w stays the uncorrected effect size.
    References: Pearson, K. (1900), Philosophical Magazine 50:157-175; Cohen, J. (1988),
    Statistical Power Analysis for the Behavioral Sciences, 2nd ed., ch. 7; Rao, J. N. K. and
    Scott, A. J. (1981), The analysis of categorical data from complex sample surveys, JASA
    76:221-230.
    """
    observed = np.asarray(win_shares_per_seat, dtype=float)
    games = np.asarray(games, dtype=float)
    seat_count = observed.shape[-1]
    if seat_count < 2:
        raise ValueError("seat uniformity needs at least 2 seats")
    if np.any(games <= 0):
        raise ValueError("games must be positive")
    share_totals = observed.sum(axis=-1)
    if not np.allclose(share_totals, games, rtol=1e-9, atol=1e-6):
        raise ValueError(
            f"seat wins sum to {share_totals} but there were {games} games; pass win shares "
            "summed per seat (seat_win_shares), which split shared wins so they sum to the games"
        )
    expected = games[..., np.newaxis] / seat_count
    pearson = np.sum(np.square(observed - expected) / expected, axis=-1)
    chi_square = pearson if effects is None else pearson / np.mean(np.asarray(effects, dtype=float), axis=-1)
    absolute_deviation = np.abs(observed / games[..., np.newaxis] - 1.0 / seat_count)
    return SeatUniformity(
        chi_square=chi_square,
        p_value=special.chdtrc(seat_count - 1, chi_square),  # = scipy.stats.chi2.sf
        max_deviation_points=100.0 * absolute_deviation.max(axis=-1),
        most_deviant_seat=absolute_deviation.argmax(axis=-1),
        cohens_w=np.sqrt(pearson / games),
    )


def equivalence_verdict(
    rates, lows, highs, n_seats: int, margin_points: float = 1.0, tost_lows=None, tost_highs=None
) -> str:
    """"balanced", "unbalanced" or "inconclusive" for one cell's per-seat win rates.

    With the fair rate f = 1/n_seats and margin m (points / 100):
    - "balanced": every seat's (1 - 2 alpha) interval (`tost_lows`, `tost_highs`) lies within
      [f - m, f + m]. Each seat's inclusion is its two one-sided tests (TOST) at alpha, and
      "every seat is within the margin" is an intersection of the seats' claims, so the
      intersection-union test that requires all of them has level alpha with no correction for
      the number of seats (Berger 1982): P(balanced) <= alpha when some seat is at or beyond the
      margin.
    - "unbalanced": some seat's simultaneous interval (`lows`, `highs`: Bonferroni over the seats
      at 1 - alpha, `simultaneous_wilson`) lies entirely outside [f - m, f + m]. "Some seat is
      outside" is a union claim and needs the family-wise correction.
    - "inconclusive": neither; more games would narrow the intervals.
    Without the TOST intervals the simultaneous ones serve for both (a conservative "balanced",
    at about alpha / n_seats). `rates` are the point estimates and must lie inside their intervals.
    References: Schuirmann, D. J. (1987), J. Pharmacokinetics and Biopharmaceutics 15:657-680;
    Berger, R. L. (1982), Multiparameter hypothesis testing and acceptance sampling,
    Technometrics 24:295-300; Wellek, S. (2010), Testing Statistical Hypotheses of Equivalence
    and Noninferiority, 2nd ed.
    """
    rates, lows, highs, fair, margin = _verdict_inputs(rates, lows, highs, n_seats, margin_points)
    tost_lows, tost_highs = _tost_or_simultaneous(rates, lows, highs, tost_lows, tost_highs)
    if np.all((tost_lows >= fair - margin) & (tost_highs <= fair + margin)):
        return "balanced"
    if np.any((highs < fair - margin) | (lows > fair + margin)):
        return "unbalanced"
    return "inconclusive"


def _tost_or_simultaneous(rates, lows, highs, tost_lows, tost_highs):
    if tost_lows is None:
        return lows, highs
    _, tost_lows, tost_highs, _, _ = _verdict_inputs(rates, tost_lows, tost_highs, 2, 0.0)
    return tost_lows, tost_highs


def verdict_sentence(
    rates,
    lows,
    highs,
    n_seats: int,
    margin_points: float = 1.0,
    confidence: float = 0.95,
    games: int | None = None,
    tost_lows=None,
    tost_highs=None,
    effects=None,
) -> str:
    """The equivalence verdict as plain English for the report.

    Arguments as in `equivalence_verdict`; `confidence` is the level the verdict is stated at
    (1 - alpha) and is only quoted. An unbalanced verdict names the seat, among those whose
    simultaneous interval lies outside the band, that deviates most; an inconclusive one names
    the seat whose TOST interval reaches furthest beyond the band, says which edge of the band
    it straddles and, given the cell's `games` (and the seats' design `effects`), how many games
    would decide it with 80% probability if the rates are as estimated (`games_to_decide`).
    """
    verdict = equivalence_verdict(rates, lows, highs, n_seats, margin_points, tost_lows, tost_highs)
    rates, lows, highs, fair, margin = _verdict_inputs(rates, lows, highs, n_seats, margin_points)
    tost_lows, tost_highs = _tost_or_simultaneous(rates, lows, highs, tost_lows, tost_highs)
    alpha_text = f"{100 * (1 - confidence):g}%"
    tost_text = (
        f"{100 * confidence:g}% simultaneous interval" if tost_lows is lows
        else f"{100 * equivalence_confidence(confidence):g}% interval"
    )
    if verdict == "balanced":
        decimals = _decimals_to_tell_apart([fair - margin, fair + margin])
        band = f"{percent_text(fair - margin, decimals)} to {percent_text(fair + margin, decimals)}"
        return (
            f"Balanced: every seat wins within ±{margin_points:.1f} points of a fair {100 * fair:.1f}%. "
            f"Each seat's {tost_text} lies inside {band} (a test at the {alpha_text} level)."
        )
    if verdict == "unbalanced":
        outside = (highs < fair - margin) | (lows > fair + margin)
        deviation = np.where(outside, np.abs(rates - fair), -np.inf)
        seat = int(np.argmax(deviation))
        if rates[seat] > fair:
            direction, nearest, furthest = "more", lows[seat] - fair, highs[seat] - fair
        else:
            direction, nearest, furthest = "less", fair - highs[seat], fair - lows[seat]
        return (
            f"Seat {seat} wins {100 * abs(rates[seat] - fair):.1f} points {direction} often than a fair "
            f"{100 * fair:.1f}%: not balanced within ±{margin_points:.1f} points. Its {100 * confidence:g}% "
            f"simultaneous interval: {100 * nearest:.1f} to {100 * furthest:.1f} points {direction}."
        )
    reach_beyond_band = np.maximum((fair - margin) - tost_lows, tost_highs - (fair + margin))
    seat = int(np.argmax(reach_beyond_band))
    low, high = tost_lows[seat], tost_highs[seat]
    decimals = _decimals_to_tell_apart([rates[seat], low, high, fair - margin, fair + margin])
    band = f"{percent_text(fair - margin, decimals)} to {percent_text(fair + margin, decimals)}"
    below, above = low < fair - margin, high > fair + margin
    reach = "reaches past both edges of" if below and above else f"straddles the {'lower' if below else 'upper'} edge of"
    # The lead, the finding in at most about 120 characters (issue #41), then the detail.
    sentence = (
        f"Inconclusive: seat {seat} wins {percent_text(rates[seat], decimals)}; these games cannot yet tell "
        f"if it is within ±{margin_points:.1f} points of fair. Its interval "
        f"({percent_text(low, decimals)} to {percent_text(high, decimals)}, "
        f"{tost_text}) {reach} the fair band {band}."
    )
    if games is None:
        return sentence
    needed = games_to_decide(rates, games, n_seats, margin_points, confidence, effects)
    if not np.isfinite(needed):
        return sentence + (
            f" Its rate sits exactly on the edge of the band, so no number of games would "
            f"settle it at a ±{margin_points:.1f}-point margin."
        )
    power = f"{100 * PLANNING_POWER:g}%"
    if needed <= games:
        return sentence + (
            f" If the rates are as estimated, a fresh run of {games:,} games would "
            f"decide it with {power} probability."
        )
    # The games needed, a projection, are rounded (count_text); the games played are exact:
    # "about 1,100,000 games (this run played 260,000)" beside a cell of 250,002 games read as
    # a contradiction (issue #41). "In this cell", never "in all", beside what was played, never
    # beside a rounded difference (issue #21, finding 8).
    return sentence + (
        f" If the rates are as estimated, about {count_text(needed)} games in this cell (this run "
        f"played {games:,}) would decide it with {power} probability."
    )


def _decimals_to_tell_apart(rates) -> int:
    """1, 2 or 3: the fewest decimals of a percentage at which different rates print differently
    (so a rate of 32.30% is not shown as equal to a band edge of 32.33%)."""
    distinct = len(set(np.round(rates, 12)))
    for decimals in (1, 2):
        if len({percent_text(rate, decimals) for rate in rates}) == distinct:
            return decimals
    return 3


def percent_text(rate: float, decimals: int = 1) -> str:
    """A rate as a percentage, e.g. 0.3231 -> '32.3%'."""
    return f"{100 * rate:.{decimals}f}%"


def count_text(count: float) -> str:
    """A count with thousands separators, rounded up to two significant figures from 1,000 on (a
    projection such as games-to-decide is not precise to the game): 38_412 -> '39,000'."""
    return f"{rounded_count(count):,}"


def rounded_count(count: float) -> int:
    """The whole number `count_text` shows: `count` rounded up, to two significant figures from
    1,000 on (38_412 -> 39_000)."""
    count = int(math.ceil(count))
    if count >= 1_000:
        magnitude = 10 ** (len(str(count)) - 2)
        count = int(math.ceil(count / magnitude) * magnitude)
    return count


# Above this many games per cell "games to decide" is reported as never (a rate on the edge).
GAMES_TO_DECIDE_CAP = 10**12


def games_to_decide(
    rates, games: int, n_seats: int, margin_points: float = 1.0, confidence: float = 0.95, effects=None,
    power: float = PLANNING_POWER,
) -> float:
    """Games per cell at which a fresh run would reach a verdict (`equivalence_verdict` with
    `seat_intervals`) with probability `power` (80%), if the true seat rates were `rates`
    (fractions summing to 1) and the seats' design effects `effects` (default 1). At least
    `games`; infinity when a rate lies on the band's edge (no count decides it).

    Method: a seat's estimate is normal with standard error se(N) = sqrt(p (1 - p) d / N). If
    some seat lies outside the band (|p - f| > m), "unbalanced" is the reachable verdict and
    its power at N is at least that of the seat furthest out,
    Phi((|p - f| - m) / se(N) - z_sim), z_sim the Bonferroni two-sided quantile; solved for N.
    Otherwise "balanced" is, with power prod_s [Phi((m - delta_s) / se_s - z) + Phi((m + delta_s)
    / se_s - z) - 1] (each seat's two one-sided tests at alpha, z = Phi^-1(1 - alpha), seats
    treated as independent), found by doubling and bisecting since it grows with N. A
    projection: the true rates are not the estimates.
    Reference: Chow, S.-C., Shao, J. and Wang, H. (2008), Sample Size Calculations in Clinical
    Research, 2nd ed., ch. 3 (equivalence and superiority by normal approximation).
    """
    rates = np.asarray(rates, dtype=float)
    effects = np.ones_like(rates) if effects is None else np.asarray(effects, dtype=float)
    fair, margin = 1.0 / n_seats, margin_points / 100.0
    spread = rates * (1.0 - rates) * effects  # N * se(N)^2 per seat
    beyond = np.abs(rates - fair) - margin  # how far each seat lies outside the band
    z_power = one_sided_z(power)
    if np.any(beyond > 1e-12):
        z_sim = two_sided_z(bonferroni_confidence(confidence, n_seats))
        seat = int(np.argmax(beyond))
        needed = spread[seat] * (z_sim + z_power) ** 2 / beyond[seat] ** 2
        return math.inf if needed > GAMES_TO_DECIDE_CAP else float(max(games, math.ceil(needed)))
    if np.any(beyond > -1e-12):
        return math.inf

    return _fewest_games(lambda count: balanced_power(rates, count, n_seats, margin_points, confidence, effects),
                         games, power)


def _fewest_games(power_at, games: int, power: float) -> float:
    """The fewest games (at least `games`) at which `power_at`, growing with the games, reaches
    `power`: doubling, then bisection; infinity beyond GAMES_TO_DECIDE_CAP."""
    if power_at(games) >= power:
        return float(games)
    low, high = float(games), float(max(games, 1)) * 2
    while power_at(high) < power:
        low, high = high, high * 2
        if high > GAMES_TO_DECIDE_CAP:
            return math.inf
    while high - low > max(1.0, low * 1e-4):
        middle = math.floor((low + high) / 2)
        low, high = (low, middle) if power_at(middle) >= power else (middle, high)
    return float(math.ceil(high))


def balanced_power(rates, games: float, n_seats: int, margin_points: float = 1.0, confidence: float = 0.95,
                   effects=None, noise=None) -> float:
    """Probability that `games` games show "balanced" (`equivalence_verdict` with
    `seat_intervals`) if the true seat rates are `rates` and the design effects `effects`
    (default 1): prod_s [Phi((m - delta_s) / e_s - z w_s) + Phi((m + delta_s) / e_s - z w_s) - 1]^+,
    the interval's standard error se_s = sqrt(p_s (1 - p_s) d_s / games), the estimate's
    e_s = se_s sqrt(noise_s) and w_s = se_s / e_s, z = Phi^-1(1 - alpha), seats treated as
    independent (normal approximation; see `games_to_decide`). `noise` (default 1) is the
    variance of a game's win share over p (1 - p): below 1 when wins are shared, so the estimate
    varies less than the Wilson interval's width assumes."""
    rates = np.asarray(rates, dtype=float)
    effects = np.ones_like(rates) if effects is None else np.asarray(effects, dtype=float)
    noise = np.ones_like(rates) if noise is None else np.clip(np.nan_to_num(np.asarray(noise, dtype=float), nan=1.0), 1e-6, None)
    delta, margin = rates - 1.0 / n_seats, margin_points / 100.0
    z = two_sided_z(equivalence_confidence(confidence))
    se = np.sqrt(rates * (1.0 - rates) * effects / games)
    spread = se * np.sqrt(noise)
    with np.errstate(divide="ignore", invalid="ignore"):
        each = (special.ndtr((margin - delta - z * se) / spread) + special.ndtr((margin + delta - z * se) / spread) - 1.0)
    return float(np.prod(np.clip(np.nan_to_num(each, nan=0.0), 0.0, 1.0)))


ASSURANCE_DRAWS = 20_000  # simulated confirmations of balanced_assurance (fixed seed: a deterministic number)
ASSURANCE_SEED = 20261204


def balanced_assurance(rates, rate_errors, games: float, n_seats: int, margin_points: float = 1.0,
                       confidence: float = 0.95, effects=None, noise=None) -> float:
    """Probability that `games` fresh games show "balanced" (every seat's 1 - 2 alpha interval
    inside the margin, `equivalence_verdict`), when the seat rates are not known but estimated:
    `rates` measured with standard errors `rate_errors` (fractions); `effects` are the design
    effects and `noise` the variance of a game's win share over p (1 - p) (below 1 when wins
    are shared, so the estimate varies less than the interval's width assumes; default 1).

    Method: simulation with a fixed seed. Each of ASSURANCE_DRAWS draws takes true rates normal
    around the estimates (the assurance, or expected power, of a planned study: the power
    averaged over the rates the measurement allows), then the confirmation's estimates normal
    around them with the seats correlated as shares of one game are (they sum to one: the
    multinomial correlation -sqrt(p_s p_t / ((1 - p_s)(1 - p_t)))), and counts the draws whose
    every interval lies inside the margin. Unlike `balanced_power`'s product over seats, the
    correlation counts: at 3 seats the constraint that the deviations sum to zero makes
    "every seat inside" much likelier than the product says.
    Reference: O'Hagan, A., Stevens, J. W. and Campbell, M. J. (2005), Assurance in clinical
    trial design, Pharmaceutical Statistics 4:187-201.
    """
    rates = np.asarray(rates, dtype=float)
    seats = rates.size
    errors = np.asarray(rate_errors, dtype=float)
    effects = np.ones(seats) if effects is None else np.asarray(effects, dtype=float)
    noise = np.ones(seats) if noise is None else np.clip(np.nan_to_num(np.asarray(noise, dtype=float), nan=1.0), 1e-6, None)
    margin, z = margin_points / 100.0, two_sided_z(equivalence_confidence(confidence))
    random = np.random.default_rng(ASSURANCE_SEED)
    true_rates = np.clip(rates + errors * random.standard_normal((ASSURANCE_DRAWS, seats)), 1e-9, 1 - 1e-9)
    se = np.sqrt(true_rates * (1.0 - true_rates) * effects / games)  # the interval's standard error
    odds = np.sqrt(np.clip(rates, 1e-9, None) / np.clip(1.0 - rates, 1e-9, None))
    correlation = -np.outer(odds, odds)
    np.fill_diagonal(correlation, 1.0)
    values, vectors = np.linalg.eigh(correlation)  # positive semidefinite (singular when rates sum to 1)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    estimates = true_rates + se * np.sqrt(noise) * (random.standard_normal((ASSURANCE_DRAWS, seats)) @ root.T)
    fair = 1.0 / n_seats
    inside = (estimates + z * se <= fair + margin) & (estimates - z * se >= fair - margin)
    return float(np.mean(np.all(inside, axis=1)))


def games_to_assure(rates, rate_errors, games: int, n_seats: int, margin_points: float = 1.0,
                    confidence: float = 0.95, effects=None, power: float = PLANNING_POWER, noise=None) -> float:
    """Games at which `balanced_assurance` reaches `power` (at least `games`); infinity when no
    count does (the chance that every true rate lies inside the margin is below `power`)."""
    return _fewest_games(
        lambda count: balanced_assurance(rates, rate_errors, count, n_seats, margin_points, confidence, effects=effects, noise=noise),
        games, power)


def _verdict_inputs(rates, lows, highs, n_seats, margin_points):
    """Validated 1-D arrays plus the fair rate and margin as fractions."""
    rates = np.asarray(rates, dtype=float)
    lows = np.asarray(lows, dtype=float)
    highs = np.asarray(highs, dtype=float)
    if rates.ndim != 1 or rates.shape != lows.shape or rates.shape != highs.shape:
        raise ValueError("rates, lows and highs must be 1-D arrays over the same seats")
    if np.any(lows > rates) or np.any(highs < rates):
        raise ValueError("every rate must lie inside its interval (lows <= rates <= highs)")
    if n_seats < 2:
        raise ValueError(f"n_seats must be at least 2, got {n_seats}")
    if margin_points < 0:
        raise ValueError(f"margin_points must not be negative, got {margin_points}")
    return rates, lows, highs, 1.0 / n_seats, margin_points / 100.0


def holm_adjust(p_values) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values, in the input order.

    Method: sort p ascending as p_(1) <= ... <= p_(m); the adjusted value of p_(i) is
    min(1, max_{j <= i} (m - j + 1) p_(j)). Rejecting where the adjusted value is <= alpha is
    Holm's step-down procedure, which controls the family-wise error rate under any dependence.
    References: Holm, S. (1979), A simple sequentially rejective multiple test procedure,
    Scandinavian Journal of Statistics 6:65-70; Wright, S. P. (1992), Adjusted p-values for
    simultaneous inference, Biometrics 48:1005-1013.
    """
    p_values = np.asarray(p_values, dtype=float)
    if p_values.ndim != 1:
        raise ValueError(f"p_values must be 1-D, got shape {p_values.shape}")
    if np.any(np.isnan(p_values)) or np.any((p_values < 0) | (p_values > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    test_count = p_values.size
    order = np.argsort(p_values, kind="stable")
    multipliers = test_count - np.arange(test_count)
    adjusted_sorted = np.minimum(np.maximum.accumulate(multipliers * p_values[order]), 1.0)
    adjusted = np.empty(test_count)
    adjusted[order] = adjusted_sorted
    return adjusted


def holm_reject(p_values, alpha: float = 0.05) -> np.ndarray:
    """Which hypotheses Holm's step-down procedure rejects at family-wise level alpha (bool)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    return holm_adjust(p_values) <= alpha


def pairwise_wins_from_ranks(ranks, policies, n_policies: int, groups=None, n_groups: int = 1) -> np.ndarray:
    """(n_policies, n_policies) matrix whose [i, j] counts how often policy i beat policy j.

    Each multiplayer game counts as one comparison per pair of seats, decided by final rank
    (lower rank = better place): the better placed policy gets 1, a tie gives each 1/2. `ranks`
    and `policies` are (games, seats) arrays (policy ids 0 .. n_policies - 1). Pairs of seats
    holding the same policy say nothing about relative strength and are left out. With `groups`
    (a group id 0 .. n_groups - 1 per game) one matrix per group: (n_groups, n, n).
    """
    ranks = np.asarray(ranks)
    policies = np.asarray(policies, dtype=np.int64)
    if ranks.ndim != 2 or ranks.shape != policies.shape:
        raise ValueError("ranks and policies must be (games, seats) arrays of the same shape")
    if np.any((policies < 0) | (policies >= n_policies)):
        raise ValueError(f"policy ids must lie in 0 .. {n_policies - 1}")
    k = n_policies
    cells = n_groups * k * k
    # flat index of [group, i, j] for every game, counted with np.bincount (fast, unlike add.at)
    offset = np.zeros(len(ranks), dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64) * k * k
    wins = np.zeros(cells)
    for first_seat, second_seat in itertools.combinations(range(ranks.shape[1]), 2):
        first_rank, second_rank = ranks[:, first_seat], ranks[:, second_seat]
        first_score = (first_rank < second_rank) + 0.5 * (first_rank == second_rank)
        first_policy, second_policy = policies[:, first_seat], policies[:, second_seat]
        wins += np.bincount(offset + first_policy * k + second_policy, weights=first_score, minlength=cells)
        wins += np.bincount(offset + second_policy * k + first_policy, weights=1.0 - first_score, minlength=cells)
    wins = wins.reshape(n_groups, k, k)
    wins[:, np.arange(k), np.arange(k)] = 0.0
    return wins if groups is not None else wins[0]


class BradleyTerryFit(NamedTuple):
    """Bradley-Terry strengths of policies and their Elo-scale ratings."""

    strengths: np.ndarray  # gamma_i, geometric mean 1; P(i beats j) = gamma_i / (gamma_i + gamma_j)
    elo: np.ndarray  # 400 * log10(gamma_i), mean 0
    iterations: int


def bradley_terry(
    wins_matrix,
    tolerance: float = 1e-10,
    max_iterations: int = 100_000,
) -> BradleyTerryFit:
    """Maximum-likelihood Bradley-Terry strengths from a pairwise win-count matrix.

    `wins_matrix[i, j]` counts wins of policy i over policy j (ties as halves, see
    `pairwise_wins_from_ranks`). The "beats" graph must be strongly connected (Hunter's
    Assumption 1: every policy both beats and loses to the rest, directly or through others), or
    no finite maximum exists.
    Method: Hunter's minorise-maximise iteration, all policies updated at once:
    gamma_i <- W_i / sum_{j != i} N_ij / (gamma_i + gamma_j), with W_i the wins of i and N_ij the
    comparisons between i and j, renormalised to geometric mean 1, until no log-strength moves by
    more than `tolerance`. Elo = 400 log10(gamma), so a 400-point gap means 10:1 odds.
    No intervals: Fisher information would treat every comparison as independent, but the
    comparisons of one multiplayer game, and the games of one deal's seat rotations, are
    correlated. The report's intervals are a delete-one-batch jackknife over batches of deals
    (tables.py), with the deal as the unit.
    References: Bradley, R. A. and Terry, M. E. (1952), Biometrika 39:324-345; Hunter, D. R.
    (2004), MM algorithms for generalized Bradley-Terry models, Ann. Statist. 32:384-406.
    """
    wins = np.array(wins_matrix, dtype=float)
    if wins.ndim != 2 or wins.shape[0] != wins.shape[1] or wins.shape[0] < 2:
        raise ValueError("wins_matrix must be a square matrix over at least 2 policies")
    if np.any(wins < 0):
        raise ValueError("win counts must not be negative")
    np.fill_diagonal(wins, 0.0)
    _require_strongly_connected(wins)
    comparisons = wins + wins.T
    total_wins = wins.sum(axis=1)
    log_strength = np.zeros(wins.shape[0])
    for iteration in range(1, max_iterations + 1):
        strength = np.exp(log_strength)
        expected_comparisons = comparisons / (strength[:, np.newaxis] + strength[np.newaxis, :])
        updated = np.log(total_wins / expected_comparisons.sum(axis=1))
        updated -= updated.mean()
        largest_step = np.max(np.abs(updated - log_strength))
        log_strength = updated
        if largest_step < tolerance:
            break
    else:
        raise RuntimeError(f"Bradley-Terry MM did not converge in {max_iterations} iterations")
    return BradleyTerryFit(strengths=np.exp(log_strength), elo=ELO_PER_LOG_STRENGTH * log_strength, iterations=iteration)


def estimable_policies(wins_matrix) -> np.ndarray:
    """Which policies' Bradley-Terry strengths the games bound (bool per policy): those in the
    largest strongly connected group of the "beats" graph (every member both beat and lost to
    the others, directly or through others). A policy outside it never lost (or never won) to
    that group, so its maximum-likelihood strength relative to it is infinite."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    _, labels = connected_components(sparse.csr_matrix(np.asarray(wins_matrix) > 0), directed=True, connection="strong")
    return labels == np.bincount(labels).argmax()


def _require_strongly_connected(wins: np.ndarray) -> None:
    """Raise unless every policy can be reached from every other along "beat" edges."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    component_count, _ = connected_components(
        sparse.csr_matrix(wins > 0), directed=True, connection="strong"
    )
    if component_count != 1:
        raise ValueError(
            "Bradley-Terry needs every policy to have both won and lost against the others "
            "(strongly connected comparisons); some group of policies never lost (or never won) "
            "to the rest, so its strength would be infinite"
        )


def difference_interval(
    p1, n1, p2, n2, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Interval (low, high) for the difference p1 - p2 of two independent rates, elementwise.

    Method: Newcombe's hybrid score interval (his method 10). With Wilson intervals (l1, u1) for
    p1 over n1 trials and (l2, u2) for p2 over n2 trials, and d = p1 - p2:
    low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2), high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2).
    Use it to compare two runs' rates (e.g. a seat's win rate under two rule variants).
    Reference: Newcombe, R. G. (1998), Interval estimation for the difference between independent
    proportions: comparison of eleven methods, Statistics in Medicine 17:873-890.
    """
    p1 = np.asarray(p1, dtype=float)
    p2 = np.asarray(p2, dtype=float)
    n1 = np.asarray(n1, dtype=float)
    n2 = np.asarray(n2, dtype=float)
    if np.any((p1 < 0) | (p1 > 1)) or np.any((p2 < 0) | (p2 > 1)):
        raise ValueError("rates must lie in [0, 1]")
    low1, high1 = wilson_interval(p1 * n1, n1, confidence)
    low2, high2 = wilson_interval(p2 * n2, n2, confidence)
    difference = p1 - p2
    low = difference - np.sqrt(np.square(p1 - low1) + np.square(high2 - p2))
    high = difference + np.sqrt(np.square(high1 - p1) + np.square(p2 - low2))
    return low, high


def simultaneous_difference_intervals(
    p1, n1, p2, n2, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe intervals for many differences p1 - p2 (1-D arrays) that cover jointly.

    Method: Bonferroni over all the differences passed (e.g. every seat of every cell two runs
    share), each interval at 1 - (1 - confidence) / count, so that "some seat changed" is claimed
    wrongly with probability at most 1 - confidence, whatever the dependence between seats.
    """
    p1 = np.asarray(p1, dtype=float)
    return difference_interval(p1, n1, p2, n2, bonferroni_confidence(confidence, max(1, p1.size)))


# Draws of the parametric bootstrap behind `max_deviation_change_interval`; with a fixed seed the
# interval (and so a rendered page) is the same on every call.
MAX_DEVIATION_DRAWS = 4000
MAX_DEVIATION_SEED = 20261130


def max_deviation_change_interval(
    rates_a, games_a: int, rates_b, games_b: int, confidence: float = 0.95,
    draws: int = MAX_DEVIATION_DRAWS, seed: int = MAX_DEVIATION_SEED,
) -> tuple[float, float]:
    """Interval (low, high), in points, for the change B - A of the largest seat deviation
    max_i |rate_i - 1/n| between two independent runs of the same cell.

    The largest deviation is a maximum over seats, which is not smooth where two seats deviate
    about equally (always so for a fair game), and there the usual bootstrap intervals for it
    under-cover (a simulation found 87% for a nominal 95%). This interval is built so it cannot:
    the maximum of absolute values is 1-Lipschitz in the largest seat error, so
    |estimated change - true change| <= max_i |error_A,i| + max_i |error_B,i| always. The 95%
    quantile c of that sum of largest seat errors is estimated by a parametric bootstrap (seat
    win counts drawn from Multinomial(games, estimated rates) for each run, `draws` times, from a
    fixed `seed`), and the interval is estimate +- c. It is conservative (about 99% coverage
    when one seat clearly deviates most) but valid for any seat rates. Runs that replay deals in
    every seat rotation have smaller errors than the multinomial, which makes it more
    conservative still. Rates are fractions that sum to 1 per run.
    Reference: Efron, B. and Tibshirani, R. J. (1993), An Introduction to the Bootstrap, ch. 6
    (parametric bootstrap); Andrews, D. W. K. (2000), Econometrica 68:399-405 (bootstrap failure
    at the boundary / non-smooth functionals).
    """
    _require_confidence(confidence)
    rates_a = np.asarray(rates_a, dtype=float)
    rates_b = np.asarray(rates_b, dtype=float)
    if rates_a.shape != rates_b.shape or rates_a.ndim != 1 or rates_a.size < 2:
        raise ValueError("both runs need win rates over the same seats (at least 2)")
    fair = 1.0 / rates_a.size
    estimate = np.abs(rates_b - fair).max() - np.abs(rates_a - fair).max()
    generator = np.random.default_rng(seed)
    largest_error = np.zeros(draws)
    for rates, games in ((rates_a, games_a), (rates_b, games_b)):
        probabilities = np.clip(rates, 0.0, None) / np.clip(rates, 0.0, None).sum()
        resampled = generator.multinomial(int(games), probabilities, size=draws) / games
        largest_error += np.abs(resampled - probabilities).max(axis=1)
    reach = float(np.quantile(largest_error, confidence))
    return 100 * (estimate - reach), 100 * (estimate + reach)


def games_to_exclude_zero(
    estimate: float, low: float, high: float, games: float, confidence: float = 0.95, power: float = PLANNING_POWER
) -> float:
    """Games per run at which an interval (low, high) around `estimate` that covers 0 would
    exclude it with probability `power` (80%) if the estimate were the truth.

    Method: read the interval's half-width h as z * se (z the two-sided quantile of
    `confidence`); widths shrink as 1 / sqrt(games), and excluding 0 with the given power needs
    |estimate| >= (z + z_power) se, so games * (h (z + z_power) / (z |estimate|))^2. Infinity for
    a zero estimate; `games` when 0 is already excluded."""
    if low > 0 or high < 0:
        return float(games)
    if estimate == 0:
        return math.inf
    half_width = (estimate - low) if estimate > 0 else (high - estimate)
    z = two_sided_z(confidence)
    inflation = (z + one_sided_z(power)) / z
    return float(math.ceil(games * (inflation * half_width / abs(estimate)) ** 2))
