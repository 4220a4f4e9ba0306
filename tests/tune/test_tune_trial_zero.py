"""Trial 0 plays the printed rules (issue #22, finding 6; README: "Trial 0 always plays the
printed rules"): a choice list that leaves the printed value out gets it added, and a printed
value outside a searched range is said plainly, in trial 0's label and one warning line."""

import json

import pandas as pd
from click.testing import CliRunner

from simulator.cli import main
from simulator.tune.config import TuneSection
from simulator.tune.search import printed_rules
from simulator.tune.space import build_space

from test_tune_search import tune_file

TINY = {"budget": {"trials": 2, "batch": 2, "games": {"start": 40, "max": 40}}, "confirm": {"games": 100, "margin_points": 5}}


def test_choices_that_leave_out_the_printed_value_get_it_added():
    """The issue's example: Katz `hand_size: [5, 6]`, printed 7, played 6 as 'printed rules'."""
    section = TuneSection.model_validate({
        "game": "katz", "seats": ["greedy"], "players": [4, 5], "search": {"hand_size": [5, 6]},
        "budget": {"trials": 4, "games": {"start": 200, "max": 400}}, "confirm": {"games": 400},
    })
    (parameter,) = build_space(section)
    assert [json.loads(c) for c in parameter.distribution.choices] == [5, 6, 7]  # the listed ones first
    assert printed_rules([parameter]) == {"hand_size": "7"}


def test_trial_0_of_a_tune_plays_the_printed_value_its_choices_left_out(tmp_path):
    path = tune_file(tmp_path, search={"first_seat_bonus": [0.5, 1.0]}, **TINY)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "t"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    first = pd.read_csv(tmp_path / "t" / "trials.csv").iloc[0]
    assert json.loads(first["settings"]) == {"first_seat_bonus": 0.0}


def test_a_printed_value_outside_a_searched_range_is_said_plainly(tmp_path):
    path = tune_file(tmp_path, search={"first_seat_bonus": {"low": 0.5, "high": 1.0}}, **TINY)
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(tmp_path / "t"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    warnings = [line for line in result.stderr.splitlines() if "trial 0" in line]
    assert warnings == ["zoosim: warning: trial 0 plays the printed rules but first_seat_bonus, "
                        "whose printed value lies outside the searched range"]
    first = pd.read_csv(tmp_path / "t" / "trials.csv").iloc[0]
    assert "outside the searched range" in first["proposed_by"]
    assert 0.5 <= json.loads(first["settings"])["first_seat_bonus"] <= 1.0
