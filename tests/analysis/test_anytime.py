"""The live view's confidence sequences (simulator/analysis/anytime.py): the PrPl-EB formula of
Waudby-Smith and Ramdas (2023, Theorem 2) checked against a deal-by-deal transcription, batch
independence, time-uniform coverage on a game with known shares, per-deal shares and the live
verdict."""

import math

import numpy as np
import pytest

from simulator.analysis.anytime import (
    LAMBDA_CAP, SeatSequences, deal_shares, live_verdict, margin_sequences,
)


def _reference_bounds(x, target, alpha):
    """Theorem 2 with the running intersection, one deal at a time, for one seat (the paper's
    notation; alpha already Bonferroni-divided)."""
    mean_before, variance_before = 0.5, 0.25  # mu_0, sigma2_0
    total = deviations = bets = weighted = penalties = 0.0
    low, high, bounds = 0.0, 1.0, []
    for t, value in enumerate(x, start=1):
        rate = min(LAMBDA_CAP, target / variance_before, math.sqrt(2 * math.log(2 / alpha) / (variance_before * t)))
        penalties += 4 * (value - mean_before) ** 2 * (-math.log(1 - rate) - rate) / 4
        bets += rate
        weighted += rate * value
        radius = (math.log(2 / alpha) + penalties) / bets
        low, high = max(low, weighted / bets - radius), min(high, weighted / bets + radius)
        bounds.append((max(low, 0.0), min(high, 1.0)))
        total += value
        mean_now = (0.5 + total) / (t + 1)
        deviations += (value - mean_now) ** 2
        mean_before, variance_before = mean_now, (0.25 + deviations) / (t + 1)
    return np.array(bounds)


def test_bounds_follow_theorem_2_deal_by_deal():
    x = np.random.default_rng(5).choice([0.0, 0.25, 0.5, 1.0], size=(400, 2), p=[0.5, 0.2, 0.2, 0.1])
    sequences = SeatSequences(2, target=0.02, confidence=0.9)
    lows, highs = sequences.update(x)
    for seat in range(2):
        expected = _reference_bounds(x[:, seat], 0.02, 0.1 / 2)
        np.testing.assert_allclose(lows[:, seat], expected[:, 0], atol=1e-12)
        np.testing.assert_allclose(highs[:, seat], expected[:, 1], atol=1e-12)


def test_batches_of_any_size_give_the_same_sequence():
    x = np.random.default_rng(2).integers(0, 5, size=(3000, 4)) / 4
    whole, pieces = margin_sequences(4, 0.01), margin_sequences(4, 0.01)
    whole.update(x)
    for part in np.array_split(x, 11):
        pieces.update(part)
    np.testing.assert_allclose(pieces.low, whole.low)
    np.testing.assert_allclose(pieces.high, whole.high)
    np.testing.assert_allclose(pieces.means, x.mean(axis=0))
    assert pieces.deals == whole.deals == 3000


def test_intervals_shrink_and_nest():
    x = np.random.default_rng(3).integers(0, 2, size=(20000, 2)).astype(float)
    lows, highs = margin_sequences(2, 0.02).update(x)
    widths = highs - lows
    assert np.all(np.diff(lows, axis=0) >= 0) and np.all(np.diff(highs, axis=0) <= 0)  # running intersection
    assert widths[-1].max() < 0.05 < widths[99].min()


def test_covers_the_true_shares_at_every_time_jointly():
    """300 runs of 2,000 deals of a 3-seat game with shares (0.5, 0.3, 0.2): the fraction whose
    intervals ever miss a true share, at any deal, must stay under alpha = 5% (plus Monte Carlo
    slack). A fixed-sample interval watched at every deal would miss far more often."""
    rng = np.random.default_rng(11)
    shares = np.array([0.5, 0.3, 0.2])
    missed = 0
    for _ in range(300):
        winners = rng.choice(3, size=2000, p=shares)
        x = (winners[:, None] == np.arange(3)).astype(float)
        lows, highs = margin_sequences(3, 0.02).update(x)
        missed += bool(np.any((lows > shares) | (highs < shares)))
    assert missed / 300 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 300)


def test_deal_shares_split_shared_wins_and_average_rotations():
    win = np.array([[1, 0, 0], [1, 1, 0], [0, 0, 0],   # deal 0: seat 0 wins, a shared win, no winner
                    [0, 0, 1], [0, 0, 1], [0, 1, 0]], dtype=bool)
    np.testing.assert_allclose(deal_shares(win, 3), [[0.5, 1 / 6, 0.0], [0.0, 1 / 3, 2 / 3]])
    with pytest.raises(ValueError, match="whole deals"):
        deal_shares(win[:4], 3)


def test_live_verdict_at_the_margin():
    assert live_verdict([0.49, 0.495], [0.505, 0.51], 0.01) == "balanced"
    assert live_verdict([0.52, 0.45], [0.55, 0.48], 0.01) == "unbalanced"
    assert live_verdict([0.47, 0.48], [0.52, 0.53], 0.01) == "undecided"
    assert live_verdict([0.20, 0.20, 0.20, 0.20], [0.30, 0.30, 0.30, 0.30], 0.01) == "undecided"
    assert live_verdict([0.241, 0.242, 0.243, 0.244], [0.259, 0.258, 0.257, 0.256], 0.01) == "balanced"


def test_refuses_values_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        margin_sequences(2, 0.01).update([[0.5, 1.5]])
    with pytest.raises(ValueError, match="shape"):
        margin_sequences(2, 0.01).update([[0.5, 0.5, 0.0]])
