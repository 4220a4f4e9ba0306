"""The trajectory sample (simulator/trajectories.py, issue #43): each cell's first
`trajectory_deals` deals replayed round by round into RUN_DIR/trajectories/, identical for any
job count and backend, kept by a resume (only a missing or stale file is replayed), free for a
cell that asks for none, and matching the games the chunks recorded."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from simulator.analysis.gameplay import cell_games
from simulator.config import parse_experiment
from simulator.plan import build_plan, trajectory_sample
from simulator.rundir import TRAJECTORIES_DIR, chunk_path, read_manifest, read_trajectories, trajectory_path
from simulator.runner import run_plan

DOCUMENT = {
    "name": "katz_trajectories",
    "seed": 3,
    "games": 48,
    "chunk_games": 20,
    "trajectory_deals": 7,
    "studies": [{"game": "katz", "seats": ["greedy"], "sweep": {"players": [2, 3]}}],
}


def make_plan(**overrides):
    return build_plan(parse_experiment({**DOCUMENT, **overrides}))


def run(plan, out, **options):
    return run_plan(plan, out, "experiment text", progress=False, **options)


def digests(run_dir: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted((run_dir / TRAJECTORIES_DIR).glob("*.parquet"))}


@pytest.fixture(scope="module")
def one_job(tmp_path_factory):
    out = tmp_path_factory.mktemp("trajectories") / "one"
    run(make_plan(), out, jobs=1)
    return out


def test_every_cell_keeps_the_per_round_scores_of_its_first_deals(one_job):
    manifest = read_manifest(one_job)
    for cell in manifest["cells"]:
        table = read_trajectories(one_job, cell)
        games_per_deal = cell.players  # Katz deals travel with the slot: every rotation is played
        starts = np.flatnonzero(table.column("round").to_numpy() == 1)
        assert len(starts) == 7 * games_per_deal
        assert sorted(set(table.column("deal").to_numpy().tolist())) == list(range(7))


def test_the_replays_are_the_recorded_games(one_job):
    # the last round of each replayed game is its recorded final score, its rounds the recorded rounds
    manifest = read_manifest(one_job)
    cell = manifest["cells"][1]
    games = cell_games(one_job, cell)
    records = pd.concat(pq.read_table(chunk_path(one_job, cell.index, chunk)).to_pandas() for chunk in range(2))
    assert cell.chunk_deals < 7  # the sample reaches into the second chunk
    sample = games.trajectories
    for index in range(sample.games):
        deal, rotation = int(sample.deal[index]), index % cell.players
        row = records[(records["deal"] == deal) & (records["rotation"] == rotation)].iloc[0]
        assert sample.rounds[index] == row["rounds"]
        assert sample.scores[index, -1].tolist() == [row[f"score_{seat}"] for seat in range(cell.players)]
        assert sample.win[index].tolist() == [row[f"win_{seat}"] for seat in range(cell.players)]


def test_two_threads_and_two_processes_replay_byte_identical_samples(one_job, tmp_path):
    plan = make_plan()
    run(plan, tmp_path / "threads", jobs=2, backend="threading")
    run(plan, tmp_path / "processes", jobs=2, backend="loky")
    assert len(digests(one_job)) == 2
    assert digests(tmp_path / "threads") == digests(one_job) == digests(tmp_path / "processes")


def test_a_resume_replays_only_a_missing_sample_and_plays_nothing_finished(one_job, tmp_path):
    plan = make_plan()
    out = tmp_path / "resumed"
    run(plan, out, jobs=1)
    kept = trajectory_path(out, 0).stat().st_mtime_ns
    trajectory_path(out, 1).unlink()  # as if the run had been killed while replaying it
    (out / TRAJECTORIES_DIR / ".cell=0001.parquet.123.tmp").write_bytes(b"half")
    summary = run(plan, out, jobs=1, resume=True)
    assert summary.games_played == 0
    assert trajectory_path(out, 0).stat().st_mtime_ns == kept
    assert digests(out) == digests(one_job)
    assert not list(out.rglob("*.tmp"))


def test_another_sample_size_keeps_the_run_and_replays_only_the_samples(one_job, tmp_path):
    out = tmp_path / "grown"
    run(make_plan(), out, jobs=1)
    bigger = make_plan(trajectory_deals=9)
    assert bigger.run_hash == make_plan().run_hash  # the sample changes no game
    summary = run(bigger, out, jobs=1, resume=True)
    assert summary.games_played == 0
    manifest = read_manifest(out)
    sample = cell_games(out, manifest["cells"][0]).trajectories
    assert sample.deals == 9


def test_a_cell_that_asks_for_no_sample_replays_nothing(tmp_path):
    out = tmp_path / "none"
    run(make_plan(trajectory_deals=0), out, jobs=1)
    assert not (out / TRAJECTORIES_DIR).exists()
    manifest = read_manifest(out)
    assert all(cell.trajectory_deals == 0 for cell in manifest["cells"])
    assert cell_games(out, manifest["cells"][0]).trajectories is None


def test_a_file_of_another_sample_is_never_read(one_job, tmp_path):
    manifest = read_manifest(one_job)
    cell = manifest["cells"][0].model_copy(update={"trajectory_deals": 5})
    assert read_trajectories(one_job, cell) is None
    assert read_trajectories(one_job, manifest["cells"][0]) is not None


def test_auto_samples_one_deal_in_500_up_to_500_and_a_number_is_capped_by_the_cell():
    assert [trajectory_sample("auto", deals) for deals in (499, 500, 100_000, 10_000_000)] == [0, 1, 200, 500]
    assert trajectory_sample(7, 5) == 5 and trajectory_sample(0, 10_000) == 0
    quick_start = build_plan(parse_experiment({**DOCUMENT, "games": 250_000, "trajectory_deals": "auto"}))
    assert [cell.trajectory_deals for cell in quick_start.cells] == [250, 166]  # 125,000 and 83,334 deals


def test_a_game_without_a_per_round_score_has_no_sample():
    plan = build_plan(parse_experiment({"name": "coin", "games": 100, "trajectory_deals": 5,
                                        "studies": [{"game": "coin", "rules": {"players": 2}}]}))
    assert plan.cells[0].trajectory_deals == 0


def test_open_run_gives_the_trajectory_figures_of_every_cell_with_the_sample_size(one_job):
    import simulator

    rows = simulator.open_run(one_job).gameplay()
    leads = rows[rows["figure"] == "lead_change"].groupby("cell")
    assert sorted(leads.groups) == [0, 1]
    for cell, frame in leads:
        assert set(frame["deals"]) == {7} and set(frame["games"]) == {7 * (2 + cell)}
        assert (frame["low"] <= frame["estimate"]).all() and (frame["estimate"] <= frame["high"]).all()
    assert {"halfway_leader", "comeback", "decisiveness"} <= set(rows["figure"])


def test_the_report_draws_the_how_the_game_plays_charts_of_each_cell(tmp_path):
    """With a sample of the deals the report shows (at least MIN_SHOWN_SAMPLE_DEALS; 96 games are
    48 deals at 2 players, 32 at 3)."""
    from simulator.report.build import MIN_SHOWN_SAMPLE_DEALS, build_report

    run(make_plan(games=96, chunk_games=48, trajectory_deals=MIN_SHOWN_SAMPLE_DEALS), tmp_path, jobs=1)
    report, _ = build_report(tmp_path)
    html = report.read_text(encoding="utf-8")
    sections = html.split('<details class="gameplay">')[1:]
    assert len(sections) == 2
    for section in sections:
        section = section.split("</details>")[0]
        for title in ("Lead changes per game", "Comeback chance by deficit at halfway",
                      "Component strength, strongest first"):
            assert f">{title}</text>" in section, title
        # the length chart: of turns, or of rounds where every game takes the same turns
        assert ">turns per game</text>" in section or ">rounds per game</text>" in section
        assert "sampled deals" in section
        assert "per-round score: the running score" in section  # Katz's Game.round_score_meaning


def test_a_study_sets_its_own_trajectory_sample_and_the_run_stays_the_same_run():
    """The quick start replays one deal in 500 (`auto`): Katz's cells get 500 deals, New York Zoo's
    2,000 games get 4, too few for the report to show. A study's own `trajectory_deals` sets its
    cells' sample; like the experiment's, it changes no game, so the run's hash and cells' seeds
    stay those of the run without it."""
    document = {**DOCUMENT, "games": 96, "studies": [
        {"game": "katz", "seats": ["greedy"], "rules": {"players": 2}},
        {"game": "katz", "seats": ["greedy"], "rules": {"players": 3}, "trajectory_deals": 30}]}
    plan = build_plan(parse_experiment(document))
    assert [cell.trajectory_deals for cell in plan.cells] == [7, 30]
    without = build_plan(parse_experiment({**document, "studies": [{**study, "trajectory_deals": None}
                                                                    for study in document["studies"]]}))
    assert without.run_hash == plan.run_hash
    assert [cell.seed_entropy for cell in without.cells] == [cell.seed_entropy for cell in plan.cells]
    auto = build_plan(parse_experiment({**document, "studies": [document["studies"][0], {
        **document["studies"][1], "trajectory_deals": "auto"}]}))
    assert auto.cells[1].trajectory_deals == 0  # 32 deals: auto replays one in 500
