"""Scenario tests T1-T16 of the rules spec §7 (seeds/alles-fuer-die-katz.md K-10), on scripted
positions in the spec's notation. Every test runs in checked mode (T17 invariants after each
move)."""

from __future__ import annotations

import numpy as np
import pytest

from katz_helpers import (cell, counter, do, hand_texts, make_params, outcomes, scripted,
                          seat_score, supply, win_flags)
from simulator.errors import ZoosimError
from simulator.games.katz import GAME, play, render, step_api
from simulator.games.katz import state as S

T2_GRID = """
r0: Gi5 El2 __  ##  ##  ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  Mo4 ##  ##  ##  ##
"""
T6_GRID = """
r0: Gi5 El2 Mo1 ##  Pa4 ##  ##
r1: ##  ##  ##  Ca3 ##  ##  ##
r2: ##  ##  ##  Pe2 ##  ##  ##
"""
T7_GRID = """
r0: Gi1 El2 Mo3 ##  Pa4 Pe5 Li6
r1: ##  ##  ##  Pd2 ##  ##  ##
r2: ##  ##  ##  Ca1 ##  ##  ##
"""
T8_GRID = """
r0: Gi5 ZK      ##  ##  ##  ##  ##
r1: ##  El3     ##  ##  ##  ##  ##
r2: ##  ZK/Pa4  ##  ##  ##  ##  ##
"""


# ---- T1 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_t1_setup_geometry(players):
    """T1: 7-card hands, an (8 - n) x 7 zoo all face down, supply 8, 56 distinct cards."""
    state = step_api.new_game(make_params(players=players), seed=11)
    assert (int(state.rules[S.P_ROWS]), int(state.rules[S.P_COLS])) == (8 - players, 7)
    assert all(len(state.hand(seat)) == 7 for seat in range(players))
    assert (state.cells[S.CELL_STATE] == S.FACE_DOWN).all()
    assert supply(state) == 8
    zoo = state.hidden[: (8 - players) * 7].tolist()
    everything = zoo + [c for seat in range(players) for c in state.hand(seat)]
    assert sorted(everything) == list(range(56))


def test_t1_player_count_outside_box_rejected_unless_allowed():
    """T1: n outside 2..5 is rejected; with allow_nonstandard_players 6 -> 2 x 7, 7 -> 1 x 7."""
    for players in (1, 6, 7):
        with pytest.raises(ZoosimError, match="players must be 2..5"):
            make_params(players=players)
    for players, rows in ((6, 2), (7, 1)):
        params = make_params(players=players, allow_nonstandard_players=True)
        assert params.grid_rows == rows
        state = step_api.new_game(params, seed=3)
        assert state.cells.shape[1] == rows * 7


# ---- T2, T3, T4, T5 -----------------------------------------------------------------------------


def test_t2_basic_fit_values_do_not_matter():
    """T2: fitting = {Li7, Ca2, Pd3, Pe6}; Gi1 blocked by Gi5 (row), Mo5 by Mo4 (column); Ca3 is
    outside the cross; no keeper; placing Li7 leaves 5 cards and gives an extra turn."""
    state = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6")
    assert outcomes(state) == {("place", "Li7"), ("place", "Ca2"), ("place", "Pd3"), ("place", "Pe6")}
    do(state, "place", card_text="Li7")
    assert hand_texts(state) == sorted(["Gi1", "Ca2", "Mo5", "Pd3", "Pe6"])
    assert state.seat == 0 and state.phase == S.PHASE_ACTION
    assert counter(state, S.S_EXTRA_TURNS) == 1


def test_t3_putting_the_drawn_card_back():
    """T3: drawing Pe6 and placing it back restores the hand held before the draw."""
    grid = T2_GRID.replace("__", "##")
    state = scripted(grid, "Gi1 Li7 Ca2 Mo5 Pd3", face_down={(0, 2): "Pe6"})
    do(state, "draw", (0, 2))
    assert ("place", "Pe6") in outcomes(state)
    do(state, "place", card_text="Pe6")
    assert hand_texts(state) == sorted(["Gi1", "Li7", "Ca2", "Mo5", "Pd3"])
    assert state.seat == 1  # no effect: the turn passes


def test_t3_drawn_seven_put_back_gives_extra_turn_but_blocked_seven_cannot():
    """T3 variant: a drawn Pe7 fits and going back earns an extra turn; Gi7 is blocked by Gi5."""
    grid = T2_GRID.replace("__", "##")
    state = scripted(grid, "Gi1 Li7 Ca2 Mo5 Pd3", face_down={(0, 2): "Pe7"})
    do(state, "draw", (0, 2))
    do(state, "place", card_text="Pe7")
    assert state.seat == 0 and counter(state, S.S_EXTRA_TURNS) == 1
    state = scripted(grid, "Gi1 Li7 Ca2 Mo5 Pd3", face_down={(0, 2): "Gi7"})
    do(state, "draw", (0, 2))
    assert ("place", "Gi7") not in outcomes(state)
    assert ("place", "Li7") in outcomes(state)


def test_t4_cats_block_cats():
    """T4: Ca2 is blocked by Ca3 in row 1; only Gi1 fits."""
    grid = """
    r0: Gi5 El2 ##  ##  ##  ##  ##
    r1: ##  ##  ##  Ca3 ##  __  ##
    r2: ##  ##  Mo4 ##  ##  ##  ##
    """
    assert outcomes(scripted(grid, "Ca2 Gi1")) == {("place", "Gi1")}
    # penalty_kind_blocks: false lets the cat in as well (K-3.1.4)
    assert outcomes(scripted(grid, "Ca2 Gi1", penalty_kind_blocks=False)) == {
        ("place", "Gi1"), ("place", "Ca2")}


T5_GRID = """
r0: ##  ##  ##  ##  ##  ##  ##
r1: ZK  __  ZK/Gi4 ## ## ## ##
r2: ##  ##  ##  ##  ##  ##  ##
"""


def test_t5_keepers_face_down_and_covered_cards_do_not_block():
    """T5: Gi2 fits next to a bare keeper and a keeper over Gi4."""
    assert outcomes(scripted(T5_GRID, "Gi2")) == {("place", "Gi2")}


def test_t5_covered_cards_block_variant_forces_bare_keeper():
    """T5 with covered_cards_block: nothing fits, the cell is not dead, so a bare keeper goes in;
    the hand keeps Gi2 and the supply drops by one."""
    state = scripted(T5_GRID, "Gi2", covered_cards_block=True)
    assert outcomes(state) == {("keeper",)}
    before = supply(state)
    do(state, "keeper")
    assert hand_texts(state) == ["Gi2"]
    assert supply(state) == before - 1


# ---- T6, T7 -------------------------------------------------------------------------------------


def t6_after_draw(rule: str):
    state = scripted(T6_GRID, "Mo6 Ca5 Pe7", face_down={(0, 3): "Gi3"}, blocked_cell_rule=rule)
    do(state, "draw", (0, 3))
    return state


@pytest.mark.parametrize("rule", ["dead_cell", "off"])
def test_t6_without_line_completion_only_bare_keeper(rule):
    """T6 dead_cell / off: a bare ZK is the only outcome; hand of 4, supply 7, no effect, next seat."""
    state = t6_after_draw(rule)
    assert outcomes(state) == {("keeper",)}
    do(state, "keeper")
    assert hand_texts(state) == sorted(["Mo6", "Ca5", "Pe7", "Gi3"])
    assert supply(state) == 7
    assert state.seat == 1
    assert counter(state, S.S_EXTRA_TURNS) == 0 and counter(state, S.S_SKIPS_EARNED) == 0


@pytest.mark.parametrize("rule", ["line_completion", "either"])
def test_t6_line_completion_exception(rule):
    """T6 line_completion (default) / either: column 3 completes, so Gi3 and Mo6 (kinds not in
    column 3's {Ca, Pe}) may go under a keeper; choosing Mo6 gives a permanent ZK/Mo6."""
    state = t6_after_draw(rule)
    assert outcomes(state) == {("keeper",), ("cover", "Gi3"), ("cover", "Mo6")}
    do(state, "cover", card_text="Mo6")
    gap = cell(state, 0, 3)
    assert render.cell_text(state, gap) == "ZK/Mo6"
    assert hand_texts(state) == sorted(["Ca5", "Pe7", "Gi3"])
    assert supply(state) == 7


def test_t6_default_rule_is_line_completion():
    assert make_params().blocked_cell_rule == "line_completion"


def t7_after_draw(**knobs):
    state = scripted(T7_GRID, "Ca7 Gi4 Li2", face_down={(0, 3): "El6"}, **knobs)
    do(state, "draw", (0, 3))
    return state


T7_ALL = {("keeper",), ("cover", "Ca7"), ("cover", "Gi4"), ("cover", "Li2"), ("cover", "El6")}


@pytest.mark.parametrize("rule", ["dead_cell", "either", "line_completion"])
def test_t7_dead_cell_exception_outcomes(rule):
    """T7: the cell is dead; bare ZK or ZK over any of the 4 cards (line_completion gives the
    same set: row 0 admits Ca7, column 3 admits Gi4, Li2, El6)."""
    assert outcomes(t7_after_draw(blocked_cell_rule=rule)) == T7_ALL


@pytest.mark.parametrize(
    "choice, score",
    [(None, 5), ("Ca7", 12), ("Gi4", 1), ("Li2", 3), ("El6", -1)],
)
def test_t7_scores_of_remaining_hand(choice, score):
    """T7 table: remaining hand scores 5 (bare ZK), 12, 1, 3, -1; supply 7 afterwards."""
    state = t7_after_draw(blocked_cell_rule="dead_cell")
    if choice is None:
        do(state, "keeper")
    else:
        do(state, "cover", card_text=choice)
    assert seat_score(state, 0) == score
    assert supply(state) == 7


def test_t7_dumping_cat_seven_earns_extra_turn_unless_covered_effects_off():
    """T7: ZK over Ca7 earns an extra turn by default, not with value_effects_on.covered false."""
    state = t7_after_draw(blocked_cell_rule="dead_cell")
    do(state, "cover", card_text="Ca7")
    assert state.seat == 0 and counter(state, S.S_EXTRA_TURNS) == 1
    # the covered keeper is never replaceable, even in the extra turn with a fitting card
    assert not any(o[0] == "replace" for o in outcomes(state))
    state = t7_after_draw(blocked_cell_rule="dead_cell", value_effects_on={"covered": False})
    do(state, "cover", card_text="Ca7")
    assert state.seat == 1 and counter(state, S.S_EXTRA_TURNS) == 0


def test_t7_bare_keeper_on_dead_cell_never_replaceable():
    """T7: a bare ZK on the dead cell can never be replaced: every kind is visible there."""
    grid = T7_GRID.replace("Mo3 ##", "Mo3 ZK")
    state = scripted(grid, "Gi3 El3 Mo7 Pa7 Pe7 Li7 Pd7 Ca7")
    assert replacements(state) == set()


def test_t7_compulsory_exception_and_off():
    """T7: blocked_cell_optional false removes the bare keeper; off leaves only the bare keeper."""
    assert outcomes(t7_after_draw(blocked_cell_rule="dead_cell", blocked_cell_optional=False)) == (
        T7_ALL - {("keeper",)})
    assert outcomes(t7_after_draw(blocked_cell_rule="off")) == {("keeper",)}


def test_line_completion_keepers_do_not_fill_variant():
    """K-3.3.2 knob line_complete_counts_keepers: column 3 holds Pe2 and a keeper; it counts as
    complete by default (Mo6 and Gi3 are new to it), not when keepers do not fill a line."""
    grid = """
    r0: Gi5 El2 Mo1 ##  Pa4 ##  ##
    r1: ##  ##  ##  Pe2 ##  ##  ##
    r2: ##  ##  ##  ZK  ##  ##  ##
    """
    counted = scripted(grid, "Mo6 Pe7", face_down={(0, 3): "Gi3"})
    do(counted, "draw", (0, 3))
    assert outcomes(counted) == {("keeper",), ("cover", "Mo6"), ("cover", "Gi3")}
    uncounted = scripted(grid, "Mo6 Pe7", face_down={(0, 3): "Gi3"}, line_complete_counts_keepers=False)
    do(uncounted, "draw", (0, 3))
    assert outcomes(uncounted) == {("keeper",)}


# ---- T8 ------------------------------------------------------------------------------------------


def replacements(state):
    return {o for o in outcomes(state) if o[0] == "replace"}


def test_t8_keeper_replacement_legal_set():
    """T8: only (0,1) is replaceable, with Pa1 or Li7; Gi2 blocked by row 0, El6 by El3; the
    covered Pa4 does not block; with covered_cards_block only Li7."""
    state = scripted(T8_GRID, "Gi2 El6 Pa1 Li7")
    assert supply(state) == 6
    assert replacements(state) == {("replace", (0, 1), "Pa1"), ("replace", (0, 1), "Li7")}
    blocked = scripted(T8_GRID, "Gi2 El6 Pa1 Li7", covered_cards_block=True)
    assert replacements(blocked) == {("replace", (0, 1), "Li7")}


def test_t8_replace_with_seven_and_with_one():
    """T8: Li7 -> face up, supply 7, extra turn; Pa1 -> the next turn is skipped, play passes."""
    state = scripted(T8_GRID, "Gi2 El6 Pa1 Li7")
    do(state, "replace", (0, 1), "Li7")
    assert render.cell_text(state, cell(state, 0, 1)) == "Li7"
    assert supply(state) == 7
    assert hand_texts(state) == sorted(["Gi2", "El6", "Pa1"])
    assert state.seat == 0 and counter(state, S.S_EXTRA_TURNS) == 1
    state = scripted(T8_GRID, "Gi2 El6 Pa1 Li7")
    do(state, "replace", (0, 1), "Pa1")
    assert hand_texts(state) == sorted(["Gi2", "El6", "Li7"])
    assert state.seats[0, S.SEAT_SKIP_PENDING] == 1
    assert state.seat == 1


def test_t8_replacement_effects_off():
    """T8 with value_effects_on.replace false: neither effect happens."""
    for text in ("Li7", "Pa1"):
        state = scripted(T8_GRID, "Gi2 El6 Pa1 Li7", value_effects_on={"replace": False})
        do(state, "replace", (0, 1), text)
        assert state.seat == 1
        assert state.seats[0, S.SEAT_SKIP_PENDING] == 0
        assert counter(state, S.S_EXTRA_TURNS) == 0


def test_replacement_can_be_switched_off():
    """K-3.4 knob allow_keeper_replacement=false removes action B."""
    assert replacements(scripted(T8_GRID, "Gi2 El6 Pa1 Li7", allow_keeper_replacement=False)) == set()


# ---- T9 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["line_completion", "dead_cell", "either", "off"])
def test_t9_a_fit_forbids_keepers(rule):
    """T9: with a fitting card, no keeper placement (bare or covered) is legal, whatever the rule;
    must_place_if_able false re-admits the bare keeper only."""
    state = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", blocked_cell_rule=rule)
    assert all(o[0] == "place" for o in outcomes(state))
    loose = scripted(T2_GRID, "Gi1 Li7 Ca2 Mo5 Pd3 Pe6", blocked_cell_rule=rule, must_place_if_able=False)
    assert {o for o in outcomes(loose) if o[0] != "place"} == {("keeper",)}


# ---- T10, T11 ------------------------------------------------------------------------------------

EMPTY = "\n".join(["##  " * 7] * 3)


def play_t10(**knobs):
    """Draw somewhere fresh and place the named card, recording who acted."""
    state = scripted(EMPTY, "Gi7 Mo7 El3 Li4 Pa2", players=2, other_hands=["Pd1 Pe5"], **knobs)
    script = [("Gi7", (0, 0)), ("Mo7", (1, 1)), ("El3", (2, 2)), ("Pd1", (0, 3)),
              ("Li4", (1, 4)), ("Pa2", (2, 5))]
    order = []
    for text, where in script:
        seat = state.seat
        order.append("AB"[seat])
        do(state, "draw", where)
        do(state, "place", card_text=text)
    order.append("AB"[state.seat])
    return order, state


def test_t10_sequencing_of_seven_and_one():
    """T10: seat order of actions A, A, A, B, A, A, B (B's turn after Li4 is skipped)."""
    order, state = play_t10()
    assert order == list("AAABAAB")
    assert counter(state, S.S_SKIPPED_TURNS) == 1
    assert counter(state, S.S_EXTRA_TURNS) == 2


def test_t10_without_chaining_the_second_seven_gives_no_turn():
    """T10 with chain_extra_turns false: after Mo7 (played in an extra turn) it is B's turn."""
    state = scripted(EMPTY, "Gi7 Mo7 El3", players=2, other_hands=["Pd1"], chain_extra_turns=False)
    do(state, "draw", (0, 0))
    do(state, "place", card_text="Gi7")
    assert state.seat == 0
    do(state, "draw", (1, 1))
    do(state, "place", card_text="Mo7")
    assert state.seat == 1
    assert counter(state, S.S_EXTRA_TURNS) == 1


def test_t11_extra_turn_followed_by_one():
    """T11: Ca7 (extra turn) then Gi1: A's turn ends, A holds one pending skip, used once."""
    state = scripted(EMPTY, "Ca7 Gi1 El4", players=2, other_hands=["Pd3 Pe4 Li5"])
    do(state, "draw", (0, 0))
    do(state, "place", card_text="Ca7")
    assert state.seat == 0
    do(state, "draw", (1, 1))
    do(state, "place", card_text="Gi1")
    assert state.seat == 1
    assert state.seats[0, S.SEAT_SKIP_PENDING] == 1
    do(state, "draw", (2, 2))
    do(state, "place", card_text="Pd3")
    assert state.seat == 1  # A's turn was lost
    assert state.seats[0, S.SEAT_SKIP_PENDING] == 0
    assert counter(state, S.S_SKIPPED_TURNS) == 1
    do(state, "draw", (0, 3))
    do(state, "place", card_text="Pe4")
    assert state.seat == 0


# ---- T12, T13, T14 -------------------------------------------------------------------------------

# Row r, column c shows kind (c + r) % 8 with value r + 2, so no line repeats a kind; (2,6)
# (kind 0, giraffe) is the last face-down cell and (1,3) holds a bare keeper.
KINDS = ["Gi", "El", "Mo", "Pa", "Pe", "Li", "Pd", "Ca"]
FULL_ROWS = [[f"{KINDS[(c + r) % 8]}{r + 2}" for c in range(7)] for r in range(3)]
FULL_ROWS[1][3] = "ZK"
FULL_ROWS[2][6] = "##"
FULL_GRID = "\n".join(" ".join(row) for row in FULL_ROWS)


def test_t12_immediate_end_on_last_face_down_card():
    """T12: placing the drawn Gi7 ends the game at once; the extra turn is not taken."""
    state = scripted(FULL_GRID, "Pd6 Li6", face_down={(2, 6): "Gi7"})
    do(state, "draw", (2, 6))
    assert outcomes(state) == {("place", "Gi7")}
    do(state, "place", card_text="Gi7")
    assert step_api.is_over(state)
    assert counter(state, S.S_EXTRA_TURNS) == 0
    assert counter(state, S.S_END_REASON) == S.END_NO_FACE_DOWN
    assert step_api.scores(state).tolist() == [12, 0, 0, 0, 0]
    assert step_api.winners(state) == [0]


@pytest.mark.parametrize("outcome", [("keeper", None), ("cover", "Mo7")])
def test_t12_immediate_end_also_after_keeper_or_exception(outcome):
    """T12: the same holds when a bare keeper or a covered card fills the last cell (Mo7 under
    the keeper would earn an extra turn, but the end comes first)."""
    state = scripted(FULL_GRID, "Pd6 Ca6", face_down={(2, 6): "Mo7"})
    do(state, "draw", (2, 6))
    assert outcomes(state) == {("keeper",), ("cover", "Mo7")}
    do(state, outcome[0], card_text=outcome[1])
    assert step_api.is_over(state)
    assert counter(state, S.S_EXTRA_TURNS) == 0


T13_GRID = """
r0: ZK  ZK/Gi1 ZK  ZK/El1 ZK  ZK/Mo1 ZK
r1: ##  Pa2 Pe2 Li2 Pd2 Ca2 ##
r2: ##  ##  ##  ##  ##  ##  ##
"""
T13_DEAD_GRID = """
r0: Ca2 ZK  ZK/Gi1 ZK  ZK/El1 ZK  ZK/Mo1
r1: ##  Gi2 El2 Mo2 Pa2 Pe2 Li2
r2: Pd2 ZK  ##  ##  ##  ##  ##
"""


def test_t13_immediate_end_on_eighth_keeper():
    """T13: supply 1, nothing fits, not dead: the bare keeper empties the supply; game over."""
    state = scripted(T13_GRID, "Pa3", face_down={(1, 0): "Pe3"})
    assert supply(state) == 1
    do(state, "draw", (1, 0))
    assert outcomes(state) == {("keeper",)}
    do(state, "keeper")
    assert supply(state) == 0
    assert step_api.is_over(state)
    assert counter(state, S.S_END_REASON) == S.END_KEEPERS_EXHAUSTED


def test_t13_dead_cell_cat_seven_under_last_keeper_ends_without_extra_turn():
    """T13 variant: dumping Ca7 under the last keeper ends the game; no extra turn."""
    state = scripted(T13_DEAD_GRID, "Ca7", face_down={(1, 0): "Pa7"}, blocked_cell_rule="dead_cell")
    assert supply(state) == 1
    do(state, "draw", (1, 0))
    assert ("cover", "Ca7") in outcomes(state)
    do(state, "cover", card_text="Ca7")
    assert step_api.is_over(state)
    assert counter(state, S.S_EXTRA_TURNS) == 0
    assert counter(state, S.S_END_REASON) == S.END_KEEPERS_EXHAUSTED


def test_t14_empty_hand():
    """T14: no replacement with 0 cards; a fitting draw goes back (hand 0); a non-fitting one is
    kept under a bare keeper (hand 1)."""
    grid = """
    r0: ZK  ##  ##  ##  ##  ##  ##
    r1: ##  ##  ##  ##  ##  ##  ##
    r2: Gi3 ##  ##  ##  ##  ##  ##
    """
    state = scripted(grid, "", face_down={(0, 1): "El4", (1, 0): "Gi5"}, blocked_cell_rule="off")
    assert replacements(state) == set()
    do(state, "draw", (0, 1))
    assert outcomes(state) == {("place", "El4")}
    do(state, "place", card_text="El4")
    assert state.hand(0) == []
    state = scripted(grid, "", face_down={(0, 1): "El4", (1, 0): "Gi5"}, blocked_cell_rule="off")
    do(state, "draw", (1, 0))
    assert outcomes(state) == {("keeper",)}
    do(state, "keeper")
    assert hand_texts(state) == ["Gi5"]


# ---- T15, T16 ------------------------------------------------------------------------------------


def hand_score(text: str, **knobs) -> int:
    return seat_score(scripted(EMPTY, text, **knobs))


@pytest.mark.parametrize(
    "hand, expected",
    [
        ("Gi7 Gi3 El5 Ca2 Ca6 Pd1", 2),
        ("Li4 Li6 Li2", 0),
        ("", 0),
        ("Gi7 El7 Mo7 Pa7 Pe7 Li7 Pd7", 49),
        ("Ca1 Ca2 Ca3 Ca4 Ca5 Ca6 Ca7", -28),
        ("Pa1 Pa2 Pa3 Pa4 Pa5 Pa6 Pa7", -14),
        ("Mo2 Ca1", 1),
    ],
)
def test_t15_scoring(hand, expected):
    """T15: the scoring table."""
    assert hand_score(hand) == expected


def test_t15_scoring_knobs():
    """T15: other_of_kind_penalty zero -> 6 for Li4 Li6 Li2; penalty_kind_card minus_one -> 8
    for the first row; other_of_kind_penalty minus_one -> 6 - 1 - 1 = 4."""
    assert hand_score("Li4 Li6 Li2", scoring={"other_of_kind_penalty": "zero"}) == 6
    assert hand_score("Gi7 Gi3 El5 Ca2 Ca6 Pd1", scoring={"penalty_kind_card": "minus_one"}) == 8
    assert hand_score("Li4 Li6 Li2", scoring={"other_of_kind_penalty": "minus_one"}) == 4


def finished_three_seats(tie_break: str, scores, hand_cards, cats, first_seat: int = 0):
    """A 3-player state whose totals are set as if the game had ended (T16 only needs totals)."""
    state = scripted(EMPTY, "", players=3, tie_break=tie_break)
    state.seats[:, S.SEAT_TOTAL_SCORE] = scores
    state.seats[:, S.SEAT_TOTAL_HAND_CARDS] = hand_cards
    state.seats[:, S.SEAT_TOTAL_PENALTY_CARDS] = cats
    state.scalars[S.S_FIRST_SEAT] = first_seat
    return win_flags(state)


def test_t16_ties():
    """T16: [10, 10, 7] -> seats 0 and 1 share by default; fewest_hand_cards picks the smaller
    hand and shares when that ties too; fewest_cats likewise; later_seat picks the later seat."""
    assert finished_three_seats("shared", [10, 10, 7], [5, 4, 3], [1, 1, 0]) == [True, True, False]
    assert finished_three_seats("fewest_hand_cards", [10, 10, 7], [5, 4, 3], [0, 2, 0]) == [False, True, False]
    assert finished_three_seats("fewest_hand_cards", [10, 10, 7], [4, 4, 3], [0, 2, 0]) == [True, True, False]
    assert finished_three_seats("fewest_cats", [10, 10, 7], [5, 4, 3], [0, 2, 0]) == [True, False, False]
    assert finished_three_seats("later_seat", [10, 10, 7], [5, 4, 3], [0, 2, 0]) == [False, True, False]
    # later in turn order counts from the first seat: with seat 1 first, seat 0 moves last
    assert finished_three_seats("later_seat", [10, 10, 7], [5, 4, 3], [0, 2, 0], first_seat=1) == [True, False, False]


def test_t16_ties_in_records():
    """play_batch marks every seat of a shared top score as a winner."""
    params = make_params(players=3)
    seat_policies = GAME.seat_policies([("random", {})] * 3)
    columns = play.play_batch(params, seat_policies, np.arange(3000, dtype=np.uint64), np.zeros(3000, np.int8))
    top = columns["score"].max(axis=1, keepdims=True)
    assert (columns["win"] == (columns["score"] == top)).all()
    assert (columns["win"].sum(axis=1) > 1).any()  # ties do happen
