"""Turn-order facts of a cell (analysis/turn_order.py, issues #24 and #25): taken from the chunk
summaries, recomputed here from the logs game by game, the deal as the unit of the intervals, a
report that reads no logs for them, and a run that predates them."""

import numpy as np
import pandas as pd
import pytest

from simulator.analysis import stats
from simulator.analysis.summary import merged_summaries
from simulator.analysis.tables import analyze_run, summarize_cell
from simulator.analysis.turn_order import turn_order_from_totals, lead_sentence
from simulator.config import parse_experiment
from simulator.logs import unequal_turns
from simulator.plan import build_plan
from simulator.rundir import read_manifest
from simulator.runner import run_plan

DOCUMENT = {
    "name": "turn_order", "seed": 5, "games": 600, "chunk_games": 150,
    "studies": [{"name": "biased", "game": "coin", "rules": {"players": 3, "first_seat_bonus": 0.4}}],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    run_plan(build_plan(parse_experiment(DOCUMENT)), run_dir, "name: turn_order\n", jobs=1, progress=False)
    cell = read_manifest(run_dir)["cells"][0]
    logs = pd.read_parquet(run_dir / "logs")
    logs["unequal_turns"] = unequal_turns(logs[[f"seat_turns_{seat}" for seat in range(3)]].to_numpy())
    return run_dir, cell, logs


def cell_turn_order(run_dir, cell, from_logs=False):
    return turn_order_from_totals(summarize_cell(run_dir, cell, from_logs))


def test_facts_equal_a_game_by_game_count_of_the_logs(run):
    """The coin game records no turn-order facts, so the round-robin default applies
    (logs.with_turn_order): the numbers are those of the logs, seat by seat."""
    run_dir, cell, logs = run
    facts = cell_turn_order(run_dir, cell)
    assert facts.games == len(logs) == 600
    assert facts.unequal_rate == pytest.approx(logs["unequal_turns"].mean())
    assert 0 < facts.unequal_rate < 1
    winners = logs[[f"win_{seat}" for seat in range(3)]].sum(axis=1)
    for seat, row in facts.seats.iterrows():
        assert row["turns"] == pytest.approx(logs[f"seat_turns_{seat}"].mean())
        assert row["decisions"] == pytest.approx(logs[f"decisions_{seat}"].mean())
        assert row["last_mover_rate"] == pytest.approx((logs["last_mover"] == seat).mean())
        assert row["ender_rate"] == pytest.approx((logs["ender"] == seat).mean())
        share = logs[f"win_{seat}"] / winners
        for split, games in (("unequal", logs["unequal_turns"]), ("equal", ~logs["unequal_turns"])):
            assert row[f"games_{split}"] == games.sum()
            assert row[f"win_rate_{split}"] == pytest.approx(share[games].mean())
            assert row[f"win_{split}_low"] < row[f"win_rate_{split}"] < row[f"win_{split}_high"]
    # seat 0 has the bonus in this game whatever the turns: its edge shows in both splits
    first = facts.seats.iloc[0]
    assert first["win_rate_unequal"] > 1 / 3 and first["win_rate_equal"] > 1 / 3


def test_lead_sentence_names_the_unequal_share_and_seat_0s_split(run):
    run_dir, cell, _ = run
    facts = cell_turn_order(run_dir, cell)
    sentence = lead_sentence(facts, 3)
    assert sentence.startswith("The game ended before every seat had its turn of the last round")
    assert stats.percent_text(facts.unequal_rate) in sentence
    assert stats.percent_text(facts.seats.iloc[0]["win_rate_unequal"]) in sentence
    assert sentence.count("[") == 3 and sentence.endswith(".")


def test_the_facts_from_the_logs_equal_those_from_the_summaries(run):
    run_dir, cell, _ = run
    from_summaries, from_logs = cell_turn_order(run_dir, cell), cell_turn_order(run_dir, cell, from_logs=True)
    assert from_logs.unequal_rate == from_summaries.unequal_rate
    pd.testing.assert_frame_equal(from_logs.seats, from_summaries.seats)


def test_a_report_reads_no_logs_for_them(run, monkeypatch):
    """Issue #25: a report built from the summaries opens no Parquet file, the turn-order facts
    included."""
    import pyarrow.parquet as pq

    run_dir, cell, _ = run

    def no_logs(*args, **kwargs):
        raise AssertionError("a Parquet file was read")

    monkeypatch.setattr(pq, "read_table", no_logs)
    analysis = analyze_run(run_dir, read_manifest(run_dir))
    assert analysis.turn_order[cell.index].games == 600


def test_a_run_without_the_facts_has_no_turn_order(run, tmp_path):
    """A chunk summarized before the turn-order facts were kept (a sidecar's summary without
    them), or logs written before their columns existed (here: without `ender`, summarized
    again): None, and the report says so."""
    import pyarrow.parquet as pq

    from simulator.analysis.summary import TURN_ORDER_FIELDS, CellTotals, summarize_columns

    run_dir, cell, _ = run
    totals = merged_summaries(run_dir, cell)
    old_summary = {key: value for key, value in totals.to_json().items() if key not in TURN_ORDER_FIELDS}
    older = merged_summaries(run_dir, cell).merge(CellTotals.from_json(old_summary))
    assert turn_order_from_totals(totals) is not None and turn_order_from_totals(older) is None
    table = next(iter(pq.read_table(path) for path in sorted((run_dir / "logs").glob("*/chunk-*.parquet"))))
    columns = {name: table.column(name).to_numpy() for name in table.column_names if name != "ender"}
    assert turn_order_from_totals(summarize_columns(columns, 3, False, 3)) is None


def test_clustered_interval_is_wilsons_for_independent_games():
    """Deals of one game each: the linearised cluster variance is the binomial one (up to
    D / (D - 1)), so the interval is Wilson's."""
    rng = np.random.default_rng(3)
    wins = (rng.random(2000) < 0.3).astype(float)
    rate, low, high = stats.clustered_rate_interval(wins, np.ones(2000))
    wilson_low, wilson_high = stats.wilson_interval(wins.sum(), 2000)
    assert rate == pytest.approx(wins.mean())
    assert low == pytest.approx(float(wilson_low), abs=2e-4) and high == pytest.approx(float(wilson_high), abs=2e-4)


def test_clustered_interval_widens_when_deals_decide_together():
    """Deals whose games all win or all lose count as one game each, not four."""
    rng = np.random.default_rng(4)
    deal_wins = (rng.random(500) < 0.5).astype(float) * 4
    rate, low, high = stats.clustered_rate_interval(deal_wins, np.full(500, 4.0))
    per_deal_low, per_deal_high = stats.wilson_interval(deal_wins.sum() / 4, 500)
    assert (low, high) == pytest.approx((float(per_deal_low), float(per_deal_high)), abs=2e-3)
    assert np.isnan(stats.clustered_rate_interval(np.zeros(3), np.zeros(3))[0])
