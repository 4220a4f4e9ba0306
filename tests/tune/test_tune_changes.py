"""Changes counted by effect (issue #44, item 2): a bonus common to every seat, a value equal to
the printed one and a knob the tune's player counts ignore change nothing, so they are not
counted, and the best setting is written without them."""

import numpy as np
import optuna
import pytest

from simulator.analysis import stats
from simulator.tune.best import best_document, choose_best
from simulator.tune.config import TuneExperiment
from simulator.tune.space import build_space, changes, effective_setting, setting_text
from simulator.games import get_game

KATZ_TUNE = {
    "name": "katz4",
    "tune": {
        "game": "katz", "seats": ["greedy"], "players": [4],
        "search": {"seat_bonus_points": {"low": 0, "high": 4, "step": 0.5, "per_seat": True},
                   "first_turn_limit": ["none", "no_extra_turn", "return_drawn_card"]},
        "prefer": "fewer_changes",
        "budget": {"trials": 8, "batch": 4, "games": {"start": 100, "max": 200}},
        "confirm": {"games": 1000, "margin_points": 1.0},
    },
}


def katz_setting(bonus, limit):
    raw = {f"seat_bonus_points[4p][{seat}]": value for seat, value in enumerate(bonus)}
    return {**raw, "first_turn_limit": f'"{limit}"'}


@pytest.fixture
def katz():
    experiment = TuneExperiment.model_validate(KATZ_TUNE)
    return experiment, build_space(experiment.tune), get_game("katz")


def test_a_bonus_common_to_every_seat_is_no_change(katz):
    """The issue's tune chose [3, 3, 3.5, 3.5] with no_extra_turn and counted 5 changes: the
    real change is two knobs, the bonus being [0, 0, 0.5, 0.5]."""
    experiment, parameters, game = katz
    effective = effective_setting(experiment.tune, parameters, katz_setting([3, 3, 3.5, 3.5], "no_extra_turn"), game)
    assert changes(parameters, effective) == (2, 3)
    assert setting_text(parameters, effective, game) == (
        "first_turn_limit = no_extra_turn, seat_bonus_points (4 players) = [0, 0, 0.5, 0.5]")
    everyone = effective_setting(experiment.tune, parameters, katz_setting([2, 2, 2, 2], "none"), game)
    assert everyone == {} and changes(parameters, everyone) == (0, 0)
    assert setting_text(parameters, everyone, game) == "the printed rules"


def test_the_offset_removed_leaves_most_seats_at_their_printed_value(katz):
    experiment, parameters, game = katz
    effective = effective_setting(experiment.tune, parameters, katz_setting([1, 0.5, 1, 1], "none"), game)
    assert setting_text(parameters, effective, game) == "seat_bonus_points (4 players) = [0, -0.5, 0, 0]"
    assert changes(parameters, effective) == (1, 1)


def test_a_seat_list_whose_common_level_matters_keeps_it():
    """More cards for every seat is another game: hand size deltas are not seat-relative."""
    experiment = TuneExperiment.model_validate({**KATZ_TUNE, "tune": {
        **KATZ_TUNE["tune"], "search": {"seat_hand_size_delta": {"low": 0, "high": 1, "step": 1, "per_seat": True}}}})
    parameters = build_space(experiment.tune)
    raw = {f"seat_hand_size_delta[4p][{seat}]": 1 for seat in range(4)}
    assert changes(parameters, effective_setting(experiment.tune, parameters, raw, get_game("katz"))) == (1, 4)


def test_a_seat_path_of_a_player_count_the_tune_does_not_play_is_no_change():
    experiment = TuneExperiment.model_validate({"tune": {
        "game": "nyz", "players": [5],
        "search": {"geometry.boards.p4.seat1.houses": [2, 3], "keep_one": [True, False]},
        "budget": {"trials": 4, "batch": 2, "games": {"start": 100, "max": 100}},
        "confirm": {"games": 100}}})
    parameters = build_space(experiment.tune)
    game = get_game("nyz")
    printed = game.make_params({"players": 5})
    raw = {"geometry.boards.p4.seat1.houses": "3", "keep_one": "true" if not printed.keep_one else "false"}
    effective = effective_setting(experiment.tune, parameters, raw, game)
    assert list(effective) == ["keep_one"]
    same = {**raw, "keep_one": "true" if printed.keep_one else "false"}
    assert effective_setting(experiment.tune, parameters, same, game) == {}


def test_best_yaml_holds_the_effective_setting(katz):
    experiment, parameters, _ = katz
    trial = optuna.trial.create_trial(
        params={name: value for name, value in katz_setting([3, 3, 3.5, 3.5], "none").items()},
        distributions={p.name: p.distribution for p in parameters}, value=1.0)
    study = best_document(experiment, parameters, trial)["studies"][0]
    assert study["rules"] == {}
    assert study["cases"] == [{"players": 4, "seat_bonus_points": [0.0, 0.0, 0.5, 0.5]}]


def fake_trial(number, value, knobs, values):
    return optuna.trial.create_trial(
        params={"x": number}, distributions={"x": optuna.distributions.IntDistribution(0, 99)}, value=value,
        user_attrs={"rung": 1, "objectives": [value], "errors": [0.3], "changes": knobs, "values_changed": values,
                    "feasible": True, "games": 1000, "setting_text": f"setting {number}"})


def test_fewer_changes_breaks_a_tie_of_knobs_by_the_seat_entries_changed(katz):
    experiment, _, _ = katz
    study = optuna.create_study()
    study.add_trials([fake_trial(0, 1.0, 1, 4), fake_trial(1, 1.2, 1, 2), fake_trial(2, 1.1, 2, 2)])
    choice = choose_best(study, experiment)
    assert choice.best.number == 1
    assert "changes the fewest knobs (1: setting 1)" in choice.explanation


def test_the_confirmation_lines_name_every_knob_of_the_setting(katz, tmp_path):
    """The issue's confirmation line left first_turn_limit out: it showed only the case's label
    (player count and seat list); each line now names the whole effective setting."""
    import pandas as pd

    from simulator.tune.best import Choice
    from simulator.tune.command import TuneOutcome, confirmation_lines

    experiment, _, _ = katz
    best = fake_trial(7, 1.0, 2, 3)
    best.user_attrs["setting_text"] = "first_turn_limit = no_extra_turn, seat_bonus_points (4 players) = [0, 0, 0.5, 0.5]"
    # the inconclusive cell's sentence as analysis.tables writes it: it says how many games would decide it
    rates, games = np.array([0.2585, 0.25, 0.25, 0.2415]), 4_000
    sentence = stats.verdict_sentence(rates, rates - 0.012, rates + 0.012, 4, margin_points=1.0, games=games)
    cells = pd.DataFrame([
        {"label": f"katz4: trial {best.number} · players=4 · seat_bonus_points=[0.0, 0.0, 0.5, 0.5]", "players": 4,
         "seating": "greedy", "verdict": "balanced", "sentence": "Every seat is within 1 point."},
        {"label": "katz4: printed rules · players=4", "players": 4, "seating": "greedy",
         "verdict": "inconclusive", "sentence": sentence,
         "games_to_decide": stats.games_to_decide(rates, games, 4, 1.0, 0.95, np.ones(4))},
    ])
    outcome = TuneOutcome(tmp_path, tmp_path / "tune.html", Choice(best, [best], [best], [best], ""), None, cells, 0,
                          experiment.name)
    lines = confirmation_lines(outcome)
    assert lines[0].startswith(f"confirmation of trial {best.number} (first_turn_limit = no_extra_turn, "
                               "seat_bonus_points (4 players) = [0, 0, 0.5, 0.5]) at 4 players: balanced.")
    assert lines[1].startswith("confirmation of the printed rules at 4 players: inconclusive.")
    # an inconclusive verdict says how many games would decide it, once (the sentence says it;
    # the line added "About N games per player count would decide it" again)
    assert lines[1].count("would decide it") == 1 and "games in this cell" in lines[1]
