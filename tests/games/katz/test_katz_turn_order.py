"""Scenario tests for the turn order knob of issue #24 (K-3.6.1 `turn_order: snake`, the
mechanism knob for the later seats' draws from a fuller zoo): the order of seat turns, its rounds,
its end with K-4.1.4 `complete_round`, and whole games in checked mode (K-10.17)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from katz_helpers import make_params
from simulator.cli import main
from simulator.games.katz import GAME, play, step_api
from simulator.games.katz import state as S

LOST_SEAT_TURNS = (S.EV_SKIPPED, S.EV_FORCED_PASS)  # seat turns that end without a decision


def seat_turns_of_game(params, seed: int) -> tuple[list[int], int]:
    """(the seat of every seat turn of a random game in order, turns lost to a skip and forced
    passes included, extra turns not; the game's `rounds` counter)."""
    state = step_api.new_game(params, GAME.seat_policies([("random", {})] * params.players), seed=seed)
    order = []
    while not step_api.is_over(state):
        if state.phase == S.PHASE_ACTION and not state.scalars[S.S_IN_EXTRA_TURN]:
            order.append(state.seat)
        step_api.apply(state, step_api.policy_move(state))
        order += [seat for code, seat, _, _ in state.last_events() if code in LOST_SEAT_TURNS]
    return order, int(state.scalars[S.S_TABLE_ROUNDS])


def snake_seat(turn: int, players: int) -> int:
    """K-3.6.1: seat turn `turn` (from 0) of a deal started by seat 0 runs 0..n-1, n-1..0, ..."""
    offset = turn % players
    return offset if turn % (2 * players) < players else players - 1 - offset


@pytest.mark.parametrize("players", [2, 3, 5])
def test_k3_6_1_snake_turns_round_at_each_end_of_a_round(players):
    """K-3.6.1: with snake the seat turns go 0..n-1 then n-1..0 (each end seat moves twice in a
    row), skips and extra turns included (K-3.5: a skip uses up the seat's place in the order, an
    extra turn takes none); a round begins at each turn of direction (`rounds`). Clockwise, the
    default (K-3.6), goes 0..n-1 every round."""
    for seed in range(3):
        order, rounds = seat_turns_of_game(make_params(players=players, turn_order="snake"), seed)
        assert order == [snake_seat(turn, players) for turn in range(len(order))]
        assert rounds == -(-len(order) // players)
        clockwise, _ = seat_turns_of_game(make_params(players=players), seed)
        assert clockwise == [turn % players for turn in range(len(clockwise))]


def test_k3_6_1_with_k4_1_4_complete_round_every_round_is_completed_in_its_direction():
    """K-4.1.4 with K-3.6.1: after the end trigger the seats up to the round's last seat in the
    round's direction (the start seat in a backward round) move once more, so every game has
    whole rounds of seat turns."""
    params = make_params(players=4, turn_order="snake", end_timing="complete_round")
    backward_ends = 0
    for seed in range(8):
        order, rounds = seat_turns_of_game(params, seed)
        assert order == [snake_seat(turn, 4) for turn in range(len(order))]
        assert len(order) == 4 * rounds
        backward_ends += order[-1] == 0
    assert backward_ends > 0  # some game ended in a backward round


def test_k3_6_1_snake_games_in_checked_mode_differ_from_clockwise():
    """K-10.17 invariants hold in whole snake games at 2-5 players, the games differ from
    clockwise ones, and every seat still gets its seat turns (records' seat_turns)."""
    for players in (2, 3, 4, 5):
        seats = GAME.seat_policies([("greedy_tuned", {})] * players)
        seeds = np.arange(200, dtype=np.uint64)
        rotations = np.arange(200) % players
        snake = play.play_batch(make_params(players=players, turn_order="snake"), seats, seeds,
                                rotations, check=True)
        clockwise = play.play_batch(make_params(players=players), seats, seeds, rotations)
        assert snake["check_violations"].sum() == 0
        assert not np.array_equal(snake["score"], clockwise["score"])
        assert (snake["seat_turns"] > 0).all()


def test_k3_6_1_is_listed_by_zoosim_rules():
    """`zoosim rules katz` lists the knob with its rule id, default and values."""
    result = CliRunner().invoke(main, ["rules", "katz"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(index for index, line in enumerate(lines) if line.startswith("turn_order"))
    assert lines[at] == 'turn_order = "clockwise"   [K-3.6.1]'
    assert lines[at + 1].strip() == 'allowed: one of "clockwise", "snake"'
