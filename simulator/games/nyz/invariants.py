"""Checked mode (N-11 T18): the invariants checked after every move, and the one place a broken
invariant is counted (`violation`). The step rules (moves.py) call `check_invariants` from
`apply_checked_move` when the game is checked (`SC_CHECKED`), and count the violations they
detect on the way (an empty tile bay, a move out of range); the batch play loop calls it only in
its checked specialisation (play.play_out), so unchecked batches do not compile it.
"""

from simulator.games.kernels import kernel
from simulator.games.nyz.bits import packed_field, popcount
from simulator.games.nyz.state import (
    CELL_EMPTY, E_CAPACITY, E_COUNT, E_SPECIES, INV_CAPACITY, INV_CONSERVATION,
    INV_COVER_DECREASED, INV_FULL_BETWEEN_ACTIONS, INV_HOUSES, INV_OUTSIDE, INV_OVERLAP,
    INV_SPECIES, INV_TURN_ORDER, MAX_HOUSES, NO_SPECIES, N_SPECIES, ORDER_BITS,
    P_COVERED, P_ENCLOSURES, P_HOUSES, P_TURNS, R_SUPPLY_LIMITED, SC_ACTIVE, SC_FIRST_VIOLATION,
    SC_FOLLOW_HEAD, SC_FOLLOW_LEN, SC_FOLLOW_OWNER, SC_PLAYERS, SC_ROUND_ORDER, SC_ROUND_PLACE,
    SC_TURNS, SC_VIOLATIONS,
)


@kernel
def violation(st, code):
    st.sc[SC_VIOLATIONS] += 1
    if st.sc[SC_FIRST_VIOLATION] == 0:
        st.sc[SC_FIRST_VIOLATION] = code


@kernel
def awaiting_follow_up(st, seat, e):
    """Two young enter together (N-6.2): the second may be full while the first resolves."""
    if st.sc[SC_FOLLOW_OWNER] != seat:
        return False
    for i in range(st.sc[SC_FOLLOW_HEAD], st.sc[SC_FOLLOW_LEN]):
        if st.follow[i] == e:
            return True
    return False


@kernel
def check_invariants(st, tab):
    """N-11 T18: the invariants checked after every move in checked mode."""
    players = st.sc[SC_PLAYERS]
    on_boards = st.scratch
    on_boards[:N_SPECIES] = 0
    for seat in range(players):
        lo = st.grid[seat, 0]
        hi = st.grid[seat, 1]
        if (lo & ~tab.board_bits[seat, 0]) != 0 or (hi & ~tab.board_bits[seat, 1]) != 0:
            violation(st, INV_OUTSIDE)
        covered = popcount(lo, hi)
        if covered < st.seat[seat, P_COVERED]:
            violation(st, INV_COVER_DECREASED)
        st.seat[seat, P_COVERED] = covered
        painted = 0
        for index in range(tab.width[seat] * tab.height[seat]):
            if st.cells[seat, index] != CELL_EMPTY:
                painted += 1
        if painted != covered:
            violation(st, INV_OVERLAP)
        for h in range(MAX_HOUSES):
            held = st.house[seat, h]
            if h >= st.seat[seat, P_HOUSES] and held != NO_SPECIES:
                violation(st, INV_HOUSES)
            if held != NO_SPECIES:
                on_boards[held] += 1
        for e in range(st.seat[seat, P_ENCLOSURES]):
            count = st.enc[seat, e, E_COUNT]
            species = st.enc[seat, e, E_SPECIES]
            if (count > 0) != (species != NO_SPECIES):
                violation(st, INV_SPECIES)
            if count > st.enc[seat, e, E_CAPACITY]:
                violation(st, INV_CAPACITY)
            elif count == st.enc[seat, e, E_CAPACITY] and not awaiting_follow_up(st, seat, e):
                violation(st, INV_FULL_BETWEEN_ACTIONS)
            if species != NO_SPECIES:
                on_boards[species] += count
    if tab.rules[R_SUPPLY_LIMITED] != 0:
        for species in range(N_SPECIES):
            if st.animal_supply[species] + on_boards[species] != tab.animal_caps[species]:
                violation(st, INV_CONSERVATION)
    check_turn_order(st)


@kernel
def check_turn_order(st):
    """N-4: the round's order holds every seat once, the active seat is the one at its place,
    and every seat has moved once a round: the seats' turns differ by at most one and add up to
    the turns begun."""
    players = st.sc[SC_PLAYERS]
    seen = 0
    for place in range(players):
        seen |= 1 << packed_field(st.sc[SC_ROUND_ORDER], place, ORDER_BITS)
    fewest, most, total = st.seat[0, P_TURNS], st.seat[0, P_TURNS], 0
    for seat in range(players):
        turns = st.seat[seat, P_TURNS]
        fewest, most, total = min(fewest, turns), max(most, turns), total + turns
    active = packed_field(st.sc[SC_ROUND_ORDER], st.sc[SC_ROUND_PLACE], ORDER_BITS)
    if (seen != (1 << players) - 1 or active != st.sc[SC_ACTIVE] or most - fewest > 1
            or total != st.sc[SC_TURNS]):
        violation(st, INV_TURN_ORDER)
