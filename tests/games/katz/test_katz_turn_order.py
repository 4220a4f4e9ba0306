"""Scenario tests for the turn order knob of issue #24 (K-3.6.1 `turn_order: snake` and K-3.6.2
`random_each_round`, the mechanism knobs for the later seats' draws from a fuller zoo): the order
of seat turns, its rounds, its end with K-4.1.4 `complete_round`, and whole games in checked mode
(K-10.17)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from katz_helpers import card, make_move, make_params, state_from_text
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.games.katz import GAME, play, step_api
from simulator.games.katz import state as S
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import log_digests

LOST_SEAT_TURNS = (S.EV_SKIPPED, S.EV_FORCED_PASS)  # seat turns that end without a decision


def seat_turns_of_game(params, seed: int, policy: str = "random") -> tuple[list[int], int]:
    """(the seat of every seat turn of a game of `policy` players in order, turns lost to a skip
    and forced passes included, extra turns not; the game's `rounds` counter)."""
    state = step_api.new_game(params, GAME.seat_policies([(policy, {})] * params.players), seed=seed)
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
    assert lines[at + 1].strip() == ('allowed: one of "clockwise", "snake", "random_each_round", '
                                     '"random_after_first_round"')


# ---- K-3.6.2 turn_order: random_each_round ------------------------------------------------------


def rounds_of(order: list[int], players: int) -> list[tuple[int, ...]]:
    return [tuple(order[start:start + players]) for start in range(0, len(order), players)]


@pytest.mark.parametrize("players", [2, 3, 5])
def test_k3_6_2_every_round_is_a_fresh_order_of_all_seats(players):
    """K-3.6.2: each round's seat turns (skips and forced passes included, extra turns not) are
    every seat once, in an order drawn afresh each round; the first round is drawn too and its
    first seat starts the deal (`first_seat`); a round begins at each order's first place."""
    params = make_params(players=players, turn_order="random_each_round")
    first_seats, orders = set(), set()
    for seed in range(6):
        order, rounds = seat_turns_of_game(params, seed)
        whole = rounds_of(order, players)
        assert all(sorted(round_order) == list(range(players)) for round_order in whole[:-1])
        assert len(set(whole[-1])) == len(whole[-1])
        assert rounds == len(whole)
        first_seats.add(order[0])
        orders.update(whole)
        state = step_api.new_game(params, GAME.seat_policies([("random", {})] * players), seed=seed)
        assert int(state.scalars[S.S_FIRST_SEAT]) == order[0] == state.seat
    assert len(first_seats) > 1 and len(orders) > 2


def test_k3_6_2_orders_are_uniform_and_the_default_is_clockwise():
    """K-3.6.2: the first round's order is each of the 3! orders about equally often (2,400
    deals, within 5 standard errors); clockwise (the default) always starts with seat 0."""
    players, deals = 3, 2400
    seating = GAME.seat_policies([("random", {})] * players)
    counts = Counter()
    for seed in range(deals):
        state = step_api.new_game(make_params(players=players, turn_order="random_each_round"), seating, seed=seed)
        counts[tuple(int(seat) for seat in state.scalars[S.S_ROUND_ORDER:S.S_ROUND_ORDER + players])] += 1
    assert sorted(counts) == sorted(itertools.permutations(range(players)))
    expected = deals / 6
    assert all(abs(count - expected) < 5 * math.sqrt(expected * 5 / 6) for count in counts.values())
    assert step_api.new_game(make_params(players=players), seating, seed=1).seat == 0


def test_k3_6_2_the_orders_come_from_the_deal_not_from_the_play():
    """K-3.6.2: the orders are drawn from the deal's own stream, so the same seed gives the same
    round orders whoever plays (random or greedy players, another mechanism switched off):
    common random numbers for the paired ablations of issue #24."""
    params = make_params(players=4, turn_order="random_each_round")
    for seed in range(4):
        by_random, _ = seat_turns_of_game(params, seed)
        greedy, _ = seat_turns_of_game(params, seed, "greedy_tuned")
        common = min(len(by_random), len(greedy)) // 4 * 4
        assert common >= 8 and by_random[:common] == greedy[:common]
        no_effects, _ = seat_turns_of_game(make_params(players=4, turn_order="random_each_round",
                                                       extra_turn_values=[], skip_values=[]), seed)
        common = min(len(by_random), len(no_effects)) // 4 * 4
        assert by_random[:common] == no_effects[:common]


def test_k3_6_2_with_k4_1_4_complete_round_the_drawn_round_is_completed():
    """K-4.1.4 with K-3.6.2: after the end trigger the seats after the triggering seat in the
    round's drawn order move once more, so every seat gets as many seat turns."""
    params = make_params(players=4, turn_order="random_each_round", end_timing="complete_round")
    for seed in range(8):
        order, rounds = seat_turns_of_game(params, seed)
        assert len(order) == 4 * rounds
        assert all(sorted(round_order) == [0, 1, 2, 3] for round_order in rounds_of(order, 4))
    seats = GAME.seat_policies([("greedy_tuned", {})] * 5)
    records = play.play_batch(make_params(players=5, turn_order="random_each_round",
                                          end_timing="complete_round"),
                              seats, np.arange(100, dtype=np.uint64), np.arange(100) % 5, check=True)
    assert (records["seat_turns"] == records["seat_turns"][:, :1]).all()
    assert records["check_violations"].sum() == 0


def test_k3_6_2_games_in_checked_mode_replay_and_differ_from_clockwise():
    """K-10.17 invariants (the round's order holds every seat once and the seat to move holds
    its current place) in whole random_each_round games at 2-5 players, with K-3.8's first-turn
    limit and two deals (K-4.4); the same seeds replay exactly, and the games differ from
    clockwise ones."""
    for players in (2, 3, 4, 5):
        seats = GAME.seat_policies([("greedy_tuned", {})] * players)
        seeds = np.arange(150, dtype=np.uint64)
        rotations = np.arange(150) % players
        params = make_params(players=players, turn_order="random_each_round", rounds=2,
                             first_turn_limit="return_drawn_card")
        shuffled = play.play_batch(params, seats, seeds, rotations, check=True)
        again = play.play_batch(params, seats, seeds, rotations)
        clockwise = play.play_batch(make_params(players=players, rounds=2, first_turn_limit="return_drawn_card"),
                                    seats, seeds, rotations)
        assert shuffled["check_violations"].sum() == 0
        assert all(np.array_equal(shuffled[name], again[name]) for name in shuffled if name != "check_violations")
        assert not np.array_equal(shuffled["score"], clockwise["score"])
        assert len(set(shuffled["first_seat"].tolist())) == players


def test_k3_6_2_a_skip_earned_as_a_rounds_last_seat_loses_its_first_place_of_the_next_round():
    """K-3.6.2 with K-3.5.2: seat 2, last of its round at 3 players, plays a 1; where the next
    round's drawn order puts seat 2 first (two seat turns in a row), that second seat turn is
    the one lost, and the round goes on with its second place."""
    grid = "\n".join(" ".join(["##"] * 7) for _ in range(3))
    params = make_params(players=3, turn_order="random_each_round", grid={"rows": 3})
    lost_first = 0
    for seed in range(40):
        state = state_from_text(params, grid, ["El2", "Mo3", "Gi1 Pa4"], seat=2, seed=seed, check=True)
        step_api.apply(state, make_move("draw", 0))
        step_api.apply(state, make_move("place", 0, card(state, "Gi1")))
        order = [int(seat) for seat in state.scalars[S.S_ROUND_ORDER:S.S_ROUND_ORDER + 3]]
        skipped = [seat for code, seat, _, _ in state.last_events() if code == S.EV_SKIPPED]
        if order[0] == 2:
            lost_first += 1
            assert skipped == [2] and state.seat == order[1]
            assert int(state.scalars[S.S_ORDER_PLACE]) == 1
        else:
            assert skipped == [] and state.seat == order[0]
        assert int(state.scalars[S.S_VIOLATIONS]) == 0
    assert 5 < lost_first < 30


@pytest.mark.parametrize("players", [3, 4])
def test_k3_6_2_random_after_first_round_starts_each_deal_clockwise(players):
    """K-3.6.2's alternative reading: each deal's first round goes clockwise from its start seat
    (seat 0, then seat 1 in the second deal, K-4.4), every later round in a drawn order."""
    params = make_params(players=players, turn_order="random_after_first_round")
    later = set()
    for seed in range(6):
        order, rounds = seat_turns_of_game(params, seed)
        whole = rounds_of(order, players)
        assert whole[0] == tuple(range(players)) and rounds == len(whole)
        assert all(sorted(round_order) == list(range(players)) for round_order in whole[1:-1])
        later.update(whole[1:-1])
    assert len(later) > 2
    two_deals = make_params(players=players, turn_order="random_after_first_round", rounds=2)
    state = step_api.new_game(two_deals, GAME.seat_policies([("random", {})] * players), seed=1)
    while int(state.scalars[S.S_DEAL]) == 0:
        step_api.apply(state, step_api.policy_move(state))
    first_round = state.scalars[S.S_ROUND_ORDER:S.S_ROUND_ORDER + players].tolist()
    assert first_round == [(1 + place) % players for place in range(players)]


def test_k3_6_2_runs_play_the_same_games_for_any_jobs_and_backend(tmp_path):
    """Determinism: the round orders come from each game's own stream, so a random_each_round
    run logs the same games with 1 job and with 2 (threads, processes)."""
    document = {"seed": 11, "games": 60, "chunk_games": 15,
                "studies": [{"game": "katz", "rules": {"players": 4, "turn_order": "random_each_round"},
                             "seats": ["greedy_tuned"]}]}
    digests = []
    for jobs, backend in ((1, "threading"), (2, "threading"), (2, "loky")):
        folder = tmp_path / f"{jobs}-{backend}"
        run_plan(build_plan(parse_experiment(document)), folder, "katz\n", jobs=jobs, backend=backend,
                 progress=False)
        digests.append(log_digests(folder))
    assert digests[0] == digests[1] == digests[2]
