"""Does the fix hold for other players? (issue #44, item 4): `confirm.seatings` confirms the
chosen setting with several seatings, a verdict for each, and says whether it holds for all."""

import pandas as pd
import yaml
from click.testing import CliRunner

from simulator.cli import main
from simulator.tune.best import holds_text

from test_tune_search import tune_file


def test_the_best_setting_is_confirmed_for_every_seating_and_the_tune_says_whether_it_holds(tmp_path):
    path = tune_file(tmp_path, sampler="random", budget={"trials": 2, "batch": 4, "games": {"start": 120, "max": 240}},
                     confirm={"games": 600, "margin_points": 5, "seatings": ["fair", "lucky"]})
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tune", str(path), "--out", str(out), "--jobs", "1", "-q"])
    assert result.exit_code == 0, result.output
    text = (out / "best.yaml").read_text()
    assert "&id" not in text  # every study spelled out, no YAML anchors
    studies = yaml.safe_load(text)["studies"]
    seats = [study.get("seats") for study in studies]
    assert seats[0] == ["fair"] and seats[-1] == ["lucky"]
    assert all(" · fair" in study["name"] or " · lucky" in study["name"] for study in studies)
    lines = [line.strip() for line in result.output.splitlines() if line.strip().startswith("confirmation of trial")]
    assert len(lines) == 2 * 2  # two seatings, two player counts
    assert sum("(players: fair" in line for line in lines) == 2 and sum("(players: lucky" in line for line in lines) == 2
    assert "The chosen setting is" in result.output and "for every seating" in result.output
    assert "for every seating" in (out / "tune.html").read_text()


def test_holds_names_each_seating_and_player_count_that_is_not_balanced():
    cells = pd.DataFrame([
        {"label": "t: trial 3 · greedy_tuned · players=4", "seating": "greedy_tuned", "players": 4, "verdict": "balanced"},
        {"label": "t: trial 3 · learned · players=4", "seating": "learned", "players": 4, "verdict": "inconclusive"},
        {"label": "t: printed rules · learned · players=4", "seating": "learned", "players": 4, "verdict": "unbalanced"},
    ])
    assert holds_text(cells, "t: trial 3") == (
        "The chosen setting is not confirmed balanced for every seating (learned at 4 players: inconclusive).")
    assert holds_text(cells[:1], "t: trial 3") == (
        "The chosen setting is confirmed balanced for every seating (greedy_tuned) at every player count.")
