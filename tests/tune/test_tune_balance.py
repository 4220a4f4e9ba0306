"""The seat-balance step (simulator/tune/balance.py): its model on trials whose seat deviations
are known exactly, and in a whole tune of `seatcoin` (coin with per-seat points) where it must
find the compensation and keep the tune deterministic and resumable."""

import json

import optuna
import pandas as pd
import pytest

from simulator.tune import search
from simulator.tune.balance import balance_proposals
from simulator.tune.space import Parameter
from tests.tune.test_tune_search import seat_list_game, trials, tune, tune_file  # noqa: F401 (fixture)

PLAYERS = 3
BIAS = [3.0, 0.0, -3.0]  # points from fair at the printed rules (all seats 0)
SLOPE = 2.0  # points of win rate per point of a seat's value above the seats' mean


def seat_parameters(distribution=None) -> list[Parameter]:
    distribution = distribution or optuna.distributions.FloatDistribution(0, 4, step=0.5)
    return [Parameter(f"bonus[{seat}]", "bonus", "seat_bonus", PLAYERS, seat, distribution, ((PLAYERS, 0.0),))
            for seat in range(PLAYERS)]


def linear_trial(values: list[float], rung: int, games: int = 1000) -> optuna.trial.FrozenTrial:
    """A trial whose seats deviate exactly as the model assumes: BIAS + SLOPE x centred values."""
    mean = sum(values) / len(values)
    deviations = [b + SLOPE * (v - mean) for b, v in zip(BIAS, values)]
    worst = max(abs(d) for d in deviations)
    return optuna.trial.create_trial(
        params={f"bonus[{seat}]": v for seat, v in enumerate(values)},
        distributions={p.name: p.distribution for p in seat_parameters()},
        value=worst,
        user_attrs={"rung": rung, "objectives": [worst], "games": games, "feasible": True,
                    "by_players": {str(PLAYERS): {"games": games, "seat_deviation_points": deviations}}},
    )


def test_the_model_steps_from_the_incumbent_to_the_setting_that_zeroes_every_seat():
    told = [linear_trial([0, 0, 0], rung=1), linear_trial([1, 0, 0], 0), linear_trial([0, 2, 1], 0),
            linear_trial([0.5, 0.5, 3], 0)]
    proposals = balance_proposals(told, seat_parameters(), count=3)
    # 3 + 2 (x0 - m) = 0 etc.: seats 1 and 2 need 1.5 and 3 points more than seat 0; the
    # incumbent (trial 0, the most games) has seat 0 at 0, and the step keeps that level
    assert proposals[0] == {"bonus[0]": 0.0, "bonus[1]": 1.5, "bonus[2]": 3.0}
    assert len(proposals) == 3
    for proposal in proposals[1:]:  # then the nearest alternatives, one grid step away
        assert sum(abs(proposal[k] - proposals[0][k]) for k in proposal) == pytest.approx(0.5)


def test_the_model_proposes_no_setting_twice():
    told = [linear_trial([0, 0, 0], 1), linear_trial([1, 0, 0], 0), linear_trial([0, 1.5, 3], 0)]
    proposals = balance_proposals(told, seat_parameters(), count=10)
    assert proposals and all(p != told[2].params and p != told[0].params for p in proposals)
    # the fair setting is now the incumbent only once it played the most games
    told[2] = linear_trial([0, 1.5, 3], 1)
    assert {"bonus[0]": 0.0, "bonus[1]": 1.5, "bonus[2]": 3.0} not in balance_proposals(told, seat_parameters(), 10)


def test_no_proposal_while_the_slopes_are_not_determined():
    assert balance_proposals([linear_trial([0, 0, 0], 0)], seat_parameters(), 2) == []  # one setting: no slope


def test_a_categorical_seat_knob_gets_a_slope_per_choice_and_the_model_picks_the_fair_choices():
    # each seat holds one of three starts; "b" is worth 3 points of win rate, "c" 6, "a" nothing
    worth = {'"a"': 0.0, '"b"': 3.0, '"c"': 6.0}
    choices = optuna.distributions.CategoricalDistribution(list(worth))
    parameters = [Parameter(f"start[{seat}]", "start", "start", PLAYERS, seat, choices, ((PLAYERS, "a"),))
                  for seat in range(PLAYERS)]

    def trial(starts: list[str], rung: int) -> optuna.trial.FrozenTrial:
        values = [worth[s] for s in starts]
        mean = sum(values) / PLAYERS
        deviations = [b + v - mean for b, v in zip([6.0, 0.0, -6.0], values)]
        return optuna.trial.create_trial(
            params={f"start[{seat}]": s for seat, s in enumerate(starts)},
            distributions={p.name: choices for p in parameters}, value=max(map(abs, deviations)),
            user_attrs={"rung": rung, "games": 1000, "feasible": True,
                        "by_players": {str(PLAYERS): {"games": 1000, "seat_deviation_points": deviations}}})

    told = [trial(['"a"', '"a"', '"a"'], 1), trial(['"b"', '"a"', '"c"'], 0), trial(['"c"', '"b"', '"a"'], 0),
            trial(['"a"', '"c"', '"b"'], 0)]
    # seat 0 is 6 points ahead and seat 2 6 behind: seat 1 takes "b", seat 2 "c"
    assert balance_proposals(told, parameters, 1) == [{"start[0]": '"a"', "start[1]": '"b"', "start[2]": '"c"'}]


def seat_points_tune(tmp_path, **changes):
    # the balance step alone, after trial 0 (no single changes: test_tune_singles.py)
    section = {"game": "seatcoin", "players": [3], "search": {"seat_points": {"low": 0, "high": 6, "per_seat": True}},
               "single_changes": False,
               "budget": {"trials": 12, "batch": 4, "games": {"start": 300, "max": 1200}}}
    return tune_file(tmp_path, **{**section, **changes})


def test_a_tune_with_per_seat_points_compensates_seat_0_with_the_balance_step(tmp_path, seat_list_game):
    # seatcoin: seat 0 gets +5 with probability 0.5, so the other seats need points
    tune(seat_points_tune(tmp_path), tmp_path / "out")
    frame = trials(tmp_path / "out")
    assert frame["proposed_by"][0] == "printed rules"
    assert (frame["proposed_by"][:4] != "seat balance").all()  # the first batch fits the model
    balanced = frame[frame["proposed_by"] == "seat balance"]
    assert len(balanced) == 2  # one of each later batch of 4
    printed = frame["seat_fairness"][0]
    assert balanced["seat_fairness"].min() < printed / 2
    others = frame[(frame["proposed_by"] == "cmaes") & (frame["rung"] == frame["rung"].max())]
    assert balanced["seat_fairness"].min() < others["seat_fairness"].min()
    points = json.loads(balanced.sort_values("seat_fairness")["settings"].iloc[0])
    assert points["seat_points[3p][0]"] < min(points["seat_points[3p][1]"], points["seat_points[3p][2]"])


def test_random_search_has_no_balance_step(tmp_path, seat_list_game):
    path = seat_points_tune(tmp_path, sampler="random", budget={"trials": 8, "batch": 4, "games": {"start": 300, "max": 300}})
    tune(path, tmp_path / "out")
    assert set(trials(tmp_path / "out")["proposed_by"][1:]) == {"random"}


@pytest.mark.slow
def test_a_tune_with_the_balance_step_is_the_same_for_any_jobs_and_after_an_interruption(tmp_path, monkeypatch, seat_list_game):
    path = seat_points_tune(tmp_path)
    tune(path, tmp_path / "whole")
    tune(path, tmp_path / "two", jobs=2)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "two"))
    enqueue = search.optuna.Study.enqueue_trial
    calls = []

    def interrupted(self, *args, **kwargs):  # stop right after the second batch's proposal
        enqueue(self, *args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(search.optuna.Study, "enqueue_trial", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tune(path, tmp_path / "cut")
    monkeypatch.undo()
    tune(path, tmp_path / "cut", resume=True)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "cut"))
