"""Anytime-valid confidence sequences for seat win shares, and the live verdict they support
(docs/statistics.md, "Live intervals: confidence sequences").

A fixed-sample interval holds at one pre-set number of games; a person who watches a live run and
stops as soon as it looks decided picks the moment that flatters the interval, and its coverage
falls below its level. A *confidence sequence* holds at every moment at once: with probability at
least the confidence, it covers the true share at every number of deals, so it stays valid at any
stopping time, a watcher's included.

Unit: the deal (docs/statistics.md, "The sampling unit: the deal"). Each observation is one deal's
mean win share per seat (its games, one per seat rotation, averaged; a k-way shared win counts 1/k
to each winner), a number in [0, 1]. Deals are independent and identically distributed, and the
mean of the per-deal shares is the seat's win share.

Method: the predictable plug-in empirical-Bernstein confidence sequence (PrPl-EB) of
Waudby-Smith and Ramdas (2023), Theorem 2, with the running intersection (their Remark 1), per
seat at 1 - alpha / seats (Bonferroni: all seats covered together at 1 - alpha, at every time):

    mu_t  = (1/2 + sum_{i<=t} x_i) / (t + 1)              sigma2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1)
    v_t   = 4 (x_t - mu_{t-1})^2                           psi(l)   = (-log(1 - l) - l) / 4
    C_t   = sum l_i x_i / sum l_i  +-  (log(2 / alpha) + sum v_i psi(l_i)) / sum l_i

The betting rates l_t may be any predictable sequence in [0, 1) (each uses deals before t only).
Ours is l_t = min(LAMBDA_CAP, target / sigma2_{t-1}, sqrt(2 log(2 / alpha) / (sigma2_{t-1} t))):
up to the deals where the interval reaches the half-width `target` it bets at the constant rate
that is tightest there (the paper's rate tuned for a planned sample size, with the planned size
read from the margin: `margin_sequences`), and after
it at the paper's 1/sqrt(t) decay, so the interval keeps shrinking. Choosing the rates this way
changes the width, never the validity.

Reference: Waudby-Smith, I. and Ramdas, A. (2023), Estimating means of bounded random variables by
betting, Journal of the Royal Statistical Society B 86(1):1-27 (Theorem 2, Remark 1, Section 3.1
on rates tuned for a sample size); Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J.
(2021), Time-uniform, nonparametric, nonasymptotic confidence sequences, Annals of Statistics
49(2):1055-1080 (the empirical-Bernstein boundary this sharpens).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

# The largest betting rate: the paper's c = 1/2 keeps psi(l) small (psi(1/2) = 0.048).
LAMBDA_CAP = 0.5
# The half-width the rates are tuned to reach soonest, as a share of the margin: measured on a fair
# 4-seat game at a 1-point margin (docs/statistics.md), 0.5 to 0.75 decided it balanced soonest.
TARGET_PER_MARGIN = 0.5
# The live verdict's joint level: every seat's interval, at every moment, covers its share with
# probability at least this.
LIVE_CONFIDENCE = 0.95

Verdict = Literal["balanced", "unbalanced", "undecided"]


@dataclass
class SeatSequences:
    """The running confidence sequences of a cell's seat win shares, fed deal by deal.

    `target` is the half-width (a share, e.g. 0.01 for 1 point) the rates are tuned to reach
    soonest; `live_verdict` tunes it to the margin. State is sums over the deals seen, so a
    sequence is fed in batches of any size with the same result as deal by deal."""

    seats: int
    target: float
    confidence: float = LIVE_CONFIDENCE
    deals: int = 0
    share_sum: np.ndarray = field(default=None)  # sum of x_i: the empirical mean's numerator
    squared_deviation_sum: np.ndarray = field(default=None)  # sum (x_i - mu_i)^2: sigma2's numerator
    bet_sum: np.ndarray = field(default=None)  # sum l_i
    weighted_sum: np.ndarray = field(default=None)  # sum l_i x_i
    penalty_sum: np.ndarray = field(default=None)  # sum v_i psi(l_i)
    low: np.ndarray = field(default=None)  # the running intersection's bounds
    high: np.ndarray = field(default=None)

    def __post_init__(self) -> None:
        if self.seats < 1:
            raise ValueError(f"seats must be at least 1, got {self.seats}")
        if not 0.0 < self.target < 1.0:
            raise ValueError(f"target must lie strictly between 0 and 1, got {self.target}")
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must lie strictly between 0 and 1, got {self.confidence}")
        for name in ("share_sum", "squared_deviation_sum", "bet_sum", "weighted_sum", "penalty_sum"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(self.seats))
        if self.low is None:
            self.low, self.high = np.zeros(self.seats), np.ones(self.seats)

    @property
    def log_term(self) -> float:
        """log(2 / alpha) at each seat's Bonferroni share of alpha."""
        return math.log(2.0 * self.seats / (1.0 - self.confidence))

    @property
    def means(self) -> np.ndarray:
        """The seats' win shares so far (the mean of the per-deal shares); NaN before a deal."""
        return self.share_sum / self.deals if self.deals else np.full(self.seats, np.nan)

    def update(self, deal_shares) -> tuple[np.ndarray, np.ndarray]:
        """Feed deals (array (deals, seats) of per-deal mean shares in [0, 1], in deal order);
        return the running-intersection bounds after each of them, two arrays (deals, seats)."""
        x = np.asarray(deal_shares, dtype=float)
        if x.ndim != 2 or x.shape[1] != self.seats:
            raise ValueError(f"deal shares must have shape (deals, {self.seats}), got {x.shape}")
        if np.any((x < 0) | (x > 1)) or not np.all(np.isfinite(x)):
            raise ValueError("deal shares must lie in [0, 1]")
        if len(x) == 0:
            return np.empty((0, self.seats)), np.empty((0, self.seats))
        times = self.deals + np.arange(1, len(x) + 1, dtype=float)[:, None]  # t of each new deal
        sums = self.share_sum + np.cumsum(x, axis=0)  # sum_{i<=t} x_i
        before = np.vstack([self.share_sum[None, :], sums[:-1]])  # sum_{i<=t-1} x_i
        mean_now = (0.5 + sums) / (times + 1.0)  # mu_t
        mean_before = (0.5 + before) / times  # mu_{t-1}
        deviations = np.cumsum((x - mean_now) ** 2, axis=0)
        deviation_before = np.vstack([np.zeros((1, self.seats)), deviations[:-1]]) + self.squared_deviation_sum
        variance_before = (0.25 + deviation_before) / times  # sigma2_{t-1}
        rates = np.minimum.reduce([
            np.full_like(x, LAMBDA_CAP),
            self.target / variance_before,
            np.sqrt(2.0 * self.log_term / (variance_before * times)),
        ])
        penalties = 4.0 * (x - mean_before) ** 2 * (-np.log1p(-rates) - rates) / 4.0
        bet_sums = self.bet_sum + np.cumsum(rates, axis=0)
        centres = (self.weighted_sum + np.cumsum(rates * x, axis=0)) / bet_sums
        radii = (self.log_term + self.penalty_sum + np.cumsum(penalties, axis=0)) / bet_sums
        lows = np.maximum.accumulate(np.vstack([self.low[None, :], centres - radii]), axis=0)[1:]
        highs = np.minimum.accumulate(np.vstack([self.high[None, :], centres + radii]), axis=0)[1:]
        self.deals += len(x)
        self.share_sum = sums[-1]
        self.squared_deviation_sum = self.squared_deviation_sum + deviations[-1]
        self.bet_sum = bet_sums[-1]
        self.weighted_sum = centres[-1] * bet_sums[-1]
        self.penalty_sum = self.penalty_sum + penalties.sum(axis=0)
        self.low, self.high = np.clip(lows[-1], 0.0, 1.0), np.clip(highs[-1], 0.0, 1.0)
        return np.clip(lows, 0.0, 1.0), np.clip(highs, 0.0, 1.0)


def deal_shares(win: np.ndarray, games_per_deal: int) -> np.ndarray:
    """Per-deal mean win shares (deals, seats) from a batch's `win` column (games, seats) of whole
    deals in game order: each game's win split 1/k among its k winners (no winner: 0 to all), then
    averaged over the deal's games (its seat rotations)."""
    win = np.asarray(win, dtype=float)
    games, seats = win.shape
    if games % games_per_deal:
        raise ValueError(f"{games} games are not whole deals of {games_per_deal}")
    winners = win.sum(axis=1, keepdims=True)
    shares = np.divide(win, winners, out=np.zeros_like(win), where=winners > 0)
    return shares.reshape(games // games_per_deal, games_per_deal, seats).mean(axis=1)


def live_verdict(low, high, margin: float) -> Verdict:
    """The live verdict on a cell's seats from their confidence sequences (`low`, `high`: shares)
    and the margin (a share, e.g. 0.01): balanced when every seat's interval lies inside
    [1/n - margin, 1/n + margin], unbalanced when some seat's lies entirely outside it, else
    undecided. Both calls are wrong with probability at most 1 - the sequences' confidence, at
    whatever moment the run is stopped."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    fair = 1.0 / len(low)
    if np.all((low >= fair - margin) & (high <= fair + margin)):
        return "balanced"
    if np.any((high < fair - margin) | (low > fair + margin)):
        return "unbalanced"
    return "undecided"


def margin_sequences(seats: int, margin: float, confidence: float = LIVE_CONFIDENCE) -> SeatSequences:
    """Seat sequences whose rates are tuned to the margin (a share): a half-width of
    TARGET_PER_MARGIN margins, about what decides a fair game, is reached soonest."""
    return SeatSequences(seats, target=TARGET_PER_MARGIN * margin, confidence=confidence)
