"""Strength ladders (issue #9 items 3-4): schema, the cells a ladder plays, the verdict across
rungs, and a real tiny ladder run whose report leads with the strongest rung's verdict."""

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simulator.analysis.tables import ladder_verdict
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.runner import run_plan

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_bad_input import experiment_file, refused  # noqa: E402


def ladder_document(ladder, players=(2, 3), games=100, **study):
    return {"name": "ladder", "seed": 5, "games": games, "chunk_games": 400,
            "studies": [{"name": "katz ladder", "game": "katz", "ladder": ladder,
                         "sweep": {"players": list(players)}, **study}]}


@pytest.mark.parametrize("study, words", [
    ("ladder: [random]", ("studies[0]", "at least 2 rungs")),
    ("ladder: [random, greedy], seats: [random]", ("studies[0]", "seats and ladder")),
    ("ladder: [random, greedy], pool: [random, greedy]", ("studies[0]", "pool and ladder")),
    ("ladder: [random, greedy, random]", ("studies[0].ladder", "listed twice")),
    ("ladder: [random, {policy: greedy, params: {bogus: 1}}]", ("studies[0].ladder", "bogus")),
    ("ladder: [random, nonsense]", ("studies[0].ladder", "nonsense")),
])
def test_bad_ladders_are_refused_in_one_line(tmp_path, monkeypatch, study, words):
    path = experiment_file(tmp_path, f"studies: [{{game: katz, sweep: {{players: [2, 3]}}, {study}}}]\n")
    refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, *words)


def test_a_ladder_plays_every_rung_in_self_play_and_each_neighbouring_pair_head_to_head():
    plan = build_plan(parse_experiment(ladder_document(["random", "greedy", "expectimax"], players=(2, 3))))
    seatings = [(cell.players, cell.seat_labels) for cell in plan.cells]
    assert seatings == [
        (2, ["random"] * 2), (2, ["greedy"] * 2), (2, ["expectimax"] * 2),
        (2, ["random", "greedy"]), (2, ["greedy", "expectimax"]),
        (3, ["random"] * 3), (3, ["greedy"] * 3), (3, ["expectimax"] * 3),
        (3, ["random", "greedy", "random"]), (3, ["greedy", "expectimax", "greedy"]),
    ]
    assert all(cell.rotate for cell in plan.cells)  # every seating plays every seat


def rung(elo, verdict, lows, highs):
    return pd.DataFrame({"elo": elo, "verdict": verdict, "seat": np.arange(len(lows)),
                         "low_points": lows, "high_points": highs})


def test_ladder_verdicts_on_constructed_rungs():
    strong = rung(200.0, "balanced", [-0.8, -0.5], [0.6, 0.9])
    assert ladder_verdict(strong, rung(100.0, "balanced", [-0.5, -0.9], [0.9, 0.4])) == "stable"
    # same verdict but a seat's intervals apart: the effect moved with strength
    assert ladder_verdict(rung(200.0, "unbalanced", [3.0, -9.0], [5.0, -7.0]),
                          rung(100.0, "unbalanced", [-6.0, 2.0], [-4.0, 4.0])) == "strength-dependent"
    assert ladder_verdict(strong, rung(100.0, "unbalanced", [4.0, -6.0], [6.0, -4.0])) == "strength-dependent"
    assert ladder_verdict(strong, rung(100.0, "inconclusive", [-3.0, -3.0], [3.0, 3.0])) == "unresolved"
    assert ladder_verdict(strong, None) == "unresolved"
    assert ladder_verdict(rung(np.nan, "balanced", [-0.8, -0.5], [0.6, 0.9]), strong) == "unresolved"


@pytest.fixture(scope="module")
def ladder_report(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("ladder")
    plan = build_plan(parse_experiment(ladder_document(["random", "greedy"], players=(2, 3), games=300)))
    run_plan(plan, run_dir, "name: ladder\n", jobs=1, progress=False)
    path, analysis = build_report(run_dir)
    return path.read_text(), analysis


def test_a_real_ladder_puts_random_below_greedy_and_reports_a_verdict_per_player_count(ladder_report):
    page, analysis = ladder_report
    rungs = analysis.ladder_seats.drop_duplicates("rung").set_index("rung")
    assert rungs.loc["greedy", "elo_low"] > rungs.loc["random", "elo_high"]
    assert analysis.ladder["players"].tolist() == [2, 3]
    assert (analysis.ladder["strongest"] == "greedy").all()
    assert set(analysis.ladder["verdict"]) <= {"stable", "strength-dependent", "unresolved"}
    # deviations are the self-play cells' own seat numbers
    for _, row in analysis.ladder_seats.iterrows():
        seat = analysis.seats[(analysis.seats["cell"] == row["cell"]) & (analysis.seats["seat"] == row["seat"])].iloc[0]
        assert row["deviation_points"] == seat["deviation_points"]


def test_the_report_leads_with_the_ladder_and_shows_its_numbers_with_data_values(ladder_report):
    page, analysis = ladder_report
    summary = page.split('<ul class="summary">', 1)[1].split("</ul>", 1)[0]
    first = re.findall(r"<li>(.*?)</li>", summary, re.S)[0]
    assert "ladder at 2 players" in first and "strongest rung greedy" in first
    assert "Strength ladder" in page and page.count("seat deviation from fair against rung strength") == 2
    table = re.search(r'<table class="data" id="ladder-katz-ladder">(.*?)</table>', page, re.S).group(1)
    rows = [re.findall(r'data-value="([^"]*)"', row) for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])]
    assert len(rows) == len(analysis.ladder_seats)
    shown = np.array([[row[2], row[6]] for row in rows], dtype=float)  # Elo, points from fair
    assert np.array_equal(shown, analysis.ladder_seats[["elo", "deviation_points"]].to_numpy())


def test_a_rung_that_never_beat_its_neighbour_still_gets_a_finite_rating():
    """New York Zoo's random never beats greedy: without the half-win prior every Elo of the
    study was NaN and every ladder verdict 'unresolved'."""
    from simulator.analysis.tables import _jackknife_elo

    batches = np.zeros((20, 3, 3))
    batches[:, 1, 0] = 50  # greedy always beats random
    batches[:, 1, 2], batches[:, 2, 1] = 20, 30  # greedy_tuned beats greedy 60%
    elo, low, high = _jackknife_elo(batches, 0.95)
    assert np.isfinite(elo).all() and np.isfinite(low).all() and np.isfinite(high).all()
    assert elo[0] < low[1] and high[1] < low[2]  # random far below greedy, greedy below greedy_tuned
    assert abs((elo[2] - elo[1]) - 400 * np.log10(600.5 / 400.5)) < 1.0
