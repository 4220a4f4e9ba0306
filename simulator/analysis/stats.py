"""Statistics the balance reports stand on (docs/design.md, "Statistics the reports stand on").

This module owns every interval, test, effect size and verdict the reports quote:

- win shares: a k-way shared win gives each winner 1/k, so seat shares sum to 1 per game;
- intervals: Wilson for a rate, Bonferroni-simultaneous Wilson across seats, Newcombe's hybrid
  score interval for the difference of two rates, t intervals for mean values (also from streamed
  moments, so analysis can aggregate chunk by chunk);
- seat uniformity: chi-square goodness of fit, largest deviation from 1/n in points, Cohen's w;
- the equivalence verdict against a designer-set margin, and its plain-English sentence;
- Holm's step-down adjustment across many cells;
- an anytime-valid confidence sequence for precision mode (peeking allowed);
- the variance reduction bought by replaying each deal in every seat rotation (common random
  numbers);
- Bradley-Terry strength ratings of policies on the Elo scale.

Everything is a pure function of NumPy arrays or scalars; nothing here reads logs or knows about
games. Rates are fractions in [0, 1]; "points" are percentage points (0.01 of a rate). Seats are
numbered as in the records: seat 0 moves first.

Distribution functions come from `scipy.special` (the functions scipy.stats itself evaluates, so
the numbers are identical); scipy.stats, scipy.optimize and scipy.sparse would cost a report
process about a second of imports, so the two rarer methods that need the latter import them
where they are used.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy import special

# Hoeffding's lemma: a variable in [0, 1] is sub-Gaussian with variance proxy 1/4.
BOUNDED_VARIANCE_PROXY = 0.25
# Elo points per natural-log unit of Bradley-Terry strength: Elo = 400 * log10(strength).
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


def _require_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")


def two_sided_z(confidence: float) -> float:
    """The standard normal quantile z with P(|Z| <= z) = confidence."""
    _require_confidence(confidence)
    return float(-special.ndtri((1.0 - confidence) / 2.0))  # = scipy.stats.norm.isf


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
    count, total, total_sq, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """t interval (low, high) for a mean from its count, sum and sum of squares, elementwise.

    Method: mean = total / count, sample variance s^2 = (total_sq - total * mean) / (count - 1)
    (floored at 0 against rounding), interval mean +- t_{count-1} * s / sqrt(count). The three
    moments add across chunks, so analysis can stream games without holding them. For 0/1 values
    this is the Wald interval with the n / (n - 1) variance correction; prefer Wilson there when a
    rate is near 0 or 1.
    Reference: Student (1908), Biometrika 6:1-25.
    """
    count = np.asarray(count, dtype=float)
    total = np.asarray(total, dtype=float)
    total_sq = np.asarray(total_sq, dtype=float)
    if np.any(count < 2):
        raise ValueError("a mean interval needs at least 2 values")
    _require_confidence(confidence)
    mean = total / count
    variance = np.maximum((total_sq - total * mean) / (count - 1.0), 0.0)
    t_quantile = -special.stdtrit(count - 1.0, (1.0 - confidence) / 2.0)  # = scipy.stats.t.isf
    half_width = t_quantile * np.sqrt(variance / count)
    return mean - half_width, mean + half_width


class SeatUniformity(NamedTuple):
    """Chi-square test of equal seat win rates, with effect sizes (arrays over leading axes)."""

    chi_square: np.ndarray
    p_value: np.ndarray
    max_deviation_points: np.ndarray  # largest |seat rate - 1/n|, in percentage points
    most_deviant_seat: np.ndarray  # the seat with that deviation
    cohens_w: np.ndarray  # sqrt(sum((rate - 1/n)^2 / (1/n))) = sqrt(chi_square / games)


def seat_uniformity(win_shares_per_seat, games) -> SeatUniformity:
    """Test whether seats win equally often: chi-square goodness of fit against 1/n per seat.

    `win_shares_per_seat` has seats on the last axis and must hold win *shares* summed over games
    (see `seat_win_shares`), which sum to `games`; raw win flags over-count shared wins and are
    rejected. Method: Pearson's X^2 = sum((observed - games/n)^2 / (games/n)) on n - 1 degrees of
    freedom. With shared wins a seat's per-game share is less variable than a 0/1 win, so the test
    is slightly conservative when ties occur (E[X^2] <= n - 1 under equal seats). Effect sizes:
    the largest absolute deviation of a seat's rate from 1/n in percentage points, and Cohen's
    w = sqrt(X^2 / games), where 0.1 / 0.3 / 0.5 are Cohen's small / medium / large.
    References: Pearson, K. (1900), Philosophical Magazine 50:157-175; Cohen, J. (1988),
    Statistical Power Analysis for the Behavioral Sciences, 2nd ed., ch. 7.
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
    chi_square = np.sum(np.square(observed - expected) / expected, axis=-1)
    absolute_deviation = np.abs(observed / games[..., np.newaxis] - 1.0 / seat_count)
    return SeatUniformity(
        chi_square=chi_square,
        p_value=special.chdtrc(seat_count - 1, chi_square),  # = scipy.stats.chi2.sf
        max_deviation_points=100.0 * absolute_deviation.max(axis=-1),
        most_deviant_seat=absolute_deviation.argmax(axis=-1),
        cohens_w=np.sqrt(chi_square / games),
    )


def equivalence_verdict(rates, lows, highs, n_seats: int, margin_points: float = 1.0) -> str:
    """"balanced", "unbalanced" or "inconclusive" for one cell's per-seat win rates.

    Method: equivalence testing by confidence intervals (two one-sided tests, TOST). With the fair
    rate f = 1/n_seats and margin m (points / 100):
    - "balanced": every seat's interval lies within [f - m, f + m];
    - "unbalanced": some seat's interval lies entirely outside [f - m, f + m];
    - "inconclusive": neither; more games would narrow the intervals.
    Pass simultaneous intervals (`simultaneous_wilson`) so the verdict holds for all seats at
    once. `rates` are the point estimates and must lie inside their intervals.
    References: Schuirmann, D. J. (1987), J. Pharmacokinetics and Biopharmaceutics 15:657-680;
    Wellek, S. (2010), Testing Statistical Hypotheses of Equivalence and Noninferiority, 2nd ed.
    """
    rates, lows, highs, fair, margin = _verdict_inputs(rates, lows, highs, n_seats, margin_points)
    if np.all((lows >= fair - margin) & (highs <= fair + margin)):
        return "balanced"
    if np.any((highs < fair - margin) | (lows > fair + margin)):
        return "unbalanced"
    return "inconclusive"


def verdict_sentence(
    rates,
    lows,
    highs,
    n_seats: int,
    margin_points: float = 1.0,
    confidence: float = 0.95,
    games: int | None = None,
) -> str:
    """The equivalence verdict as plain English for the report.

    Arguments as in `equivalence_verdict`; `confidence` is the joint level of the intervals and is
    only quoted. An unbalanced verdict names the seat, among those whose interval lies outside
    the band, that deviates most; an inconclusive one names the seat whose interval reaches
    furthest beyond the band, says which edge of the band its interval straddles and, given the
    cell's `games`, how many games would decide it if the rates stayed as they are
    (`games_to_decide`).
    """
    verdict = equivalence_verdict(rates, lows, highs, n_seats, margin_points)
    rates, lows, highs, fair, margin = _verdict_inputs(rates, lows, highs, n_seats, margin_points)
    reach_beyond_band = np.maximum((fair - margin) - lows, highs - (fair + margin))
    seat = int(np.argmax(reach_beyond_band))
    decimals = _decimals_to_tell_apart([rates[seat], lows[seat], highs[seat], fair - margin, fair + margin])
    band = f"{percent_text(fair - margin, decimals)} to {percent_text(fair + margin, decimals)}"
    intervals = f"{100 * confidence:g}% simultaneous intervals"
    if verdict == "balanced":
        return (
            f"Balanced within ±{margin_points:.1f} points: every seat's win rate is within "
            f"{band} ({intervals})."
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
            f"Seat {seat} wins {100 * abs(rates[seat] - fair):.1f} points {direction} often than "
            f"a fair {100 * fair:.1f}% (interval {100 * nearest:.1f} to {100 * furthest:.1f} "
            f"points): not balanced within ±{margin_points:.1f} points."
        )
    below, above = lows[seat] < fair - margin, highs[seat] > fair + margin
    reach = "reaches past both edges of" if below and above else f"straddles the {'lower' if below else 'upper'} edge of"
    sentence = (
        f"Inconclusive at ±{margin_points:.1f} points: seat {seat} wins "
        f"{percent_text(rates[seat], decimals)}, and its interval "
        f"({percent_text(lows[seat], decimals)} to {percent_text(highs[seat], decimals)}, "
        f"{intervals}) {reach} the fair band {band}, so these games cannot "
        f"yet tell whether seat {seat} is within the margin or outside it."
    )
    if games is None:
        return sentence
    needed = games_to_decide(rates, games, n_seats, margin_points, confidence)
    if not np.isfinite(needed):
        return sentence + (
            f" Its rate sits exactly on the edge of the band, so no number of games would "
            f"settle it at a ±{margin_points:.1f}-point margin."
        )
    return sentence + (
        f" If the rates stay as they are, about {count_text(needed - games)} more games "
        f"({count_text(needed)} in all) would decide it."
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
    count = int(math.ceil(count))
    if count >= 1_000:
        magnitude = 10 ** (len(str(count)) - 2)
        count = int(math.ceil(count / magnitude) * magnitude)
    return f"{count:,}"


# Above this many games per cell "games to decide" is reported as never (a rate on the edge).
GAMES_TO_DECIDE_CAP = 10**12


def games_to_decide(rates, games: int, n_seats: int, margin_points: float = 1.0, confidence: float = 0.95) -> float:
    """Games per cell at which `equivalence_verdict` would stop being inconclusive, if the seat
    rates stayed at `rates` (fractions summing to 1 over the seats).

    Method: the verdict's simultaneous Wilson intervals (`simultaneous_wilson`) shrink
    monotonically with the number of games at fixed rates, and both "balanced" (every interval
    inside the band) and "unbalanced" (some interval outside) are monotone in it; so the smallest
    deciding count is found by doubling from `games` and then bisecting. A projection, not a
    promise: the rates will move as games are added. Returns `games` when already decided and
    infinity when a rate lies exactly on the band's edge (no finite count decides it).
    """
    rates = np.asarray(rates, dtype=float)

    def decided(count: float) -> bool:
        low, high = simultaneous_wilson(rates * count, count, confidence)
        return equivalence_verdict(rates, np.minimum(low, rates), np.maximum(high, rates), n_seats, margin_points) != "inconclusive"

    if decided(games):
        return float(games)
    low, high = float(games), float(games)
    while not decided(high):
        low, high = high, high * 2
        if high > GAMES_TO_DECIDE_CAP:
            return math.inf
    while high - low > max(1.0, low * 1e-4):
        middle = math.floor((low + high) / 2)
        low, high = (low, middle) if decided(middle) else (middle, high)
    return float(math.ceil(high))


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


def _normal_mixture_rho(tuned_trials: float, confidence: float) -> float:
    """Mixture precision rho that makes the two-sided normal-mixture boundary tightest at
    `tuned_trials` (in intrinsic time V = trials / 4).

    Minimising (V + rho) log((V + rho) / (rho alpha^2)) over rho at V = v gives rho = v / u where
    u solves u - log(1 + u) = 2 log(1 / alpha).
    """
    if tuned_trials <= 0:
        raise ValueError(f"tuned_trials must be positive, got {tuned_trials}")
    from scipy import optimize

    log_term = 2.0 * math.log(1.0 / (1.0 - confidence))
    u = optimize.brentq(lambda u: u - math.log1p(u) - log_term, log_term, 2.0 * log_term + 10.0)
    return tuned_trials * BOUNDED_VARIANCE_PROXY / u


def confidence_sequence_halfwidth(
    trials, confidence: float = 0.95, tuned_trials: float = 100_000
) -> np.ndarray:
    """Half-width of an anytime-valid confidence sequence for the mean of values in [0, 1].

    Method: Robbins' two-sided normal-mixture boundary. A value in [0, 1] is sub-Gaussian with
    variance proxy 1/4 (Hoeffding's lemma), so S_t = sum_{i<=t} (X_i - mu) has intrinsic time
    V_t = t / 4, and mixing exp(lambda S_t - lambda^2 V_t / 2) over lambda ~ N(0, 1/rho) gives the
    nonnegative supermartingale sqrt(rho / (V_t + rho)) exp(S_t^2 / (2 (V_t + rho))). Ville's
    inequality then gives, with alpha = 1 - confidence,
        P(exists t: |S_t| >= sqrt((V_t + rho) log((V_t + rho) / (rho alpha^2)))) <= alpha,
    so mean +- that boundary / t covers mu at every t simultaneously: one may look after every
    chunk and stop whenever one likes. rho must be fixed in advance; it is chosen to make the
    sequence tightest at `tuned_trials` (set it near the expected stopping point). The price of
    anytime validity and of the distribution-free variance bound is width: at the tuned point the
    half-width is about 1.5 / sqrt(t) at 95%, against Wilson's 0.85 / sqrt(t) for a rate of 25%.
    The half-width depends on t only, not on the data. For k seats jointly, pass
    `bonferroni_confidence(confidence, k)`.
    References: Robbins, H. (1970), Statistical methods related to the law of the iterated
    logarithm, Ann. Math. Statist. 41:1397-1409; Howard, S. R., Ramdas, A., McAuliffe, J. and
    Sekhon, J. (2021), Time-uniform, nonparametric, nonasymptotic confidence sequences, Ann.
    Statist. 49:1055-1080 (two-sided normal mixture boundary).
    """
    trials = np.asarray(trials, dtype=float)
    if np.any(trials <= 0):
        raise ValueError("trials must be positive")
    _require_confidence(confidence)
    alpha = 1.0 - confidence
    rho = _normal_mixture_rho(tuned_trials, confidence)
    intrinsic_time = trials * BOUNDED_VARIANCE_PROXY
    boundary = np.sqrt(
        (intrinsic_time + rho) * np.log((intrinsic_time + rho) / (rho * alpha * alpha))
    )
    return boundary / trials


def confidence_sequence(
    successes, trials, confidence: float = 0.95, tuned_trials: float = 100_000
) -> tuple[np.ndarray, np.ndarray]:
    """Anytime-valid interval (low, high) for a rate, clipped to [0, 1]; elementwise.

    The rate successes / trials +- `confidence_sequence_halfwidth(trials, ...)`; see there for
    the method and references. Successes may be fractional (win shares summed over games).
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    if np.any((successes < 0) | (successes > trials)):
        raise ValueError("successes must lie between 0 and trials")
    half_width = confidence_sequence_halfwidth(trials, confidence, tuned_trials)
    rate = successes / trials
    return np.clip(rate - half_width, 0.0, 1.0), np.clip(rate + half_width, 0.0, 1.0)


class CrnVarianceReduction(NamedTuple):
    """How much replaying deals in every seat rotation sharpens a mean over games."""

    paired_variance: float  # variance of the mean under the deal-grouped design
    independent_variance: float  # variance if every game had its own independent deal
    reduction_factor: float  # independent_variance / paired_variance (> 1: the design helps)
    equivalent_independent_games: float  # games * reduction_factor


def crn_variance_reduction(values, deal_ids) -> CrnVarianceReduction:
    """Variance reduction from common random numbers, from per-game values and their deal ids.

    `values` holds one number per game for the quantity being estimated, e.g. one seat's win
    share (`seat_win_shares(...)[:, seat]`); the seat advantage share - 1/n, or a seat's share
    against the mean of the others, (n * share - 1) / (n - 1), are affine in it and have the same
    reduction factor. `deal_ids` says which games replay the same deal. Aggregates per deal and
    calls `crn_variance_reduction_from_deal_sums`, which documents the estimator.
    """
    values = np.asarray(values, dtype=float)
    deal_ids = np.asarray(deal_ids)
    if values.ndim != 1 or values.shape != deal_ids.shape:
        raise ValueError("values and deal_ids must be 1-D arrays of the same length")
    _, deal_index = np.unique(deal_ids, return_inverse=True)
    return crn_variance_reduction_from_deal_sums(
        np.bincount(deal_index),
        np.bincount(deal_index, weights=values),
        np.bincount(deal_index, weights=np.square(values)),
    )


def crn_variance_reduction_from_deal_sums(
    deal_games, deal_sums, deal_sums_sq
) -> CrnVarianceReduction:
    """Variance reduction from common random numbers, from per-deal game counts, sums and sums of
    squares of the per-game values (these add across chunks, so no game need be kept).

    Method: treat deals as independent clusters of games. With r_d games and value sum S_d in
    deal d, G = sum r_d games, D deals and the mean theta = sum S_d / G:
    - paired design: the cluster (ratio-estimator) variance
      D / (D - 1) * sum_d (S_d - r_d theta)^2 / G^2;
    - independent deals: s^2 / G, with s^2 the per-game sample variance over all games;
    - reduction factor = independent / paired, the inverse of Kish's design effect;
      equivalent independent games = G * factor.
    When a deal's luck follows the hand rather than the seat (a strong deal is strong for whoever
    holds it, i.e. outcomes of the same hand are positively correlated across rotations), a
    seat's outcomes across rotations are negatively correlated, deal luck cancels within the
    deal, and the factor exceeds 1. Luck that follows the seat makes it fall below 1;
    independent games give about 1.
    References: Kish, L. (1965), Survey Sampling, Wiley (design effect); Cochran, W. G. (1977),
    Sampling Techniques, 3rd ed., Wiley (ratio estimators in cluster sampling); Law, A. M. (2015),
    Simulation Modeling and Analysis, 5th ed. (common random numbers).
    """
    deal_games = np.asarray(deal_games, dtype=float)
    deal_sums = np.asarray(deal_sums, dtype=float)
    deal_sums_sq = np.asarray(deal_sums_sq, dtype=float)
    if deal_games.ndim != 1 or not deal_games.shape == deal_sums.shape == deal_sums_sq.shape:
        raise ValueError("per-deal counts, sums and sums of squares must be 1-D and aligned")
    deal_count = deal_games.size
    if deal_count < 2 or np.any(deal_games < 1):
        raise ValueError("need at least 2 deals, each with at least one game")
    game_count = deal_games.sum()
    mean = deal_sums.sum() / game_count
    per_game_variance = max((deal_sums_sq.sum() - game_count * mean * mean) / (game_count - 1), 0.0)
    independent_variance = per_game_variance / game_count
    deal_residuals = deal_sums - deal_games * mean
    paired_variance = (
        deal_count / (deal_count - 1) * np.sum(np.square(deal_residuals)) / game_count**2
    )
    reduction_factor = independent_variance / paired_variance if paired_variance > 0 else math.inf
    return CrnVarianceReduction(
        paired_variance=float(paired_variance),
        independent_variance=float(independent_variance),
        reduction_factor=float(reduction_factor),
        equivalent_independent_games=float(game_count * reduction_factor),
    )


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
    """Bradley-Terry strengths of policies and their Elo-scale ratings with intervals."""

    strengths: np.ndarray  # gamma_i, geometric mean 1; P(i beats j) = gamma_i / (gamma_i + gamma_j)
    elo: np.ndarray  # 400 * log10(gamma_i), mean 0
    elo_standard_error: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    iterations: int


def bradley_terry(
    wins_matrix,
    confidence: float = 0.95,
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
    Intervals: Fisher information (not bootstrap). With p_ij = gamma_i / (gamma_i + gamma_j) the
    information for log-strengths is I_ii = sum_j N_ij p_ij p_ji, I_ij = -N_ij p_ij p_ji; its
    Moore-Penrose inverse is the covariance under the mean-zero constraint, giving Wald intervals
    elo +- z * se (pointwise, not simultaneous). They treat comparisons as independent. The
    comparisons one multiplayer game yields are positively correlated, so for n-player games
    between distinct policies of similar strength they are too narrow by about sqrt((n + 1) / 3)
    (1.29 for 4 players); scale the standard error accordingly if that matters.
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

    strength = np.exp(log_strength)
    win_probability = strength[:, np.newaxis] / (strength[:, np.newaxis] + strength[np.newaxis, :])
    pair_information = comparisons * win_probability * win_probability.T
    information = np.diag(pair_information.sum(axis=1)) - pair_information
    log_strength_se = np.sqrt(np.diag(np.linalg.pinv(information)))
    elo = ELO_PER_LOG_STRENGTH * log_strength
    elo_se = ELO_PER_LOG_STRENGTH * log_strength_se
    z = two_sided_z(confidence)
    return BradleyTerryFit(
        strengths=strength,
        elo=elo,
        elo_standard_error=elo_se,
        elo_low=elo - z * elo_se,
        elo_high=elo + z * elo_se,
        iterations=iteration,
    )


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


def games_to_exclude_zero(estimate: float, low: float, high: float, games: float) -> float:
    """Games per run at which an interval (low, high) around `estimate` that covers 0 would
    exclude it, if the estimate held: widths shrink as 1 / sqrt(games), so
    games * (half-width / |estimate|)^2. Infinity for a zero estimate; `games` when 0 is
    already excluded."""
    if low > 0 or high < 0:
        return float(games)
    if estimate == 0:
        return math.inf
    half_width = (estimate - low) if estimate > 0 else (high - estimate)
    return float(math.ceil(games * (half_width / abs(estimate)) ** 2))
