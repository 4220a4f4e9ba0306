"""Conformance of every registered game to the game contract (simulator/games/base.py; issue 8),
through the conformance kit plugin authors run on their own games (simulator/testing.py, issue
#40 item 3): every check of the kit on every game.

Parametrised over the registry's game names, so an installed plugin is covered automatically.
The example plugins (examples/: `feeding`, `tictactoe`) are registered from their source folders
when they are not installed, so this test always runs on them. Batches stay small: the numba
games compile once per machine and are fast after that.
"""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import simulator.games as registry
from simulator import testing
from simulator.cli import main
from simulator.games.base import InvariantViolation
from tests_support import EXAMPLE_PLUGINS, log_digests

GAMES = tuple(dict.fromkeys(registry.game_names() + tuple(EXAMPLE_PLUGINS)))
pytestmark = pytest.mark.usefixtures("example_plugins")


@pytest.mark.parametrize("check", testing.CHECKS, ids=lambda check: check.__name__.removeprefix("check_"))
@pytest.mark.parametrize("name", GAMES)
def test_the_game_passes_the_conformance_kit(name, check):
    reason = check(name)
    if reason is not None:  # only a check the contract makes optional returns one (no step API)
        pytest.skip(f"{name}: {reason}")


# ---- the example plugin through the CLI (rules F-1..F-6: examples/zoosim-feeding-time/RULES.md) ----

def test_feeding_rules_list_its_knobs_with_rule_ids():
    result = CliRunner().invoke(main, ["rules", "feeding"])
    assert result.exit_code == 0, result.output
    assert "target = 12   [F-5]" in result.output
    assert "favourite_double = true   [F-3]" in result.output
    assert "greedy (default)" in result.output


def test_feeding_runs_an_experiment_and_plays_a_traced_game(write_experiment, tmp_path):
    experiment = write_experiment("name: feed\nseed: 3\ngames: 40\nstudies:\n  - game: feeding\n"
                                  "    rules: {players: 3, target: 8}\n    seats: [greedy, random, random]\n")
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(tmp_path / "run"), "--jobs", "1",
                                       "--no-report", "--quiet", "--check"])
    assert result.exit_code == 0, result.output + result.stderr
    assert log_digests(tmp_path / "run")
    played = CliRunner().invoke(main, ["play", "feeding", "--seed", "4"])
    assert played.exit_code == 0 and "feeds" in played.output and "winners: seat" in played.output


def test_feeding_checked_mode_reports_a_broken_invariant():
    """F-6: a score that does not match the cards fed is caught by `apply` in checked mode."""
    game = registry.get_game("feeding")
    state = game.steps.new_game(game.make_params(), None, seed=1, check=True)
    state.score[0] += 1
    with pytest.raises(InvariantViolation, match="score_mismatch"):
        game.steps.apply(state, 0)


def test_feeding_favourites_score_double_and_the_first_seat_has_an_edge():
    """F-3: a favourite card scores double (off with favourite_double=false); F-2/F-5: seat 0
    moves first and wins more than its share between equal greedy players."""
    game = registry.get_game("feeding")
    steps = game.steps
    for double, factor in ((True, 2), (False, 1)):
        state = steps.new_game(game.make_params({"favourite_double": double}), None, seed=2)
        card = state.row[0]
        favourite = int(state.favourite[0]) == card // 3
        steps.apply(state, 0)
        assert state.score[0] == (card % 3 + 1) * (factor if favourite else 1)
    params = game.make_params({"players": 2})
    greedy = game.seat_policies([("greedy", {})] * 2)
    seeds = np.arange(2000, dtype=np.uint64)
    wins = game.play_batch(params, greedy, seeds, (seeds % 2).astype(np.int8))["win"]
    assert wins[:, 0].mean() > wins[:, 1].mean() + 0.05
