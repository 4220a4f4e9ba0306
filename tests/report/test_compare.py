"""`zoosim compare`: does the page answer "did my change fix it?" in its first lines?"""

import os
import re
import stat

import numpy as np
from click.testing import CliRunner

from simulator.cli import main
from simulator.manifest_cell import ManifestCell
from simulator.report.compare import change_sentence, compare_runs, render_comparison
from simulator.report.matching import match_cells


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
    assert cell["sentence"].startswith(f"seat 0 {first['change_points']:+.1f} points [")
    assert "seat 0 moved further from fair; seat 0 is now the strongest" in cell["sentence"]
    assert "Verdict balanced → unbalanced (fair in every seat)" in cell["sentence"] or \
        "Verdict inconclusive → unbalanced (fair in every seat)" in cell["sentence"]
    assert "larger: a real worsening." in cell["sentence"]
    assert comparison.differences == ["every cell: first_seat_bonus: 0.0 → 0.4"]
    assert comparison.only_a == comparison.only_b == []

    result = CliRunner().invoke(main, ["compare", str(runs["before"]), str(runs["after"])])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("  coin: seat 0 +")  # the answer comes first
    assert "first_seat_bonus: 0.0 → 0.4" in lines[1]
    page = (runs["after"] / "compare.html").read_text()
    assert page.index("Largest seat deviation") < page.index("What differs") < page.index("<svg")
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


def _cell(index, label, seats, params, game="coin", players=2, sweep=None, played_rules=None):
    """A manifest cell with what matching reads (unvalidated: the rest is not needed)."""
    return ManifestCell.model_construct(index=index, label=label, seats=seats, params=params, game=game,
                                        players=players, sweep_values=sweep or {}, played_rules=played_rules)


def test_matching_prefers_the_same_seating_and_label_and_skips_other_games():
    a = [_cell(0, "x", ["fair"], {"b": 0}), _cell(1, "y", ["lucky"], {"b": 0}), _cell(2, "z", ["fair"], {}, game="nyz")]
    b = [_cell(0, "y", ["lucky"], {"b": 1}), _cell(1, "x", ["fair"], {"b": 1}), _cell(2, "w", ["fair"], {}, players=3)]
    pairs = [(left.index, right.index) for left, right in match_cells(a, b)]
    assert pairs == [(0, 1), (1, 0)]


def test_matching_pairs_the_closest_rules_first_whatever_the_order():
    """A sweep [5, 6, 7] against one case {hand: 7}: the case meets the cell with the same rules,
    not the first cell of A; the other two are left unpaired."""
    a = [_cell(index, f"s · hand={hand}", ["fair"], {"hand": hand}, sweep={"hand": hand})
         for index, hand in enumerate((5, 6, 7))]
    b = [_cell(0, "t · hand=7, other=1", ["fair"], {"hand": 7}, sweep={"hand": 7, "other": 1})]
    assert [(left.index, right.index) for left, right in match_cells(a, b)] == [(2, 0)]



def _pairwise_matching(cells_a, cells_b):
    """The matching as the module doc defines it, by every pair (what match_cells did before it
    was made linear in the cells for 10,000-cell runs): the reference it must agree with."""
    from simulator.plan import flatten_dotted

    candidates = []
    for cell_a in cells_a:
        for cell_b in cells_b:
            if cell_b.game != cell_a.game or cell_b.players != cell_a.players:
                continue
            same_seats = cell_b.seats == cell_a.seats
            if not same_seats and cell_b.label != cell_a.label:
                continue
            flat_a, flat_b = flatten_dotted(cell_a.params), flatten_dotted(cell_b.params)
            differences = sum(flat_a.get(key) != flat_b.get(key) for key in flat_a.keys() | flat_b.keys())
            candidates.append(((not same_seats, differences, cell_b.label != cell_a.label,
                                cell_a.index, cell_b.index), cell_a, cell_b))
    taken_a, taken_b, pairs = set(), set(), []
    for _, cell_a, cell_b in sorted(candidates, key=lambda candidate: candidate[0]):
        if cell_a.index not in taken_a and cell_b.index not in taken_b:
            taken_a.add(cell_a.index)
            taken_b.add(cell_b.index)
            pairs.append((cell_a.index, cell_b.index))
    return sorted(pairs)


def test_matching_agrees_with_the_pairwise_definition_and_any_pair_with_it():
    import random

    from simulator.report.matching import any_pair

    draw = random.Random(7)
    for _ in range(200):
        def cells(count):
            return [_cell(index, draw.choice("xyz"), [draw.choice(["fair", "lucky"])] * 2,
                          {"hand": draw.choice([5, 6]), "deck": {"size": draw.choice([50, 56])}},
                          players=draw.choice([2, 2, 3])) for index in range(count)]
        a, b = cells(draw.randint(0, 6)), cells(draw.randint(0, 6))
        pairs = [(left.index, right.index) for left, right in match_cells(a, b)]
        assert pairs == _pairwise_matching(a, b)
        assert any_pair(a, b) == bool(pairs)


OPEN_QUESTION = {
    "size_change": -0.20, "size_change_low": -0.6, "size_change_high": 0.2, "deviation_a": -1.71,
    "deviation_b": 1.51, "seat_a": 2, "seat_b": 0, "verdict_a": "inconclusive", "verdict_b": "inconclusive",
    "games_to_tell_change": 40_000.0, "games_to_decide_b": 123_456.0, "same_games": False,
    "players_a": "greedy in every seat", "players_b": "greedy in every seat", "margin": 1.0,
    "moved_seat": 2, "moved_points": 1.2, "moved_low": -0.3, "moved_high": 2.7, "moved_from": -1.71,
    "moved_to": -0.51, "moved_rank": None,
}


def test_change_sentence_for_an_open_question_says_how_many_games_would_tell():
    assert change_sentence(OPEN_QUESTION) == (
        "seat 2 +1.2 points [-0.3, +2.7] (from -1.7 to -0.5 points from fair): no seat changed detectably. "
        "Verdict inconclusive → inconclusive (greedy in every seat). "
        "Largest seat deviation -1.71 (seat 2) → +1.51 (seat 0) points (size change -0.20, 95% -0.6 to +0.2): "
        "no detectable improvement. About 40,000 games per run would tell whether a change "
        "this size is real; about 130,000 games in B would decide its verdict (80% power, if the rates hold)."
    )
    decided = {**OPEN_QUESTION, "size_change_high": -0.1, "verdict_b": "balanced", "moved_low": 0.4}
    assert "seat 2 is now within 1 points of fair" in change_sentence(decided)
    assert change_sentence(decided).endswith("smaller: a real improvement.")


def test_change_sentence_says_when_a_change_overcorrected_and_names_the_new_weakest_seat():
    """#21 finding 2: seat 0 went from +2.9 to -3.3 points, and the sentence read as "the rule did
    nothing" (its largest deviation hardly changed in size)."""
    row = {**OPEN_QUESTION, "moved_seat": 0, "moved_points": -6.2, "moved_low": -6.9, "moved_high": -5.5,
           "moved_from": 2.9, "moved_to": -3.3, "moved_rank": "weakest", "verdict_a": "unbalanced",
           "verdict_b": "unbalanced", "players_b": "greedy, random, greedy, random, greedy"}
    sentence = change_sentence(row)
    assert sentence.startswith("seat 0 -6.2 points [-6.9, -5.5] (from +2.9 to -3.3 points from fair): "
                               "the change overcorrected; seat 0 is now the weakest. ")
    assert "Verdict unbalanced (greedy in every seat) → unbalanced (greedy, random, greedy, random, greedy)." in sentence


def test_a_cell_both_runs_played_with_the_same_seeds_is_called_unchanged(tmp_path, write_experiment):
    text = ("seed: 1\ngames: 900\nstudies: [{{name: a, game: coin, rules: {{players: 2, first_seat_bonus: {bonus}}}}},"
            " {{name: b, game: coin, rules: {{players: 3}}}}]\n")
    before = _run(tmp_path, write_experiment, "before", text.format(bonus=0.0))
    after = _run(tmp_path, write_experiment, "after", text.format(bonus=0.3))
    comparison = compare_runs(before, after)
    sentences = dict(zip(comparison.cells["label"], comparison.cells["sentence"]))
    assert sentences["b"].startswith("no change: B replays A's games of this cell") and "B replays" not in sentences["a"]
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


def test_cells_pair_by_the_games_they_play_however_the_knobs_were_written(tmp_path, write_experiment):
    """#21 finding 2 / #22 finding 3: a 4-player cell set in `rules:` against the cases a tune's
    best.yaml writes (`cases: [{players: 4, ...}]`) gave "the runs share no cell"; cells only one
    run played were dropped without a word."""
    before = _run(tmp_path, write_experiment, "before",
                  "seed: 5\ngames: 2000\nstudies: [{name: base, game: coin, rules: {players: 4}}]\n")
    after = _run(tmp_path, write_experiment, "after",
                 "seed: 5\ngames: 2000\nstudies: [{name: best, game: coin, cases: "
                 "[{players: 3, first_seat_bonus: 0.2}, {players: 4, first_seat_bonus: 0.3}]}]\n")
    comparison = compare_runs(before, after)
    assert comparison.cells["label"].tolist() == ["base → best · players=4, first_seat_bonus=0.3"]
    assert comparison.only_a == [] and comparison.only_b == ["best · players=3, first_seat_bonus=0.2"]
    result = CliRunner().invoke(main, ["compare", str(before), str(after)])
    assert result.exit_code == 0, result.output
    assert "  best · players=3, first_seat_bonus=0.2: only in B" in result.output.splitlines()
    assert "only in B" in (after / "compare.html").read_text()

    same = _run(tmp_path, write_experiment, "same",
                "seed: 5\ngames: 2000\nstudies: [{name: again, game: coin, sweep: {players: [4]}, "
                "rules: {first_seat_bonus: 0.0}}]\n")
    replayed = compare_runs(before, same).cells.iloc[0]
    assert replayed["same_games"] and replayed["sentence"].startswith("no change: B replays A's games")


def test_compare_pairs_a_run_with_a_tunes_confirmation(tmp_path, write_experiment):
    """#22 finding 3: `zoosim compare BEFORE TUNE/confirm` said "the runs share no cell" (the
    confirmation writes each player count as a case of best.yaml's study)."""
    before = _run(tmp_path, write_experiment, "before",
                  "seed: 1\ngames: 300\nstudies: [{name: base, game: coin, rules: {players: 3}}]\n")
    tune = write_experiment("name: cointune\nseed: 1\ntune:\n  game: coin\n  players: [3]\n"
                            "  search: {first_seat_bonus: [0.0, 0.3]}\n"
                            "  budget: {trials: 2, games: {start: 200, max: 200}, batch: 2}\n"
                            "  confirm: {games: 300}\n", "tune.yaml")
    result = CliRunner().invoke(main, ["tune", str(tune), "--out", str(tmp_path / "tune"), "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "(players: fair in every seat)" in result.output  # the confirmation's verdict names its players
    result = CliRunner().invoke(main, ["compare", str(before), str(tmp_path / "tune" / "confirm")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("  base → cointune: trial ") and "only in" not in result.output


def test_rules_written_as_auto_match_the_rules_it_resolves_to():
    """Cells match by the rules they play: Katz's `grid.rows: auto` at 4 players is the row count
    it resolves to, so a cell that spells that count out is no rule difference."""
    from simulator.games import get_game
    from simulator.games.base import played_rules

    katz = get_game("katz")
    auto = katz.make_params({"players": 4})
    spelled = katz.make_params({"players": 4, "grid.rows": auto.grid_rows})
    assert auto.model_dump(mode="json") != spelled.model_dump(mode="json")
    assert played_rules(auto) == played_rules(spelled)
    a = [_cell(0, "auto", ["greedy"], auto.model_dump(mode="json"), game="katz", players=4,
               played_rules=played_rules(auto))]
    b = [_cell(0, "rows", ["greedy"], spelled.model_dump(mode="json"), game="katz", players=4,
               played_rules=played_rules(spelled)),
         _cell(1, "rows+1", ["greedy"], {}, game="katz", players=4,
               played_rules={**played_rules(spelled), "grid": {**played_rules(spelled)["grid"], "rows": auto.grid_rows + 1}})]
    assert [(left.index, right.index) for left, right in match_cells(a, b)] == [(0, 0)]
