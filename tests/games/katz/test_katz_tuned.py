"""Katz `greedy_tuned` (issue #9: greedy's weights tuned by benchmarks/tune_heuristics.py): it is
registered, documented by `zoosim rules katz`, plays greedy's kernel with other weights, and
keeps every invariant in checked mode (T17, K-10.17)."""

import numpy as np
import pytest
from click.testing import CliRunner

from katz_helpers import make_params, seeds
from simulator.cli import main
from simulator.games.katz import GAME, play
from simulator.games.katz import state as S


def test_tuned_preset_is_greedy_with_its_own_weights_and_documented():
    tuned, greedy = GAME.policies["greedy_tuned"], GAME.policies["greedy"]
    assert tuned.policy_id == greedy.policy_id and list(tuned.params) == list(greedy.params)
    assert tuned.params != greedy.params
    result = CliRunner().invoke(main, ["rules", "katz"])
    assert result.exit_code == 0 and "\ngreedy_tuned: " in result.output


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_tuned_preset_keeps_every_invariant(players):
    games = 2000
    params = make_params(players=players)
    seating = GAME.seat_policies([("greedy_tuned" if i % 2 == 0 else "greedy", {}) for i in range(players)])
    rotations = (np.arange(games) % players).astype(np.int8)
    columns = play.play_batch(params, seating, seeds(games, 77 * players), rotations, check=True)
    violations = columns["check_violations"]
    assert violations.sum() == 0, S.VIOLATION_NAMES[int(columns["first_violation"][violations > 0][0])]
