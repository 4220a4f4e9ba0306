"""A proof that means what it says (issue #44, item 3): the confirmation's printed power is the
chance that the confirmation's own test (every seat's equivalence interval inside the margin)
shows balance, for seat rates known only as well as the chosen trial measured them."""

import numpy as np
import pytest

from simulator.analysis import stats


def test_two_seats_mirror_each_other_so_the_chance_is_one_seat_s_not_a_product():
    one_seat = stats.balanced_power([0.5, 0.5], 400, 2, 5.0) ** 0.5
    assert stats.balanced_assurance([0.5, 0.5], [0.0, 0.0], 400, 2, 5.0) == pytest.approx(one_seat, abs=0.01)


def test_the_assurance_of_known_rates_is_the_rate_at_which_the_verdict_says_balanced():
    """Simulated confirmations of 700 three-player games with known rates, judged by the
    verdict a run report gives (Wilson intervals at 1 - 2 alpha inside the margin)."""
    rates, games = np.array([0.35, 1 / 3, 0.9 / 3 + 0.0167]), 700
    rates = rates / rates.sum()
    wins = np.random.default_rng(3).multinomial(games, rates, size=3000)
    balanced = 0
    for row in wins:
        intervals = stats.seat_intervals(row, games, np.ones(3))
        balanced += stats.equivalence_verdict(row / games, intervals.sim_low, intervals.sim_high, 3, 5.0,
                                              intervals.tost_low, intervals.tost_high) == "balanced"
    assert stats.balanced_assurance(rates, np.zeros(3), games, 3, 5.0) == pytest.approx(balanced / len(wins), abs=0.04)


def test_a_measured_rate_is_not_taken_as_the_true_one():
    """The tune printed its power as if the trial's rates were the true ones: a seat measured
    0.8 points high (on 100,000 games, 0.14 points of standard error) then looked all but sure
    to pass a 1-point margin on 500,000 fresh games, though its true rate may well lie nearer
    the margin."""
    rates, errors = np.array([0.258, 0.25, 0.246, 0.246]), np.full(4, 0.0014)
    assert stats.balanced_power(rates, 500_000, 4, 1.0) > 0.9
    assert stats.balanced_assurance(rates, errors, 500_000, 4, 1.0) < 0.8


def test_games_to_assure_is_infinite_when_the_measurement_leaves_a_seat_likely_beyond_the_margin():
    assert stats.games_to_assure([0.26, 0.25, 0.25, 0.24], [0.004] * 4, 1000, 4, 1.0) == float("inf")
    needed = stats.games_to_assure([0.252, 0.25, 0.249, 0.249], [0.001] * 4, 1000, 4, 1.0)
    assert stats.balanced_assurance([0.252, 0.25, 0.249, 0.249], [0.001] * 4, needed, 4, 1.0) >= 0.8


def test_a_trial_s_deviations_are_shrunk_by_as_much_as_deal_noise_explains():
    from simulator.tune.best import shrunk_rates

    errors = np.full(4, 0.005)
    noise_only = np.array([0.253, 0.249, 0.247, 0.251])  # spread below the errors: taken as fair
    rates, left = shrunk_rates(noise_only, errors, 4)
    assert rates == pytest.approx([0.25] * 4) and left == pytest.approx([0.0] * 4)
    real = np.array([0.30, 0.25, 0.23, 0.22])  # 5 points: far beyond 0.5 points of noise
    rates, left = shrunk_rates(real, errors, 4)
    assert rates - 0.25 == pytest.approx(real - 0.25, rel=0.03) and (left < errors).all() and (left > 0.95 * errors).all()
