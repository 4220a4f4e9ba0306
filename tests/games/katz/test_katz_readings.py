"""Scenario tests for the rule readings of issue #13 (K-3.3.5 the summary's line completion,
K-4.1.5 the lost extra turn and the run of passes, K-9.2 presets) and the seat-compensation
designer variants of issue #10 (K-2.5 seat hand sizes, K-3.8 first-turn limits, K-4.5 seat
bonus points). Scripted positions use the spec's notation (§7) and run in checked mode."""

from __future__ import annotations

import numpy as np
import pytest

from katz_helpers import (
    cell, counter, do, hand_texts, make_params, outcomes, scripted, state_from_text, supply,
    win_flags,
)
from simulator.games.katz import GAME, play, render, step_api
from simulator.games.katz import state as S

# T6's position; the draw at (0,3) completes column 3 (it shows Ca, Pe); Li and Pd fit there.
T6_GRID = """
r0: Gi5 El2 Mo1 ##  Pa4 ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  ##  Pe2 ##  ##  ##
"""
T2_GRID = """
r0: Gi5 El2 __  ##  ##  ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  Mo4 ##  ##  ##  ##
"""


def t6_with_fitting_card(**knobs):
    """T6 with Li2 in hand: Li2 fits the gap, Gi3 (drawn) and Mo6 clash in row 0 but are new
    to column 3, which the draw completes."""
    state = scripted(T6_GRID, "Mo6 Ca5 Pe7 Li2", face_down={(0, 3): "Gi3"}, **knobs)
    do(state, "draw", (0, 3))
    return state


# ---- K-3.3.5: the summary's line completion ------------------------------------------------------


def test_k3_3_5_spec_reading_t9_a_fit_closes_the_exception():
    """K-3.3.5 true (default, spec §3.2 and T9): Li2 fits, so only Li2 may be placed; no keeper,
    bare or covered, although the gap completes column 3."""
    assert outcomes(t6_with_fitting_card()) == {("place", "Li2")}


@pytest.mark.parametrize("rule", ["line_completion", "either"])
def test_k3_3_5_summary_reading_a_completed_line_takes_a_clashing_card(rule):
    """K-3.3.5 false (the Dutch summary): the completing gap may take Gi3 or Mo6 (clash in row 0,
    new to column 3) under a keeper even though Li2 fits; Ca5 and Pe7 show in column 3 and stay
    out; Li2 may still go face up; a bare keeper stays illegal (K-3.2.3). Covering Mo6 leaves a
    permanent ZK/Mo6, the hand without Mo6 and the supply at 7 (checked mode finds no T17.9
    violation)."""
    state = t6_with_fitting_card(blocked_cell_rule=rule, line_completion_needs_no_fit=False)
    assert outcomes(state) == {("place", "Li2"), ("cover", "Gi3"), ("cover", "Mo6")}
    do(state, "cover", card_text="Mo6")
    assert render.cell_text(state, cell(state, 0, 3)) == "ZK/Mo6"
    assert hand_texts(state) == sorted(["Ca5", "Pe7", "Li2", "Gi3"])
    assert supply(state) == 7 and state.seat == 1


@pytest.mark.parametrize("rule", ["dead_cell", "off"])
def test_k3_3_5_summary_reading_needs_a_line_completion_rule(rule):
    """K-3.3.5 is used only by line_completion / either: with dead_cell or off it changes nothing."""
    state = t6_with_fitting_card(blocked_cell_rule=rule, line_completion_needs_no_fit=False)
    assert outcomes(state) == {("place", "Li2")}


def test_k3_3_5_summary_reading_without_a_completed_line_is_t9():
    """T9 still holds where the gap completes no line: T2's gap at (0,2) has face-down cells in
    its row and column, so with a fitting card only placements are legal."""
    state = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", line_completion_needs_no_fit=False)
    assert all(move[0] == "place" for move in outcomes(state))


def test_k3_3_5_summary_reading_with_nothing_fitting_is_t6():
    """With no fitting card the two readings agree (T6)."""
    for needs_no_fit in (True, False):
        state = scripted(T6_GRID, "Mo6 Ca5 Pe7", face_down={(0, 3): "Gi3"},
                         line_completion_needs_no_fit=needs_no_fit)
        do(state, "draw", (0, 3))
        assert outcomes(state) == {("keeper",), ("cover", "Gi3"), ("cover", "Mo6")}


def test_k9_2_seed_summary_preset_selects_the_summary_reading():
    """K-9.2: preset seed_summary sets K-3.3.5 false; a knob given alongside overrides it."""
    summary = t6_with_fitting_card(preset="seed_summary")
    assert ("cover", "Mo6") in outcomes(summary)
    overridden = t6_with_fitting_card(preset="seed_summary", line_completion_needs_no_fit=True)
    assert outcomes(overridden) == {("place", "Li2")}


# ---- K-4.1.5: the lost extra turn and the run of passes ------------------------------------------

# One row, no face-down card left (the deal goes on: end_when_no_face_down false), one bare
# keeper at (0,2): seat 0 replaces it with Mo7 (extra turn), after which nobody can act.
LAST_KEEPER_ROW = "Gi1 El1 ZK Pa1 Pe1 Li1 Pd1"


def one_row(row: str, hands: list[str], face_down=None, **knobs):
    """A 1 x 7 zoo (checked mode), seat 0 to decide."""
    params = make_params(players=len(hands), grid={"rows": 1}, **knobs)
    return state_from_text(params, row, hands, face_down=face_down, check=True)


def play_lost_extra_turn(in_streak: bool):
    state = one_row(LAST_KEEPER_ROW, ["Mo7", "Ca2"], end_when_no_face_down=False,
                    lost_extra_turn_in_pass_streak=in_streak)
    do(state, "replace", (0, 2), "Mo7")
    return state


def test_k4_1_5_lost_extra_turn_is_a_forced_pass_outside_the_run():
    """K-4.1.5 default (the engine's reading, now the seeds' text): seat 0's extra turn is lost
    (forced pass 1) but the run of passes starts with seat 1 (forced pass 2); seat 0 passes once
    more (forced pass 3) and the second pass in a row ends the deal: no_progress."""
    state = play_lost_extra_turn(in_streak=False)
    assert step_api.is_over(state)
    assert counter(state, S.S_END_REASON) == S.END_NO_PROGRESS
    assert counter(state, S.S_FORCED_PASSES) == 3 and counter(state, S.S_EXTRA_TURNS) == 1
    passes = [event[1] for event in state.last_events() if event[0] == S.EV_FORCED_PASS]
    assert passes == [0, 1, 0]
    assert [int(score) for score in step_api.scores(state)] == [0, -2]


def test_k4_1_5_lost_extra_turn_in_the_run_ends_one_seat_turn_earlier():
    """K-4.1.5 with lost_extra_turn_in_pass_streak (the seeds' former text): the lost extra turn
    is the first pass of the run, seat 1's forced pass the second: the deal ends after 2 forced
    passes, with the same end reason and scores."""
    state = play_lost_extra_turn(in_streak=True)
    assert step_api.is_over(state)
    assert counter(state, S.S_END_REASON) == S.END_NO_PROGRESS
    assert counter(state, S.S_FORCED_PASSES) == 2
    passes = [event[1] for event in state.last_events() if event[0] == S.EV_FORCED_PASS]
    assert passes == [0, 1]
    assert [int(score) for score in step_api.scores(state)] == [0, -2]


# ---- K-4.5: seat bonus points ----------------------------------------------------------------------

LAST_CARD_ROW = "Gi1 El1 ZK ZK Pa1 ## Ca1"  # the face-down cell hides Pd5, which must go back


def finish_tied(bonus, tie_break="shared"):
    """3 seats whose hands score 10, 10, 7 (T16); seat 0 draws the last card and puts it back."""
    state = one_row(LAST_CARD_ROW, ["Gi7 El3", "Mo7 Pa5 Ca2", "Li7"], face_down={(0, 5): "Pd5"},
                    seat_bonus_points=bonus, tie_break=tie_break)
    do(state, "draw", (0, 5))
    do(state, "place", card_text="Pd5")
    assert step_api.is_over(state)
    return list(step_api.scores(state)), win_flags(state)


def test_k4_5_bonus_is_added_before_the_winner_and_the_tie_break():
    """K-4.5: [10, 10, 7] with no bonus is T16's shared win; a half point for seat 1 breaks the
    tie for it (scores become floats); 3 points for seat 2 make it a three-way tie, which
    fewest_hand_cards then decides for seat 2 (one card)."""
    assert finish_tied([0, 0, 0]) == ([10, 10, 7], [True, True, False])
    scores, winners = finish_tied([0, 0.5])
    assert scores == [10.0, 10.5, 7.0] and winners == [False, True, False]
    assert finish_tied([0, 0, 3], "fewest_hand_cards") == ([10, 10, 10], [False, False, True])


def test_k4_5_bonus_changes_scores_ranks_and_wins_but_not_the_games():
    """K-4.5 in play_batch: the bonus never changes play (policies do not see it), so every other
    column is identical; the score moves by exactly the bonus (float32 with a half point), and
    win and rank follow the final scores; entries beyond the player count are unused."""
    seats = GAME.seat_policies([("greedy", {})] * 4)
    seeds = np.arange(400, dtype=np.uint64)
    rotations = np.arange(400) % 4
    plain = play.play_batch(make_params(players=4), seats, seeds, rotations)
    bonus = [0, 0.5, 1, 3, 99]
    shifted = play.play_batch(make_params(players=4, seat_bonus_points=bonus), seats, seeds, rotations)
    assert shifted["score"].dtype == np.float32 and plain["score"].dtype == np.int16
    assert np.array_equal(shifted["score"], plain["score"] + np.array(bonus[:4], dtype=np.float32))
    final = shifted["score"]
    assert np.array_equal(shifted["win"], final == final.max(axis=1, keepdims=True))
    assert np.array_equal(shifted["rank"], 1 + (final[:, None, :] > final[:, :, None]).sum(axis=2))
    assert not np.array_equal(shifted["win"], plain["win"])
    for name in set(plain) - {"score", "win", "rank"}:
        assert np.array_equal(plain[name], shifted[name]), name
    whole = play.play_batch(make_params(players=4, seat_bonus_points=[2, 0, 0, 1]), seats, seeds, rotations)
    assert whole["score"].dtype == np.int16
    assert np.array_equal(whole["score"], plain["score"] + np.array([2, 0, 0, 1], dtype=np.int16))


# ---- K-2.5: seat hand sizes ------------------------------------------------------------------------


def test_k2_5_seat_hand_sizes_and_auto_rows():
    """K-2.5 with K-2.2: hands of 8, 7, 6, 9 cards by seat; auto rows = (56 - 30) // 7 = 3, five
    cards set aside; all 56 cards distinct; rotation moves the slots, not the hand sizes, and
    the first 6 cards (the smallest hand) of each slot's hand are the same in every rotation."""
    params = make_params(players=4, seat_hand_size_delta=[1, 0, -1, 2])
    assert params.grid_rows == 3
    hands_by_slot = []
    for rotation in range(4):
        state = step_api.new_game(params, seed=5, rotation=rotation)
        assert [len(state.hand(seat)) for seat in range(4)] == [8, 7, 6, 9]
        assert counter(state, S.S_SET_ASIDE) == 5
        cards = state.hidden[:26].tolist()  # 21 zoo cells, then the set-aside tail
        cards += [c for seat in range(4) for c in state.hand(seat)]
        assert sorted(cards) == list(range(56))
        slot_of = [int(state.seats[seat, S.SEAT_SLOT]) for seat in range(4)]
        hands_by_slot.append({slot_of[seat]: state.hand(seat)[:6] for seat in range(4)})
    assert all(hands == hands_by_slot[0] for hands in hands_by_slot)


def test_k2_5_zero_deltas_deal_the_box():
    """K-2.5: explicit zeros (and a short list) deal exactly the default game."""
    seats = GAME.seat_policies([("greedy", {})] * 3)
    seeds = np.arange(50, dtype=np.uint64)
    default = play.play_batch(make_params(players=3), seats, seeds, np.arange(50) % 3)
    zeros = play.play_batch(make_params(players=3, seat_hand_size_delta=[0]), seats, seeds,
                              np.arange(50) % 3)
    assert all(np.array_equal(default[name], zeros[name]) for name in default)


# ---- K-3.8: the first player's first turn --------------------------------------------------------


def first_turn(state):
    state.scalars[S.S_FIRST_TURN] = 1  # the scripted position is the start seat's first action
    return state


def test_k3_8_flag_covers_exactly_the_start_seats_first_action():
    """K-3.8: the first-turn flag is set when a deal begins and cleared by its first action."""
    state = step_api.new_game(make_params(players=3, first_turn_limit="return_drawn_card"), seed=3)
    assert counter(state, S.S_FIRST_TURN) == 1
    step_api.apply(state, step_api.legal_moves(state)[0])
    assert counter(state, S.S_FIRST_TURN) == 1  # a draw: the placement is still to come
    step_api.apply(state, step_api.legal_moves(state)[0])
    assert counter(state, S.S_FIRST_TURN) == 0


def test_k3_8_return_drawn_card_only_the_drawn_card_leaves_the_hand():
    """K-3.8 return_drawn_card, T2's position (Pe6 drawn): only Pe6 may go back; outside the
    first turn all four fitting cards may (T2)."""
    state = first_turn(scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", first_turn_limit="return_drawn_card"))
    assert outcomes(state) == {("place", "Pe6")}
    do(state, "place", card_text="Pe6")
    assert hand_texts(state) == sorted(["Gi1", "Li7", "Ca2", "Mo5", "Pd3"])
    later = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", first_turn_limit="return_drawn_card")
    assert len(outcomes(later)) == 4


def test_k3_8_return_drawn_card_that_does_not_fit_takes_a_keeper():
    """K-3.8 return_drawn_card: the drawn Ca2 is blocked by Ca3 (T4), so a bare keeper goes in
    although Gi1 fits (checked mode: no T17.9 violation); the hand keeps Ca2."""
    grid = """
    r0: Gi5 El2 ##  ##  ##  ##  ##
    r1: ##  ##  ##  Ca3 ##  __  ##
    r2: ##  ##  Mo4 ##  ##  ##  ##
    """
    state = first_turn(scripted(grid, "Gi1 Ca2", first_turn_limit="return_drawn_card"))
    assert outcomes(state) == {("keeper",)}
    do(state, "keeper")
    assert hand_texts(state) == ["Ca2", "Gi1"] and supply(state) == 7


def test_k3_8_no_extra_turn_on_the_first_turn():
    """K-3.8 no_extra_turn: placing Li7 in T2's position on the first turn passes play to seat 1
    (no extra turn); later, or without the limit, Li7 earns one (T2)."""
    state = first_turn(scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", first_turn_limit="no_extra_turn"))
    do(state, "place", card_text="Li7")
    assert state.seat == 1 and counter(state, S.S_EXTRA_TURNS) == 0
    later = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", first_turn_limit="no_extra_turn")
    do(later, "place", card_text="Li7")
    assert later.seat == 0 and counter(later, S.S_EXTRA_TURNS) == 1


def test_k3_8_first_turn_limits_change_games():
    """K-3.8 in whole games: the limits change some games and no_extra_turn never grants an
    extra turn before the second action of a deal."""
    seats = GAME.seat_policies([("greedy", {})] * 5)
    seeds = np.arange(300, dtype=np.uint64)
    default = play.play_batch(make_params(players=5), seats, seeds, np.arange(300) % 5)
    for limit in ("no_extra_turn", "return_drawn_card"):
        limited = play.play_batch(make_params(players=5, first_turn_limit=limit), seats, seeds,
                                    np.arange(300) % 5, check=True)
        assert limited["check_violations"].sum() == 0
        assert not np.array_equal(default["score"], limited["score"]), limit
