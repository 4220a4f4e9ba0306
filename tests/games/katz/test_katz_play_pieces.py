"""Katz play_batch plays in pieces of play.PIECE_GAMES games into per-thread buffers (issue #25:
a fresh int64 pair per batch cost page faults and unmapping in every thread): the pieces are
invisible in the records, and the buffers are reused within a thread and never shared between
threads. A batch where every seat plays random plays a kernel specialised without the heuristics,
and the same games."""

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


def test_a_random_batch_plays_a_kernel_without_the_heuristics_and_the_same_games():
    """Issue #25: a batch where every seat plays random passes no policy workspace
    (play.policy_workspace is None), so its kernels compile without the heuristics; any other
    seating passes one. The random-only kernel plays the games the general one plays with the
    same seats, record for record."""
    import inspect

    from numba import types

    from simulator.games.katz.moves import card_table
    from simulator.games.katz.params import deck_cards, rule_array

    params = make_params(players=3)
    rules, cards, deck = rule_array(params), card_table(params), deck_cards(params)
    randoms = GAME.seat_policies([("random", {})] * 3)
    mixed = GAME.seat_policies([("random", {}), ("greedy", {}), ("random", {})])
    assert play.policy_workspace(rules, np.asarray(randoms.policy_ids)) is None
    assert play.policy_workspace(rules, np.asarray(mixed.policy_ids)) is not None

    seeds, rotations = np.arange(40, dtype=np.uint64) * np.uint64(7919), np.arange(40) % 3
    policy_ids = np.asarray(randoms.policy_ids, dtype=np.int64)
    policy_params = np.asarray(randoms.policy_params, dtype=np.float64)
    column_scalars = np.asarray(play.GAME_COLUMN_SCALARS, dtype=np.int64)
    outputs = []
    for workspace in (None, play.P.allocate_workspace(rules)):
        game_out = np.zeros((len(seeds), len(play.RECORDS.game)), dtype=np.int64)
        seat_out = np.zeros((len(play.RECORDS.seat), len(seeds), 3), dtype=np.int64)
        play.play_games(rules, cards, deck, policy_ids, policy_params, workspace, None, seeds,
                        rotations, None, column_scalars, game_out, seat_out)
        outputs.append((game_out, seat_out))
    np.testing.assert_array_equal(outputs[0][0], outputs[1][0])
    np.testing.assert_array_equal(outputs[0][1], outputs[1][1])
    position = list(inspect.signature(play.play_games.py_func).parameters).index("workspace")
    assert {isinstance(signature[position], types.NoneType) for signature in play.play_games.signatures} == {True, False}


def test_a_rule_sets_tables_are_built_once_and_are_those_of_its_params(monkeypatch):
    """play_batch reads the rule array, card table and deck of its rule set from play.rule_tables,
    built on the first batch of a rule set, not on every call; another rule set gets its own."""
    from simulator.games.katz.moves import card_table
    from simulator.games.katz.params import deck_cards, rule_array

    built = []
    monkeypatch.setattr(play, "_rule_tables", {})
    monkeypatch.setattr(play, "rule_array", lambda params: built.append(params) or rule_array(params))
    box, bonus = make_params(players=3), make_params(players=3, seat_bonus_points=[0, 0.5, 0])
    seeds, rotations = np.arange(5, dtype=np.uint64), np.zeros(5, dtype=np.int64)
    for params in (box, box, make_params(players=3), bonus, bonus):
        GAME.play_batch(params, GAME.seat_policies([("random", {})] * 3), seeds, rotations)
    assert len(built) == 2  # once for the box rules (equal params are one rule set), once for the bonus
    for params in (box, bonus):
        tables = play.rule_tables(params)
        expected = (rule_array(params), card_table(params), deck_cards(params))
        assert all(np.array_equal(table, fresh) and table.dtype == fresh.dtype for table, fresh in zip(tables, expected))
    assert not np.array_equal(play.rule_tables(box)[0], play.rule_tables(bonus)[0])
