"""Precision mode: chunks are added until every seat's anytime-valid interval is narrow enough."""

import numpy as np

from simulator.analysis.summary import precision_halfwidth
from simulator.analysis.tables import analyze_run, summarize_cell
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.rundir import read_manifest
from simulator.runner import run_experiment


def precision_plan(halfwidth, maximum):
    document = {
        "seed": 9, "chunk_games": 500,
        "games": {"until": {"halfwidth": halfwidth}, "max": maximum, "start": 1000},
        "studies": [{"game": "coin", "rules": {"players": 2}}],
    }
    return build_plan(parse_experiment(document))


def test_precision_mode_stops_once_the_target_is_met(tmp_path):
    plan = precision_plan(0.03, 100_000)
    summary = run_experiment(plan, tmp_path, "", jobs=1, progress=False)
    cell = read_manifest(tmp_path)["cells"][0]
    totals = summarize_cell(tmp_path, cell)
    target = {"until": {"halfwidth": 0.03}, "max": 100_000}
    assert totals.games == cell["games"] == summary.games_played
    assert precision_halfwidth(totals.share_sum, totals.games, target) <= 0.03
    # One round fewer (half the games) would not have been enough: it did not overshoot.
    half = totals.games // 2
    assert precision_halfwidth(totals.share_sum * half / totals.games, half, target) > 0.03
    row = analyze_run(tmp_path, read_manifest(tmp_path)).cells.iloc[0]
    assert row["reached_halfwidth"] <= row["target_halfwidth"] == 0.03


def test_precision_mode_respects_its_cap(tmp_path):
    plan = precision_plan(0.001, 3000)
    run_experiment(plan, tmp_path, "", jobs=1, progress=False)
    assert read_manifest(tmp_path)["cells"][0]["games"] == 3000


def test_precision_runs_are_deterministic(tmp_path):
    for name in ("a", "b"):
        run_experiment(precision_plan(0.04, 50_000), tmp_path / name, "", jobs=1, progress=False)
    tables = [analyze_run(tmp_path / n, read_manifest(tmp_path / n)).seats for n in ("a", "b")]
    assert np.array_equal(tables[0]["win_rate"], tables[1]["win_rate"])
