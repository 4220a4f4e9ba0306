"""Tic-tac-toe's rules (RULES.md, T-1..T-5) as a step API (simulator.plugin.StepAPI), with
`play_batch` and `trace` played through it, so the three cannot disagree.

Randomness: nothing is dealt; the random player draws from one stream per game, seeded by the
game seed alone and drawn in move order, so a rotation only moves the slots' policies to other
seats (`deal_travels_with_slot` False; docs/adding-a-game.md, "Seating and random streams").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.plugin import InvariantViolation, SeatPolicies, outcome_lines
from zoosim_tictactoe.features import CENTER, CORNERS, EMPTY, LINES, feature_row, has_line
from zoosim_tictactoe.specs import END_REASONS, GREEDY, LEARNED, RANDOM, VIOLATION_NAMES, Params

CELLS = 9
MARKS = "XO"  # seat 0 plays X (T-1)
WIN_SCORE, DRAW_SCORE = 2, 1  # T-3, T-4 (a loss scores 0)


@dataclass
class State:
    """One game: cells[c] is the seat whose mark is on cell c, EMPTY when none."""

    seat_policies: SeatPolicies  # by seat (slot j sits in seat (j + rotation) % 2)
    stream: np.random.Generator  # the random player's draws
    check: bool
    cells: list[int] = field(default_factory=lambda: [EMPTY] * CELLS)
    turn: int = 0
    end_reason: int = -1  # index into END_REASONS once over

    @property
    def seat(self) -> int:
        """The seat to move (T-1)."""
        return self.turn % 2


# ---- the step API (simulator.plugin.StepAPI) ----

def new_game(params: Params, seat_policies: SeatPolicies | None = None, seed: int = 0,
             rotation: int = 0, check: bool = False) -> State:
    """T-1: an empty board, slot j seated at (j + rotation) % 2."""
    if seat_policies is None:
        from zoosim_tictactoe import GAME

        seat_policies = GAME.seat_policies([(GAME.default_policy, {})] * params.players)
    order = (np.arange(seat_policies.players) - int(rotation)) % seat_policies.players  # seat -> slot
    seated = SeatPolicies(names=tuple(seat_policies.names[slot] for slot in order),
                          policy_ids=seat_policies.policy_ids[order], policy_params=seat_policies.policy_params[order])
    return State(seat_policies=seated, stream=np.random.default_rng(int(seed)), check=check)


def legal_moves(state: State) -> list[int]:
    """The empty cells (T-2), none once the game is over."""
    return [] if is_over(state) else [cell for cell in range(CELLS) if state.cells[cell] == EMPTY]


def apply(state: State, move: int) -> None:
    """The seat to move marks cell `move` (T-2); a line ends the game (T-3), a full board too
    (T-4); with `check` the invariants are checked (T-5)."""
    if move not in legal_moves(state):
        raise ValueError(f"illegal move {move} (legal: {legal_moves(state)})")
    state.cells[move] = state.seat
    if has_line(state.cells, state.seat):
        state.end_reason = END_REASONS.index("line")
    elif EMPTY not in state.cells:
        state.end_reason = END_REASONS.index("full_board")
    state.turn += 1
    if state.check:
        violation = _violation(state)
        if violation:
            raise InvariantViolation(VIOLATION_NAMES[violation])


def policy_move(state: State) -> int:
    """The seated policy's move (specs.POLICIES)."""
    seat, moves = state.seat, legal_moves(state)
    policy = state.seat_policies.policy_ids[seat]
    if policy == RANDOM:
        return moves[int(state.stream.integers(len(moves)))]
    if policy == GREEDY:
        return _greedy_move(state.cells, seat, moves)
    if policy == LEARNED:
        return _learned_move(state.cells, seat, moves, state.seat_policies.policy_params[seat])
    raise ValueError(f"unknown policy id {policy}")


def is_over(state: State) -> bool:
    return state.end_reason >= 0


def scores(state: State) -> np.ndarray:
    """T-3, T-4: 2 for a line, 0 for the other seat; 1 each on a draw (0 each while in play)."""
    if END_REASONS[state.end_reason] == "line":
        winner = _line_owner(state.cells)
        return np.array([WIN_SCORE if seat == winner else 0 for seat in range(2)], dtype=np.int16)
    return np.full(2, DRAW_SCORE if is_over(state) else 0, dtype=np.int16)


def winners(state: State) -> list[int]:
    """The seat with a line, or both seats on a draw (a shared win, T-4)."""
    if END_REASONS[state.end_reason] == "line":
        return [_line_owner(state.cells)]
    return [0, 1]


def _line_owner(cells) -> int:
    return next(seat for seat in range(2) if has_line(cells, seat))


def _greedy_move(cells, seat: int, moves: list[int]) -> int:
    for target in (seat, 1 - seat):  # complete an own line, else block the opponent's
        for move in moves:
            trial = list(cells)
            trial[move] = target
            if has_line(trial, target):
                return move
    for move in (CENTER, *CORNERS):
        if move in moves:
            return move
    return moves[0]


def _learned_move(cells, seat: int, moves: list[int], row: np.ndarray) -> int:
    """The move whose position the learned evaluation values most: intercept row[0] plus the
    weights row[1:] (PolicySpec.pack puts the weights file there) times its features."""
    values = []
    for move in moves:
        trial = list(cells)
        trial[move] = seat
        features = feature_row(trial, seat)
        values.append(row[0] + row[1:1 + len(features)] @ features)
    return moves[int(np.argmax(values))]


def _violation(state: State) -> int:
    """T-5: the index in VIOLATION_NAMES of the first broken invariant, 0 when none is."""
    marks = [state.cells.count(seat) for seat in range(2)]
    if marks[0] - marks[1] not in (0, 1):
        return VIOLATION_NAMES.index("marks_unbalanced")
    if has_line(state.cells, 0) and has_line(state.cells, 1):
        return VIOLATION_NAMES.index("two_lines")
    return 0


# ---- the batch and the trace, both played through the step API ----

def play_batch(params: Params, seat_policies: SeatPolicies, seeds, rotations, check: bool = False):
    """One game per (seed, rotation), played to the end with the seated policies."""
    games = len(seeds)
    columns = {
        "turns": np.zeros(games, dtype=np.int16),
        "rounds": np.zeros(games, dtype=np.int16),
        "end_reason": np.zeros(games, dtype=np.int8),
        "empty_cells": np.zeros(games, dtype=np.int16),
        "score": np.zeros((games, 2), dtype=np.int16),
        "win": np.zeros((games, 2), dtype=bool),
        "marks": np.zeros((games, 2), dtype=np.int16),
    }
    if check:
        columns["check_violations"] = np.zeros(games, dtype=np.int32)
        columns["first_violation"] = np.zeros(games, dtype=np.int8)
    for g, (seed, rotation) in enumerate(zip(seeds, rotations)):
        state = new_game(params, seat_policies, int(seed), int(rotation), check=check)
        try:
            while not is_over(state):
                apply(state, policy_move(state))
        except InvariantViolation as violation:  # the runner stops at the first such game
            columns["check_violations"][g] = 1
            columns["first_violation"][g] = VIOLATION_NAMES.index(str(violation))
            continue
        columns["turns"][g] = state.turn
        columns["rounds"][g] = -(-state.turn // 2)  # rounds begun
        columns["end_reason"][g] = state.end_reason
        columns["empty_cells"][g] = state.cells.count(EMPTY)
        columns["score"][g] = scores(state)
        columns["win"][g, winners(state)] = True
        columns["marks"][g] = [state.cells.count(seat) for seat in range(2)]
    return columns


def board_text(cells) -> str:
    return " / ".join("".join(MARKS[cells[cell]] if cells[cell] != EMPTY else "." for cell in range(row, row + 3))
                      for row in (0, 3, 6))


def trace(params: Params, seat_policies: SeatPolicies, seed: int, rotation: int) -> str:
    """The game of (seed, rotation), move by move."""
    state = new_game(params, seat_policies, seed, rotation)
    names = state.seat_policies.names
    lines = []
    while not is_over(state):
        seat, move = state.seat, policy_move(state)
        apply(state, move)
        lines.append(f"turn {state.turn}: seat {seat} ({names[seat]}) puts {MARKS[seat]} on cell {move}: "
                     f"{board_text(state.cells)}")
    lines.append(f"end: {END_REASONS[state.end_reason]}")
    return "\n".join(lines + outcome_lines(scores(state), winners(state), names))


def legend(params: Params) -> str:
    return "X = seat 0 (moves first), O = seat 1; cells 0-8 row by row; boards drawn row / row / row"

