"""The Katz Python step API (base.StepAPI): `new_game`, `legal_moves`, `apply`, `policy_move`,
`is_over`, `scores`, `winners`, one move at a time over the very kernels play_batch runs
(moves.py, play.py). Traces, renders, tests and notebooks use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulator.games import rng as random_stream
from simulator.games.base import InvariantViolation, SeatPolicies
from simulator.games.katz import policies as P
from simulator.games.katz import rules as R
from simulator.games.katz import search as KS
from simulator.games.katz import state as S
from simulator.games.katz.invariants import find_violation
from simulator.games.katz.moves import (
    allocate_game, apply_move, card_table, legal_moves_into, max_moves, start_game, step_limit,
    winners_into,
)
from simulator.games.katz.params import Params, deck_cards, rule_array
from simulator.games.katz.play import (
    choose_for_seat, play_one_game, points_from_halves, policy_workspace,
)


@dataclass
class KatzState:
    """One game for the step API: the kernel arrays plus what the kernels need alongside."""

    params: Params
    rules: np.ndarray
    cards: np.ndarray
    deck: np.ndarray
    game: tuple
    rng: np.ndarray
    policy_ids: np.ndarray
    policy_params: np.ndarray
    policy_names: tuple[str, ...]
    rotation: int
    check: bool = False

    @property
    def scalars(self) -> np.ndarray:
        return self.game[0]

    @property
    def cells(self) -> np.ndarray:
        return self.game[1]

    @property
    def hidden(self) -> np.ndarray:
        return self.game[2]

    @property
    def lines(self) -> np.ndarray:
        return self.game[3]

    @property
    def hands(self) -> np.ndarray:
        return self.game[4]

    @property
    def seats(self) -> np.ndarray:
        return self.game[5]

    @property
    def events(self) -> np.ndarray:
        return self.game[6]

    @property
    def seat(self) -> int:
        return int(self.scalars[S.S_SEAT])

    @property
    def phase(self) -> int:
        return int(self.scalars[S.S_PHASE])

    def hand(self, seat: int) -> list[int]:
        return [int(card) for card in self.hands[seat, : self.seats[seat, S.SEAT_HAND_LEN]]]

    def policy_of_seat(self, seat: int) -> str:
        return self.policy_names[int(self.seats[seat, S.SEAT_SLOT])]

    def last_events(self) -> list[tuple[int, int, int, int]]:
        """Events logged by the last apply (or the deal), as (code, seat, cell, card)."""
        count = int(self.scalars[S.S_EVENT_COUNT])
        return [tuple(int(v) for v in row) for row in self.events[:count]]


def empty_state(params: Params, seat_policies: SeatPolicies | None = None, rotation: int = 0,
                check: bool = False) -> KatzState:
    """A state with allocated, zeroed arrays (for new_game and for scripted positions)."""
    from simulator.games.katz import GAME  # the registry, for default policies

    if seat_policies is None:
        seat_policies = GAME.seat_policies([(GAME.default_policy, {})] * params.players)
    if seat_policies.players != params.players:
        raise ValueError(f"{seat_policies.players} seat policies for {params.players} players")
    rules = rule_array(params)
    return KatzState(
        params=params,
        rules=rules,
        cards=card_table(params),
        deck=deck_cards(params),
        game=allocate_game(rules, S.TRACE_EVENT_CAPACITY),
        rng=random_stream.new_state(np.uint64(0)),
        policy_ids=np.ascontiguousarray(seat_policies.policy_ids, dtype=np.int64),
        policy_params=np.ascontiguousarray(seat_policies.policy_params, dtype=np.float64),
        policy_names=tuple(seat_policies.names),
        rotation=rotation % params.players,
        check=check,
    )


def new_game(params: Params, seat_policies: SeatPolicies | None = None, seed: int = 0,
             rotation: int = 0, check: bool = False) -> KatzState:
    """The game play_batch would play for (seed, rotation), ready for its first decision."""
    state = empty_state(params, seat_policies, rotation, check)
    state.rng = random_stream.new_state(np.uint64(seed))
    start_game(state.rules, state.cards, state.deck, state.game, state.rng, state.rotation)
    return state


def finished_game(params: Params, seat_policies: SeatPolicies, seed: int = 0, rotation: int = 0) -> KatzState:
    """The game new_game starts, played to its end by the seats' policies in one call of the
    batch's own game kernel (play.play_one_game, with the argument types play_batch passes it),
    so a caller that only needs the final position, such as the report's sample drawing, compiles
    none of the step kernels below: after a batch that kernel is compiled or cached already."""
    state = empty_state(params, seat_policies, rotation)
    state.rng = random_stream.new_state(np.uint64(seed))
    cells = state.cells
    play_one_game(state.rules, state.cards, state.deck, state.policy_ids, state.policy_params, state.game,
                  state.rng, np.int64(state.rotation), None, step_limit(state.rules),
                  np.empty(max_moves(state.rules), dtype=np.int64), policy_workspace(state.rules, state.policy_ids),
                  KS.search_workspace(state.rules, state.cards, state.deck, state.policy_ids, state.policy_params),
                  np.empty_like(cells), np.empty_like(state.lines), np.empty(state.rules[S.P_CARD_IDS], dtype=np.int64))
    return state


def legal_moves(state: KatzState) -> list[int]:
    buffer = np.empty(max_moves(state.rules), dtype=np.int64)
    count = legal_moves_into(state.rules, state.cards, state.scalars, state.cells, state.lines,
                             state.hands, state.seats, buffer)
    return [int(move) for move in buffer[:count]]


def apply(state: KatzState, move: int) -> None:
    """Apply a legal move (ValueError otherwise); in checked mode raise InvariantViolation if an
    invariant breaks. `state.last_events()` then describes what happened."""
    if move not in legal_moves(state):
        raise ValueError(f"illegal move {describe_move(move)} (legal: "
                         f"{', '.join(describe_move(m) for m in legal_moves(state))})")
    state.scalars[S.S_EVENT_COUNT] = 0
    cells_before = state.cells.copy()
    deal_before = int(state.scalars[S.S_DEAL])
    apply_move(state.rules, state.cards, state.deck, state.game, state.rng, np.int64(move))
    if state.check:
        code = find_violation(state.rules, state.cards, state.game, deal_before, cells_before,
                              np.empty_like(state.lines), np.empty(state.cards.shape[0], np.int64),
                              np.empty(max_moves(state.rules), dtype=np.int64))
        if code != S.VIOLATION_NONE:
            raise InvariantViolation(f"T17 invariant broken: {S.VIOLATION_NAMES[code]}")


def policy_move(state: KatzState) -> int:
    """The move the policy of the seat to decide picks (consumes the game's random stream
    exactly as play_batch does)."""
    buffer = np.empty(max_moves(state.rules), dtype=np.int64)
    count = legal_moves_into(state.rules, state.cards, state.scalars, state.cells, state.lines,
                             state.hands, state.seats, buffer)
    index = choose_for_seat(state.rules, state.cards, state.game, state.policy_ids,
                            state.policy_params, buffer, count, state.rng,
                            P.allocate_workspace(state.rules),
                            KS.search_workspace(state.rules, state.cards, state.deck,
                                                state.policy_ids, state.policy_params))
    return int(buffer[index])


def is_over(state: KatzState) -> bool:
    return state.phase == S.PHASE_OVER


def scores(state: KatzState) -> np.ndarray:
    """Each seat's score: finished deals' totals plus, while a deal runs, its current hand, plus
    the seat bonus (K-4.5); int16, or float32 with half-point bonuses (as play_batch records)."""
    halves = 2 * state.seats[:, S.SEAT_TOTAL_SCORE].astype(np.int64)
    halves += np.asarray(state.params.seat_bonus_halves, dtype=np.int64)
    if not is_over(state):
        for seat in range(state.params.players):
            halves[seat] += 2 * R.hand_score(state.rules, state.cards, state.hands[seat],
                                             state.seats[seat, S.SEAT_HAND_LEN])
    return points_from_halves(state.params, halves)


def winners(state: KatzState) -> list[int]:
    """Winning seats of a finished game after the tie-break (K-4.3); several on a shared win."""
    win = np.zeros(state.params.players, dtype=np.bool_)
    winners_into(state.rules, state.seats, state.scalars[S.S_FIRST_SEAT], win)
    return [int(seat) for seat in np.flatnonzero(win)]


def decode_move(move: int) -> tuple[str, int, int]:
    """(type name, cell, card) of a move code."""
    move = int(move)
    return (S.MOVE_NAMES[move // S.MOVE_TYPE_UNIT],
            (move // S.MOVE_CELL_UNIT) & S.MOVE_CARD_MASK, move & S.MOVE_CARD_MASK)


def describe_move(move: int) -> str:
    name, cell, card = decode_move(move)
    return f"{name}(cell={cell}, card={card})"
