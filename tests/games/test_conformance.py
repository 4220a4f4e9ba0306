"""Conformance of every registered game to the game contract (simulator/games/base.py; issue 8).

Parametrised over the registry's game names, so an installed plugin is covered automatically.
The example plugin `feeding` (examples/zoosim-feeding-time/) is registered from its source
folder when it is not installed, so this test always runs on it. Batches stay small: the numba
games compile once per machine and are fast after that.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import simulator.games as registry
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.games.base import InvariantViolation, StepAPI, batch_problem, check_columns, contract_problem, game_legend
from simulator.logs import unequal_turns, with_turn_order
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import log_digests

FEEDING_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "zoosim-feeding-time"
GAMES = tuple(dict.fromkeys(registry.game_names() + ("feeding",)))


@pytest.fixture(scope="module", autouse=True)
def feeding_registered():
    """The example plugin, from its source folder when it is not installed."""
    if "feeding" in registry.game_names():
        yield
        return
    import sys

    sys.path.insert(0, str(FEEDING_SOURCE))
    registry.register_game("feeding", "zoosim_feeding:GAME")
    try:
        yield
    finally:
        registry.unregister_game("feeding")
        sys.path.remove(str(FEEDING_SOURCE))


def _seating(game, players):
    """Slot 0 plays the default policy, the others another policy where the game has one."""
    other = next((name for name in game.policies if name != game.default_policy), game.default_policy)
    return game.seat_policies([(game.default_policy, {})] + [(other, {})] * (players - 1))


def _batch(game, games, check=False, rotation=None, seating=None):
    params = game.make_params()
    players = game.players(params)
    seating = seating or _seating(game, players)
    seeds = np.arange(1000, 1000 + games, dtype=np.uint64)
    rotations = (np.arange(games) % players if rotation is None else np.full(games, rotation)).astype(np.int8)
    return params, players, seating, seeds, rotations, game.play_batch(params, seating, seeds, rotations, check=check)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_keep_the_contract(name):
    game = registry.get_game(name)
    _, players, _, _, _, columns = _batch(game, 40)
    check_columns(game, columns, 40, players)
    assert columns["win"].dtype == bool
    for column in ("turns", "rounds", "end_reason"):
        assert np.issubdtype(columns[column].dtype, np.integer), column
    assert set(np.unique(columns["end_reason"])) <= set(range(len(game.end_reasons)))
    assert np.issubdtype(columns["score"].dtype, np.number) and np.isfinite(columns["score"]).all()
    assert (columns["win"].sum(axis=1) >= 1).all()  # every game has a winner (ties share)
    assert (columns["turns"] >= 1).all() and (columns["rounds"] >= 1).all()


@pytest.mark.parametrize("name", GAMES)
def test_the_game_keeps_what_every_command_relies_on(name):
    """What the registry checks when it loads a game (base.contract_problem: presets, policies,
    default rules, players(), legend()), what is checked where it is called (a deferred legend
    and trace give text; a checked batch has every column with its shape and dtype,
    base.batch_problem) and the game's own commands, which end without an error."""
    game = registry.get_game(name)  # a break of the contract is one line here, naming the package
    assert contract_problem(game) is None
    params = game.make_params()
    if game.legend is not None:
        assert game_legend(game, params)
    _, players, seating, seeds, rotations, columns = _batch(game, 7, check=True)
    assert batch_problem(game, columns, 7, players, check=True) is None
    assert isinstance(game.trace(params, seating, int(seeds[0]), int(rotations[0])), str)
    for command in (["rules", name], ["play", name, "--seed", "1"], ["play", "--help"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0 and f"{name}: unusable" not in result.output, (command, result.output, result.stderr)


@pytest.mark.parametrize("name", GAMES)
def test_checked_mode_finds_no_violation_in_random_games(name):
    game = registry.get_game(name)
    _, _, _, _, _, columns = _batch(game, 300, check=True)
    assert columns["check_violations"].shape == (300,) and columns["first_violation"].shape == (300,)
    assert columns["check_violations"].sum() == 0
    assert (columns["first_violation"] == 0).all()


def _assert_a_batch_plays_the_games_of_its_parts(game, games, split, seating=None, label=""):
    params, _, seating, seeds, rotations, whole = _batch(game, games, seating=seating)
    first = game.play_batch(params, seating, seeds[:split], rotations[:split])
    second = game.play_batch(params, seating, seeds[split:], rotations[split:])
    for column, values in whole.items():
        assert np.array_equal(values, np.concatenate([first[column], second[column]])), (label, column)


@pytest.mark.parametrize("name", GAMES)
def test_a_batch_plays_the_games_of_its_halves(name):
    _assert_a_batch_plays_the_games_of_its_parts(registry.get_game(name), 30, 13)


# Search policies at a few iterations: the same code paths, a fraction of the time.
CHEAP = {"iterations": 8}


@pytest.mark.parametrize("name", GAMES)
def test_every_policy_plays_each_game_alike_in_any_batch(name):
    """What makes logs identical for any --jobs, backend and resume: a game's result depends on
    its seed and rotation only, never on the other games of its batch (search trees, scratch
    states and random streams are per game). Every policy of every game, plugins included."""
    game = registry.get_game(name)
    players = game.players(game.make_params())
    for policy, spec in game.policies.items():
        params = {key: value for key, value in CHEAP.items() if key in spec.params}
        seating = game.seat_policies([(policy, params)] * players)
        _assert_a_batch_plays_the_games_of_its_parts(game, 12, 5, seating=seating, label=policy)


@pytest.mark.parametrize("name", GAMES)
def test_logs_are_identical_for_any_number_of_jobs(name, tmp_path):
    plan = build_plan(parse_experiment({"name": "conformance", "seed": 5, "games": 24, "chunk_games": 6,
                                        "studies": [{"game": name}]}))
    run_plan(plan, tmp_path / "one", "", jobs=1, progress=False)
    run_plan(plan, tmp_path / "two", "", jobs=2, backend="threading", progress=False)
    assert log_digests(tmp_path / "one") == log_digests(tmp_path / "two")
    assert len(log_digests(tmp_path / "one")) == len(plan.chunks()) >= 2


@pytest.mark.parametrize("name", GAMES)
def test_rotation_seats_slot_j_in_seat_j_plus_r(name):
    """Rotation r puts slot j in seat (j + r) % n. When only seats differ (no deal travels with a
    slot), seating slot j's policy directly in seat (j + r) % n at rotation 0 is the same game;
    when the deal travels with the slot, rotating identical policies still changes the game."""
    game = registry.get_game(name)
    params = game.make_params()
    players = game.players(params)
    for rotation in range(1, players):
        _, _, seating, seeds, rotations, rotated = _batch(game, 12, rotation=rotation)
        if game.deal_travels_with_slot:
            same = game.seat_policies([(game.default_policy, {})] * players)
            at_zero = game.play_batch(params, same, seeds, np.zeros_like(rotations))
            moved = game.play_batch(params, same, seeds, rotations)
            assert any(not np.array_equal(at_zero[c], moved[c]) for c in at_zero), rotation
            continue
        order = [(slot - rotation) % players for slot in range(players)]  # seat -> slot
        seated = game.seat_policies([(seating.names[slot], {}) for slot in order])
        direct = game.play_batch(params, seated, seeds, np.zeros_like(rotations))
        for column, values in rotated.items():
            assert np.array_equal(values, direct[column]), (rotation, column)


@pytest.mark.parametrize("name", GAMES)
def test_record_columns_are_declared_and_present(name):
    game = registry.get_game(name)
    _, players, _, _, _, columns = _batch(game, 6)
    declared = {"turns", "rounds", "end_reason", "score", "win", *game.seat_columns, *game.game_columns}
    assert declared <= set(columns)
    for column in game.seat_columns:
        assert columns[column].shape == (6, players), column
    for column in game.game_columns:
        assert columns[column].shape == (6,), column
    # seat_measures: a mapping column -> human name (katz) or (column, name) pairs (nyz); the
    # contract declares both (base.Game), dict() reads either
    assert set(dict(game.seat_measures)) <= {"score", "win", *game.seat_columns}


@pytest.mark.parametrize("name", GAMES)
def test_turn_order_facts_are_recorded_or_defaulted(name):
    """Every game's records carry the turn-order facts (logs.TURN_ORDER_*, issue #24), recorded
    by the game or filled in by logs.with_turn_order, and they tell one story: seats play in
    order from seat 0, so an earlier seat has the same number of turns or one more; the game
    ended in the turn of the last seat that got the most turns, which moved last and ended it
    (default rules end at once)."""
    game = registry.get_game(name)
    _, players, _, _, _, columns = _batch(game, 20)
    facts = with_turn_order(columns)
    turns = facts["seat_turns"].astype(int)
    assert turns.shape == (20, players) and facts["decisions"].shape == (20, players)
    ahead = turns[:, :1] - turns
    assert ((ahead >= 0) & (ahead <= 1)).all()
    assert np.array_equal(unequal_turns(facts["seat_turns"]), turns.max(axis=1) != turns.min(axis=1))
    last_turn = players - 1 - np.argmax(turns[:, ::-1] == turns.max(axis=1, keepdims=True), axis=1)
    assert np.array_equal(facts["last_mover"], last_turn)
    assert np.array_equal(facts["ender"], last_turn)
    assert (facts["decisions"] >= 0).all()


@pytest.mark.parametrize("name", GAMES)
def test_the_step_api_has_the_shared_signatures_and_replays_play_batch(name):
    game = registry.get_game(name)
    if game.steps is None:
        pytest.skip(f"{name} offers no step API (Game.steps is None)")
    steps = game.steps
    assert isinstance(steps, StepAPI)
    for function in ("new_game", "legal_moves", "apply", "policy_move", "is_over", "scores", "winners"):
        assert _call_shape(getattr(steps, function)) == _call_shape(getattr(StepAPI, function)), function
    params, players, seating, seeds, rotations, columns = _batch(game, 8)
    for index, (seed, rotation) in enumerate(zip(seeds, rotations)):
        state = steps.new_game(params, seating, int(seed), int(rotation), check=True)
        while not steps.is_over(state):
            move = steps.policy_move(state)
            assert move in steps.legal_moves(state)
            assert steps.apply(state, move) is None
        assert steps.scores(state).tolist() == columns["score"][index].tolist()
        assert steps.winners(state) == np.flatnonzero(columns["win"][index]).tolist()


def _call_shape(function) -> list[tuple[str, object]]:
    """(name, default) of each parameter a caller may pass positionally: the game's state
    parameter is named by the game (`state`, `position`), and a game may add keyword-only
    options after the shared ones."""
    parameters = [p for p in inspect.signature(function).parameters.values()
                  if p.name != "self" and p.kind is not inspect.Parameter.KEYWORD_ONLY]
    return [("<state>" if p.name in ("state", "position") else p.name, p.default) for p in parameters]


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
