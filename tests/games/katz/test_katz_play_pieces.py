"""Katz play_batch plays in pieces of play.PIECE_GAMES games into per-thread buffers (issue #25:
a fresh int64 pair per batch cost page faults and unmapping in every thread): the pieces are
invisible in the records, and the buffers are reused within a thread and never shared between
threads."""

from __future__ import annotations

import threading

import numpy as np

from simulator.games.katz import GAME
from simulator.games.katz import play
from katz_helpers import make_params


def _batch(players: int, seeds: np.ndarray, rotations: np.ndarray, policy: str, **knobs) -> dict[str, np.ndarray]:
    params = make_params(players=players, **knobs)
    seats = GAME.seat_policies([(policy, {})] * players)
    return GAME.play_batch(params, seats, seeds, rotations)


def test_a_batch_across_piece_boundaries_has_the_records_of_its_games_one_by_one(monkeypatch):
    seeds = np.arange(1_000, 1_023, dtype=np.uint64)
    monkeypatch.setattr(play, "PIECE_GAMES", 5)  # 23 games: four whole pieces and a part
    rotations = np.arange(len(seeds)) % 3
    knobs = {"seat_bonus_points": [0, 0.5, 0]}  # a half point: float scores
    whole = _batch(3, seeds, rotations, "greedy", **knobs)
    one_by_one = [_batch(3, seeds[index:index + 1], rotations[index:index + 1], "greedy", **knobs)
                  for index in range(len(seeds))]
    assert list(whole) == list(play.RECORDS.game) + list(play.RECORDS.seat)
    for name, values in whole.items():
        assert values.dtype == one_by_one[0][name].dtype, name
        np.testing.assert_array_equal(values, np.concatenate([part[name] for part in one_by_one]), err_msg=name)


def test_the_piece_buffers_are_kept_per_thread():
    first = play.piece_buffers(100, 4)
    again = play.piece_buffers(play.PIECE_GAMES, 4)
    assert np.shares_memory(first[0], again[0]) and np.shares_memory(first[1], again[1])
    assert again[1].shape == (len(play.RECORDS.seat), play.PIECE_GAMES, 4)
    other = []
    thread = threading.Thread(target=lambda: other.append(play.piece_buffers(100, 4)))
    thread.start()
    thread.join()
    assert not np.shares_memory(first[0], other[0][0]) and not np.shares_memory(first[1], other[0][1])
