"""The conformance kit itself (simulator/testing.py, issue #40 item 3): it accepts what
docs/adding-a-game.md allows and fails, with a message saying what to change, what it forbids.

`dice`: each seat's score is one die; `high` (the default) always rolls 6, `roll` draws from a
random stream seeded by (seed, rotation), as the example plugins' docs once showed. Rotation
then changes a game even between identical seatings, which the doc allows only for a game that
declares `deal_travels_with_slot` True ("Seating and random streams")."""

from __future__ import annotations

import sys
import types
from dataclasses import replace
from typing import Literal

import numpy as np
import pydantic
import pytest

import simulator.games as registry
from simulator import testing
from simulator.plugin import Game, PolicySpec, StrictModel, knob
from tests_support import trace_from_batch


class DiceParams(StrictModel):
    preset: Literal["standard"] = "standard"
    players: int = knob(2, "D-1", "number of players", ge=2, le=4)


def dice_play_batch(params, seat_policies, seeds, rotations, check=False):
    games, n = len(seeds), params.players
    score = np.zeros((games, n), dtype=np.int16)
    for g, (seed, rotation) in enumerate(zip(seeds, rotations)):
        stream = np.random.default_rng([int(seed), int(rotation)])  # depends on the rotation
        for seat in range(n):
            slot = (seat - int(rotation)) % n
            roll = int(stream.integers(1, 7))
            score[g, seat] = 6 if seat_policies.policy_ids[slot] == 0 else roll
    columns = {"turns": np.full(games, n, dtype=np.int16), "rounds": np.ones(games, dtype=np.int16),
               "end_reason": np.zeros(games, dtype=np.int8), "score": score,
               "win": score == score.max(axis=1, keepdims=True)}
    if check:
        columns.update(check_violations=np.zeros(games, dtype=np.int32), first_violation=np.zeros(games, dtype=np.int8))
    return columns


DICE = Game(
    name="dice", title="Dice (conformance kit test)", rules_version=1, params_model=DiceParams,
    presets={"standard": {}},
    policies={"high": PolicySpec("high", 0, "always a 6"), "roll": PolicySpec("roll", 1, "a random die")},
    default_policy="high", end_reasons=("rolled",), violation_names=("none",), deal_travels_with_slot=True,
    players=lambda params: params.players, play_batch=dice_play_batch,
    trace=trace_from_batch(dice_play_batch), seat_columns=(), game_columns=(),
)


@pytest.fixture
def registered():
    """Register a variant of `dice` (as an installed package would) for one test."""
    names = []

    def register(game):
        module = types.ModuleType(f"zoosim_kit_{game.name}")
        module.GAME = game
        sys.modules[module.__name__] = module
        registry.register_game(game.name, f"{module.__name__}:GAME")
        names.append(game.name)
        return game.name

    yield register
    for name in names:
        registry.unregister_game(name)
        sys.modules.pop(f"zoosim_kit_{name}", None)


def test_random_streams_that_depend_on_the_rotation_pass_when_the_game_declares_it(registered):
    """The reported defect (issue #40 item 3): the rotation check seated only the default policy,
    so a game whose rotation-dependent stream feeds a non-default policy failed it whatever it
    declared. Now a policy whose games rotation changes is enough."""
    name = registered(DICE)
    assert testing.check_rotation(name) is None
    assert testing.check_game(name) == {"check_step_api": "the game offers no step API (Game.steps is None)"}


def test_random_streams_that_depend_on_the_rotation_fail_a_game_where_only_seats_differ(registered):
    name = registered(replace(DICE, name="dice_seats", deal_travels_with_slot=False))
    with pytest.raises(AssertionError, match="seed the deal and every random draw from the game seed alone"):
        testing.check_rotation(name)


def test_a_game_declaring_that_something_travels_when_nothing_does_fails(registered):
    steady = replace(DICE, name="steady", policies={"high": DICE.policies["high"]})
    with pytest.raises(AssertionError, match="nothing travels with a slot; declare it False"):
        testing.check_rotation(registered(steady))


class LaxParams(pydantic.BaseModel):  # not a StrictModel: unknown keys are ignored
    preset: Literal["standard"] = "standard"
    players: int = knob(2, "D-1", "number of players", ge=2, le=4)


def test_a_params_model_ignoring_unknown_knobs_fails_the_knob_check(registered):
    name = registered(replace(DICE, name="lax", params_model=LaxParams))
    with pytest.raises(AssertionError, match="an unknown knob was accepted"):
        testing.check_knob_validation(name)


def test_a_batch_that_depends_on_its_neighbours_fails_the_halves_check(registered):
    def leaky(params, seat_policies, seeds, rotations, check=False):
        columns = dice_play_batch(params, seat_policies, seeds, rotations, check)
        columns["score"][:, 0] += np.arange(len(seeds), dtype=np.int16) % 2  # the game's place in the batch
        columns["win"] = columns["score"] == columns["score"].max(axis=1, keepdims=True)
        return columns

    with pytest.raises(AssertionError, match="does not play the games of its halves"):
        testing.check_batch_halves(registered(replace(DICE, name="leaky", play_batch=leaky)))


def dice_round_scores(final_shift: float):
    """A per-round score for `dice` (one round: the die), its last row shifted by `final_shift`."""
    def round_scores(params, seat_policies, seed, rotation):
        columns = dice_play_batch(params, seat_policies, np.array([seed], np.uint64), np.array([rotation], np.int8))
        return columns["score"].astype(np.float64) + final_shift, columns["win"][0]
    return round_scores


def test_a_per_round_score_that_replays_the_games_passes(registered):
    name = registered(replace(DICE, name="dice_rounds", round_scores=dice_round_scores(0.0)))
    assert testing.check_round_scores(name) is None


def test_a_per_round_score_whose_last_row_is_not_the_final_score_fails(registered):
    name = registered(replace(DICE, name="dice_off", round_scores=dice_round_scores(1.0)))
    with pytest.raises(AssertionError, match="last row .* is not play_batch's final score"):
        testing.check_round_scores(name)
