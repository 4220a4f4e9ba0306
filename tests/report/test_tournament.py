"""Heuristic tournaments: a pool seated round-robin, strengths rated, seat x policy shown."""

import numpy as np

from simulator.analysis.tables import analyze_run
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import build_report
from simulator.rundir import read_manifest
from simulator.runner import run_plan


def test_round_robin_pool_makes_one_cell_per_combination():
    document = {"studies": [{"game": "coin", "rules": {"players": 2}, "pool": ["fair", "lucky", {"policy": "lucky", "params": {"luck": 2}}]}]}
    plan = build_plan(parse_experiment(document))
    assert [cell.seat_labels for cell in plan.cells] == [
        ["fair", "lucky"], ["fair", "lucky(luck=2)"], ["lucky", "lucky(luck=2)"]
    ]
    assert all(cell.rotate for cell in plan.cells)
    document["studies"][0]["pool_format"] = "permutations"
    assert len(build_plan(parse_experiment(document)).cells) == 6


def test_tournament_report_rates_every_policy(tmp_path):
    document = {"name": "t", "seed": 3, "games": 2000,
                "studies": [{"name": "pool", "game": "coin", "rules": {"players": 2, "first_seat_bonus": 0.3},
                             "pool": ["fair", "lucky", {"policy": "lucky", "params": {"luck": 2}}]}]}
    run_plan(build_plan(parse_experiment(document)), tmp_path, "", jobs=1, progress=False)
    analysis = analyze_run(tmp_path, read_manifest(tmp_path))
    ratings = analysis.ratings.set_index("policy")
    assert list(ratings.index) == ["fair", "lucky", "lucky(luck=2)"]
    # The coin game ignores policies: every policy is equally strong, and the first seat helps all.
    assert np.allclose(ratings["elo"].sum(), 0, atol=1e-6)
    assert (ratings["elo_low"] < 0).all() and (ratings["elo_high"] > 0).all()
    assert (ratings["first_seat_advantage_points"] > 5).all()
    assert np.allclose(ratings["games"], 2 * 2000)
    path, _ = build_report(tmp_path)
    text = path.read_text()
    assert "Heuristic strength" in text and "ratings-pool" in text
