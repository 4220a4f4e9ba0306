"""The HTML report: self-contained, and every number it shows is the analysis' number."""

import re
import shlex
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from markupsafe import escape

from simulator.analysis.turn_order import lead_sentence
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report import charts
from simulator.report.build import build_report
from simulator.runner import run_plan


class TableCells(HTMLParser):
    """Collects data-value attributes (and, in `texts`, the text shown) per table id and column,
    plus every src/href."""

    def __init__(self):
        super().__init__()
        self.tables, self.links, self.table, self.columns, self.column_index = {}, [], None, [], 0
        self.texts, self.shown = {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href"):
            if key in attrs:
                self.links.append(attrs[key])
        if tag == "table" and "id" in attrs:
            self.table, self.columns = attrs["id"], []
            self.tables[self.table], self.texts[self.table] = {}, {}
        elif tag == "th" and self.table and "data-column" in attrs:
            self.columns.append(attrs["data-column"])
        elif tag == "tr":
            self.column_index = 0
        elif tag == "td" and self.table and "data-value" in attrs:
            name = self.columns[self.column_index]
            self.tables[self.table].setdefault(name, []).append(attrs["data-value"])
            self.shown = self.texts[self.table].setdefault(name, [])
            self.shown.append("")
            self.column_index += 1

    def handle_data(self, data):
        if self.shown is not None:
            self.shown[-1] += data

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        elif tag == "td":
            self.shown = None


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    document = {
        "name": "coin_report", "seed": 4, "games": 4000, "chunk_games": 1000,
        "studies": [
            {"name": "biased", "game": "coin", "rules": {"first_seat_bonus": 0.5}, "sweep": {"players": [2, 3]}},
            {"name": "fair", "game": "coin", "rules": {"players": 4}},
        ],
    }
    plan = build_plan(parse_experiment(document))
    run_plan(plan, run_dir, "name: coin_report\n", jobs=1, progress=False)
    path, analysis = build_report(run_dir)
    parser = TableCells()
    text = path.read_text()
    parser.feed(text)
    return text, parser, analysis


def test_seat_numbers_shown_equal_the_analysis(report):
    _, parser, analysis = report
    for cell, seats in analysis.seats.groupby("cell"):
        shown = parser.tables[f"seats-cell-{cell}"]
        for column in ("win_rate", "ci_low", "ci_high", "sim_low", "sim_high", "mean_score", "mean_margin"):
            assert np.allclose([float(v) for v in shown[column]], seats[column].to_numpy(), rtol=0, atol=0), column
        assert [int(v) for v in shown["outright_wins"]] == seats["outright_wins"].tolist()


def test_every_seat_bias_cell_shows_its_turn_order_numbers(report):
    """Issue #24: each cell's "Turn order" section, led by its sentence, shows the analysis'
    turn-order numbers (analysis.turn_order)."""
    text, parser, analysis = report
    assert set(analysis.turn_order) == set(analysis.cells["cell"])
    assert text.count("<h4>Turn order</h4>") == len(analysis.cells)
    for cell, facts in analysis.turn_order.items():
        shown = parser.tables[f"turn-order-cell-{cell}"]
        for column in ("turns", "decisions", "last_mover_rate", "ender_rate", "win_rate_unequal",
                       "win_unequal_low", "win_rate_equal", "win_equal_high"):
            assert np.allclose([float(v) for v in shown[column]], facts.seats[column].to_numpy(),
                               rtol=0, atol=0, equal_nan=True), column
        assert str(escape(lead_sentence(facts, len(facts.seats)))) in text


def test_cell_summary_numbers_shown_equal_the_analysis(report):
    _, parser, analysis = report
    shown = parser.tables["cells"]
    assert [int(v) for v in shown["games"]] == analysis.cells["games"].tolist()
    assert shown["verdict"] == analysis.cells["verdict"].tolist()
    assert [int(v) for v in shown["most_deviant_seat"]] == analysis.cells["most_deviant_seat"].tolist()
    assert all(len(finding) <= 120 for finding in shown["finding"]), shown["finding"]
    # the statistics moved from the main table to each cell's panel, each term linked to the glossary
    assert "p_holm" not in shown and "chi2" not in shown
    for _, row in analysis.cells.iterrows():
        panel = parser.tables[f"stats-cell-{row['cell']}"]
        values = dict(zip(panel["term"], (float(value) for value in panel["value"])))
        assert values["p (Holm)"] == row["p_holm"] and values["χ² (chi-square)"] == row["chi2"]
        assert values["design effect"] == row["design_effect"] and values["CRN gain"] == row["crn_gain"]


def test_a_strong_first_seat_bonus_is_reported_unbalanced_and_fair_play_is_not(report):
    text, _, analysis = report
    verdicts = dict(zip(analysis.cells["label"], analysis.cells["verdict"]))
    assert verdicts["biased · players=2"] == "unbalanced"
    assert verdicts["biased · players=3"] == "unbalanced"
    assert verdicts["fair"] != "unbalanced"
    assert "Seat 0 wins" in text


def test_win_rates_of_a_cell_sum_to_one(report):
    _, _, analysis = report
    assert np.allclose(analysis.seats.groupby("cell")["win_rate"].sum(), 1.0)


def test_rotation_of_deals_reduces_variance(report):
    _, _, analysis = report
    gains = analysis.cells.set_index("label")["crn_gain"]
    # Hand strength travels with the slot, so replaying a deal in every rotation cancels it;
    # without a seat bonus the game is decided by the deal alone and the per-deal seat shares
    # are exactly 1/n: no variance left at all.
    assert gains["biased · players=2"] > 1.2
    assert gains["fair"] == float("inf")


def test_the_report_is_self_contained(report):
    text, parser, _ = report
    assert all(link.startswith(("data:", "#")) for link in parser.links), parser.links
    assert text.count("<svg") >= 3  # seat charts and the sweep chart, inline
    assert "Provenance" in text and "numba" in text and "name: coin_report" in text


def test_solo_cells_report_a_win_rate_and_games_without_winner_are_left_out(tmp_path):
    from simulator.analysis.summary import summarize_columns

    frame = {  # 4 games: seat 0 wins, seat 1 wins, shared, no winner (e.g. a safety cap)
        "deal": np.arange(4), "end_reason": np.zeros(4, dtype=np.int8), "turns": np.array([5, 6, 7, 8]),
        "win_0": np.array([1, 0, 1, 0], bool), "win_1": np.array([0, 1, 1, 0], bool),
        "score_0": np.array([3, 1, 2, 0]), "score_1": np.array([1, 3, 2, 0]),
        "slot_0": np.zeros(4, dtype=np.int8), "slot_1": np.ones(4, dtype=np.int8),
        "rank_0": np.array([1, 2, 1, 1]), "rank_1": np.array([2, 1, 1, 1]),
    }
    totals = summarize_columns(frame, players=2, mixed=False, games_per_deal=1)
    assert totals.rated_games == 3 and totals.no_winner_games == 1
    assert np.allclose(totals.share_sum, [1.5, 1.5])
    solo = summarize_columns({k: v for k, v in frame.items() if k.endswith("_0") or "_" not in k or k == "end_reason"},
                             players=1, mixed=False, games_per_deal=1)
    assert solo.rated_games == 4  # a lost solo game is a loss, not a game without result


def test_a_solo_study_reports_each_heuristic_win_rate(tmp_path):
    document = {"seed": 1, "games": 300, "studies": [{"game": "nyz", "rules": {"players": 1}, "pool": ["random", "greedy"]}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    path, analysis = build_report(tmp_path)
    assert list(analysis.cells["verdict"]) == ["solo", "solo"]
    assert all(s.startswith("Solo win rate") for s in analysis.cells["sentence"])
    assert analysis.cells["p_holm"].isna().all()
    assert analysis.seats["games"].tolist() == [300, 300]
    assert "Solo win rate" in path.read_text()


def test_the_same_experiment_twice_gives_identical_logs_and_report_numbers(tmp_path):
    from tests_support import log_digests

    document = {"seed": 8, "games": 1500, "chunk_games": 500, "studies": [{"game": "coin", "sweep": {"players": [2, 3]}}]}
    values = []
    for name in ("first", "second"):
        run_plan(build_plan(parse_experiment(document)), tmp_path / name, "", jobs=2, backend="threading", progress=False)
        path, _ = build_report(tmp_path / name)
        parser = TableCells()
        parser.feed(path.read_text())
        values.append(parser.tables)
    assert log_digests(tmp_path / "first") == log_digests(tmp_path / "second")
    assert values[0] == values[1] and values[0]["cells"]["games"] == ["1500", "1500"]


# --- Issue 12: signed deviations, shared scales, readable charts, overrides, sample games --------



def _y_tick_labels(svg):
    return re.findall(r'<g id="ytick_\d+" class="ytick">.*?<text[^>]*>([^<]*)</text>', svg, flags=re.S)


def test_new_cell_numbers_shown_equal_the_analysis(report):
    _, parser, analysis = report
    shown = parser.tables["cells"]
    assert [int(v) for v in shown["most_deviant_seat"]] == analysis.cells["most_deviant_seat"].astype(int).tolist()
    assert np.allclose([float(v) for v in shown["max_signed_deviation_points"]],
                       analysis.cells["max_signed_deviation_points"], rtol=0, atol=0)
    decided = analysis.cells["verdict"] != "inconclusive"
    assert analysis.cells.loc[decided, "games_to_decide"].isna().all()
    for _, row in analysis.cells[~decided].iterrows():  # in the cell's statistics panel
        panel = parser.tables[f"stats-cell-{row['cell']}"]
        assert float(dict(zip(panel["term"], panel["value"]))["games to decide"]) == row["games_to_decide"]


def test_largest_deviation_is_signed(report):
    # Finding 4: the deviation of the seat furthest from fair keeps its sign.
    _, _, analysis = report
    for _, row in analysis.cells.iterrows():
        seats = analysis.seats[analysis.seats["cell"] == row["cell"]].set_index("seat")
        assert row["max_signed_deviation_points"] == seats.loc[row["most_deviant_seat"], "deviation_points"]
        assert abs(row["max_signed_deviation_points"]) == pytest.approx(row["max_deviation_points"])


def test_sweep_chart_plots_a_seat_below_fair_below_zero():
    cells = pd.DataFrame({"cell": [0, 1], "players": [5, 5], "sweep:grid.rows": [4, 5],
                          "max_signed_deviation_points": [-3.25, -1.0], "most_deviant_seat": [0, 0],
                          "mean_turns": [20.0, 22.0], "mean_turns_low": [19.0, 21.0], "mean_turns_high": [21.0, 23.0]})
    seats = pd.DataFrame({"cell": [0, 1], "seat": [0, 0], "win_rate": [0.21, 0.205],
                          "sim_low": [0.2, 0.2], "sim_high": [0.22, 0.21]})
    svg = charts.sweep_chart(cells, seats, "grid.rows", ["grid.rows"], 1.0)
    lowest = min(float(label.replace("−", "-")) for label in _y_tick_labels(svg) if label.strip())
    assert lowest <= -3  # the axis reaches down to the -3.25 point, not up to +3.25
    # issue #41: each hollow most-deviant point says which seat it is (0 above each; the third 0 is a y tick)
    assert svg.count(">0</text>") == 3


def test_seat_charts_of_a_study_share_one_y_scale(report):
    text, _, _ = report
    scales = []
    for article in re.findall(r'<details class="cell" id="cell-\d+">.*?</details>', text, flags=re.S)[:2]:
        first_chart = re.search(r"<svg.*?</svg>", article, flags=re.S).group(0)
        scales.append(_y_tick_labels(first_chart))
    assert len(scales) == 2 and scales[0] == scales[1] and len(scales[0]) >= 3


def _heatmap_squares(svg):
    """{(seat label, column label): value label} of a seat heatmap (charts.seat_heatmap): each
    square's label sits at its column's x tick and nearest its seat's y tick."""
    axes = svg.split('<g id="axes_2"')[0]  # the heatmap itself, not its colour bar
    texts = r'<g id="{0}_\d+" class="{0}">.*?<text[^>]* x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</text>'
    columns = {x: label for x, _, label in re.findall(texts.format("xtick"), axes, flags=re.S)}
    seats = [(float(y), label) for _, y, label in re.findall(texts.format("ytick"), axes, flags=re.S)]
    squares = {}
    for x, y, label in re.findall(r'<text style="font-size: 9.5px[^"]*" x="([-\d.]+)" y="([-\d.]+)"[^>]*>([^<]*)</text>',
                                  axes):
        seat = min(seats, key=lambda seat: abs(seat[0] - float(y)))[1]
        squares[(seat, columns[x])] = label
    return squares


def test_a_sweep_gets_a_seat_by_knob_heatmap_with_one_square_per_seat_and_value(report):
    """One labelled square per seat of each swept cell (none for a seat a cell does not have),
    under the swept values, showing the analysis' signed points from fair (1/n)."""
    text, _, analysis = report
    title = "points from fair by seat and players"
    heatmap = [svg for svg in re.findall(r"<svg.*?</svg>", text, flags=re.S) if title in svg]
    assert len(heatmap) == 1
    swept = analysis.cells[analysis.cells["label"].str.startswith("biased")]
    expected = {}
    for cell, players in zip(swept["cell"], swept["players"]):
        seats = analysis.seats[analysis.seats["cell"] == cell]
        assert len(seats) == players
        for seat, rate in zip(seats["seat"], seats["win_rate"]):
            points = (rate - 1 / players) * 100
            label = "0.0" if round(points, 1) == 0 else f"{points:+.1f}"
            expected[("0 (first)" if seat == 0 else str(seat), str(players))] = label
    assert len(expected) == 2 + 3
    assert _heatmap_squares(heatmap[0]) == expected


def test_length_histogram_bins_follow_the_range():
    spread = pd.DataFrame({"value": np.arange(100, 1100, 5), "games": np.ones(200, dtype=int)})
    assert charts.length_histogram(spread, "turns").count('class="data"') <= charts.MAX_BARS
    few = pd.DataFrame({"value": [41, 42, 43], "games": [5, 90, 5]})
    assert charts.length_histogram(few, "turns").count('class="data"') == 3
    assert charts.measure_title("enclosures_placed") == "enclosures placed per game"


def test_formats_counts_with_separators_and_never_in_scientific_notation():
    from simulator.report.build import _format

    assert _format(30000.0, "num") == "30,000"
    assert _format(6000, "int") == "6,000"
    assert _format(0.3112, "pct") == "31.12%"
    assert _format(38_412.0, "approx") == "about 39,000"
    assert _format(float("inf"), "approx") == "never"


def test_a_component_out_of_line_reads_yes_or_no_not_a_python_bool():
    from simulator.analysis.gameplay import FIGURES
    from simulator.report.build import _format

    assert ("flag", "out of line", "yes_no") in FIGURES["component"].shown
    assert (_format(True, "yes_no"), _format(np.False_, "yes_no")) == ("yes", "no")


def test_tournament_names_the_strongest_policy_with_numbers_from_the_ratings(tmp_path):
    document = {"name": "t", "seed": 3, "games": 1000,
                "studies": [{"name": "pool", "game": "coin", "rules": {"players": 2},
                             "pool": ["fair", "lucky"]}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    path, analysis = build_report(tmp_path)
    text = path.read_text()
    best = analysis.ratings.sort_values("elo").iloc[-1]
    sentence = re.search(r'<p class="strongest">(.*?)</p>', text, flags=re.S).group(1)
    assert f"<strong>{best['policy']} is strongest</strong>" in sentence
    assert f'data-value="{float(best["elo"])!r}"' in sentence
    assert f'data-value="{float(best["elo_low"])!r}"' in sentence
    assert "not clearly ahead of" in sentence  # the coin game ignores policies


def test_a_mixed_cell_shows_each_policys_rates_overall_and_from_each_seat(tmp_path):
    """The by-policy table of a mixed seating: one row per slot with its policy, games, win rate
    and interval, and its rate from each seat, every value the analysis' (raw and as shown)."""
    from simulator.report.build import _format

    document = {"name": "t", "seed": 3, "games": 1000,
                "studies": [{"name": "pool", "game": "coin", "rules": {"players": 2}, "pool": ["fair", "lucky"]}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    path, analysis = build_report(tmp_path)
    parser = TableCells()
    parser.feed(path.read_text())
    policies = analysis.policies[analysis.policies["cell"] == 0]
    assert len(policies) == 2 and sorted(policies["policy"]) == ["fair", "lucky"]
    raw, shown = parser.tables["policies-cell-0"], parser.texts["policies-cell-0"]
    assert list(raw) == ["slot", "policy", "games", "win_rate", "ci_low", "ci_high", "seat_0_rate", "seat_1_rate"]
    assert shown["slot"] == [str(slot) for slot in policies["slot"]] == ["0", "1"]
    assert shown["policy"] == policies["policy"].tolist()
    assert shown["games"] == [f"{games:,}" for games in policies["games"]]
    for column in ("win_rate", "ci_low", "ci_high", "seat_0_rate", "seat_1_rate"):
        assert [float(value) for value in raw[column]] == policies[column].tolist(), column
        assert shown[column] == [_format(value, "pct") for value in policies[column]], column
    # each slot plays every seat equally often (rotation): its overall rate is their mean
    assert np.allclose(policies["win_rate"], policies[["seat_0_rate", "seat_1_rate"]].mean(axis=1))


def test_title_shows_overrides_and_what_changed_since_the_previous_run(tmp_path, write_experiment):
    path = write_experiment("name: same\nseed: 1\ngames: 900\nstudies: [{name: s, game: coin, rules: {players: 2}}]\n")
    folders = tmp_path / "reports"
    first = CliRunner().invoke(main, ["run", str(path), "--out", str(folders / "one"), "--jobs", "1", "--quiet"])
    assert first.exit_code == 0, first.output
    text = (folders / "one" / "report.html").read_text()
    assert 'id="overrides"' not in text and 'id="previous-run"' not in text  # nothing to say
    path.write_text("name: same\nseed: 1\ngames: 900\nstudies: [{name: s, game: coin, rules: {players: 2, first_seat_bonus: 0.1}}]\n")
    second = CliRunner().invoke(main, ["run", str(path), "--out", str(folders / "two"), "--jobs", "1", "--quiet",
                                       "--games", "600", "--seed", "5"])
    assert second.exit_code == 0, second.output
    text = (folders / "two" / "report.html").read_text()
    assert "--games 600 (the file asks for 900 per cell)" in text
    assert "--seed 5 (the file&#39;s seed is 1)" in text
    changes = re.search(r'<details id="previous-run">(.*?)</details>', text, flags=re.S).group(1)
    assert "<code>one</code>" in changes
    assert "<li>games: 900 → 600</li>" in changes and "<li>seed: 1 → 5</li>" in changes
    assert "<li>studies.s.rules.first_seat_bonus: default → 0.1</li>" in changes
    assert f"zoosim compare {folders / 'one'} {folders / 'two'}" in changes
    suggested = re.search(r"<code>(zoosim compare [^<]*)</code>", changes).group(1)
    assert CliRunner().invoke(main, shlex.split(suggested)[1:]).exit_code == 0  # one compare accepts

    path.write_text("name: same\nseed: 1\ngames: 900\nstudies: [{name: s, game: coin, rules: {players: 3}}]\n")
    third = CliRunner().invoke(main, ["run", str(path), "--out", str(folders / "three"), "--jobs", "1", "--quiet"])
    assert third.exit_code == 0, third.output
    changes = re.search(r'<details id="previous-run">(.*?)</details>', (folders / "three" / "report.html").read_text(),
                        flags=re.S).group(1)
    assert "zoosim compare" not in changes and "cannot be compared" in changes


def test_a_balanced_cell_with_a_significant_test_is_explained(tmp_path):
    document = {"name": "big", "seed": 1, "games": 40_000, "chunk_games": 20_000, "margin_points": 5.0,
                "studies": [{"name": "s", "game": "coin", "rules": {"players": 2, "first_seat_bonus": 0.03}}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    path, analysis = build_report(tmp_path)
    row = analysis.cells.iloc[0]
    assert row["verdict"] == "balanced" and row["p_value"] < 0.05
    note = re.search(r'<p class="note">(.*?)</p>', path.read_text(), flags=re.S).group(1)
    assert "No contradiction" in note and f'data-value="{float(row["max_signed_deviation_points"])!r}"' in note


def test_overrides_are_found_for_precision_mode_and_per_study_game_counts():
    import yaml

    from simulator.report.build import command_line_overrides

    text = "seed: 3\ngames: {until: {halfwidth: 0.01}, max: 100000}\nstudies: [{game: coin, games: 500}, {game: coin}]\n"
    document = yaml.safe_load(text)
    assert command_line_overrides(text, parse_experiment(document).model_dump(mode="json")) == []
    document["games"], document["seed"] = 700, 9
    document["studies"][0].pop("games")  # as `--games` does
    assert command_line_overrides(text, parse_experiment(document).model_dump(mode="json")) == [
        "--games 700 (the file asks for 500 / precision mode per cell)", "--seed 9 (the file's seed is 3)"
    ]


def test_cases_that_set_different_knobs_and_a_baseline_case_are_reported(tmp_path, write_experiment):
    """#21 finding 1: a later case leaving out a knob an earlier one sets (KeyError in the sweep
    charts after every game was played), and `{}` as the baseline case (refused)."""
    path = write_experiment(
        "games: 300\nstudies: [{name: c, game: coin, cases: "
        "[{players: 4, first_seat_bonus: 0.2}, {players: 4}, {}]}]\n"
    )
    for command in (["run", str(path), "--out", str(tmp_path / "run"), "--jobs", "1", "--quiet"],
                    ["report", str(tmp_path / "run")]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
    page = (tmp_path / "run" / "report.html").read_text()
    assert "c · baseline" in page and "c · players=4, first_seat_bonus=0.2" in page


def test_the_run_time_shown_leaves_out_compiling_and_says_it_apart(tmp_path):
    # Issue #21, finding 8: the provenance run time included numba's compile time.
    import json

    from simulator.rundir import RUN_INFO, record_session

    run_dir = tmp_path / "run"
    plan = build_plan(parse_experiment({"name": "timed", "seed": 1, "games": 200,
                                        "studies": [{"name": "s", "game": "coin", "rules": {"players": 2}}]}))
    run_plan(plan, run_dir, "name: timed\n", jobs=1, progress=False)
    info = json.loads((run_dir / RUN_INFO).read_text())
    info["sessions"] = []
    (run_dir / RUN_INFO).write_text(json.dumps(info))
    record_session(run_dir, "2026-12-01T00:00:00Z", 100.0, 200, 1, "threading", compile_seconds=70.0)
    text = build_report(run_dir)[0].read_text()
    assert "100.0 s over 1 session(s) (plus 70.0 s compiling the engines)" in text
    assert "games in 100.0 s (plus 70.0 s compiling)" in text


@pytest.mark.parametrize("sampled, shown", [(4, False), (40, True)])
def test_a_trajectory_figure_of_a_handful_of_sampled_deals_says_so_instead_of_a_table(tmp_path, sampled, shown):
    """The quick start's New York Zoo cells (2,000 games) replay a handful of deals: their "who
    leads" and comeback tables read "won 100% [21, 100]" from four games. A trajectory figure of fewer
    sampled deals than MIN_SHOWN_SAMPLE_DEALS says how many it has and how to sample more; the
    figures of all the games still show."""
    from simulator.analysis.gameplay import FIGURES, run_gameplay
    from simulator.report.build import MIN_SHOWN_SAMPLE_DEALS, WITHHELD_TITLE, gameplay_view
    from simulator.rundir import read_manifest

    document = {"name": "t", "seed": 3, "games": 400, "trajectory_deals": sampled,
                "studies": [{"game": "katz", "rules": {"players": 2}, "seats": ["greedy"]}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    view = {figure["title"]: figure for figure in gameplay_view(0, run_gameplay(tmp_path, read_manifest(tmp_path)))}
    assert (sampled >= MIN_SHOWN_SAMPLE_DEALS) == shown
    trajectory_titles = {figure.title for figure in FIGURES.values() if figure.reads_trajectories}
    assert trajectory_titles
    if shown:
        assert trajectory_titles <= set(view) and WITHHELD_TITLE not in view
        assert all(view[title]["table"] is not None and not view[title]["withheld"] for title in trajectory_titles)
    else:  # one line for them all, last
        assert not trajectory_titles & set(view) and list(view)[-1] == WITHHELD_TITLE
        line = view[WITHHELD_TITLE]["withheld"]
        assert all(title in line for title in trajectory_titles), line
        assert f"{sampled} sampled deals" in line and "trajectory_deals" in line
    assert view["Game length"]["table"] is not None and not view["Game length"]["withheld"]
