"""Chunk summaries (analysis/summary.py): merging the workers' summaries gives the numbers that
recomputing from the logs gives, on real runs of both games, a tournament and precision mode."""

import itertools
import re

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy import stats as scipy_stats

from simulator.analysis.stats import DESIGN_EFFECT_FLOOR
from simulator.analysis.summary import CellTotals, summarize_columns
from simulator.analysis.tables import analyze_run, summarize_cell
from simulator.config import parse_experiment
from simulator.games import get_game
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.rundir import read_manifest
from simulator.runner import run_experiment

DOCUMENT = {
    "name": "summaries",
    "seed": 17,
    "games": 600,
    "chunk_games": 240,
    "studies": [
        {"name": "katz", "game": "katz", "rules": {"players": 4}, "seats": ["random"]},
        {"name": "katz pool", "game": "katz", "rules": {"players": 3}, "pool": ["random", "greedy", "expectimax"],
         "games": 240},
        {"name": "zoo", "game": "nyz", "rules": {"players": 2}, "seats": ["greedy", "random"], "games": 200},
    ],
}
PRECISION = {
    "name": "precise", "seed": 3, "chunk_games": 300,
    "games": {"until": {"halfwidth": 0.04}, "max": 6000, "start": 600},
    "studies": [{"game": "katz", "rules": {"players": 2}, "seats": ["random"]}],
}


@pytest.fixture(scope="module", params=["games", "precision"])
def run_dir(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    document = DOCUMENT if request.param == "games" else PRECISION
    run_experiment(build_plan(parse_experiment(document)), out, "", jobs=2, backend="threading", progress=False)
    return out


def test_merged_summaries_give_the_report_numbers_that_the_logs_give(run_dir):
    manifest = read_manifest(run_dir)
    merged, recomputed = analyze_run(run_dir, manifest), analyze_run(run_dir, manifest, from_logs=True)
    for name in ("cells", "seats", "policies", "lengths", "measures", "ratings"):
        pd.testing.assert_frame_equal(getattr(merged, name), getattr(recomputed, name), check_exact=True)
    assert len(merged.seats) and (merged.cells["games"] > 0).all()


def test_summaries_agree_with_a_direct_computation_over_all_logs(run_dir):
    """Independent of summary.py: pandas over every chunk of every cell at once."""
    manifest = read_manifest(run_dir)
    for cell in manifest["cells"]:
        n = cell.players
        paths = sorted((run_dir / "logs" / f"cell={cell.index:04d}").glob("*.parquet"))
        games = pd.concat([pq.read_table(path).to_pandas() for path in paths], ignore_index=True)
        totals = summarize_cell(run_dir, cell)
        wins = games[[f"win_{s}" for s in range(n)]].to_numpy().astype(float)
        shares = wins / np.maximum(wins.sum(axis=1, keepdims=True), 1)
        assert totals.games == len(games) == cell.games
        assert np.allclose(totals.share_sum, shares.sum(axis=0))
        assert np.array_equal(totals.column_sums["score"], games[[f"score_{s}" for s in range(n)]].sum().to_numpy())
        assert np.array_equal(totals.histogram("turns"), np.bincount(games["turns"]))
        assert np.array_equal(totals.histogram("end_reason"), np.bincount(games["end_reason"]))
        for column in [c for c in games.columns if c.endswith("_0") and not c.startswith(("slot", "win", "score"))]:
            base = column[:-2]  # every per-seat column a game records is summed, per seat
            assert np.array_equal(totals.column_sums[base], games[[f"{base}_{s}" for s in range(n)]].sum().to_numpy())
        if len(set(cell.seats)) > 1:
            ranks = games[[f"rank_{s}" for s in range(n)]].to_numpy()
            slots = games[[f"slot_{s}" for s in range(n)]].to_numpy()
            assert np.isclose(totals.slot_pairwise_wins.sum(axis=0)[0, 1], placements_above(ranks, slots, 0, 1))


def test_seat_measures_per_seat_agree_with_pandas_over_the_logs_and_the_report_shows_them(run_dir):
    """Issue #13: every measure a game declares (Game.seat_measures), per seat, as its mean per
    game with a 95% t interval, computed here straight from the logs with the deal as the unit
    (issue #20): the design effect from the spread of the per-deal means (floored as the report
    floors it), t on deals - 1 degrees of freedom."""
    manifest = read_manifest(run_dir)
    path, analysis = build_report(run_dir)
    page = path.read_text()
    for cell in manifest["cells"]:
        n, declared = cell.players, get_game(cell.game).seat_measures
        assert cell.seat_measures == [list(pair) for pair in declared.items()] and declared
        paths = sorted((run_dir / "logs" / f"cell={cell.index:04d}").glob("*.parquet"))
        games = pd.concat([pq.read_table(path).to_pandas() for path in paths], ignore_index=True)
        rows = analysis.measures[analysis.measures["cell"] == cell.index]
        assert rows["measure"].tolist() == [name for name in declared.values() for _ in range(n)]
        values = games[[f"{column}_{s}" for column in declared for s in range(n)]].astype(float)
        deal_means = values.groupby(games["deal"]).mean()
        deals = len(deal_means)
        assert deals == (len(games) // n if cell.rotate else len(games))
        mean, game_var = values.mean().to_numpy(), values.var(ddof=1).to_numpy()
        deal_var = deal_means.var(ddof=1).to_numpy()
        effect = np.maximum(np.where(game_var > 0, (deal_var / deals) / (game_var / len(games)), 1.0), DESIGN_EFFECT_FLOOR)
        half = scipy_stats.t.ppf(0.975, deals - 1) * np.sqrt(game_var * effect / len(games))
        assert np.allclose(rows["mean"], mean, rtol=1e-12)
        assert np.allclose(rows["ci_low"], mean - half, rtol=1e-9, atol=1e-12)
        assert np.allclose(rows["ci_high"], mean + half, rtol=1e-9, atol=1e-12)
        table = re.search(rf'<table class="data" id="measures-cell-{cell.index}">(.*?)</table>', page, re.S).group(1)
        shown = [re.findall(r'data-value="([^"]*)"', row) for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])]
        assert [row[0] for row in shown] == rows["measure"].tolist()
        assert np.array_equal(np.array([row[2:5] for row in shown], dtype=float), rows[["mean", "ci_low", "ci_high"]])
        assert f'download="measures-cell-{cell.index}.csv"' in page


def placements_above(ranks, slots, first, second):
    """How often slot `first` placed above slot `second` in a game (a tie counts 1/2)."""
    total = 0.0
    for a, b in itertools.permutations(range(ranks.shape[1]), 2):
        both = (slots[:, a] == first) & (slots[:, b] == second)
        total += (ranks[both, a] < ranks[both, b]).sum() + 0.5 * (ranks[both, a] == ranks[both, b]).sum()
    return total


def random_chunk(rng, games, players):
    wins = rng.random((games, players)) < 0.4
    columns = {"deal": np.arange(games) // players, "turns": rng.integers(3, 40, games),
               "end_reason": rng.integers(0, 3, games).astype(np.int8), "bonus": rng.normal(size=games)}
    for s in range(players):
        columns[f"win_{s}"] = wins[:, s]
        columns[f"score_{s}"] = rng.integers(-5, 60, games)
        columns[f"slot_{s}"] = (np.full(games, s) + np.arange(games)) % players
        columns[f"rank_{s}"] = rng.integers(1, players + 1, games)
        columns[f"cards_drawn_{s}"] = rng.integers(0, 9, games)  # a column a game may add later
    return columns


def test_merging_is_associative_and_equals_summarizing_all_games_at_once():
    rng = np.random.default_rng(4)
    chunks = [random_chunk(rng, 60 * (k + 1), 3) for k in range(3)]
    stored = [CellTotals.from_json(summarize_columns(chunk, 3, True, 3).to_json()) for chunk in chunks]
    copy = [CellTotals.from_json(part.to_json()) for part in stored]
    left = stored[0].merge(stored[1]).merge(stored[2])
    right = copy[0].merge(copy[1].merge(copy[2]))
    whole = summarize_columns({name: np.concatenate([chunk[name] for chunk in chunks]) for name in chunks[0]}, 3, True, 3)
    for name in ("games", "deals", "tied_games", "no_winner_games"):
        assert getattr(left, name) == getattr(right, name) == getattr(whole, name)
    assert whole.games == 360
    for name in ("share_sum", "outright_wins", "margin_sq_sum", "slot_games", "slot_pairwise_wins", "deal_share_sq_sum"):
        assert np.allclose(getattr(left, name), getattr(right, name)) and np.allclose(getattr(left, name), getattr(whole, name))
    for column in ("cards_drawn", "score", "turns", "end_reason", "win"):
        assert np.array_equal(left.column_sums[column], whole.column_sums[column])
        assert np.array_equal(right.column_squares[column], whole.column_squares[column])
        assert np.array_equal(left.histogram(column), whole.histogram(column))
    for column in ("cards_drawn", "score", "turns", "bonus"):  # per-deal moments (the deal as the unit)
        assert np.allclose(left.deal_column_squares[column], whole.deal_column_squares[column])
        assert np.isclose(right.deal_total_squares[column], whole.deal_total_squares[column])
    assert np.isclose(left.deal_tied_sq_sum, whole.deal_tied_sq_sum)
    assert left.histograms["score"] is None  # negative values: sums only
    assert np.allclose(left.column_sums["bonus"], whole.column_sums["bonus"]) and left.histograms["bonus"] is None


def whole_deal_ties(rng, deals, players=2):
    """Columns in which a deal is tied (every seat wins) in all its rotations or in none, and
    each game's turns are its deal's: tie indicators and lengths are perfectly correlated within
    a deal, so their design effect is the games per deal."""
    tied = np.repeat(rng.random(deals) < 0.3, players)
    games = deals * players
    columns = {"deal": np.repeat(np.arange(deals), players), "turns": np.repeat(rng.integers(5, 30, deals), players)}
    for s in range(players):
        columns[f"win_{s}"] = tied | (s == 0)
        columns[f"score_{s}"] = rng.integers(0, 9, games)
        columns[f"slot_{s}"] = (np.full(games, s) + np.arange(games)) % players
    return columns


def test_the_tie_rate_and_game_length_count_the_deal_as_the_unit():
    # Brief stats2, item 1: tune's tie-rate standard error counted games as independent.
    from simulator.analysis.stats import mean_standard_error
    from simulator.analysis.tables import length_mean_columns

    totals = summarize_columns(whole_deal_ties(np.random.default_rng(5), 400), 2, False, 2)
    assert totals.tie_design_effect() == pytest.approx(2.0, rel=0.01)
    assert totals.total_design_effect("turns") == pytest.approx(2.0, rel=0.01)
    tie = totals.tied_games / totals.games
    naive = np.sqrt(tie * (1 - tie) / totals.games)
    assert mean_standard_error(totals.games, totals.tied_games, totals.tied_games, totals.tie_design_effect()) == (
        pytest.approx(naive * np.sqrt(2.0), rel=0.01))
    length = length_mean_columns(totals, "turns", 0.95)
    assert length["mean_turns_low"] < length["mean_turns"] < length["mean_turns_high"]


def test_a_summary_without_the_per_deal_column_moments_reads_as_unknown_under_rotation():
    # Older summaries (before the per-deal column and tie moments were kept) still read; merged
    # with newer chunks the design effects stay unknown rather than counting half the deals.
    rng = np.random.default_rng(6)
    old = summarize_columns(whole_deal_ties(rng, 50), 2, False, 2).to_json()
    for key in ("deal_column_squares", "deal_total_squares", "deal_tied_sq_sum"):
        del old[key]
    merged = CellTotals.from_json(old).merge(summarize_columns(whole_deal_ties(rng, 50), 2, False, 2))
    assert np.isnan(merged.tie_design_effect()) and np.isnan(merged.total_design_effect("turns"))
    assert np.isnan(merged.column_design_effects("score")).all()
    unrotated = summarize_columns(whole_deal_ties(rng, 50), 2, False, 1).to_json()
    del unrotated["deal_tied_sq_sum"]
    assert CellTotals.from_json(unrotated).tie_design_effect() == 1.0  # every deal is one game
