"""Progress while chunks are in play (runner.py, progress.py): sub-batches play the very games
one batch plays, workers note their progress, and the parent's bar counts it."""

import numpy as np
import pytest

from simulator import progress, runner
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.progress import ProgressBar
from simulator.runner import play_in_sub_batches, run_plan
from tests_support import log_digests

DOCUMENT = {
    "name": "batches", "seed": 21, "games": 300, "chunk_games": 150,
    "studies": [{"game": "katz", "rules": {"players": 4}, "seats": ["random"]},
                {"game": "katz", "rules": {"players": 3}, "seats": ["greedy", "random", "expectimax"]},
                {"game": "nyz", "rules": {"players": 2}, "games": 60}],
}


def test_sub_batches_of_one_deal_write_the_same_logs_as_one_batch(tmp_path, monkeypatch):
    plan = build_plan(parse_experiment(DOCUMENT))
    monkeypatch.setattr(runner, "FIRST_SUB_BATCH_GAMES", 10**9)
    run_plan(plan, tmp_path / "whole", "", jobs=1, progress=False)
    monkeypatch.setattr(runner, "FIRST_SUB_BATCH_GAMES", 1)
    monkeypatch.setattr(runner, "SUB_BATCH_SECONDS", 0.0)  # never grows: one deal at a time
    run_plan(plan, tmp_path / "pieces", "", jobs=2, backend="threading", progress=False)
    assert log_digests(tmp_path / "pieces") == log_digests(tmp_path / "whole")
    assert len(log_digests(tmp_path / "whole")) == len(plan.chunks()) == 6


def test_a_worker_notes_its_progress_after_every_sub_batch_and_removes_the_note(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "SUB_BATCH_SECONDS", 0.0)
    note = tmp_path / ".chunk-000000.progress"
    seen = []

    def play(seeds, rotations):
        seen.append(int(note.read_text()) if note.exists() else 0)
        return {"score": seeds[:, None] * 2, "turns": rotations.copy()}

    seeds = np.arange(200, dtype=np.uint64)
    rotations = np.tile(np.arange(2, dtype=np.int8), 100)
    columns = play_in_sub_batches(play, seeds, rotations, 2, note)
    assert seen == [0] + list(range(64, 200, 2))  # 64 games first, then (too slow for 0 s) one deal each
    assert np.array_equal(columns["score"][:, 0], seeds * 2) and np.array_equal(columns["turns"], rotations)
    assert not note.exists()


def test_the_bar_counts_finished_chunks_and_games_in_play(tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "POLL_SECONDS", 0.01)
    folder = tmp_path / "logs" / "cell=0002"
    folder.mkdir(parents=True)
    bar = ProgressBar(tmp_path, total=10_000, finished=1_000, description="t", enabled=True)
    (folder / ".chunk-000001.progress").write_text("1500")
    (folder / ".chunk-000004.progress").write_text("")  # being rewritten right now
    bar.chunk_done(2_000)
    import time

    deadline = time.monotonic() + 5
    while bar.bar.n != 4_500:
        assert time.monotonic() < deadline, bar.bar.n
        time.sleep(0.01)
    (folder / ".chunk-000001.progress").unlink()
    bar.close()
    assert bar.bar.n == 4_500  # never counts backwards
