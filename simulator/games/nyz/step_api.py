"""New York Zoo Python step API (base.StepAPI): the kernels play_batch runs (moves.py, play.py),
one decision at a time, for traces, renders, tests and notebooks.
"""

import numpy as np

from simulator.games.base import MAX_POLICY_PARAMS, InvariantViolation, SeatPolicies
from simulator.games.kernels import allocating, by_ref, slot_of_seat
from simulator.games.nyz import search as NS
from simulator.games.nyz.moves import apply_checked_move, empty_squares, new_state
from simulator.games.nyz.play import choose, play_out
from simulator.games.nyz.state import (
    INVARIANT_NAMES, P_WIN, SC_DECIDER, SC_DECISION, SC_FIRST_VIOLATION, SC_N_OPTIONS, SC_OVER,
    SC_PLAYERS, SC_VIOLATIONS,
)
from simulator.games.nyz.tables import kernel_tables


class Position:
    """A game in progress for the step API: the kernel state, its tables and params."""

    def __init__(self, params, state, tables):
        self.params = params
        self.state = state
        self.tables = tables

    @property
    def decision(self) -> int:
        return int(self.state.sc[SC_DECISION])

    @property
    def decider(self) -> int:
        return int(self.state.sc[SC_DECIDER])

    def scalar(self, index: int) -> int:
        return int(self.state.sc[index])


@allocating
def _choose(st, tab, scratch, search_workspace):
    return choose(by_ref(st), by_ref(tab), by_ref(scratch), search_workspace)


@allocating
def _apply_move(st, tab, move):
    apply_checked_move(by_ref(st), by_ref(tab), move)  # the invariants run in a checked game only


def new_game(params, seat_policies: SeatPolicies | None = None, seed: int = 0, rotation: int = 0,
             check: bool = False, *, stop_at_forced: bool = True) -> Position:
    """A new game stopped at its first decision (base.StepAPI). Policies are only needed for
    `policy_move`. With `check` the invariants (N-11 T18) run after every move and `apply`
    raises InvariantViolation on the first one broken.

    With stop_at_forced the game also stops at decisions with one legal move (play_batch applies
    those at once; policies never draw random numbers for them, so the game is the same)."""
    tables = kernel_tables(params)
    players = params.players
    ids = np.zeros(players, dtype=np.int8)
    rows = np.zeros((players, MAX_POLICY_PARAMS), dtype=np.float64)
    if seat_policies is not None:
        for seat in range(players):
            slot = slot_of_seat(seat, rotation, players)
            ids[seat] = seat_policies.policy_ids[slot]
            rows[seat] = seat_policies.policy_params[slot]
    state = new_state(tables, np.uint64(seed), ids, rows, bool(check), bool(stop_at_forced))
    return Position(params, state, tables)


@allocating
def _play_out(st, tab, scratch, search_workspace):
    play_out(by_ref(st), by_ref(tab), by_ref(scratch), search_workspace, None)  # an unchecked game


def finished_game(params, seat_policies: SeatPolicies, seed: int = 0, rotation: int = 0) -> Position:
    """The game new_game starts, played to its end by the seats' policies in one call of the
    batch's own game kernel (play.play_out, with the argument types play_batch passes it), so a
    caller that only needs the final position, such as the report's sample drawing, compiles
    none of the step kernels (after a batch, only this small entry point is new)."""
    position = new_game(params, seat_policies, seed, rotation, stop_at_forced=False)
    st, tab = position.state, position.tables
    _play_out(st, tab, *NS.search_workspace(tab, st.policy_id, st.policy_params))
    return position


def legal_moves(position: Position) -> list[int]:
    n = position.scalar(SC_N_OPTIONS)
    return [int(m) for m in position.state.options[:n]]


def apply(position: Position, move: int) -> None:
    """Apply a legal move (ValueError otherwise) and run on to the next decision; in checked
    mode raise InvariantViolation if an invariant broke on the way."""
    if move not in legal_moves(position):
        raise ValueError(f"move {move} is not legal here (legal: {legal_moves(position)})")
    before = violations(position)
    _apply_move(position.state, position.tables, np.int64(move))
    if violations(position) > before:
        code = position.scalar(SC_FIRST_VIOLATION)
        raise InvariantViolation(f"T18 invariant broken: {INVARIANT_NAMES[code]}")


def policy_move(position: Position) -> int:
    """The move the deciding seat's policy takes (draws from the game's RNG like play_batch)."""
    st, tab = position.state, position.tables
    return legal_moves(position)[_choose(st, tab, *NS.search_workspace(tab, st.policy_id, st.policy_params))]


def is_over(position: Position) -> bool:
    return bool(position.state.sc[SC_OVER])


def scores(position: Position) -> np.ndarray:
    """Per seat: minus the empty squares (higher is better; 0 = complete board)."""
    st, tab = position.state, position.tables
    return np.array([-empty_squares(st, tab, seat) for seat in range(st.sc[SC_PLAYERS])])


def winners(position: Position) -> list[int]:
    """Winning seats of a finished game (several on a shared win)."""
    return [s for s in range(position.scalar(SC_PLAYERS)) if position.state.seat[s, P_WIN]]


def violations(position: Position) -> int:
    return position.scalar(SC_VIOLATIONS)
