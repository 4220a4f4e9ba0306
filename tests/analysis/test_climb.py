"""Ladders that climb until their top rungs agree (issue 23 item 4, simulator/climb.py), on the
`ascent` test game (climb_game.py): its `thinker` gets stronger as its budget doubles and its
first seat's edge fades fourfold per doubling, so with a 3-point margin the rungs of budgets 1
and 2 differ and those of 4 and 8 agree."""

import html
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import parse_experiment
from simulator.games import get_game
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.rundir import cell_dir, read_manifest
from simulator.runner import run_experiment

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from climb_game import seat_zero_points  # noqa: E402
from test_bad_input import experiment_file, refused  # noqa: E402

THINKER_1, THINKER_2 = ({"policy": "thinker", "params": {"budget": budget}} for budget in (1, 2))


def climbing(ladder, max_climbs, players=(2,), games=20_000):
    return {"name": "climb", "seed": 3, "games": games, "chunk_games": 10_000, "margin_points": 3.0,
            "studies": [{"name": "ascent ladder", "game": "ascent", "ladder": ladder,
                         "sweep": {"players": list(players)}, "climb": {"max_climbs": max_climbs}}]}


def climbed(tmp_path, document, jobs=1):
    run_dir = tmp_path / "run"
    summary = run_experiment(build_plan(parse_experiment(document)), run_dir, "name: climb\n", jobs=jobs, progress=False)
    return run_dir, summary


def test_a_climb_adds_stronger_rungs_until_the_top_rungs_agree(tmp_path):
    run_dir, _ = climbed(tmp_path, climbing([THINKER_1, THINKER_2], max_climbs=5, players=(2, 3)))
    manifest = read_manifest(run_dir)
    for record in manifest["climbs"]:
        assert record["labels"] == ["thinker(budget=4)", "thinker(budget=8)"]
        assert record["steps"] == ["budget 2 -> 4 (budget doubled)", "budget 4 -> 8 (budget doubled)"]
        assert record["verdicts"][-1] == "stable" and "stable" not in record["verdicts"][:-1]
        assert record["stopped"] == "agreed"
    assert [record["players"] for record in manifest["climbs"]] == [2, 3]
    _, analysis = build_report(run_dir)
    assert (analysis.ladder["verdict"] == "stable").all()
    assert (analysis.ladder["strongest"] == "thinker(budget=8)").all()
    assert (analysis.ladder["runner_up"] == "thinker(budget=4)").all()
    # the added rungs are played as any rung: their seat 0 where the game puts it
    top = analysis.ladder_seats[(analysis.ladder_seats["rung"] == "thinker(budget=4)") & (analysis.ladder_seats["seat"] == 0)]
    for _, row in top.iterrows():
        assert abs(row["deviation_points"] - seat_zero_points(4, row["players"])) < 4 * row["se_points"]


def test_a_climb_stops_at_its_cap_with_the_ladder_still_unsettled(tmp_path):
    run_dir, _ = climbed(tmp_path, climbing([THINKER_1, THINKER_2], max_climbs=1))
    [record] = read_manifest(run_dir)["climbs"]
    assert record["labels"] == ["thinker(budget=4)"]
    assert record["stopped"] == "cap reached"
    assert len(record["verdicts"]) == 2 and "stable" not in record["verdicts"]


def test_a_top_rung_that_declares_no_climb_ends_the_climb_with_the_reason(tmp_path):
    # rote plays like budget 1 (never separated from it: unresolved) and declares no step stronger
    run_dir, _ = climbed(tmp_path, climbing([THINKER_1, "rote"], max_climbs=3))
    [record] = read_manifest(run_dir)["climbs"]
    assert record["labels"] == [] and record["verdicts"] == ["unresolved"]
    assert record["stopped"] == "cannot climb: rote declares no step stronger (a player without a strength parameter)"


def test_a_step_onto_a_rung_the_ladder_has_already_ends_the_climb(tmp_path):
    # the last rung (budget 1) steps to budget 2, which is the ladder's first rung (its 2 written
    # as 2.0 and the default filled in: the same player, plan.resolved_player)
    run_dir, _ = climbed(tmp_path, climbing([{"policy": "thinker", "params": {"budget": 2.0}}, THINKER_1], max_climbs=3))
    [record] = read_manifest(run_dir)["climbs"]
    assert record["labels"] == [] and len(record["verdicts"]) == 1 and record["verdicts"][0] != "stable"
    assert record["stopped"] == "cannot climb: its next step thinker(budget=2) is a rung already"


def test_a_step_out_of_its_parameter_range_or_changing_nothing_cannot_climb():
    thinker = get_game("ascent").policies["thinker"]
    assert thinker.climb.step(thinker, {"budget": 8.0}) == ({"budget": 16.0}, "budget 8 -> 16 (budget doubled)")
    assert thinker.climb.step(thinker, {"budget": 16.0}) == (
        None, "its budget would become 32, outside a whole number from 1 to 16")
    learned = get_game("katz").policies["learned"]
    assert learned.climb.step(learned, {})[0] is None  # temperature 0 already: its best move always
    assert learned.climb.step(learned, {"temperature": 2.0})[0] == {"temperature": 1.0}
    strong = get_game("nyz").policies["strong"]
    assert strong.climb.step(strong, {})[0] == {"iterations": 32.0}  # nyz strong's default is 16


def test_a_learned_rung_at_temperature_0_climbs_to_the_next_kept_round_of_its_training(tmp_path):
    shipped = get_game("katz").policies["learned"].weights.default_file
    for number, kept in ((0, True), (1, False), (2, True)):  # round 1 lost its gate
        shutil.copy(shipped, tmp_path / f"round-0{number}.npz")
        card = json.loads(Path(shipped).with_suffix(".json").read_text())
        (tmp_path / f"round-0{number}.json").write_text(json.dumps({**card, "round": number, "kept": kept}))
    learned = get_game("katz").policies["learned"]
    first = str(tmp_path / "round-00.npz")
    assert learned.climb.step(learned, {"weights": first}) == (
        {"weights": str(tmp_path / "round-02.npz")}, "weights round-00.npz -> round-02.npz (the next kept training round)")
    assert learned.climb.step(learned, {"weights": str(tmp_path / "round-02.npz")}) == (
        None, f"no later round of {tmp_path} was kept after round-02.npz")
    # above temperature 0 it halves the temperature first
    assert learned.climb.step(learned, {"weights": first, "temperature": 0.5})[0] == {"weights": first, "temperature": 0.25}


def test_a_climb_is_the_same_for_any_jobs_and_resumes_keeping_finished_games(tmp_path):
    document = climbing([THINKER_1, THINKER_2], max_climbs=5)
    one, _ = climbed(tmp_path / "one", document, jobs=1)
    two, _ = climbed(tmp_path / "two", document, jobs=2)
    manifest = read_manifest(one)
    assert manifest["climbs"] == read_manifest(two)["climbs"] and manifest["cells"] == read_manifest(two)["cells"]
    sidecars = sorted(path.relative_to(one) for path in one.glob("logs/cell=*/*.json"))
    assert sidecars and sidecars == sorted(path.relative_to(two) for path in two.glob("logs/cell=*/*.json"))
    for path in sidecars:  # each chunk's summary, which vouches for its games
        assert json.loads((one / path).read_text()) == json.loads((two / path).read_text())
    # interrupted before the last climb's games were played: the resume makes the same decisions,
    # keeps every finished chunk and plays only the missing cells
    last = [cell for cell in manifest["cells"] if "thinker(budget=8)" in cell.seats]
    kept = {path: path.stat().st_mtime_ns for path in one.glob("logs/cell=*/*.parquet")
            if path.parent not in {cell_dir(one, cell.index) for cell in last}}
    for cell in last:
        shutil.rmtree(cell_dir(one, cell.index))
    summary = run_experiment(build_plan(parse_experiment(document)), one, "name: climb\n", jobs=1, progress=False,
                             resume=True)
    assert summary.games_played == sum(cell.games for cell in last)
    assert read_manifest(one) == manifest
    assert {path: path.stat().st_mtime_ns for path in kept} == kept


def test_the_terminal_and_the_report_show_each_added_rung_and_why_the_climb_stopped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "climb.yaml"
    path.write_text(json.dumps(climbing([THINKER_1, THINKER_2], max_climbs=5)))
    result = CliRunner().invoke(main, ["run", str(path), "--out", "run", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    said = ("Climb (at most 5 rungs): added 2 rung(s): thinker(budget=4), thinker(budget=8); stopped: agreed "
            "(ladder verdicts: strength-dependent -> ")
    line = next(line for line in result.stdout.splitlines() if "ladder at 2 players" in line)
    assert "stable. 2 players, strongest rung thinker(budget=8)" in line and said in line
    assert "climb: ascent ladder at 2 players: strength-dependent; climbing to thinker(budget=4)" in result.stderr
    page = html.unescape((tmp_path / "run" / "report.html").read_text())
    assert said in page and "This ladder climbs" in page
    assert page.count("<li>thinker(budget=8): ") == 1  # the added rung says what it models


@pytest.mark.parametrize("study, words", [
    ("ladder: [thinker, rote], climb: {max_climbs: 0}", ("studies[0].climb.max_climbs", "greater than or equal to 1")),
    ("ladder: [thinker, rote], climb: {max_climbs: 1.5}", ("studies[0].climb.max_climbs", "integer")),
    ("ladder: [thinker, rote], climb: {max_climbs: true}", ("studies[0].climb.max_climbs", "integer")),
    ("ladder: [thinker, rote], climb: {max_climbs: 11}", ("studies[0].climb.max_climbs", "less than or equal to 10")),
    ("ladder: [thinker, rote], climb: {}", ("studies[0].climb.max_climbs", "required")),
    ("ladder: [thinker, rote], climb: {max_climb: 2}", ("studies[0].climb", "max_climb")),
    ("seats: [thinker], climb: {max_climbs: 2}", ("studies[0]", "'climb' climbs a strength ladder")),
])
def test_bad_climbs_are_refused_in_one_line(tmp_path, monkeypatch, study, words):
    path = experiment_file(tmp_path, f"studies: [{{game: ascent, {study}}}]\n")
    refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, *words)


@pytest.mark.parametrize("text, words", [
    ("games: {until: {halfwidth: 0.01}, max: 100}\nstudies: [{game: ascent, ladder: [thinker, rote], climb: {max_climbs: 2}}]\n",
     ("studies[0].climb", "precision mode")),
    ("studies: [{game: katz, ladder: [random, greedy], sweep: {players: [2], hand_size: [6, 7]},"
     " climb: {max_climbs: 2}}]\n", ("studies[0].climb", "sweep only 'players', not 'hand_size'")),
    ("studies: [{game: katz, ladder: [random, greedy], cases: [{players: 2}, {edition: zoo_party}],"
     " climb: {max_climbs: 2}}]\n", ("studies[0].climb", "sweep only 'players', not 'edition'")),
])
def test_climbs_the_plan_cannot_judge_are_refused_in_one_line(tmp_path, monkeypatch, text, words):
    path = experiment_file(tmp_path, text)
    refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, *words)


def test_climbing_makes_another_run_of_the_same_ladder_cells():
    document = climbing([THINKER_1, THINKER_2], max_climbs=2)
    plain = json.loads(json.dumps(document))
    del plain["studies"][0]["climb"]
    assert build_plan(parse_experiment(plain)).run_hash != build_plan(parse_experiment(document)).run_hash
    assert np.array_equal([cell.seed_entropy for cell in build_plan(parse_experiment(plain)).cells],
                          [cell.seed_entropy for cell in build_plan(parse_experiment(document)).cells])
