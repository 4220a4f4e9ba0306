"""Scenario tests T1-T16 and edge cases E1-E29 of seeds/new-york-zoo.md, via the step API.

Positions are scripted with the engine's helpers (set_houses, add_enclosure, set_bay, ...),
then played move by move through the same kernels play_batch uses.
"""

import numpy as np
import pytest

from nyz_helpers import add_enclosure, cover_squares, restart_turn, set_bay, set_houses
from simulator.games.nyz import GAME, moves, render, step_api
from simulator.games.nyz import components as comp
from simulator.games.nyz import state as S
from simulator.errors import ZoosimError

SPECIES = {name: i for i, name in enumerate(comp.SPECIES)}


def game(players=2, seed=1, check=True, **knobs):
    """A new game, checked: apply raises InvariantViolation when a move breaks T18."""
    return step_api.new_game(GAME.make_params({"players": players, **knobs}), seed=seed, check=check)


def clear_board(pos, seat, houses):
    """Seat with the given houses (None = free) and no enclosures."""
    set_houses(pos, seat, houses)
    pos.state.seat[seat, S.P_ENCLOSURES] = 0


def destinations(pos):
    assert pos.decision == S.D_DEST
    return sorted(m % 32 for m in step_api.legal_moves(pos))


def aux_of(pos, space):
    for i, move in enumerate(step_api.legal_moves(pos)):
        if move % 32 == space:
            return int(pos.state.option_aux[i])
    raise AssertionError(f"{space} not legal")


def move_elephant(pos, space, marker_code=0):
    step_api.apply(pos, space + 32 * marker_code)


def place_anywhere(pos):
    assert pos.decision in (S.D_PLACE, S.D_ATTRACTION_PLACE)
    step_api.apply(pos, step_api.legal_moves(pos)[0])


def enc(pos, seat, e):
    return pos.state.enc[seat, e, S.E_COUNT], pos.state.enc[seat, e, S.E_SPECIES]


def houses(pos, seat):
    return sorted(
        comp.SPECIES[s] for s in pos.state.house[seat, : pos.state.seat[seat, S.P_HOUSES]] if s >= 0
    )


def to_place(slot, target):
    return 64 * slot + target


# ---------------------------------------------------------------------------------------------
# T1 / T2 movement


def test_t1_1_two_players_from_10():
    """T1.1: P(2), all bays stocked, elephant on 10 -> {11, 12, 13, 14}; only 14 crosses (fox)."""
    pos = game(2)
    assert destinations(pos) == [11, 12, 13, 14]
    assert aux_of(pos, 14) == 1 << SPECIES["fox"]
    assert all(aux_of(pos, s) == 0 for s in (11, 12, 13))


def test_t1_2_three_players_from_5():
    """T1.2: P(3), elephant on 5 -> {6, 7, 8} (seat with a free house)."""
    pos = game(3)
    restart_turn(pos, active=1, elephant=5)
    assert destinations(pos) == [6, 7, 8]


def test_t1_3_empty_bay_is_skipped():
    """T1.3: P(3), elephant on 5, bay 6 empty -> {7, 8, 9}; 9 crosses the penguin line."""
    pos = game(3)
    set_bay(pos, 6, [])
    restart_turn(pos, active=1, elephant=5)
    assert destinations(pos) == [7, 8, 9]
    assert aux_of(pos, 9) == 1 << SPECIES["penguin"]


@pytest.mark.parametrize(
    "order, expected", [("chronological", ["flamingo", "kangaroo"]), ("bga_index", ["kangaroo", "flamingo"])]
)
def test_t1_4_two_lines_in_one_move(order, expected):
    """T1.4 / E7: from 23 with bays 24 and 1 empty: {25, 2, 3, 4}; 4 crosses two lines."""
    pos = game(2, breeding_order=order)
    set_bay(pos, 24, [])
    set_bay(pos, 1, [])
    restart_turn(pos, active=0, elephant=23)
    assert destinations(pos) == [2, 3, 4, 25]
    assert aux_of(pos, 25) == 1 << SPECIES["flamingo"]
    move_elephant(pos, 4)
    events = pos.state.events[: pos.scalar(S.SC_N_EVENTS)]
    assert [comp.SPECIES[s] for s in events] == expected


def test_e7_max_events_per_move():
    """E7 knob: max_events_per_move = 1 keeps only the first event."""
    pos = game(2, max_events_per_move=1)
    set_bay(pos, 24, [])
    set_bay(pos, 1, [])
    restart_turn(pos, active=0, elephant=23)
    move_elephant(pos, 4)
    assert pos.scalar(S.SC_N_EVENTS) == 1
    assert pos.state.events[0] == SPECIES["flamingo"]


def test_t1_5_never_stays_and_range():
    """T1.5: the elephant may not stay; destinations are 1..range counted steps away."""
    for players, reach in ((2, 4), (4, 4), (3, 3), (5, 3)):
        pos = game(players)
        restart_turn(pos, active=players - 1, elephant=10)
        spaces = destinations(pos)
        assert 10 not in spaces
        assert max(spaces) <= 10 + reach


TRUE_MOVES = [(3, 4), (23, 24), (23, 2), (25, 4), (24, 4), (8, 10), (5, 9), (17, 20)]
FALSE_MOVES = [(4, 8), (24, 1), (14, 18), (24, 3), (9, 12)]


@pytest.mark.parametrize("start, dest", TRUE_MOVES + FALSE_MOVES)
def test_t2_line_crossing_truth_table(start, dest):
    """T2: a move crosses a line iff its path (after start, up to dest) holds a trigger space."""
    pos = game(2)
    moves.record_crossings(pos.state, pos.tables, start, dest)
    assert (pos.scalar(S.SC_N_EVENTS) > 0) == ((start, dest) in TRUE_MOVES)


# ---------------------------------------------------------------------------------------------
# T3 solo reachability, T15 laps, E16/E17/E28


def solo_options(pos):
    """{marker name or 'free': spaces}"""
    out = {}
    for move in step_api.legal_moves(pos):
        code, space = divmod(move, 32)
        name = "free" if code == S.MARKER_FREE else comp.SOLO_MARKERS[code - 1]
        out.setdefault(name, set()).add(space)
    return out


ALL_BUT_17_TO_20 = set(range(21, 26)) | set(range(1, 17))


@pytest.mark.parametrize(
    "markers, expected",
    [
        ({"0"}, {"0": {17}, "free": {20}}),
        ({"1"}, {"1": {18}, "free": {20}}),
        ({"3"}, {"3": {20}, "free": {20}}),
        ({"4+"}, {"4+": ALL_BUT_17_TO_20, "free": {20}}),
        ({"0", "4+"}, {"0": {17}, "4+": ALL_BUT_17_TO_20, "free": {20}}),
        ({"0", "1", "2", "3"}, {"0": {17}, "1": {18}, "2": {19}, "3": {20}, "free": {20}}),
        ({"0", "2", "3", "4+"}, {"0": {17}, "2": {19}, "3": {20}, "4+": ALL_BUT_17_TO_20, "free": {20}}),
    ],
)
def test_t3_solo_reachability_from_17(markers, expected):
    """T3: solo destinations by marker in hand, all bays stocked (free move = 20)."""
    pos = game(1)
    for i, name in enumerate(comp.SOLO_MARKERS):
        pos.state.markers_used[i] = 0 if name in markers else 1
    restart_turn(pos, active=0, elephant=17)
    assert solo_options(pos) == expected


def test_e28_marker_zero_on_empty_bay():
    """E28: marker 0 cannot be used on a bay that has become empty."""
    pos = game(1)
    set_bay(pos, 16, [])
    restart_turn(pos, active=0, elephant=16)
    assert "0" not in solo_options(pos)
    set_bay(pos, 16, ["B1"])
    restart_turn(pos, active=0, elephant=16)
    assert solo_options(pos)["0"] == {16}


def test_t15_solo_laps():
    """T15: 10 -> 16 with 4+ is no lap; 25 -> 2 free is no lap; entering 10 counts a lap;
    the second lap ends the game after the main action, without breeding (E17), lost if
    the board is not complete."""
    pos = game(1)
    move_elephant(pos, 16, 5)  # marker 4+
    assert pos.scalar(S.SC_LAPS) == 0
    pos.state.markers_used[:] = 0
    restart_turn(pos, active=0, elephant=25)
    move_elephant(pos, 2, S.MARKER_FREE)
    assert pos.scalar(S.SC_LAPS) == 0
    pos.state.markers_used[:] = 0
    restart_turn(pos, active=0, elephant=9)
    move_elephant(pos, 10, 2)  # marker 1
    assert pos.scalar(S.SC_LAPS) == 1
    # second lap: 8 -> 10 crosses the penguin line, but the game ends before breeding
    clear_board(pos, 0, [None, None, None])
    e = add_enclosure(pos, 0, "C1", "penguin", 3)
    pos.state.markers_used[:] = 0
    restart_turn(pos, active=0, elephant=8)
    move_elephant(pos, 10, 3)  # marker 2: 9, 10
    while not step_api.is_over(pos):
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    assert pos.scalar(S.SC_LAPS) == 2
    assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == "solo_laps"
    assert pos.state.enc[0, e, S.E_COUNT] <= 3 + 1  # +1 at most from the main action
    assert pos.state.seat[0, S.P_YOUNG] == 0
    assert step_api.winners(pos) == []


def test_e17_solo_last_turn_breeding_knob():
    """E17 knob: solo_last_turn_breeding = true breeds on the lap-2 turn."""
    pos = game(1, solo_last_turn_breeding=True)
    clear_board(pos, 0, [None, None, None])
    add_enclosure(pos, 0, "C1", "penguin", 3)
    pos.state.sc[S.SC_LAPS] = 1
    restart_turn(pos, active=0, elephant=8)
    move_elephant(pos, 10, 3)
    while not step_api.is_over(pos):
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    assert pos.state.seat[0, S.P_YOUNG] >= 1


@pytest.mark.parametrize("solo_score, expected", [("bga", 5), ("lap_aware", 5 + 25)])
def test_e16_solo_score(solo_score, expected):
    """E16: a complete solo board scores the spaces to 10 (bga) or to the end of lap 2."""
    pos = game(1, solo_score=solo_score)
    cover_squares(pos, 0, 0)
    pos.state.sc[S.SC_ELEPHANT] = 5
    assert moves.solo_score(pos.state, pos.tables) == expected
    pos2 = game(1, solo_score=solo_score)
    cover_squares(pos2, 0, 3)
    assert moves.solo_score(pos2.state, pos2.tables) == -3


def test_solo_win_when_board_completed():
    """N-8.2: completing the board wins the solo game."""
    pos = game(1)
    clear_board(pos, 0, ["meerkat", None, None])
    e = add_enclosure(pos, 0, "A7", "meerkat", 3)
    cover_squares(pos, 0, 1)
    restart_turn(pos, active=0, elephant=15)
    move_elephant(pos, 17, S.MARKER_FREE)  # flamingo + meerkat
    step_api.apply(pos, S.CHOICE_PAIR)
    step_api.apply(pos, to_place(1, e))  # meerkat fills e
    while not step_api.is_over(pos):
        moves = step_api.legal_moves(pos)
        step_api.apply(pos, 7 if pos.decision == S.D_ATTRACTION else moves[0])
    assert pos.scalar(S.SC_SOLO_WON) == 1 and step_api.winners(pos) == [0]


# ---------------------------------------------------------------------------------------------
# T4 - T9: main actions


def test_t4_two_house_board_first_turn():
    """T4 / E5: P(4) seat 1 (2 full houses, no enclosure): animal spaces illegal; bays 11, 13, 14
    show class-D tiles; the new enclosure gets exactly 1 animal."""
    pos = game(4)
    assert destinations(pos) == [11, 13, 14]
    for space in (11, 13, 14):
        assert pos.tables.tile_class[moves.top_tile(pos.state, space)] == 3
    move_elephant(pos, 11)
    place_anywhere(pos)
    assert pos.decision == S.D_POPULATE
    assert sorted(step_api.legal_moves(pos)) == [S.SRC_HOUSE + 0, S.SRC_HOUSE + 1]
    step_api.apply(pos, S.SRC_HOUSE + 0)
    assert pos.state.enc[0, 0, S.E_COUNT] == 1
    assert pos.scalar(S.SC_ACTIVE) == 1  # turn over: no second animal of that species


def test_n2_4_equal_barns_give_every_seat_seat_1s_squares_to_fill():
    """N-2.4: the 4-player boards leave 63, 62, 60, 59 squares to fill (N-2.3); equal_barns
    gives every seat seat 1's 63."""
    assert list(game(4).tables.to_fill) == [63, 62, 60, 59]
    assert list(game(4, equal_barns=True).tables.to_fill) == [63] * 4


def test_n2_5_equal_houses_take_the_free_house_of_later_seats():
    """N-2.5 with T4: seat 1 of 4 starts with both houses full, so animal spaces are illegal
    for it; with equal_houses seat 4 (4 houses on its board) is in the same place."""
    def first_turn_of_seat_4(**knobs):
        """(houses, animal spaces among the destinations) of seat 4's first turn."""
        pos = game(4, **knobs)
        restart_turn(pos, active=3, elephant=10)
        kinds = pos.tables.strip_kind
        return (pos.state.seat[3, S.P_HOUSES],
                [space for space in destinations(pos) if kinds[space] == S.SPACE_ANIMALS])
    houses_printed, animal_spaces_printed = first_turn_of_seat_4()
    houses_equal, animal_spaces_equal = first_turn_of_seat_4(equal_houses=True)
    assert (houses_printed, houses_equal) == (4, 2)
    assert animal_spaces_printed and not animal_spaces_equal


def test_n2_6_equal_start_animals():
    """N-2.6: seat 4 of 4 starts with meerkat + kangaroo (N-2.3), with the knob with seat 1's
    meerkat + flamingo."""
    assert houses(game(4), 3) == ["kangaroo", "meerkat"]
    assert houses(game(4, equal_start_animals=True), 3) == ["flamingo", "meerkat"]


def test_n2_5_equal_houses_that_cannot_hold_the_start_animals_are_refused():
    boards = {"geometry": {"boards": {"p2": {"seat1": {"houses": 1, "start_animals": ["meerkat"]}}}}}
    GAME.make_params({"players": 2, **boards})  # valid as printed
    with pytest.raises(ZoosimError, match="seat 2 an impossible board: 2 starting animals do not fit in 1 houses"):
        GAME.make_params({"players": 2, "equal_houses": True, **boards})


@pytest.mark.parametrize("meerkats, moved", [(2, 1), (3, 2)])
def test_t5_populate_restriction(meerkats, moved):
    """T5 / E25: sources are houses and enclosures keeping >= 1; second animal same species."""
    pos = game(2)
    clear_board(pos, 0, ["flamingo", None, None])
    e1 = add_enclosure(pos, 0, "B13", "meerkat", meerkats)
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 11)
    place_anywhere(pos)
    assert sorted(step_api.legal_moves(pos)) == [S.SRC_HOUSE + 0, S.SRC_ENCLOSURE + e1]
    step_api.apply(pos, S.SRC_ENCLOSURE + e1)
    if meerkats == 3:
        assert sorted(step_api.legal_moves(pos)) == [S.SRC_ENCLOSURE + e1, S.POP_STOP]
        step_api.apply(pos, S.SRC_ENCLOSURE + e1)
    new = pos.state.seat[0, S.P_ENCLOSURES] - 1
    assert enc(pos, 0, new) == (moved, SPECIES["meerkat"])
    assert enc(pos, 0, e1) == (meerkats - moved, SPECIES["meerkat"])


def test_e25_populate_from_house_and_enclosure():
    """E25: one animal from a house and one from an enclosure of the same species."""
    pos = game(2)
    clear_board(pos, 0, ["meerkat", None, None])
    e1 = add_enclosure(pos, 0, "B13", "meerkat", 2)
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 11)
    place_anywhere(pos)
    step_api.apply(pos, S.SRC_HOUSE + 0)
    assert S.SRC_ENCLOSURE + e1 in step_api.legal_moves(pos)
    step_api.apply(pos, S.SRC_ENCLOSURE + e1)
    assert enc(pos, 0, 1) == (2, SPECIES["meerkat"]) and enc(pos, 0, e1)[0] == 1


def test_t6_no_tile_without_movable_animal():
    """T6 / E6: empty houses and single-animal enclosures: only animal spaces are legal."""
    pos = game(2)
    clear_board(pos, 0, [None, None, None])
    add_enclosure(pos, 0, "A7", "penguin", 1)
    add_enclosure(pos, 0, "A8", "fox", 1)
    restart_turn(pos, active=0, elephant=10)
    assert destinations(pos) == [12]


def test_e6_tile_that_cannot_be_placed():
    """E6: a bay whose top tile has no legal placement is not a destination."""
    pos = game(2)
    cover_squares(pos, 0, 3)  # 3 squares left: no enclosure fits
    restart_turn(pos, active=0, elephant=10)
    assert destinations(pos) == [12]


def test_t7_acquisition_with_single_empty_enclosure():
    """T7 / E3 / E26: full houses, one empty enclosure, space 12 (penguin + kangaroo)."""
    pos = game(2)
    clear_board(pos, 0, ["meerkat", "flamingo", "meerkat"])
    e = add_enclosure(pos, 0, "A7")
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)
    choices = sorted(step_api.legal_moves(pos))
    assert choices == sorted([S.CHOICE_PAIR, SPECIES["meerkat"], SPECIES["flamingo"], SPECIES["fox"]])
    step_api.apply(pos, S.CHOICE_PAIR)
    assert sorted(step_api.legal_moves(pos)) == [to_place(0, e), to_place(1, e)]
    step_api.apply(pos, to_place(0, e))  # penguin; the kangaroo has no target: declined
    assert enc(pos, 0, e) == (1, SPECIES["penguin"])
    assert pos.scalar(S.SC_ACTIVE) == 1

    pos = game(2)
    clear_board(pos, 0, ["meerkat", "flamingo", "meerkat"])
    e = add_enclosure(pos, 0, "A7")
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)
    step_api.apply(pos, SPECIES["meerkat"])  # B2
    step_api.apply(pos, to_place(0, e))
    assert pos.decision == S.D_HOUSE_ADD
    step_api.apply(pos, 1)
    assert enc(pos, 0, e) == (2, SPECIES["meerkat"])
    assert houses(pos, 0) == ["flamingo", "meerkat"]


def t8_meerkat_into_enclosure(**knobs):
    """T8: E[meerkat:2] (cap 6), H[meerkat, meerkat, _]; space 15, the meerkat goes into E."""
    pos = game(2, **knobs)
    clear_board(pos, 0, ["meerkat", "meerkat", None])
    e = add_enclosure(pos, 0, "C1", "meerkat", 2)
    restart_turn(pos, active=0, elephant=12)
    move_elephant(pos, 15)
    step_api.apply(pos, S.CHOICE_PAIR)
    step_api.apply(pos, to_place(1, e))
    return pos, e


def test_t8_add_from_house_once_per_enclosure():
    """T8 / E13: meerkat -> E (3), one house add (4), no second add; kangaroo -> free house."""
    pos, e = t8_meerkat_into_enclosure()
    assert pos.decision == S.D_HOUSE_ADD
    step_api.apply(pos, 1)
    assert enc(pos, 0, e) == (4, SPECIES["meerkat"])
    assert pos.decision == S.D_ANIMAL_PLACE
    step_api.apply(pos, to_place(0, S.TARGET_HOUSE))
    assert enc(pos, 0, e)[0] == 4
    assert houses(pos, 0) == ["kangaroo", "meerkat"]


def t9_penguin_fills_enclosure(houses, **knobs):
    """T9: E[penguin:3] (4 sq); space 7 (penguin + fox), the penguin fills E."""
    pos = game(2, **knobs)
    clear_board(pos, 0, houses)
    e = add_enclosure(pos, 0, "A7", "penguin", 3)
    restart_turn(pos, active=0, elephant=5)
    move_elephant(pos, 7)
    step_api.apply(pos, S.CHOICE_PAIR)
    step_api.apply(pos, to_place(0, e))
    return pos, e


def test_t9_scoring_an_enclosure():
    """T9 / E21 / E22 / E2: E fills, animals return, keep one, any attraction, fox into E."""
    pos, e = t9_penguin_fills_enclosure(["meerkat", "flamingo", None])
    assert enc(pos, 0, e) == (0, S.NO_SPECIES)
    assert pos.state.seat[0, S.P_FILLED] == 1
    assert pos.decision == S.D_KEEP_ONE
    step_api.apply(pos, 1)
    assert houses(pos, 0) == ["flamingo", "meerkat", "penguin"]
    assert pos.decision == S.D_ATTRACTION
    assert sorted(step_api.legal_moves(pos)) == list(range(8)) + [S.NO_ATTRACTION]  # E1, E2
    step_api.apply(pos, 0)  # T8, 4x2
    place_anywhere(pos)
    assert pos.state.attraction_supply[0] == 0 and pos.state.seat[0, S.P_ATTRACTIONS] == 1
    # the fox now goes into the emptied enclosure (no free house left)
    assert step_api.legal_moves(pos) == [to_place(1, e), S.DECLINE]
    step_api.apply(pos, to_place(1, e))
    assert enc(pos, 0, e) == (1, SPECIES["fox"])


def test_e21_no_keep_one_without_free_house():
    pos, _ = t9_penguin_fills_enclosure(["meerkat", "flamingo", "fox"])
    assert pos.decision == S.D_ATTRACTION


def test_e1_attraction_compulsory_knob():
    """E1: with attraction_optional = false the attraction cannot be declined."""
    pos, _ = t9_penguin_fills_enclosure(["meerkat", "flamingo", "fox"], attraction_optional=False)
    assert S.NO_ATTRACTION not in step_api.legal_moves(pos)


def test_e3_single_animal_only_when_pair_fails_knob():
    """E3 knob false: B2 only when no pictured animal can be placed."""
    pos = game(2, single_animal_rule="when_no_pictured_fits")
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)
    assert step_api.legal_moves(pos) == [S.CHOICE_PAIR]
    default = game(2)
    restart_turn(default, active=0, elephant=10)
    move_elephant(default, 12)
    assert len(step_api.legal_moves(default)) == 4


@pytest.mark.parametrize("partial, declinable", [(True, True), (False, False)])
def test_e4_partial_pair(partial, declinable):
    """E4: after placing the first pictured animal the second may be declined (knob)."""
    pos = game(2, allow_partial_pair=partial)
    clear_board(pos, 0, [None, None, None])
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)
    step_api.apply(pos, S.CHOICE_PAIR)
    assert S.DECLINE not in step_api.legal_moves(pos)  # the first animal is mandatory
    step_api.apply(pos, to_place(0, S.TARGET_HOUSE))
    assert (S.DECLINE in step_api.legal_moves(pos)) == declinable


# ---------------------------------------------------------------------------------------------
# T10 - T14: breeding and the end


def breeding_position(players, **knobs):
    """Seat 0 = X of T10: K1[k:2], K2[k:2], K3[k:3], M1[m:2]; the active seat 1 moves 2 -> 4."""
    pos = game(players, **knobs)
    clear_board(pos, 0, ["flamingo", "fox", None])
    ks = [add_enclosure(pos, 0, tile, "kangaroo", n) for tile, n in (("C1", 2), ("C2", 2), ("C3", 3))]
    m1 = add_enclosure(pos, 0, "C4", "meerkat", 2)
    restart_turn(pos, active=1, elephant=2)
    move_elephant(pos, 4)  # crosses the kangaroo line
    while pos.decider == 1 and not step_api.is_over(pos):  # seat 1 places and populates
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    return pos, ks, m1


def test_t10_breeding_limits_and_bonus():
    """T10 / E10 / E23: two of K1..K3 breed (+1 each, ordered pairs offered); the bonus may go
    to the left-out K2 or to M1."""
    pos, (k1, k2, k3), m1 = breeding_position(2)
    assert pos.decision == S.D_BREED and pos.decider == 0
    moves = step_api.legal_moves(pos)
    assert len(moves) == 3 * 2 + 3 + 1
    assert 64 * k3 + k1 in moves and 64 * k1 + k3 in moves
    step_api.apply(pos, 64 * k3 + k1)
    assert enc(pos, 0, k3)[0] == 4 and enc(pos, 0, k1)[0] == 3 and enc(pos, 0, k2)[0] == 2
    assert pos.decision == S.D_BONUS
    assert sorted(step_api.legal_moves(pos)) == sorted([k2, m1, S.NO_ENCLOSURE])
    step_api.apply(pos, m1)
    assert enc(pos, 0, m1)[0] == 3


def test_e9_no_bonus_with_four_players():
    """T10 in P(4) / E9: no bonus breeding with 4 or 5 players."""
    pos, (k1, k2, k3), m1 = breeding_position(4)
    step_api.apply(pos, 64 * k3 + k1)
    assert pos.decision != S.D_BONUS
    assert enc(pos, 0, m1)[0] == 2


def test_t11_no_bonus_without_normal_breeding():
    """T11: meerkat line crossed, Y has no meerkat enclosure with >= 2: no young, no bonus."""
    pos = game(3)
    clear_board(pos, 1, [None, None, None])
    f1 = add_enclosure(pos, 1, "C1", "flamingo", 3)
    restart_turn(pos, active=0, elephant=17)
    move_elephant(pos, 19)  # crosses the meerkat line
    while not step_api.is_over(pos) and pos.scalar(S.SC_TURNS) == pos.scalar(S.SC_TURNS):
        if pos.decider == 1 and pos.decision in (S.D_BREED, S.D_BONUS):
            raise AssertionError("Y must not breed")
        if pos.scalar(S.SC_ACTIVE) != 0:
            break
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    assert enc(pos, 1, f1)[0] == 3 and pos.state.seat[1, S.P_YOUNG] == 0


@pytest.mark.parametrize("turn_order", ["clockwise", "random_each_round"])
def test_t12_breeding_order_and_scoring_before_next_player(turn_order):
    """T12 / E8: active B breeds first, then C, then A; B scores before C starts. With a random
    seat order every round (N-4, decision 14) breeding still goes round the table from the active
    seat (N-6.1), here in a round whose order puts A right after B."""
    seed = next(seed for seed in range(100) if turn_order == "clockwise" or after_seat_1(
        round_order(game(3, seed=seed, check=False, turn_order=turn_order))) == 0)
    pos = game(3, seed=seed, turn_order=turn_order)
    for seat in range(3):
        clear_board(pos, seat, [None, None, None])
    add_enclosure(pos, 0, "C1", "kangaroo", 2)
    add_enclosure(pos, 1, "A7", "kangaroo", 3)  # B: young fills it
    add_enclosure(pos, 2, "C1", "kangaroo", 2)
    restart_turn(pos, active=1, elephant=2)
    move_elephant(pos, 5)  # 3, 4, 5: crosses the kangaroo line
    log = []
    while pos.scalar(S.SC_ACTIVE) == 1 and not step_api.is_over(pos):
        log.append((pos.decider, pos.decision))
        moves = step_api.legal_moves(pos)
        step_api.apply(pos, S.NO_ENCLOSURE if pos.decision == S.D_BONUS else moves[0])
    breeders = [seat for seat, d in log if d == S.D_BREED]
    # single-eligible players get a 2-option decision (the enclosure or none)
    assert breeders == [1, 2, 0]
    first_c = log.index((2, S.D_BREED))
    assert (1, S.D_ATTRACTION) in log[:first_c]
    assert pos.state.seat[1, S.P_FILLED] == 1


def t13_position(end_skips_breeding=True, completer=0, **knobs):
    """2 players: `completer` completes its board in its main action (scoring a meerkat
    enclosure, then a 1x1 attraction on the last square) and the move crosses the fox line of
    the other seat's enclosure; then the game is played on to its end."""
    pos = game(2, end_skips_breeding=end_skips_breeding, **knobs)
    other = 1 - completer
    clear_board(pos, 0, [None, None, None])
    clear_board(pos, 1, [None, None, None])
    m = add_enclosure(pos, completer, "A7", "meerkat", 3)
    fox = add_enclosure(pos, other, "C1", "fox", 5)
    cover_squares(pos, completer, 1)
    restart_turn(pos, active=completer, elephant=12)
    move_elephant(pos, 15)  # kangaroo + meerkat, crossing the fox line
    step_api.apply(pos, S.CHOICE_PAIR)
    step_api.apply(pos, to_place(1, m))  # fills m
    step_api.apply(pos, 0)  # keep none
    step_api.apply(pos, 7)  # a 1x1 attraction on the last square
    while not step_api.is_over(pos):
        moves = step_api.legal_moves(pos)
        step_api.apply(pos, S.DECLINE if S.DECLINE in moves else moves[0])
    return pos, fox


def test_t13_end_during_main_action_skips_breeding():
    """T13 / E14: the board completed in the main action ends the game; nobody breeds."""
    pos, fox = t13_position()
    assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == "complete_in_action"
    assert step_api.winners(pos) == [0]
    assert enc(pos, 1, fox)[0] == 5


def test_e14_knob_breeding_after_completion():
    pos, fox = t13_position(end_skips_breeding=False)
    assert step_api.is_over(pos)
    assert pos.state.seat[1, S.P_YOUNG] >= 1


def test_n7_4_complete_round_gives_the_last_seat_its_turn():
    """N-7.4 end_timing complete_round: seat 0's complete board does not end the game; its
    turn goes on with breeding (seat 1's foxes breed although end_skips_breeding is on), seat 1
    plays its turn of the round, then the game ends and N-7.2 names the complete board."""
    immediate, fox = t13_position()
    assert immediate.scalar(S.SC_ACTIVE) == 0 and enc(immediate, 1, fox)[0] == 5
    pos, fox = t13_position(end_timing="complete_round")
    assert step_api.is_over(pos)
    assert pos.state.seat[1, S.P_YOUNG] >= 1  # the trigger turn's breeding happened
    assert pos.scalar(S.SC_ACTIVE) == 1 and pos.state.seat[1, S.P_TURNS] == 1  # its turn came
    assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == "complete_in_action"
    assert pos.scalar(S.SC_ENDER) == 0 and step_api.winners(pos) == [0]


def test_n7_4_complete_round_ends_at_once_after_the_last_seat():
    """N-7.4: when the last seat of the round completes its board, nobody plays after it (its
    own breeding still happens)."""
    pos, _ = t13_position(completer=1, end_timing="complete_round")
    assert step_api.is_over(pos) and pos.scalar(S.SC_ACTIVE) == 1
    assert pos.state.seat[0, S.P_YOUNG] >= 1
    assert pos.scalar(S.SC_ENDER) == 1 and step_api.winners(pos) == [1]


def after_seat_1(order):
    """The seat after seat 1 in a round's order, the first one's after the last."""
    return order[(order.index(1) + 1) % len(order)]


def round_order(pos):
    """The seats of the position's round in turn order (SC_ROUND_ORDER)."""
    packed, players = int(pos.scalar(S.SC_ROUND_ORDER)), int(pos.scalar(S.SC_PLAYERS))
    return tuple((packed >> (S.ORDER_BITS * place)) % (1 << S.ORDER_BITS) for place in range(players))


def orders_played(pos, pick, rounds):
    """{round index: its seat order} while playing `pick(legal moves)` for `rounds` rounds."""
    players = int(pos.scalar(S.SC_PLAYERS))
    orders = {}
    while not step_api.is_over(pos) and int(pos.scalar(S.SC_TURNS)) <= rounds * players:
        orders.setdefault((int(pos.scalar(S.SC_TURNS)) - 1) // players, round_order(pos))
        step_api.apply(pos, pick(step_api.legal_moves(pos)))
    return orders


def test_n4_random_turn_order_each_round():
    """N-4 turn_order random_each_round (decision 14): every round, the first included, goes in
    a fresh uniformly random seat order; the deal is clockwise's; the orders depend on the deal
    and the round only, not on the moves; every seat moves once a round; a search's scratch game
    (copy_state) goes in orders of its own after the round it was copied in."""
    from scipy import stats

    from simulator.games.nyz import search

    assert round_order(game(4)) == (0, 1, 2, 3)
    firsts = [round_order(game(3, seed=seed, check=False, turn_order="random_each_round"))
              for seed in range(600)]
    orders = sorted(set(firsts))
    assert len(orders) == 6  # every permutation of 3 seats
    assert stats.chisquare([firsts.count(order) for order in orders]).pvalue > 0.001  # 100 each
    for seed in (1, 2, 3):
        clockwise, drawn = game(4, seed=seed), game(4, seed=seed, turn_order="random_each_round")
        assert np.array_equal(clockwise.state.bay_tiles, drawn.state.bay_tiles)
        assert clockwise.scalar(S.SC_START_SPACE) == drawn.scalar(S.SC_START_SPACE)
        assert drawn.scalar(S.SC_ACTIVE) == round_order(drawn)[0]
    first = orders_played(game(4, seed=5, turn_order="random_each_round"), lambda moves: moves[0], 6)
    last = orders_played(game(4, seed=5, turn_order="random_each_round"), lambda moves: moves[-1], 6)
    assert first == last and len(first) == 6 and len(set(first.values())) > 1
    assert all(sorted(order) == [0, 1, 2, 3] for order in first.values())
    pos = game(4, seed=5, turn_order="random_each_round")
    while not step_api.is_over(pos):  # every seat moves once a round
        turns = pos.state.seat[:, S.P_TURNS]
        assert turns.max() - turns.min() <= 1
        assert turns.sum() == pos.scalar(S.SC_TURNS)
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    differ = 0
    for seed in range(10):
        real, scratch = (game(4, seed=seed, turn_order="random_each_round") for _ in range(2))
        search.copy_state(real.state, scratch.state)
        real_orders = orders_played(real, lambda moves: moves[0], 2)
        scratch_orders = orders_played(scratch, lambda moves: moves[0], 2)
        assert real_orders[0] == scratch_orders[0]  # the round under way is known
        differ += real_orders[1] != scratch_orders[1]
    assert differ >= 6  # a later round's order is the scratch game's own (1 in 24 the same)


@pytest.mark.parametrize("corrupt", ["a seat moved twice", "the active seat off its place"])
def test_t18_checked_mode_catches_a_broken_turn_order(corrupt):
    """N-4 in checked mode (T18): every seat moves once a round and the active seat is the one at
    its place in the round's order; a game breaking either is caught at the next move."""
    from simulator.games.nyz.step_api import InvariantViolation

    pos = game(3, turn_order="random_each_round")
    if corrupt == "a seat moved twice":
        pos.state.seat[pos.scalar(S.SC_ACTIVE), S.P_TURNS] += 1
        pos.state.sc[S.SC_TURNS] += 1
    else:
        pos.state.sc[S.SC_ACTIVE] = round_order(pos)[1]
    with pytest.raises(InvariantViolation, match="turn_order"):
        step_api.apply(pos, step_api.legal_moves(pos)[0])


def test_mechanism_knobs_are_rule_knobs_with_their_ids_and_validated():
    """Issue #24: the mechanism switches are listed by `zoosim rules nyz` with their rule ids
    and refuse bad values in one line."""
    rules = {knob.name: (knob.rule, knob.default) for knob in GAME.knobs()}
    assert rules["end_timing"] == ("N-7.4", '"immediate"')
    assert rules["equal_barns"] == ("N-2.4", "false")
    assert rules["equal_houses"] == ("N-2.5", "false")
    assert rules["equal_start_animals"] == ("N-2.6", "false")
    assert rules["tie_break"] == ("N-7.5", '"most_animals"')
    assert rules["turn_order"] == ("N-4", '"clockwise"')
    with pytest.raises(ZoosimError, match="turn_order.*'clockwise' or 'random_each_round'"):
        GAME.make_params({"turn_order": "snake"})
    with pytest.raises(ZoosimError, match="end_timing.*'immediate' or 'complete_round'"):
        GAME.make_params({"end_timing": "end_of_round"})
    with pytest.raises(ZoosimError, match="equal_houses.*allowed: true or false"):
        GAME.make_params({"equal_houses": "yes"})


@pytest.mark.parametrize("extra_a, tie_break, winners", [
    (2, "most_animals", [0]), (0, "most_animals", [0, 2]), (2, "shared", [0, 2]),
])
def test_t14_simultaneous_completion(extra_a, tie_break, winners):
    """T14 / E15: A and C complete in one breeding phase: more animals wins, else shared; with
    N-7.5 `tie_break: shared` both complete boards win whatever their animals."""
    pos = game(3, tie_break=tie_break)
    for seat in range(3):
        clear_board(pos, seat, [None, None, None])
    for seat in (0, 2):
        add_enclosure(pos, seat, "A7", "kangaroo", 3)
        add_enclosure(pos, seat, "A8", "penguin", 2)
        cover_squares(pos, seat, 1)
    pos.state.house[0, :extra_a] = SPECIES["fox"]
    restart_turn(pos, active=1, elephant=2)
    move_elephant(pos, 5)
    while not step_api.is_over(pos):
        moves = step_api.legal_moves(pos)
        if pos.decision == S.D_ATTRACTION:
            step_api.apply(pos, 7)
        elif pos.decision in (S.D_KEEP_ONE, S.D_HOUSE_ADD):
            step_api.apply(pos, 0)
        elif pos.decision == S.D_BONUS:
            step_api.apply(pos, S.NO_ENCLOSURE)
        else:
            step_api.apply(pos, moves[0])
    assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == "complete_in_breeding"
    assert step_api.winners(pos) == winners


def test_e11_bonus_once_per_move_knob():
    """E11: two events in one move give two bonuses (default) or one (knob)."""
    for per_event, expected in ((True, 2), (False, 1)):
        pos = game(2, bonus_per_event=per_event)
        clear_board(pos, 0, [None, None, None])
        add_enclosure(pos, 0, "D2", "flamingo", 2)
        add_enclosure(pos, 0, "D5", "kangaroo", 2)
        add_enclosure(pos, 0, "D6", "fox", 2)
        set_bay(pos, 24, [])
        set_bay(pos, 1, [])
        restart_turn(pos, active=0, elephant=23)
        move_elephant(pos, 4)  # flamingo + kangaroo events
        bonuses = 0
        while pos.scalar(S.SC_ACTIVE) == 0 and not step_api.is_over(pos):
            if pos.decision == S.D_BONUS:
                bonuses += 1
                step_api.apply(pos, S.NO_ENCLOSURE)
            elif pos.decision == S.D_POPULATE:
                step_api.apply(pos, S.POP_STOP if S.POP_STOP in step_api.legal_moves(pos)
                             else step_api.legal_moves(pos)[-1])
            else:
                step_api.apply(pos, step_api.legal_moves(pos)[0])
        assert bonuses == expected


def test_e12_house_add_with_two_bred_enclosures():
    """E12: one matching house animal: the first resolved enclosure is offered the add; if
    declined, the second one is."""
    pos = game(4)
    clear_board(pos, 0, ["kangaroo", None, None])
    k1 = add_enclosure(pos, 0, "D2", "kangaroo", 2)
    k2 = add_enclosure(pos, 0, "D5", "kangaroo", 2)
    restart_turn(pos, active=1, elephant=2)
    move_elephant(pos, 4)
    while pos.decider == 1:
        step_api.apply(pos, step_api.legal_moves(pos)[0])
    step_api.apply(pos, 64 * k2 + k1)
    assert pos.decision == S.D_HOUSE_ADD
    assert pos.state.follow[pos.scalar(S.SC_FOLLOW_HEAD)] == k2
    step_api.apply(pos, 0)
    assert pos.decision == S.D_HOUSE_ADD
    assert pos.state.follow[pos.scalar(S.SC_FOLLOW_HEAD)] == k1
    step_api.apply(pos, 1)
    assert enc(pos, 0, k1)[0] == 4 and enc(pos, 0, k2)[0] == 3


# ---------------------------------------------------------------------------------------------
# T16 setup, E18/E19/E27/E29


def strip_tops(pos):
    classes = []
    for space in range(1, 26):
        if pos.tables.strip_kind[space] == S.SPACE_BAY:
            tiles = pos.state.bay_tiles[space, : pos.state.bay_count[space]]
            classes.append([int(pos.tables.tile_class[t]) for t in tiles])
    return classes


def test_t16_standard_strip():
    """T16: 45 tiles, tops 7 D + 8 C, bottoms 7 B + 8 A, each bay largest on top."""
    stacks = strip_tops(game(2, seed=5))
    assert sum(len(s) for s in stacks) == 45
    assert sorted(s[-1] for s in stacks) == [2] * 8 + [3] * 7
    assert sorted(s[0] for s in stacks) == [0] * 8 + [1] * 7
    assert all(s == sorted(s) for s in stacks)


@pytest.mark.parametrize("knobs", [{"players": 1}, {"players": 2, "short_game_2p": True}])
def test_t16_reduced_strip(knobs):
    """T16: solo and short game keep 30 tiles; tops 7 C + 8 B."""
    players = knobs.pop("players")
    stacks = strip_tops(game(players, seed=7, **knobs))
    assert sum(len(s) for s in stacks) == 30
    assert sorted(s[-1] for s in stacks) == [1] * 8 + [2] * 7


def test_t16_short_game_start_tiles():
    """T16 / N-8.1: each player places 3 D + 3 C (39 squares) empty; 68 / 66 left to fill."""
    pos = game(2, seed=3, short_game_2p=True)
    placed = 0
    while pos.decision == S.D_PLACE and pos.scalar(S.SC_TURNS) == 0:
        place_anywhere(pos)
        placed += 1
    assert placed == 12
    for seat, left in ((0, 68), (1, 66)):
        tiles = pos.state.enc[seat, :6, S.E_TILE]
        assert sorted(pos.tables.tile_class[tiles]) == [2, 2, 2, 3, 3, 3]
        assert (pos.state.enc[seat, :6, S.E_COUNT] == 0).all()
        assert -step_api.scores(pos)[seat] == left


@pytest.mark.parametrize("bug", [False, True])
def test_e29_d1_bug_knob(bug):
    """E29: BGA never deals D1 in the short game; the default deals it sometimes."""
    dealt = 0
    for seed in range(40):
        pos = step_api.new_game(GAME.make_params({"preset": "short_game", "replicate_bga_fastgame_d1_bug": bug}), seed=seed,
                              check=True)
        dealt += int((pos.state.start_tiles == S.TILE_D1).any())
    assert (dealt == 0) == bug


def test_e18_turn_cap_is_its_own_end_reason():
    """E18 / N-7.3: the safety cap ends the game as 'turn_cap' with no winner."""
    params = GAME.make_params({"max_turns_per_player": 3})
    policies = GAME.seat_policies([("random", {})] * 2)
    cols = GAME.play_batch(params, policies, np.arange(20, dtype=np.uint64), np.zeros(20, np.int8))
    assert (cols["end_reason"] == GAME.end_reasons.index("turn_cap")).all()
    assert (cols["turns"] == 6).all() and not cols["win"].any()


def test_e19_attraction_supply():
    """E19: 1x1 attractions unlimited by default, 16 with the knob off."""
    assert game(2).state.attraction_supply[7] >= 10**9
    assert game(2, attraction_1x1_unlimited=False).state.attraction_supply[7] == 16
    assert game(2).state.attraction_supply.tolist()[:7] == [1, 1, 1, 1, 3, 3, 6]


@pytest.mark.parametrize("rule, reason", [("pass", None), ("end_game", "stuck")])
def test_e27_no_legal_move(rule, reason):
    """E27: a player with no enclosure, no free house and no placeable tile passes."""
    pos = game(4, no_legal_move=rule)
    cover_squares(pos, 0, 3)
    restart_turn(pos, active=0, elephant=10)
    if reason is None:
        assert pos.state.seat[0, S.P_PASSES] == 1 and pos.scalar(S.SC_ACTIVE) == 1
        assert pos.scalar(S.SC_ELEPHANT) == 10
    else:
        assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == reason


def test_physical_supply_limits_animals():
    """N-1.2: with a physical supply an animal that cannot be supplied is not gained."""
    # unchecked: clear_board empties the houses without returning their animals to the physical
    # supply, which breaks animal conservation (T18) by construction
    pos = game(2, check=False, animal_supply="physical", **{"physical_animals.penguin": 0})
    clear_board(pos, 0, [None, None, None])
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)  # penguin + kangaroo
    assert SPECIES["penguin"] not in step_api.legal_moves(pos)
    step_api.apply(pos, S.CHOICE_PAIR)
    assert all(m // 64 == 1 for m in step_api.legal_moves(pos))  # only the kangaroo


def test_t13_tile_covering_last_squares_still_populated():
    """T13 (bay variant): the tile covers the last squares; it is populated, then the game
    ends before the fox breeding of the move."""
    pos = game(2)
    clear_board(pos, 0, ["meerkat", None, None])
    clear_board(pos, 1, [None, None, None])
    fox = add_enclosure(pos, 1, "C1", "fox", 3)
    hole = [(8, 12), (8, 13), (7, 12), (7, 13)]
    width = int(pos.tables.width[0])
    for index in range(9 * width):
        if divmod(index, width) not in hole and pos.state.cells[0, index] == S.CELL_EMPTY:
            pos.state.cells[0, index] = S.CELL_ATTRACTION + 7
            pos.state.grid[0, index // 64] |= np.uint64(1) << np.uint64(index % 64)
    set_bay(pos, 14, ["A7"])
    restart_turn(pos, active=0, elephant=12)
    move_elephant(pos, 14)
    place_anywhere(pos)
    step_api.apply(pos, S.SRC_HOUSE + 0)
    assert step_api.is_over(pos)
    assert S.END_REASONS[pos.scalar(S.SC_END_REASON)] == "complete_in_action"
    assert enc(pos, 0, 0) == (1, SPECIES["meerkat"])
    assert enc(pos, 1, fox)[0] == 3 and step_api.winners(pos) == [0]


def test_e26_empty_enclosures_give_nothing_and_take_any_species():
    """E26: an empty enclosure is no populate source; as a target it accepts any species."""
    pos = game(2)
    clear_board(pos, 0, ["kangaroo", None, None])
    empty = add_enclosure(pos, 0, "C1")
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 11)
    place_anywhere(pos)
    assert step_api.legal_moves(pos) == [S.SRC_HOUSE + 0]
    step_api.apply(pos, S.SRC_HOUSE + 0)
    for species in range(5):
        assert moves.can_receive(pos.state, pos.tables, 0, empty, species)


def test_e20_french_limit_removes_targets():
    """E20: with the French limit a third animal this turn cannot enter the enclosure."""
    pos = game(2, french_two_per_turn_limit=True)
    clear_board(pos, 0, ["meerkat", None, None])
    e = add_enclosure(pos, 0, "D2", "meerkat", 2)
    restart_turn(pos, active=0, elephant=12)
    move_elephant(pos, 15)  # kangaroo + meerkat
    step_api.apply(pos, S.CHOICE_PAIR)
    step_api.apply(pos, to_place(1, e))  # meerkat: 3, first animal this turn
    step_api.apply(pos, 1)  # house add: 4, second animal this turn
    assert not moves.may_add(pos.state, pos.tables, 0, e)
    default = game(2)
    clear_board(default, 0, ["meerkat", None, None])
    e = add_enclosure(default, 0, "D2", "meerkat", 4)
    default.state.enc[0, e, S.E_ADDED_THIS_TURN] = 2
    assert moves.may_add(default.state, default.tables, 0, e)


def test_render_shows_board_and_strip():
    pos = game(2)
    text = render.render_board(pos, 0)
    assert text.splitlines()[1] == "  ####.........."
    assert "houses: meerkat, flamingo, _" in text
    strip = render.render_strip(pos)
    assert "*10:XF" in strip and "|K|" in strip


# ---------------------------------------------------------------------------------------------
# Readings of the seed summary (issue #13): E3, E4, E10, E31, E32, E33, presets N-0, and the
# designer knobs of N-1.3, N-1.4, N-3, N-4.2, N-4.4, N-5.4, N-6.2, N-8.2


def first_moves_until(pos, stop):
    """Apply the first legal move until stop(pos) or the game ends."""
    while not step_api.is_over(pos) and not stop(pos):
        step_api.apply(pos, step_api.legal_moves(pos)[0])


def kangaroo_breeding(players, houses, enclosures, **knobs):
    """Seat 0 with the given houses and (tile, species, count) enclosures; the active seat 1
    moves 2 -> 4 over the kangaroo line and plays its own part; stops at seat 0's first
    breeding decision."""
    pos = game(players, **knobs)
    clear_board(pos, 0, houses)
    made = [add_enclosure(pos, 0, tile, sp, n) for tile, sp, n in enclosures]
    restart_turn(pos, active=1, elephant=2)
    move_elephant(pos, 4)
    first_moves_until(pos, lambda p: p.decider == 0)
    return pos, made


@pytest.mark.parametrize("rule, second_offered", [("per_bred_enclosure", True), ("one_per_event", False)])
def test_e31_house_adds_during_breeding(rule, second_offered):
    """E31 / N-5.4: two bred enclosures, two house kangaroos: BGA offers a house add for each
    bred enclosure; the seed summary allows one house animal per breeding event."""
    pos, (k1, k2) = kangaroo_breeding(
        4, ["kangaroo", "kangaroo", None], [("D2", "kangaroo", 2), ("D5", "kangaroo", 2)],
        breeding_house_adds=rule)
    step_api.apply(pos, 64 * k2 + k1)
    assert pos.decision == S.D_HOUSE_ADD
    step_api.apply(pos, 1)
    assert (pos.decision == S.D_HOUSE_ADD and pos.decider == 0) == second_offered
    assert enc(pos, 0, k2)[0] == 4 and pos.state.seat[0, S.P_HOUSE_ADDS] == 1


def test_e31_one_per_event_declined_offer_moves_on():
    """E31: one_per_event counts animals added, not offers: declining the first bred
    enclosure's add leaves it for the second."""
    pos, (k1, k2) = kangaroo_breeding(
        4, ["kangaroo", None, None], [("D2", "kangaroo", 2), ("D5", "kangaroo", 2)],
        breeding_house_adds="one_per_event")
    step_api.apply(pos, 64 * k2 + k1)
    step_api.apply(pos, 0)
    assert pos.decision == S.D_HOUSE_ADD
    step_api.apply(pos, 1)
    assert enc(pos, 0, k1)[0] == 4 and enc(pos, 0, k2)[0] == 3


@pytest.mark.parametrize("rule, offered_after_bonus", [("per_bred_enclosure", True), ("one_per_event", False)])
def test_e31_house_add_after_bonus_young(rule, offered_after_bonus):
    """E31: BGA offers a house add again after the bonus young (N-6.3); with one per event the
    add already taken after the normal young uses it up."""
    pos, (k1, m1) = kangaroo_breeding(
        2, ["kangaroo", "meerkat", None], [("D2", "kangaroo", 2), ("D5", "meerkat", 2)],
        breeding_house_adds=rule)
    step_api.apply(pos, 64 * k1 + S.NO_ENCLOSURE)
    step_api.apply(pos, 1)  # the house kangaroo joins k1
    assert pos.decision == S.D_BONUS
    step_api.apply(pos, m1)
    assert enc(pos, 0, m1)[0] == 3 and pos.state.seat[0, S.P_BONUS_YOUNG] == 1
    assert (pos.decision == S.D_HOUSE_ADD and pos.decider == 0) == offered_after_bonus


@pytest.mark.parametrize("target, extra", [("not_bred", []), ("any", ["k1", "k3"])])
def test_e10_bonus_target(target, extra):
    """E10 / N-6.3: BGA's bonus skips the enclosures that just bred; the seed summary allows
    any enclosure with at least two animals."""
    pos, (k1, k2, k3), m1 = breeding_position(2, bonus_breeding_target=target)
    step_api.apply(pos, 64 * k3 + k1)
    assert pos.decision == S.D_BONUS
    named = {"k1": k1, "k3": k3}
    expected = [k2, m1, S.NO_ENCLOSURE] + [named[name] for name in extra]
    assert sorted(step_api.legal_moves(pos)) == sorted(expected)


def test_e32_automatic_breeding_offers_no_fewer():
    """E32 / N-6.2: automatic breeding with three eligible enclosures: the player only picks
    which two (ordered pairs, E23); breeding in one or none is not offered."""
    pos, (k1, k2, k3), _ = breeding_position(2, breeding_choice="automatic")
    moves = step_api.legal_moves(pos)
    assert len(moves) == 6
    assert all(m // 64 != S.NO_ENCLOSURE and m % 64 != S.NO_ENCLOSURE for m in moves)


@pytest.mark.parametrize("choice, none_allowed", [("choose", True), ("automatic", False)])
def test_e32_single_eligible_enclosure(choice, none_allowed):
    """E32: one eligible enclosure must breed under automatic (a forced move, which play_batch
    applies without asking); BGA lets the player choose it or none."""
    pos, (k1,) = kangaroo_breeding(4, [None, None, None], [("C1", "kangaroo", 2)],
                                   breeding_choice=choice)
    assert pos.decision == S.D_BREED
    assert sorted(step_api.legal_moves(pos)) == [64 * k1 + S.NO_ENCLOSURE] + (
        [S.BREED_NONE] if none_allowed else [])


def pair_choices(houses, enclosures, **knobs):
    """Seat 0's options on space 12 (penguin + kangaroo)."""
    pos = game(2, **knobs)
    clear_board(pos, 0, houses)
    made = [add_enclosure(pos, 0, tile, sp, n) for tile, sp, n in enclosures]
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 12)
    return pos, made, sorted(step_api.legal_moves(pos))


PAIR_FAILS = {"single_animal_rule": "when_pair_does_not_fit"}
EVERY_SPECIES = sorted(SPECIES.values())


def test_e3_pair_does_not_fit_offers_any_single_animal():
    """E3 when_pair_does_not_fit (seed summary): full houses and one empty enclosure (T7): the
    pair cannot be placed in full, so instead one animal of any species, pictured ones
    included; BGA offers the pair and the species not pictured."""
    _, _, choices = pair_choices(["meerkat", "flamingo", "meerkat"], [("A7", None, 0)], **PAIR_FAILS)
    assert choices == EVERY_SPECIES
    _, _, bga = pair_choices(["meerkat", "flamingo", "meerkat"], [("A7", None, 0)])
    assert bga == sorted([S.CHOICE_PAIR, SPECIES["meerkat"], SPECIES["flamingo"], SPECIES["fox"]])


@pytest.mark.parametrize("houses, enclosures, knobs, fits", [
    # a free house and a penguin enclosure: one each
    (["meerkat", "flamingo", None], [("C1", "penguin", 2)], {}, True),
    # no free house; the penguin fills its enclosure, which empties and takes the kangaroo (E22)
    (["meerkat", "flamingo", "meerkat"], [("A7", "penguin", 3)], {}, True),
    # no free house; the penguin's add-from-house frees a house for the kangaroo (N-5.4) ...
    (["penguin", "meerkat", "meerkat"], [("C1", "penguin", 2)], {}, True),
    # ... unless house adds are switched off
    (["penguin", "meerkat", "meerkat"], [("C1", "penguin", 2)], {"house_add": False}, False),
    # one free house, no enclosure: only one of the two
    (["meerkat", "flamingo", None], [], {}, False),
])
def test_e3_pair_fits_in_full(houses, enclosures, knobs, fits):
    """E3 when_pair_does_not_fit: the pair is offered exactly when both animals can be placed."""
    _, _, choices = pair_choices(houses, enclosures, **PAIR_FAILS, **knobs)
    assert (choices == [S.CHOICE_PAIR]) == fits
    if not fits:
        assert S.CHOICE_PAIR not in choices and choices


def test_e4_whole_pair_leaves_room_for_the_second():
    """E4 / E3 seed summary (pair only when it fits, no partial pair): the first animal may not
    take the place the second needs (the penguin may not use the only free house)."""
    start_houses, enclosures = ["meerkat", "flamingo", None], [("C1", "penguin", 2)]
    pos, (p,), _ = pair_choices(start_houses, enclosures, **PAIR_FAILS, allow_partial_pair=False)
    step_api.apply(pos, S.CHOICE_PAIR)
    assert sorted(step_api.legal_moves(pos)) == sorted([to_place(0, p), to_place(1, S.TARGET_HOUSE)])
    step_api.apply(pos, to_place(1, S.TARGET_HOUSE))
    assert step_api.legal_moves(pos) == [to_place(0, p)]  # and the second cannot be declined
    step_api.apply(pos, to_place(0, p))
    assert enc(pos, 0, p)[0] == 3 and houses(pos, 0) == ["flamingo", "kangaroo", "meerkat"]
    pos, _, _ = pair_choices(start_houses, enclosures)
    step_api.apply(pos, S.CHOICE_PAIR)
    assert to_place(0, S.TARGET_HOUSE) in step_api.legal_moves(pos)


def test_e3_replaced_boolean_is_a_clear_error():
    """E3: the old boolean names its replacement."""
    from simulator.errors import ZoosimError

    with pytest.raises(ZoosimError, match="single_animal_rule"):
        GAME.make_params({"single_animal_any_time": False})


@pytest.mark.parametrize("preset, bonus", [("bga", True), ("seed_summary", False)])
def test_e33_solo_bonus_breeding(preset, bonus):
    """E33 / N-6.3: BGA gives bonus breeding at 1 player (board icon); the seed summary names
    only 2 and 3 players."""
    pos = step_api.new_game(GAME.make_params({"preset": preset, "players": 1}), seed=1, check=True)
    clear_board(pos, 0, ["flamingo", None, None])
    k1 = add_enclosure(pos, 0, "D2", "kangaroo", 2)
    add_enclosure(pos, 0, "D5", "meerkat", 2)
    restart_turn(pos, active=0, elephant=2)
    move_elephant(pos, 4, marker_code=3)  # marker "2": bays 3 and 4, over the kangaroo line
    first_moves_until(pos, lambda p: p.decision in (S.D_BREED, S.D_DEST))
    if pos.decision == S.D_BREED:
        step_api.apply(pos, 64 * k1 + S.NO_ENCLOSURE)
    assert enc(pos, 0, k1)[0] == 3
    assert (pos.decision == S.D_BONUS) == bonus


def test_n0_presets_and_overrides():
    """N-0: bga is the default preset; seed_summary sets every summary reading; a knob set
    beside a preset overrides it."""
    default = GAME.make_params({})
    assert default.preset == "bga" and default == GAME.make_params({"preset": "bga"})
    summary = GAME.make_params({"preset": "seed_summary"})
    assert (summary.single_animal_rule, summary.allow_partial_pair, summary.breeding_choice,
            summary.breeding_house_adds, summary.bonus_breeding_target,
            summary.geometry.bonus_breeding_player_counts) == (
        "when_pair_does_not_fit", False, "automatic", "one_per_event", "any", [2, 3])
    mixed = GAME.make_params({"preset": "seed_summary", "breeding_choice": "choose"})
    assert mixed.breeding_choice == "choose" and mixed.breeding_house_adds == "one_per_event"


def test_n62_breeding_limits():
    """N-6.2 breeding.*: min_animals 3 leaves only K3 (and no bonus target); young 2 adds two
    per enclosure; one enclosure per event offers singles only."""
    pos, (k1, k2, k3), m1 = breeding_position(2, breeding={"min_animals": 3})
    assert sorted(step_api.legal_moves(pos)) == [64 * k3 + S.NO_ENCLOSURE, S.BREED_NONE]
    step_api.apply(pos, 64 * k3 + S.NO_ENCLOSURE)
    assert pos.decision != S.D_BONUS or pos.decider != 0
    pos, (k1, k2, k3), m1 = breeding_position(2, breeding={"young_per_enclosure": 2})
    step_api.apply(pos, 64 * k3 + k1)
    assert enc(pos, 0, k3)[0] == 5 and enc(pos, 0, k1)[0] == 4
    assert pos.state.seat[0, S.P_YOUNG] == 4
    pos, (k1, k2, k3), m1 = breeding_position(2, breeding={"enclosures_per_event": 1})
    assert sorted(step_api.legal_moves(pos)) == sorted(
        [64 * k + S.NO_ENCLOSURE for k in (k1, k2, k3)] + [S.BREED_NONE])


def test_n62_young_never_overfill():
    """N-6.2: young beyond the free squares are not gained; the enclosure fills and scores."""
    pos, (k1,) = kangaroo_breeding(4, [None, None, None], [("A7", "kangaroo", 3)],
                                   breeding={"young_per_enclosure": 3})
    step_api.apply(pos, 64 * k1 + S.NO_ENCLOSURE)
    assert pos.state.seat[0, S.P_YOUNG] == 1 and pos.state.seat[0, S.P_FILLED] == 1


def test_n54_house_add_switch():
    """N-5.4 house_add = false: T8 without the house add."""
    pos, e = t8_meerkat_into_enclosure(house_add=False)
    assert pos.decision == S.D_ANIMAL_PLACE and enc(pos, 0, e)[0] == 3


@pytest.mark.parametrize("knobs, decision, attractions", [
    ({}, S.D_KEEP_ONE, list(range(8))),
    ({"keep_one": False}, S.D_ATTRACTION, list(range(8))),
    ({"keep_one": False, "attraction_copies": {"T8": 0, "T2": 0}}, S.D_ATTRACTION, [1, 2, 3, 4, 5, 7]),
])
def test_n44_keep_one_switch_and_attraction_copies(knobs, decision, attractions):
    """N-4.4 keep_one and N-1.4 attraction_copies: T9 without the keep-one offer, and with no
    4x2 and no 1x2 attractions in the supply."""
    pos, _ = t9_penguin_fills_enclosure(["meerkat", "flamingo", None], **knobs)
    assert pos.decision == decision
    if decision == S.D_KEEP_ONE:
        step_api.apply(pos, 0)
    assert sorted(step_api.legal_moves(pos)) == attractions + [S.NO_ATTRACTION]


@pytest.mark.parametrize("most, moved", [(1, 1), (2, 2), (3, 3)])
def test_n42_populate_max(most, moved):
    """N-4.2 populate_max: at most that many animals move into a new enclosure."""
    pos = game(2, populate_max=most)
    clear_board(pos, 0, [None, None, None])
    e1 = add_enclosure(pos, 0, "D2", "meerkat", 5)
    restart_turn(pos, active=0, elephant=10)
    move_elephant(pos, 11)
    place_anywhere(pos)
    while pos.decision == S.D_POPULATE and pos.decider == 0:
        step_api.apply(pos, S.SRC_ENCLOSURE + e1)
    assert enc(pos, 0, 1)[0] == moved and enc(pos, 0, e1)[0] == 5 - moved


def test_n3_strip_layout_knobs():
    """N-3.1 / N-3.2 strip.*: a swapped bay and animal space, a moved kangaroo line and start
    space are what the game plays."""
    spaces = [comp.strip_text(space) for space in comp.STRIP]
    spaces[10], spaces[11] = spaces[11], spaces[10]  # space 11 animals, 12 a bay
    lines = dict(comp.BREEDING_LINES) | {"kangaroo": 5}
    pos = game(2, strip={"spaces": spaces, "breeding_lines": lines, "start_space": 10})
    assert destinations(pos) == [11, 12, 13, 14]
    assert pos.tables.strip_kind[11] == S.SPACE_ANIMALS and pos.tables.strip_kind[12] == S.SPACE_BAY
    restart_turn(pos, active=0, elephant=2)
    assert aux_of(pos, 4) == 0 and aux_of(pos, 5) == 1 << SPECIES["kangaroo"]
    assert game(2, strip={"start_space": 5}).scalar(S.SC_ELEPHANT) == 5


def test_n31_random_start_space():
    """N-3.1 strip.start_space = random (decision 13): the elephant starts on a space drawn per
    game, every space as likely; the deal is the fixed start's; in solo the drawn space is the
    lap space."""
    from scipy import stats

    starts = [game(2, seed=seed, check=False, strip={"start_space": "random"}).scalar(S.SC_ELEPHANT)
              for seed in range(1000)]
    counts = np.bincount(starts, minlength=S.N_SPACES + 1)
    assert counts[0] == 0 and counts.sum() == 1000
    assert stats.chisquare(counts[1:]).pvalue > 0.001  # 40 per space expected
    for seed in (1, 2, 3):
        fixed, drawn = game(3, seed=seed), game(3, seed=seed, strip={"start_space": "random"})
        assert np.array_equal(fixed.state.bay_tiles, drawn.state.bay_tiles)
        assert drawn.scalar(S.SC_START_SPACE) == drawn.scalar(S.SC_ELEPHANT)
    seed = next(seed for seed in range(100) if 2 <= starts[seed] <= 9)
    pos = game(1, seed=seed, strip={"start_space": "random"})
    start = pos.scalar(S.SC_START_SPACE)
    assert start == starts[seed]  # the draw does not depend on the player count
    restart_turn(pos, active=0, elephant=start - 1)
    move_elephant(pos, start, 2)  # marker 1: entering the drawn start space counts a lap
    assert pos.scalar(S.SC_LAPS) == 1
    pos.state.markers_used[:] = 0
    restart_turn(pos, active=0, elephant=9)
    move_elephant(pos, 10, 2)  # the printed start is a space like any other
    assert pos.scalar(S.SC_LAPS) == 1


def test_n13_tile_classes():
    """N-1.3 tile_classes: the 7-square tiles dealt as class A and 4-square ones as class D, so
    the D bays show 4-square tiles on top; a strip needing more tiles of a class than listed
    is rejected."""
    from simulator.errors import ZoosimError

    swapped = {"A": comp.tiles_of_class("D") + ["A8"], "D": comp.tiles_of_class("A")[:7]}
    pos = game(2, tile_classes=swapped)
    for space in (11, 13, 14):
        assert pos.tables.shape_squares[moves.top_tile(pos.state, space)] == 4
    with pytest.raises(ZoosimError, match="class B"):
        GAME.make_params({"tile_classes": {"B": comp.tiles_of_class("B")[:14]}})


def test_n82_solo_marker_set():
    """N-8.2 solo_markers: only the markers of the set can be used; they come back when all of
    them are used."""
    pos = game(1, solo_markers=["1", "3"])
    restart_turn(pos, active=0, elephant=17)
    assert solo_options(pos) == {"1": {18}, "3": {20}, "free": {20}}
    assert pos.state.markers_used.tolist() == [1, 0, 1, 0, 1]


BAD_SPACES = [comp.strip_text(space) for space in comp.STRIP[:-1]] + ["BCX"]


@pytest.mark.parametrize("knobs, key, fragment", [
    ({"strip": {"spaces": BAD_SPACES}}, "strip.spaces", "'BCX' is no bay and no animal space"),
    ({"strip": {"spaces": ["BCD"]}}, "strip.spaces", "1 spaces; allowed: 25 spaces"),
    ({"strip": {"breeding_lines": {"kangaroo": 4, "penguin": 4, "fox": 14, "meerkat": 19,
                                   "flamingo": 24}}}, "strip.breeding_lines", "share a trigger"),
    ({"strip": {"start_space": 26}}, "strip.start_space", 'allowed: "random", or a space 1..25'),
    ({"strip": {"start_space": "randm"}}, "strip.start_space", "or a space 1..25"),
    ({"tile_classes": {"A": ["A1", "A1"]}}, "tile_classes", "A1 is listed twice"),
    ({"solo_markers": ["1", "1"]}, "solo_markers", "each at most once"),
    ({"populate_max": 4}, "populate_max", "less than or equal to 3"),
    ({"breeding": {"enclosures_per_event": 3}}, "breeding.enclosures_per_event", "less than"),
    ({"geometry": {"bonus_breeding_player_counts": [0]}}, "geometry.bonus_breeding_player_counts",
     "player counts 1..5"),
    ({"breeding_choice": "auto"}, "breeding_choice", "'choose' or 'automatic'"),
])
def test_designer_knobs_reject_impossible_values(knobs, key, fragment):
    """Impossible strips, tile classes, marker sets and limits: one line naming the key."""
    from simulator.errors import ZoosimError

    with pytest.raises(ZoosimError) as error:
        GAME.make_params(knobs)
    assert error.value.key == key and fragment in error.value.detail
    assert "\n" not in str(error.value)
