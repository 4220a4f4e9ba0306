"""Figure `leader` (simulator/analysis/gameplay/leaders.py) on the race game, whose chance that a
seat leads alone at each point of the game is an exact sum over its score paths."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import race_game as race
from simulator.analysis.gameplay import Trajectories, cell_gameplay
from simulator.analysis.gameplay.leaders import POINTS, item_name, point_rounds
from test_gameplay import MIN_COVERAGE, REPLICATIONS, coverage

DEALS = 200


def exact_lead_share(seat: int, quarters: int) -> float:
    """P(seat leads alone after round ceil(q R / 4)), summed over the race game's paths."""
    after = math.ceil(quarters * race.ROUNDS / 4)
    return sum(probability for probability, history, _ in race._paths()
               if history[after - 1][seat] > history[after - 1][1 - seat])


@pytest.fixture(scope="module")
def replications() -> list[pd.DataFrame]:
    rng = np.random.default_rng(20261205)
    return [cell_gameplay(race.play_records(rng, DEALS)).set_index(["figure", "item"]) for _ in range(REPLICATIONS)]


@pytest.mark.parametrize("seat", range(race.PLAYERS))
@pytest.mark.parametrize("quarters, point", POINTS)
def test_each_seats_lead_share_covers_its_exact_share(replications, seat, quarters, point):
    assert coverage(replications, "leader", item_name(seat, point), exact_lead_share(seat, quarters)) >= MIN_COVERAGE


def test_the_points_are_quarters_of_each_games_own_rounds():
    sample = Trajectories(np.arange(3), np.array([1, 6, 9]), np.zeros((3, 9, 2)), np.ones((3, 2), dtype=bool))
    assert [point_rounds(sample, quarters).tolist() for quarters, _ in POINTS] == [
        [1, 2, 3], [1, 3, 5], [1, 5, 7], [1, 6, 9]]


def test_a_shared_top_score_is_no_lead_and_the_rows_show_the_sample():
    # two games of one round: seat 1 alone on top, then a shared top score
    scores = np.array([[[1.0, 2.0]], [[3.0, 3.0]]])
    sample = Trajectories(np.array([0, 1]), np.array([1, 1]), scores, np.array([[False, True], [True, True]]))
    rows = cell_gameplay(race.CellGames(2, sample.deal, {}, {"win": sample.win}, trajectories=sample))
    leads = rows[rows["figure"] == "leader"].set_index("item")
    assert leads.loc[item_name(1, "at the end"), "estimate"] == 0.5
    assert leads.loc[item_name(0, "at the end"), "estimate"] == 0.0
    assert set(leads["games"]) == {2} and set(leads["deals"]) == {2}
