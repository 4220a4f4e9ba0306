"""`zoosim compare`: does the page answer "did my change fix it?" in its first lines?"""

import os
import re
import stat

import numpy as np
from click.testing import CliRunner

from simulator.cli import main
from simulator.report.compare import change_sentence, compare_runs, match_cells, render_comparison


def _run(tmp_path, write_experiment, name, text):
    path = write_experiment(text, f"{name}.yaml")
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / name), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    return tmp_path / name


def test_compare_leads_with_a_verdict_per_cell_and_names_the_rule_change(tmp_path, write_experiment):
    runs = {
        name: _run(tmp_path, write_experiment, name,
                   f"seed: 1\ngames: 30000\nchunk_games: 15000\n"
                   f"studies: [{{name: coin, game: coin, rules: {{players: 2, first_seat_bonus: {bonus}}}}}]\n")
        for name, bonus in (("before", 0.0), ("after", 0.4))
    }
    comparison = compare_runs(runs["before"], runs["after"])
    first = comparison.seats[comparison.seats["seat"] == 0].iloc[0]
    assert first["change_points"] > 5 and first["change_low_points"] > 0 and first["significant"] == "yes"
    cell = comparison.cells.iloc[0]
    assert cell["verdict_b"] == "unbalanced" and cell["size_change_low"] > 0
    assert cell["deviation_b"] > 5  # signed: seat 0 wins more often than fair
    assert "larger: a real worsening; now unbalanced" in cell["sentence"]
    assert comparison.differences == ["every cell: first_seat_bonus: 0.0 → 0.4"]

    result = CliRunner().invoke(main, ["compare", str(runs["before"]), str(runs["after"])])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("  coin: largest seat deviation ")  # the answer comes first
    assert "first_seat_bonus: 0.0 → 0.4" in lines[1]
    page = (runs["after"] / "compare.html").read_text()
    assert page.index("largest seat deviation") < page.index("What differs") < page.index("<svg")
    assert "30,000" in page and not re.search(r"\de[+-]\d", re.sub(r"<svg.*?</svg>", "", page, flags=re.S))


def test_cells_are_matched_by_what_they_play_not_by_position(tmp_path, write_experiment):
    before = _run(tmp_path, write_experiment, "before",
                  "seed: 2\ngames: 600\nstudies: [{name: first, game: coin, sweep: {players: [2, 3]}}]\n")
    after = _run(tmp_path, write_experiment, "after",
                 "seed: 2\ngames: 600\nstudies: [{name: second, game: coin, rules: {first_seat_bonus: 0.1},"
                 " sweep: {players: [3, 2]}}]\n")
    comparison = compare_runs(before, after)
    assert comparison.cells["label"].tolist() == [
        "first · players=2 → second · players=2", "first · players=3 → second · players=3"
    ]
    assert comparison.cells["games_a"].tolist() == comparison.cells["games_b"].tolist() == [600, 600]


def test_matching_prefers_the_same_seating_and_label_and_skips_other_games():
    def cell(index, label, seats, params, game="coin", players=2, sweep=None):
        return {"index": index, "label": label, "seats": seats, "params": params, "game": game,
                "players": players, "sweep_values": sweep or {}}

    a = [cell(0, "x", ["fair"], {"b": 0}), cell(1, "y", ["lucky"], {"b": 0}), cell(2, "z", ["fair"], {}, game="nyz")]
    b = [cell(0, "y", ["lucky"], {"b": 1}), cell(1, "x", ["fair"], {"b": 1}), cell(2, "w", ["fair"], {}, players=3)]
    pairs = [(left["index"], right["index"]) for left, right in match_cells(a, b)]
    assert pairs == [(0, 1), (1, 0)]


def test_change_sentence_for_an_open_question_says_how_many_games_would_tell():
    row = {"size_change": -0.20, "size_change_low": -0.6, "size_change_high": 0.2, "deviation_a": -1.71,
           "deviation_b": 1.51, "seat_a": 2, "seat_b": 0, "verdict_a": "inconclusive", "verdict_b": "inconclusive",
           "games_to_tell_change": 40_000.0, "games_to_decide_b": 123_456.0, "same_games": False}
    assert change_sentence(row) == (
        "largest seat deviation -1.71 (seat 2) → +1.51 (seat 0) points (size change -0.20, 95% -0.6 to +0.2): "
        "no detectable improvement; still inconclusive. About 40,000 games per run would tell whether a change "
        "this size is real; about 130,000 games in B would decide its verdict (80% power, if the rates hold)."
    )
    decided = {**row, "size_change_high": -0.1, "verdict_b": "balanced"}
    assert change_sentence(decided).endswith("smaller: a real improvement; now balanced (was inconclusive).")


def test_a_cell_both_runs_played_with_the_same_seeds_is_called_unchanged(tmp_path, write_experiment):
    text = ("seed: 1\ngames: 900\nstudies: [{{name: a, game: coin, rules: {{players: 2, first_seat_bonus: {bonus}}}}},"
            " {{name: b, game: coin, rules: {{players: 3}}}}]\n")
    before = _run(tmp_path, write_experiment, "before", text.format(bonus=0.0))
    after = _run(tmp_path, write_experiment, "after", text.format(bonus=0.3))
    comparison = compare_runs(before, after)
    sentences = dict(zip(comparison.cells["label"], comparison.cells["sentence"]))
    assert "B replays A's games of this cell" in sentences["b"] and "B replays" not in sentences["a"]
    assert comparison.differences == ["first_seat_bonus: 0.0 → 0.3 (in a)"]
    page = render_comparison(before, after, tmp_path / "compare.html")[0].read_text()
    forest = re.search(r"<svg.*?</svg>", page, flags=re.S).group(0)
    assert "a: largest deviation" in forest and "b: largest deviation" not in forest


def test_the_same_rules_twice_show_no_difference_and_no_change(tmp_path, write_experiment):
    text = "seed: {seed}\ngames: 4000\nstudies: [{{name: coin, game: coin, rules: {{players: 4}}}}]\n"
    a = _run(tmp_path, write_experiment, "a", text.format(seed=1))
    b = _run(tmp_path, write_experiment, "b", text.format(seed=2))
    comparison = compare_runs(a, b)
    assert comparison.differences == ["setting seed: 1 → 2"]
    assert (comparison.seats["significant"] == "no").all()
    assert np.isfinite(comparison.cells["size_change_low"]).all()


def test_compare_refuses_runs_without_common_cells(tmp_path, write_experiment):
    for name, players in (("x", 2), ("y", 3)):
        path = write_experiment(f"games: 200\nstudies: [{{name: {name}, game: coin, rules: {{players: {players}}}}}]\n",
                                f"{name}.yaml")
        CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / name), "--jobs", "1", "--quiet"])
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "x"), str(tmp_path / "y")])
    assert result.exit_code == 2 and "share no cell" in result.stderr


def test_an_output_that_is_a_device_or_pipe_is_refused_and_left_as_it_is(tmp_path, write_experiment):
    """`--out /dev/null` replaced the device with a regular file (the page was written beside it
    and renamed over it); any output that exists and is not a regular file is refused."""
    run = _run(tmp_path, write_experiment, "a", "games: 200\nstudies: [{name: coin, game: coin, rules: {players: 2}}]\n")
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    result = CliRunner().invoke(main, ["compare", str(run), str(run), "--out", str(pipe)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"zoosim: error: {pipe}: ") and "not a regular file" in result.stderr
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert not list(tmp_path.glob(".pipe.*"))
