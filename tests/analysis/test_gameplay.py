"""The gameplay figures (simulator/analysis/gameplay, issue #43) on a test game whose game
lengths, end reasons and component effects are known exactly (gameplay_game.py): the 95%
intervals cover the known values over repeated seeds, the seat adjustment removes a bias the
pooled difference has, the margin flags what is out of line, and two runs compare; then the
figures of a real run folder through `simulator.open_run(...).gameplay()` and the report."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import gameplay_game as known
import simulator
from simulator.analysis import gameplay, stats
from simulator.analysis.gameplay import FIGURES, GameplayOptions, cell_gameplay, compare_gameplay
from simulator.analysis.gameplay import figure as figure_module

DOCS = Path(__file__).resolve().parents[2] / "docs"

REPLICATIONS = 200
DEALS = 300
# With 200 replications a true 95% coverage falls below 90% with probability under 0.2%.
MIN_COVERAGE = 0.90


@pytest.fixture(scope="module")
def replications() -> list[pd.DataFrame]:
    rng = np.random.default_rng(20261204)
    return [cell_gameplay(known.play_records(rng, DEALS)).set_index(["figure", "item"]) for _ in range(REPLICATIONS)]


def coverage(replications: list[pd.DataFrame], figure: str, item: str, truth) -> float:
    """The share of replications whose interval for the item covers its truth: a number, or a
    function of the replication's row (an item whose definition depends on the sample)."""
    covered = []
    for frame in replications:
        row = frame.loc[(figure, item)]
        value = truth(row) if callable(truth) else truth
        covered.append(row["low"] <= value <= row["high"])
    return float(np.mean(covered))


def test_the_figures_are_registered_in_their_order():
    assert [name for name in FIGURES if name in ("length", "end_reason", "component")] == ["length", "end_reason", "component"]


def test_the_worked_example_of_adding_a_figure_works_as_written(monkeypatch):
    # docs/adding-a-figure.md: its unit registers a figure, and its test passes against it
    unit, test = re.findall(r"```python\n(.*?)```", (DOCS / "adding-a-figure.md").read_text(encoding="utf-8"), re.S)
    monkeypatch.setattr(figure_module, "FIGURES", dict(FIGURES))  # the example's figure goes with the test
    namespace: dict = {"__name__": "simulator.analysis.gameplay.ties"}
    exec(compile(unit, "ties.py", "exec"), namespace)
    assert "tie" in figure_module.FIGURES
    monkeypatch.setattr(gameplay, "FIGURES", figure_module.FIGURES)
    checks: dict = {"__name__": "test_gameplay_ties"}
    exec(compile(test, "test_gameplay_ties.py", "exec"), checks)
    checks["test_the_shared_win_interval_covers_the_true_share"]()


@pytest.mark.parametrize("measure", ["turns", "rounds"])
@pytest.mark.parametrize("name, share", [("median", 0.5), ("90th percentile", 0.9), ("95th percentile", 0.95)])
def test_length_percentile_intervals_cover_the_true_quantiles(replications, measure, name, share):
    truth = known.true_length_quantile(share, measure)
    assert coverage(replications, "length", f"{name} {measure}", truth) >= MIN_COVERAGE


def test_end_reason_shares_cover_the_true_shares_with_the_deal_as_unit(replications):
    assert coverage(replications, "end_reason", "deck_out", known.TRUE_DECK_OUT) >= MIN_COVERAGE
    assert coverage(replications, "end_reason", "target", 1 - known.TRUE_DECK_OUT) >= MIN_COVERAGE
    first = replications[0]
    assert first.loc[("end_reason", "deck_out"), "estimate"] + first.loc[("end_reason", "target"), "estimate"] == pytest.approx(1)
    assert first.loc[("end_reason", "deck_out"), "deals"] == DEALS
    assert first.loc[("end_reason", "deck_out"), "games"] == DEALS * known.GAMES_PER_DEAL


def test_the_deal_is_the_unit_correlated_games_of_a_deal_widen_the_interval():
    # a deal is slow or fast for all its games: a design effect near 1 + 3 * 0.5, so the interval
    # must be clearly wider than Wilson's on the games as if independent
    games = known.play_records(np.random.default_rng(3), DEALS)
    row = cell_gameplay(games).set_index(["figure", "item"]).loc[("end_reason", "deck_out")]
    naive_low, naive_high = stats.wilson_interval(row["estimate"] * row["games"], row["games"])
    assert row["high"] - row["low"] > 1.3 * (naive_high - naive_low)


def test_component_differences_cover_the_true_effects_adjusted_for_the_seat(replications):
    assert coverage(replications, "component", "a boost", 100 * known.BOOST_EFFECT) >= MIN_COVERAGE
    assert coverage(replications, "component", "a dud", 0.0) >= MIN_COVERAGE


def test_without_the_seat_adjustment_the_boost_would_look_stronger_than_it_is():
    # seat 0 takes the boost more often and has an edge, so the pooled difference mixes the two
    games = known.play_records(np.random.default_rng(7), 2000)
    shares, _ = games.win_shares()
    took = games.seat["boost"] > 0
    pooled = 100 * (shares[took].mean() - shares[~took].mean())
    row = cell_gameplay(games).set_index(["figure", "item"]).loc[("component", "a boost")]
    assert row["low"] <= 100 * known.BOOST_EFFECT <= row["high"]
    assert pooled > row["high"] + 1


def test_a_component_is_flagged_only_when_its_interval_lies_beyond_the_margin():
    games = known.play_records(np.random.default_rng(11), 1000)
    flags = cell_gameplay(games).set_index(["figure", "item"])["flag"]
    assert flags[("component", "a boost")] and not flags[("component", "a dud")]
    wide = cell_gameplay(games, options=GameplayOptions(component_margin_points=40.0)).set_index(["figure", "item"])
    assert not wide.loc[("component", "a boost"), "flag"]


def test_compare_gives_changes_whose_intervals_cover_zero_between_runs_of_one_game():
    rng = np.random.default_rng(5)
    covered = []
    for _ in range(100):
        before, after = (cell_gameplay(known.play_records(rng, DEALS)).assign(label="cell") for _ in range(2))
        changes = compare_gameplay(before, after).set_index(["figure", "item"])
        covered.append(not changes.loc[("end_reason", "deck_out"), "changed"]
                       and not changes.loc[("component", "a boost"), "changed"])
    assert np.mean(covered) >= 0.85  # two 95% intervals: each covers 0 at least 95%


FEEDING = {
    "name": "plays", "seed": 4, "games": 400, "chunk_games": 200,
    "studies": [{"name": "feeding", "game": "feeding", "rules": {"players": 2}}],
}


@pytest.fixture(scope="module")
def feeding_run(tmp_path_factory):
    return simulator.run_experiment(FEEDING, out=tmp_path_factory.mktemp("plays") / "run", jobs=1)


def test_open_run_gives_the_figures_of_a_plugin_game_as_tidy_rows(feeding_run):
    figures = feeding_run.gameplay()
    assert {"length", "end_reason", "component"} <= set(figures["figure"])
    assert set(figures[figures["figure"] == "end_reason"]["item"]) == {"target", "deck_out"}
    assert figures[figures["figure"] == "end_reason"]["estimate"].sum() == pytest.approx(1)
    assert (figures["low"] <= figures["estimate"]).all() and (figures["estimate"] <= figures["high"]).all()
    games = feeding_run.games()
    per_game = games[games["seat"] == 0]
    median = figures.set_index("item").loc["median turns", "estimate"]
    assert median == np.quantile(per_game["turns"], 0.5, method="inverted_cdf")
    shares = per_game["end_reason"].value_counts(normalize=True)
    assert figures.set_index("item").loc["target", "estimate"] == pytest.approx(shares.get("target", 0.0))


def test_the_report_has_a_how_the_game_plays_section_per_cell(feeding_run):
    page = (feeding_run.path / "report.html").read_text(encoding="utf-8")
    assert page.count("How the game plays") == 1
    assert "Component strength" in page and "association under the seated players" in page


def test_compare_reports_the_change_of_the_figures_between_two_runs(feeding_run, tmp_path):
    from simulator.report.compare import render_comparison

    unreachable = {**FEEDING, "studies": [{**FEEDING["studies"][0], "rules": {"players": 2, "target": 100}}]}
    other = simulator.run_experiment(unreachable, out=tmp_path / "other", jobs=1, report=False)
    page, comparison = render_comparison(feeding_run.path, other.path, tmp_path / "compare.html")
    changes = comparison.gameplay.set_index(["figure", "item"])
    # a target of 100 points is never reached: every game runs the deck out
    assert changes.loc[("end_reason", "deck_out"), "estimate_after"] == 1.0
    assert changes.loc[("end_reason", "deck_out"), "changed"] == "yes"
    assert changes.loc[("end_reason", "deck_out"), "change_low"] > 0
    assert "How the game plays" in page.read_text(encoding="utf-8")
