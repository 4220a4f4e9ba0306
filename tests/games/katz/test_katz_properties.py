"""T17 property tests (K-10.17): the in-kernel checked mode over 100,000+ random and greedy games
across player counts 2-5 and rule variants, independent Python-side checks of final states and
records, determinism (T17.10) and rotation semantics (K-8.1)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from katz_helpers import make_params, seeds
from simulator.games.base import InvariantViolation, check_columns
from simulator.games.katz import GAME, play, render, step_api
from simulator.logs import unequal_turns, with_turn_order
from simulator.games.katz import state as S

VARIANTS = [
    {},
    {"blocked_cell_rule": "dead_cell"},
    {"blocked_cell_rule": "either", "blocked_cell_optional": False},
    {"blocked_cell_rule": "off", "covered_cards_block": True},
    {"penalty_kind_blocks": False, "line_complete_counts_keepers": False},
    {"must_place_if_able": False, "chain_extra_turns": False},
    {"allow_pass": True, "keepers": 3},
    {"allow_keeper_replacement": False, "value_effects_on": {"place": False, "covered": False}},
    {"end_timing": "complete_round", "first_player": "random"},
    {"end_when_no_face_down": False, "keepers": None},
    {"rounds": 2, "tie_break": "fewest_cats", "scoring": {"other_of_kind_penalty": "minus_one"}},
    {"deck": {"copies_per_card": 2}, "hand_size": 10, "extra_turn_values": [6, 7], "skip_values": [1, 2]},
    # the #13 readings (K-3.3.5, K-4.1.5) and the seat-compensation variants (K-2.5, K-3.8, K-4.5)
    {"line_completion_needs_no_fit": False, "first_turn_limit": "return_drawn_card",
     "seat_hand_size_delta": [1, 0, -1, 2, 0]},
    {"line_completion_needs_no_fit": False, "blocked_cell_rule": "either", "covered_cards_block": True,
     "first_turn_limit": "no_extra_turn", "seat_bonus_points": [0, 0.5, 1, 1.5, 2], "rounds": 2},
    {"end_when_no_face_down": False, "keepers": 4, "lost_extra_turn_in_pass_streak": True,
     "line_completion_needs_no_fit": False, "line_complete_counts_keepers": False},
    # the mechanism switches of issue #24 (K-3.5.1, K-3.5.2 off; K-4.1.4 above)
    {"extra_turn_values": [], "skip_values": []},
]
GAMES_PER_CELL = 900  # 4 player counts x 16 variants x 2 policies x 900 = 115,200 games


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}" for k in v) or "defaults")
def test_t17_invariants_hold_in_checked_mode(variant, policy):
    """T17.1-9 after every action (in-kernel checked mode), T17.6 termination, and counter bounds."""
    for players in (2, 3, 4, 5):
        params = make_params(players=players, **variant)
        seating = GAME.seat_policies([(policy, {})] * players)
        rotations = (np.arange(GAMES_PER_CELL) % players).astype(np.int8)
        columns = play.play_batch(params, seating, seeds(GAMES_PER_CELL, 1000 * players), rotations,
                                    check=True)
        check_columns(GAME, columns, GAMES_PER_CELL, players)
        violations = columns["check_violations"]
        assert violations.sum() == 0, S.VIOLATION_NAMES[int(columns["first_violation"][violations > 0][0])]
        cells = params.grid_rows * params.grid.cols
        deals = params.rounds
        assert (columns["draws"] <= cells * deals).all()  # T17.4
        assert (columns["replacements"] <= columns["keepers_placed"]).all()
        assert (columns["extra_turns"] <= 8 * params.deck.copies_per_card * len(params.extra_turn_values) * deals).all()
        assert (columns["skips_earned"] <= 8 * params.deck.copies_per_card * len(params.skip_values) * deals).all()
        assert (columns["skips"] <= columns["skips_earned"]).all()
        # K-8.2: the per-seat counters add up to the game's
        for per_seat, per_game in (("cards_drawn", ["draws"]), ("keepers_replaced", ["replacements"]),
                                   ("zookeepers_placed", ["keepers_placed", "covered_keepers"]),
                                   ("extra_turns_taken", ["extra_turns"]), ("turns_skipped", ["skips"])):
            total = sum(columns[name].astype(np.int64) for name in per_game)
            assert (columns[per_seat].sum(axis=1) == total).all(), per_seat
        assert (columns["cats_held"] <= columns["hand_cards"]).all()
        assert set(np.unique(columns["end_reason"])) <= set(range(len(GAME.end_reasons)))
        if params.keepers is not None and not params.allow_pass and params.end_when_no_face_down:
            assert (columns["end_reason"] != S.END_NO_PROGRESS).all()


def independent_score(params, hand_texts: list[str]) -> int:
    """K-4.2 written again in plain Python from card texts (default scoring)."""
    by_kind: dict[str, list[int]] = {}
    for text in hand_texts:
        by_kind.setdefault(text[:2], []).append(int(text[2:]))
    score = 0
    for kind, values in by_kind.items():
        if kind == "Ca":
            score -= sum(values)
        else:
            score += max(values) - (sum(values) - max(values))
    return score


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_t17_final_states_checked_in_python(players):
    """Step-API games in checked mode; at the end, checked again in Python: cards conserved,
    the end condition holds, every line free of repeated face-up kinds, scores recomputed from
    the hands, and the play_batch record of the same seed agrees (same kernels, T17.10)."""
    params = make_params(players=players)
    names = ["random", "greedy", "expectimax", "random", "greedy"][:players]
    seating = GAME.seat_policies([(name, {}) for name in names])
    game_seeds = seeds(40, 77)
    records = play.play_batch(params, seating, game_seeds, np.zeros(40, np.int8))
    rows, cols = params.grid_rows, params.grid.cols
    for index, seed in enumerate(game_seeds):
        state = step_api.new_game(params, seating, int(seed), check=True)
        while not step_api.is_over(state):
            step_api.apply(state, step_api.policy_move(state))
        zoo = [render.cell_text(state, c) for c in range(rows * cols)]
        hands = [[render.card_text(params, c) for c in state.hand(seat)] for seat in range(players)]
        shown = [t.removeprefix("ZK/") for t in zoo if t not in ("ZK", "##")]
        hidden = [render.card_text(params, int(c)) for c in state.hidden[rows * cols:][: state.scalars[S.S_SET_ASIDE]]]
        hidden += [render.card_text(params, int(state.hidden[c])) for c in range(rows * cols) if zoo[c] == "##"]
        assert Counter(shown + hidden + sum(hands, [])) == Counter(render.card_text(params, c) for c in range(56))
        keepers = sum(t.startswith("ZK") for t in zoo)
        assert "##" not in zoo or keepers == 8
        for line in [zoo[r * cols:(r + 1) * cols] for r in range(rows)] + [zoo[c::cols] for c in range(cols)]:
            kinds = [t[:2] for t in line if t not in ("##", "ZK") and not t.startswith("ZK")]
            assert len(kinds) == len(set(kinds))
        expected = [independent_score(params, hand) for hand in hands]
        assert step_api.scores(state).tolist() == expected
        assert records["score"][index].tolist() == expected
        assert records["hand_cards"][index].tolist() == [len(h) for h in hands]
        assert records["cats_held"][index].tolist() == [sum(t.startswith("Ca") for t in h) for h in hands]
        assert np.flatnonzero(records["win"][index]).tolist() == step_api.winners(state)
        assert int(records["turns"][index]) == int(state.scalars[S.S_TURNS])


def test_checked_mode_detects_a_broken_invariant():
    """The checker can fail: a duplicated card (T17.2) and a changed face-up card (T17.8)."""
    state = step_api.new_game(make_params(), seed=5, check=True)
    step_api.apply(state, step_api.policy_move(state))
    state.hands[0, 0] = state.hands[1, 0]  # two copies of one card
    with pytest.raises(InvariantViolation, match="cards"):
        step_api.apply(state, step_api.policy_move(state))
    params = make_params(players=2)
    seating = GAME.seat_policies([("random", {})] * 2)
    columns = play.play_batch(params, seating, seeds(50), np.zeros(50, np.int8), check=True)
    assert columns["check_violations"].sum() == 0


def test_t17_10_determinism_same_seed_same_columns():
    """T17.10: identical inputs give identical columns; another seed gives other games."""
    params = make_params(players=4, first_player="random")
    seating = GAME.seat_policies([("random", {}), ("greedy", {}), ("expectimax", {}), ("random", {})])
    rotations = np.array([0, 1, 2, 3] * 50, dtype=np.int8)
    first = play.play_batch(params, seating, seeds(200), rotations)
    second = play.play_batch(params, seating, seeds(200), rotations)
    assert first.keys() == second.keys()
    for name in first:
        assert np.array_equal(first[name], second[name]), name
    other = play.play_batch(params, seating, seeds(200, 10_000), rotations)
    assert not np.array_equal(first["score"], other["score"])
    # a game's record does not depend on its batch neighbours
    alone = play.play_batch(params, seating, seeds(1, 7), rotations[7:8])
    assert np.array_equal(alone["score"][0], first["score"][7])


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_rotation_moves_slot_hand_and_policy_to_seat(rotation):
    """K-8.1: the hand dealt to slot j and slot j's policy sit in seat (j + r) % n; the zoo is
    the same deal; seat 0 moves first."""
    params = make_params(players=4)
    seating = GAME.seat_policies([("random", {}), ("greedy", {}), ("expectimax", {}), ("greedy", {})])
    base = step_api.new_game(params, seating, seed=99, rotation=0)
    rotated = step_api.new_game(params, seating, seed=99, rotation=rotation)
    assert np.array_equal(base.hidden, rotated.hidden)
    for slot in range(4):
        seat = (slot + rotation) % 4
        assert sorted(rotated.hand(seat)) == sorted(base.hand(slot))
        assert rotated.policy_of_seat(seat) == seating.names[slot]
    assert rotated.seat == 0


def test_first_player_random_draws_the_start_seat_from_the_game_stream():
    """K-2.4: first_player random spreads the first seat over all seats, reproducibly."""
    params = make_params(players=4, first_player="random")
    seating = GAME.seat_policies([("greedy", {})] * 4)
    columns = play.play_batch(params, seating, seeds(400), np.zeros(400, np.int8))
    counts = np.bincount(columns["first_seat"], minlength=4)
    assert (counts > 60).all()
    default = play.play_batch(make_params(players=4), seating, seeds(50), np.zeros(50, np.int8))
    assert (default["first_seat"] == 0).all()


def test_rounds_sum_independent_deals():
    """K-4.4: rounds = 3 plays three deals; scores and hand counts are summed; the first deal
    of a 3-deal game equals the 1-deal game of the same seed."""
    seating = GAME.seat_policies([("greedy", {})] * 3)
    one = play.play_batch(make_params(players=3), seating, seeds(30), np.zeros(30, np.int8))
    three = play.play_batch(make_params(players=3, rounds=3), seating, seeds(30), np.zeros(30, np.int8))
    assert (three["draws"] == 3 * 35).all()
    assert (three["hand_cards"].sum(axis=1) >= 3 * 21).all()
    state = step_api.new_game(make_params(players=3, rounds=3), seating, seed=4)
    deals_seen, first_deal_totals = [], None
    while not step_api.is_over(state):
        step_api.apply(state, step_api.policy_move(state))
        events = state.last_events()
        deals_seen += [cell for code, _, cell, _ in events if code == S.EV_DEAL]
        if first_deal_totals is None and any(code == S.EV_DEAL_OVER for code, *_ in events):
            first_deal_totals = state.seats[:, S.SEAT_TOTAL_SCORE].tolist()
    assert deals_seen == [1, 2]
    assert first_deal_totals == one["score"][4].tolist()
    assert step_api.scores(state).tolist() == three["score"][4].tolist()
    assert state.scalars[S.S_START_SEAT] == 2  # the start seat moved on each deal


def test_complete_round_gives_remaining_seats_one_turn():
    """K-4.1.4: after the trigger the later seats of the round each get one more seat turn, so
    seat turns end with the last seat before the start seat."""
    params = make_params(players=4, end_timing="complete_round")
    seating = GAME.seat_policies([("greedy", {})] * 4)
    for seed in range(20):
        state = step_api.new_game(params, seating, seed=seed)
        last_seat = None
        while not step_api.is_over(state):
            step_api.apply(state, step_api.policy_move(state))
            for code, seat, _, _ in state.last_events():
                if code in (S.EV_PLACE, S.EV_KEEPER, S.EV_COVER, S.EV_REPLACE, S.EV_PASS,
                            S.EV_FORCED_PASS, S.EV_SKIPPED):
                    last_seat = seat
        assert last_seat == 3


@pytest.mark.parametrize("players", [4, 5])
def test_mechanism_knobs_switch_their_cause_of_seat_advantage_off(players):
    """Issue #24: with the immediate end (K-4.1) some games end mid-round and the seats before
    the ender get one seat turn more (turn-order records); `end_timing: complete_round` (K-4.1.4)
    gives every seat as many in every game, `extra_turn_values: []` (K-3.5.1) grants no extra
    turn and `skip_values: []` (K-3.5.2) loses none, all with the invariants clean."""
    seating = GAME.seat_policies([("greedy", {})] * players)
    rotations = (np.arange(300) % players).astype(np.int8)

    def records(**knobs):
        columns = play.play_batch(make_params(players=players, **knobs), seating, seeds(300, 7),
                                  rotations, check=True)
        assert columns["check_violations"].sum() == 0
        return with_turn_order(columns)

    immediate = records()
    assert unequal_turns(immediate["seat_turns"]).any() and immediate["extra_turns"].any() and immediate["skips"].any()
    assert not unequal_turns(records(end_timing="complete_round")["seat_turns"]).any()
    assert not records(extra_turn_values=[])["extra_turns_taken"].any()
    no_skips = records(skip_values=[])
    assert not no_skips["turns_skipped"].any() and not no_skips["skips_earned"].any()


def test_allow_pass_and_no_progress_end():
    """K-3.2.6/K-4.1.5: with passing allowed random players pass; n passes in a row end a deal."""
    params = make_params(players=3, allow_pass=True)
    seating = GAME.seat_policies([("random", {})] * 3)
    columns = play.play_batch(params, seating, seeds(500), np.zeros(500, np.int8), check=True)
    assert columns["passes"].sum() > 0
    assert (columns["end_reason"] == S.END_NO_PROGRESS).any()
    assert columns["check_violations"].sum() == 0


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: ",".join(f"{k}" for k in v) or "defaults")
def test_t17_invariants_hold_for_expectimax_and_mixed_seatings(variant):
    """T17 in checked mode for expectimax and mixed seatings (heavier: expectimax is slower)."""
    for players in (2, 3, 4, 5):
        params = make_params(players=players, **variant)
        names = ["expectimax", "greedy", "random", "expectimax", "greedy"][:players]
        seating = GAME.seat_policies([(name, {}) for name in names])
        rotations = (np.arange(2000) % players).astype(np.int8)
        columns = play.play_batch(params, seating, seeds(2000, 50_000 * players), rotations, check=True)
        assert columns["check_violations"].sum() == 0
