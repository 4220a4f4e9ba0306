"""Feeding Time, a tiny zoo card game as a zoosim game plugin in plain Python and NumPy.

This module is the whole game: its knobs, its step API (one game a decision at a time), and
`play_batch` and `trace` built on that step API, so the three can never disagree. Rules as
implemented, with the rule ids cited below: RULES.md beside this file. zoosim finds the game
through the entry point `feeding = "zoosim_feeding:GAME"` in this package's pyproject.toml.

Randomness: the deal (deck order and each slot's favourite food) comes from the game seed alone,
so every rotation of a seed deals the same cards to the same slots; the random policy draws from
a second stream seeded with (seed, 1 + rotation).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pydantic

from simulator.plugin import Game, InvariantViolation, PolicySpec, SeatPolicies, StrictModel, knob, outcome_lines

RULES_VERSION = 1
KINDS = ("meat", "fish", "fruit")
VALUES = (1, 2, 3)
END_REASONS = ("target", "deck_out")  # F-5
VIOLATION_NAMES = ("none", "cards_not_conserved", "score_mismatch")  # F-6
RANDOM, GREEDY = 0, 1  # policy ids


class Params(StrictModel):
    preset: Literal["standard", "no_favourites"] = "standard"
    players: int = knob(2, "F-1", "number of players", ge=2, le=4)
    copies: int = knob(2, "F-1", "cards of each kind and value in the food deck", ge=1, le=5)
    row: int = knob(3, "F-1", "face-up cards in the shared food row", ge=1, le=6)
    target: int = knob(12, "F-5", "points that win the game at once", ge=1, le=100)
    favourite_double: bool = knob(True, "F-3", "a card of your animal's favourite kind scores double")


@dataclass
class State:
    """One game. A card is an int: kind * len(VALUES) + value index."""

    params: Params
    seat_policies: SeatPolicies
    favourite: np.ndarray  # (players,) kind index of each seat's animal
    deck: list[int]  # top card last
    row: list[int]
    play: np.random.Generator  # the random policy's stream
    check: bool
    score: np.ndarray  # (players,) int16
    fed: list[list[int]]  # the cards each seat took
    turn: int = 0
    end_reason: int = -1  # index into END_REASONS while over, -1 while in play

    @property
    def players(self) -> int:
        return len(self.favourite)

    @property
    def seat(self) -> int:
        """The seat to move (F-2)."""
        return self.turn % self.players


def card_kind(card: int) -> int:
    return card // len(VALUES)


def card_value(card: int) -> int:
    return VALUES[card % len(VALUES)]


def card_name(card: int) -> str:
    return f"{KINDS[card_kind(card)]}{card_value(card)}"


def points(state: State, seat: int, card: int) -> int:
    """F-2, F-3: a card's value, doubled for the favourite kind."""
    favourite = state.params.favourite_double and card_kind(card) == state.favourite[seat]
    return card_value(card) * (2 if favourite else 1)


# ---- the step API (simulator.plugin.StepAPI) ----

def new_game(params: Params, seat_policies: SeatPolicies | None = None, seed: int = 0,
             rotation: int = 0, check: bool = False) -> State:
    """F-1: the deal of `seed`, slot j seated at (j + rotation) % players."""
    n = params.players
    if seat_policies is None:
        seat_policies = GAME.seat_policies([(GAME.default_policy, {})] * n)
    deal = np.random.default_rng(int(seed))
    deck = [kind * len(VALUES) + value for kind in range(len(KINDS)) for value in range(len(VALUES))]
    deck = [int(card) for card in deal.permutation(deck * params.copies)]
    slot_favourite = deal.integers(0, len(KINDS), size=n)
    seat_favourite = slot_favourite[(np.arange(n) - int(rotation)) % n]
    state = State(params=params, seat_policies=_seated(seat_policies, rotation), favourite=seat_favourite,
                  deck=deck, row=[], play=np.random.default_rng([int(seed), 1 + int(rotation)]),
                  check=check, score=np.zeros(n, dtype=np.int16), fed=[[] for _ in range(n)])
    _refill(state)
    return state


def legal_moves(state: State) -> list[int]:
    """A move is the position of a card in the row (F-2)."""
    return [] if is_over(state) else list(range(len(state.row)))


def apply(state: State, move: int) -> None:
    """The seat to move takes row card `move` (F-2, F-3), the row is refilled (F-4), the game
    may end (F-5); with `check`, the invariants are checked (F-6)."""
    if move not in legal_moves(state):
        raise ValueError(f"illegal move {move} (legal: {legal_moves(state)})")
    seat = state.seat
    card = state.row.pop(move)
    state.score[seat] += points(state, seat, card)
    state.fed[seat].append(card)
    _refill(state)
    state.turn += 1
    if state.score[seat] >= state.params.target:
        state.end_reason = END_REASONS.index("target")
    elif not state.row:
        state.end_reason = END_REASONS.index("deck_out")
    if state.check:
        violation = _violation(state)
        if violation:
            raise InvariantViolation(VIOLATION_NAMES[violation])


def policy_move(state: State) -> int:
    """The seated policy's choice: random takes any card; greedy the card worth most to it
    (the leftmost among equals)."""
    seat = state.seat
    if state.seat_policies.policy_ids[seat] == RANDOM:
        return int(state.play.integers(len(state.row)))
    worth = [points(state, seat, card) for card in state.row]
    return worth.index(max(worth))


def is_over(state: State) -> bool:
    return state.end_reason >= 0


def scores(state: State) -> np.ndarray:
    return state.score.copy()


def winners(state: State) -> list[int]:
    """F-5: the seat that reached the target, or every seat with the highest score."""
    if END_REASONS[state.end_reason] == "target":
        return [int(np.argmax(state.score >= state.params.target))]
    return np.flatnonzero(state.score == state.score.max()).tolist()


def _seated(seat_policies: SeatPolicies, rotation: int) -> SeatPolicies:
    """Policies by seat: slot j sits in seat (j + rotation) % n."""
    order = (np.arange(seat_policies.players) - int(rotation)) % seat_policies.players
    return SeatPolicies(names=tuple(seat_policies.names[slot] for slot in order),
                        policy_ids=seat_policies.policy_ids[order],
                        policy_params=seat_policies.policy_params[order])


def _refill(state: State) -> None:
    """F-4."""
    while len(state.row) < state.params.row and state.deck:
        state.row.append(state.deck.pop())


def _violation(state: State) -> int:
    """F-6: the index in VIOLATION_NAMES of the first broken invariant, 0 when none is."""
    cards = len(state.deck) + len(state.row) + sum(len(taken) for taken in state.fed)
    if cards != len(KINDS) * len(VALUES) * state.params.copies:
        return VIOLATION_NAMES.index("cards_not_conserved")
    for seat, taken in enumerate(state.fed):
        if state.score[seat] != sum(points(state, seat, card) for card in taken):
            return VIOLATION_NAMES.index("score_mismatch")
    return 0


# ---- the batch and the trace, both played through the step API ----

def play_batch(params: Params, seat_policies: SeatPolicies, seeds, rotations, check: bool = False):
    """One game per (seed, rotation), played to the end with the seated policies."""
    games, n = len(seeds), params.players
    columns = {
        "turns": np.zeros(games, dtype=np.int16),
        "rounds": np.zeros(games, dtype=np.int16),
        "end_reason": np.zeros(games, dtype=np.int8),
        "cards_left": np.zeros(games, dtype=np.int16),
        "score": np.zeros((games, n), dtype=np.int16),
        "win": np.zeros((games, n), dtype=bool),
        "favourites_fed": np.zeros((games, n), dtype=np.int16),
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
        columns["rounds"][g] = -(-state.turn // n)  # rounds begun
        columns["end_reason"][g] = state.end_reason
        columns["cards_left"][g] = len(state.deck) + len(state.row)
        columns["score"][g] = state.score
        columns["win"][g, winners(state)] = True
        columns["favourites_fed"][g] = [sum(card_kind(card) == state.favourite[seat] for card in taken)
                                        for seat, taken in enumerate(state.fed)]
    return columns


def trace(params: Params, seat_policies: SeatPolicies, seed: int, rotation: int) -> str:
    """The game of (seed, rotation), turn by turn."""
    state = new_game(params, seat_policies, seed, rotation)
    names = state.seat_policies.names
    lines = ["favourites: " + ", ".join(f"seat {seat} {KINDS[kind]}" for seat, kind in enumerate(state.favourite))]
    while not is_over(state):
        seat, row = state.seat, " ".join(card_name(card) for card in state.row)
        move = policy_move(state)
        taken = state.row[move]
        gained = points(state, seat, taken)
        apply(state, move)
        lines.append(f"turn {state.turn}: row [{row}]; seat {seat} ({names[seat]}) feeds "
                     f"{card_name(taken)} +{gained} -> {state.score[seat]}")
    lines.append(f"end: {END_REASONS[state.end_reason]}")
    return "\n".join(lines + outcome_lines(state.score, winners(state), names))


def legend(params: Params) -> str:
    return "cards: kind and value (meat3 = meat worth 3); a favourite kind scores double (F-3)"


GAME = Game(
    name="feeding",
    title="Feeding Time (example plugin)",
    rules_version=RULES_VERSION,
    params_model=Params,
    presets={"standard": {}, "no_favourites": {"favourite_double": False}},
    policies={
        "random": PolicySpec("random", RANDOM, "takes any card of the row"),
        "greedy": PolicySpec("greedy", GREEDY, "takes the card worth most to its animal"),
    },
    default_policy="greedy",
    end_reasons=END_REASONS,
    violation_names=VIOLATION_NAMES,
    deal_travels_with_slot=True,  # each slot's animal (F-1)
    players=lambda params: params.players,
    play_batch=play_batch,
    trace=trace,
    legend=legend,
    steps=sys.modules[__name__],  # this module is the step API
    seat_columns=("favourites_fed",),
    game_columns=("cards_left",),
    seat_measures={"favourites_fed": "favourite foods fed"},
    components={"favourites_fed": "a favourite food fed"},
)
