"""New York Zoo's tuning for play (nyz/training.py tune(), issue #23): what `zoosim train nyz`
runs after each round's regression, and benchmarks/train_eval.py after its own. On a tiny
budget it turns zero weights (learned then plays its heuristic's moves, greedy_duel's) into
weights that beat greedy_duel on fresh deals; it is seeded (the same result twice, in a process
of its own: --jobs cannot change it); it plays under the training's rules; given an incumbent
(the best weights so far) its two-player trials play against it."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.errors import ZoosimError
from simulator.games.learned import save_weights
from simulator.games.matches import deal_seeds, head_to_head
from simulator.games.nyz import GAME, training
from simulator.games.nyz.specs import FEATURE_NAMES, SET_MULTI, SET_NAMES

TINY = {"trials": 6, "deals": 20}  # TPE's first trials: the regression's weights and the prior lead


def zero():
    return np.zeros((len(SET_NAMES), len(FEATURE_NAMES))), np.zeros(len(SET_NAMES))


def test_tuning_zero_weights_beats_the_heuristic_on_fresh_deals(tmp_path):
    weights, intercepts = zero()
    tuned, records = training.tune(weights, intercepts, {}, seed=3, **TINY)
    multi = records[SET_NAMES[SET_MULTI]]
    assert 0.4 < multi["regression_score"] < 0.6  # zero weights play (nearly) greedy_duel's moves
    assert multi["best_score"] > 0.6
    for record in records.values():
        assert record["trials"] == TINY["trials"] and record["best_score"] >= record["regression_score"]
    path = tmp_path / "tuned.npz"
    save_weights(path, tuned, intercepts, training.TRIAL_CARD)
    fresh = deal_seeds(2026_12_02, 60)  # not the tuning's deals (deal_seeds(seed + 100 x set))
    assert head_to_head(GAME, ("learned", {"weights": str(path)}), ("greedy_duel", {}), fresh) > 0.6


def test_tuning_is_seeded_and_plays_the_given_rules():
    weights, intercepts = zero()
    first = training.tune(weights, intercepts, {}, seed=4, trials=3, deals=10)
    again = training.tune(weights, intercepts, {}, seed=4, trials=3, deals=10)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert not np.array_equal(first[0], training.tune(weights, intercepts, {}, seed=5, trials=3, deals=10)[0])
    with pytest.raises(ZoosimError, match="animal_supply"):  # the trials' games are made with the rules
        training.tune(weights, intercepts, {"animal_supply": "scarce"}, seed=4, trials=3, deals=10)


def test_an_incumbent_is_the_multi_opponent_and_a_start_of_each_search(tmp_path):
    """`zoosim train` tunes against the best weights so far: against greedy_duel the score of
    tuned weights saturates near 100% and stops telling good weights from better ones."""
    weights, intercepts = zero()
    incumbent = weights.copy()
    incumbent[SET_MULTI, FEATURE_NAMES.index("fill_share")] = 3.0
    path = tmp_path / "incumbent.npz"
    save_weights(path, incumbent, intercepts, training.TRIAL_CARD)
    _, records = training.tune(weights, intercepts, {}, seed=4, trials=3, deals=10, incumbent=str(path))
    multi = records[SET_NAMES[SET_MULTI]]
    assert multi["objective"] == "win share against learned with the incumbent weights"
    assert multi["incumbent_score"] == 0.5  # the incumbent against itself, both seat orders of each deal
    assert records[SET_NAMES[0]]["objective"] == "solo win rate" and "incumbent_score" in records[SET_NAMES[0]]


def test_the_tuning_plays_the_gate_policy(tmp_path):
    """`zoosim train nyz --gate-policy strong` tunes the weights for `strong`'s play: its multi
    set's trials are strong against strong with the incumbent; solo trials stay learned's."""
    weights, intercepts = zero()
    incumbent = weights.copy()
    incumbent[SET_MULTI, FEATURE_NAMES.index("fill_share")] = 3.0
    path = tmp_path / "incumbent.npz"
    save_weights(path, incumbent, intercepts, training.TRIAL_CARD)
    _, records = training.tune(weights, intercepts, {}, seed=4, trials=3, deals=6, incumbent=str(path),
                               policy="strong")
    multi = records[SET_NAMES[SET_MULTI]]
    assert multi["objective"] == "win share against strong with the incumbent weights, strong playing"
    assert multi["incumbent_score"] == 0.5  # strong on the incumbent against itself
    assert records[SET_NAMES[0]]["objective"] == "solo win rate"
    zero_file = tmp_path / "zero.npz"
    save_weights(zero_file, weights, intercepts, training.TRIAL_CARD)
    deals = deal_seeds(4 + 100 * SET_MULTI, 6)  # the multi set's tuning deals
    assert multi["regression_score"] == head_to_head(GAME, ("strong", {"weights": str(zero_file)}),
                                                     ("strong", {"weights": str(path)}), deals)
