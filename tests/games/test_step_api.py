"""The step API (base.StepAPI) of every built-in game: one signature set, and a game followed
move by move with `policy_move` is the game play_batch records for the same seed and rotation."""

import inspect

import numpy as np
import pytest

from simulator.games import get_game
from simulator.games.base import StepAPI

GAMES = ("katz", "nyz")


@pytest.mark.parametrize("name", GAMES)
def test_steps_satisfy_the_protocol_with_its_signatures(name):
    steps = get_game(name).steps
    assert isinstance(steps, StepAPI)
    for function in ("new_game", "legal_moves", "apply", "policy_move", "is_over", "scores",
                     "winners"):
        wanted = _call_shape(getattr(StepAPI, function))
        assert _call_shape(getattr(steps, function)) == wanted, function


def _call_shape(function) -> list[tuple[str, object]]:
    """(name, default) of each parameter a caller may pass positionally: the game's state
    parameter is named by the game (`state`, `position`), and a game may add keyword-only
    options after the shared ones."""
    parameters = [p for p in inspect.signature(function).parameters.values()
                  if p.name != "self" and p.kind is not inspect.Parameter.KEYWORD_ONLY]
    return [("<state>" if p.name in ("state", "position") else p.name, p.default) for p in parameters]


@pytest.mark.parametrize("name", GAMES)
def test_step_api_replays_play_batch(name):
    game = get_game(name)
    params = game.make_params({"players": 3})
    seating = game.seat_policies([("random", {}), ("greedy", {}), ("random", {})])
    seeds = np.array([11, 12, 13], dtype=np.uint64)
    rotations = np.array([0, 1, 2], dtype=np.int8)
    records = game.play_batch(params, seating, seeds, rotations, check=True)
    steps = game.steps
    for index, (seed, rotation) in enumerate(zip(seeds, rotations)):
        state = steps.new_game(params, seating, int(seed), int(rotation), check=True)
        while not steps.is_over(state):
            move = steps.policy_move(state)
            assert move in steps.legal_moves(state)
            assert steps.apply(state, move) is None
        assert steps.scores(state).tolist() == records["score"][index].tolist()
        assert steps.winners(state) == np.flatnonzero(records["win"][index]).tolist()
