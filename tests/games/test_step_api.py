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
        expected = inspect.signature(getattr(StepAPI, function))
        wanted = [(p.name, p.default) for p in expected.parameters.values() if p.name != "self"]
        found = [(p.name, p.default) for p in inspect.signature(getattr(steps, function)).parameters.values()
                 if p.kind is not inspect.Parameter.KEYWORD_ONLY]  # a game may add keyword-only options
        assert found == wanted, function


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
