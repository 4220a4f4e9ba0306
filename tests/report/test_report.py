"""The HTML report: self-contained, and every number it shows is the analysis' number."""

from html.parser import HTMLParser

import numpy as np
import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.runner import run_plan


class TableCells(HTMLParser):
    """Collects data-value attributes per table id and column, plus every src/href."""

    def __init__(self):
        super().__init__()
        self.tables, self.links, self.table, self.columns, self.column_index = {}, [], None, [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("src", "href"):
            if key in attrs:
                self.links.append(attrs[key])
        if tag == "table" and "id" in attrs:
            self.table, self.columns = attrs["id"], []
            self.tables[self.table] = {}
        elif tag == "th" and self.table and "data-column" in attrs:
            self.columns.append(attrs["data-column"])
        elif tag == "tr":
            self.column_index = 0
        elif tag == "td" and self.table and "data-value" in attrs:
            name = self.columns[self.column_index]
            self.tables[self.table].setdefault(name, []).append(attrs["data-value"])
            self.column_index += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None


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


def test_cell_summary_numbers_shown_equal_the_analysis(report):
    _, parser, analysis = report
    shown = parser.tables["cells"]
    assert [int(v) for v in shown["games"]] == analysis.cells["games"].tolist()
    assert shown["verdict"] == analysis.cells["verdict"].tolist()
    assert np.allclose([float(v) for v in shown["p_holm"]], analysis.cells["p_holm"])


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
