"""Simple answers first (issue #44, item 1): before any sampler a tune plays the printed rules and
every single-knob change of its search, races them, and ranks them in the report's first table;
an interrupted opening resumes to the same trials."""

import optuna
import pandas as pd
import yaml

from simulator.games import get_game
from simulator.tune import search
from simulator.tune.config import TuneExperiment
from simulator.tune.singles import single_changes
from simulator.tune.space import build_space, effective_setting, setting_text

from test_tune_search import interrupted_at_call, trials, tune, tune_file


def katz_singles(search_space):
    experiment = TuneExperiment.model_validate({"tune": {
        "game": "katz", "seats": ["greedy_tuned"], "players": [4], "search": search_space,
        "budget": {"trials": 8, "batch": 4, "games": {"start": 100, "max": 200}}, "confirm": {"games": 1000}}})
    parameters = build_space(experiment.tune)
    game = get_game("katz")
    return [(label, setting_text(parameters, effective_setting(experiment.tune, parameters, setting, game), game))
            for label, setting in single_changes(experiment.tune, parameters, game)]


def test_every_choice_of_a_whole_knob_is_a_single_change():
    texts = [text for _, text in katz_singles({"turn_order": ["clockwise", "snake", "random_each_round"],
                                              "first_turn_limit": ["none", "no_extra_turn"]})]
    assert texts == ["the printed rules", "turn_order = snake", "turn_order = random_each_round",
                     "first_turn_limit = no_extra_turn"]


def test_a_range_is_tried_at_a_few_distances_from_the_printed_value():
    # hand_size is printed 7 (K-2.1): 1/8, 1/4, 1/2 and the whole width 4 away, at least a step,
    # snapped into the range 3..7: 6, then 5, then 3 (7 - 4; 7 + 4 is clipped back to 7)
    texts = [text for _, text in katz_singles({"hand_size": {"low": 3, "high": 7, "step": 1}})]
    assert texts == ["the printed rules", "hand_size = 3", "hand_size = 5", "hand_size = 6"]


def test_a_per_seat_knob_is_tried_one_seat_at_a_time_and_later_seats_alike():
    """The issue's bonus for seats 2-3 is [0, 0, 0.5, 0.5]: the "later seats" family. A setting
    that plays the games of another (seat 0 alone -0.5 is seats 1 on +0.5 for a seat-relative
    bonus, seat 3 alone is seats 3 on) is played once."""
    texts = [text for _, text in katz_singles({"seat_bonus_points": {"low": 0, "high": 4, "step": 0.5, "per_seat": True}})]
    assert "seat_bonus_points (4 players) = [0, 0, 0.5, 0.5]" in texts
    assert "seat_bonus_points (4 players) = [0.5, 0, 0, 0]" in texts
    assert "seat_bonus_points (4 players) = [0, 0, 0, 4]" in texts
    assert len(texts) == len(set(texts)) == 1 + 4 * (4 + 3) - 4  # seats 3 on is seat 3 alone, at each of 4 amounts


def test_the_opening_is_played_before_any_sampler_and_ranked_first_in_the_report(tmp_path):
    path = tune_file(tmp_path, sampler="random")
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    opening = ["printed rules"] + ["single change: first_seat_bonus"] * 4
    assert list(frame["proposed_by"][:5]) == opening
    assert set(frame["proposed_by"][5:]) == {"random"}
    assert (frame["phase"][:5] == "single changes").all() and (frame["phase"][5:] == "search").all()
    assert len(frame) == 4 + 8  # the single changes come on top of budget.trials
    page = (tmp_path / "out" / "tune.html").read_text()
    assert page.index("Single changes") < page.index("Best settings") < page.index("<h2>Trials")
    # the ranking: the most games first, then the fairest
    singles = page[page.index('id="singles"'):page.index('id="best"')]
    ranked = frame[:5].sort_values(["rung", "seat_fairness", "trial"], ascending=[False, True, True])
    shown = [singles.index(f">{text}<") for text in ranked["settings_text"]]
    assert shown == sorted(shown)


def test_without_single_changes_the_sampler_follows_trial_0(tmp_path):
    path = tune_file(tmp_path, sampler="random", single_changes=False)
    tune(path, tmp_path / "out")
    frame = trials(tmp_path / "out")
    assert len(frame) == 8 and set(frame["proposed_by"][1:]) == {"random"}


def test_a_tune_interrupted_while_enqueueing_its_single_changes_resumes_to_the_same_trials(tmp_path, monkeypatch):
    path = tune_file(tmp_path)
    tune(path, tmp_path / "whole")
    with interrupted_at_call(monkeypatch, optuna.Study, "enqueue_trial", 3):
        tune(path, tmp_path / "cut")
    experiment = TuneExperiment.model_validate(yaml.safe_load(path.read_text()))
    assert len(search.open_study(tmp_path / "cut", experiment).trials) == 2
    tune(path, tmp_path / "cut", resume=True)
    pd.testing.assert_frame_equal(trials(tmp_path / "whole"), trials(tmp_path / "cut"))
