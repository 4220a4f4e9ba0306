"""The rule knobs of Alles für die Katz (seeds/alles-fuer-die-katz.md, K-9), their validation,
and their translation into the flat int64 array and card table the numba kernels read.

Every field names its rule id in `json_schema_extra={"rule": ...}`; `zoosim rules katz` lists
them through `base.knob_table`. Defaults are the spec's defaults (rules spec §5.3).
"""

from __future__ import annotations

import re
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from simulator.games.base import knob
from simulator.schema import StrictModel
from simulator.games.layouts import Choice, Derived, Equals, Flag, Int, RuleLayout

RULES_VERSION = 1

MAX_KINDS = 32  # kinds are bits of an int64 mask (K-3.1)
MAX_VALUES = 32
MAX_COPIES = 8
MAX_STANDARD_PLAYERS = 5
MAX_SEATS = 16  # entries of each per-seat table in the rule array
MAX_PLAYERS = MAX_SEATS
MAX_CELLS = 4095  # cells and card ids must fit 12 bits of a move code (state.py)
UNLIMITED = -1  # P_KEEPERS value for `keepers: null`
MAX_ROUNDS = 100

# Short codes of the spec (§1) for the box's kinds; other kind names get derived codes.
KNOWN_KIND_CODES = {
    "giraffe": "Gi",
    "elephant": "El",
    "monkey": "Mo",
    "parrot": "Pa",
    "penguin": "Pe",
    "lion": "Li",
    "panda": "Pd",
    "cat": "Ca",
}


class Deck(StrictModel):
    zoo_kinds: list[str] = knob(
        ["giraffe", "elephant", "monkey", "parrot", "penguin", "lion", "panda"],
        "K-1.1",
        "animal kinds that score positively (best card of a kind counts plus)",
    )
    penalty_kinds: list[str] = knob(
        ["cat"], "K-1.1", "kinds whose every card counts minus (the cats)"
    )
    values: list[int] = knob(
        [1, 2, 3, 4, 5, 6, 7], "K-1.1", "card values; every kind has one card of each value"
    )
    copies_per_card: int = knob(
        1, "K-1.1", "copies of each (kind, value) card in the deck", ge=1, le=MAX_COPIES,
        encode=Int("P_COPIES"),
    )

    @field_validator("zoo_kinds")
    @classmethod
    def _some_zoo_kind(cls, kinds: list[str]) -> list[str]:
        if not kinds:
            raise ValueError("the deck needs at least one zoo kind")
        return kinds

    @field_validator("values")
    @classmethod
    def _distinct_values(cls, values: list[int]) -> list[int]:
        if not values:
            raise ValueError("the deck needs at least one card value")
        if len(set(values)) != len(values):
            raise ValueError("card values must be distinct")
        if len(values) > MAX_VALUES:
            raise ValueError(f"at most {MAX_VALUES} card values are supported")
        if min(values) < 0 or max(values) > 99:
            raise ValueError("card values must lie in 0..99")
        return values

    @model_validator(mode="after")
    def _distinct_kinds(self) -> Deck:
        kinds = self.zoo_kinds + self.penalty_kinds
        for name in kinds:
            if not re.fullmatch(r"[A-Za-z][A-Za-z_ -]*", name):
                raise ValueError(f"kind name '{name}' must be letters (with _ - or spaces)")
        if len(set(kinds)) != len(kinds):
            raise ValueError("kind names must be distinct across zoo_kinds and penalty_kinds")
        if len(kinds) > MAX_KINDS:
            raise ValueError(f"at most {MAX_KINDS} kinds are supported")
        return self

    @property
    def kinds(self) -> list[str]:
        """All kinds in kind-index order: zoo kinds first, then penalty kinds (K-1.2)."""
        return self.zoo_kinds + self.penalty_kinds

    @property
    def size(self) -> int:
        return len(self.kinds) * len(self.values) * self.copies_per_card


class Grid(StrictModel):
    cols: int = knob(7, "K-2.2", "cells per row of the zoo", ge=1, le=64, encode=Int("P_COLS"))
    rows: Literal["auto"] | int = knob(
        "auto",
        "K-2.2",
        "rows of the zoo; auto = floor((deck size - players * hand_size) / cols)",
        allowed='"auto", or an integer >= 1',
    )
    leftover: Literal["set_aside"] = knob(
        "set_aside", "K-2.3", "cards that do not make a whole row leave the game unseen"
    )

    @field_validator("rows")
    @classmethod
    def _positive_rows(cls, rows):
        if rows != "auto" and rows < 1:
            raise ValueError("grid.rows must be 'auto' or at least 1")
        return rows


class ValueEffectsOn(StrictModel):
    place: bool = knob(True, "K-3.5.3", "value effects apply to a face-up placement into a gap",
                       encode=Flag("P_EFFECTS_ON_PLACE"))
    replace: bool = knob(True, "K-3.5.3", "value effects apply to a card that replaces a keeper",
                         encode=Flag("P_EFFECTS_ON_REPLACE"))
    covered: bool = knob(
        True, "K-3.5.3", "value effects apply to a card put under a keeper (blocked-cell exception)",
        encode=Flag("P_EFFECTS_ON_COVERED"),
    )


class Scoring(StrictModel):
    best_of_kind: Literal["plus_face"] = knob(
        "plus_face", "K-4.2", "the highest card of each zoo kind held counts its face value plus"
    )
    other_of_kind_penalty: Literal["minus_face", "zero", "minus_one"] = knob(
        "minus_face", "K-4.2", "what every other card of a zoo kind held counts",
        encode=Choice("P_OTHER_OF_KIND_PENALTY", prefix="SCORE_"),
    )
    penalty_kind_card: Literal["minus_face", "minus_one"] = knob(
        "minus_face", "K-4.2", "what every card of a penalty kind (cat) held counts",
        encode=Choice("P_PENALTY_KIND_CARD", prefix="PENALTY_"),
    )


class Params(StrictModel):
    """All knobs of one Katz configuration (rules spec §5.3; seeds K-9)."""

    preset: Literal["spec", "seed_summary"] = knob(
        "spec",
        "K-9.2",
        "knob group set first (individual knobs override it): spec = the rules spec of record; "
        "seed_summary = the original Dutch summary's readings (`zoosim rules katz` lists them)",
    )
    edition: Literal["amigo", "zoo_party", "7_safari"] = knob(
        "amigo", "K-9.1", "edition; all three play by identical rules (no difference is confirmed)"
    )
    players: int = knob(4, "K-2.1", "number of players (box: 2..5)", ge=1, le=MAX_PLAYERS,
                        encode=Int("P_PLAYERS"))
    allow_nonstandard_players: bool = knob(
        False, "K-2.1", "permit player counts outside 2..5 (designer variant)"
    )
    hand_size: int = knob(7, "K-2.1", "cards dealt to each player", ge=0, le=256)
    seat_hand_size_delta: list[int] = knob(
        [0] * MAX_STANDARD_PLAYERS,
        "K-2.5",
        "per seat in turn order (seat 0 moves first): cards dealt on top of hand_size (negative: "
        "fewer); seats beyond the list get 0, entries beyond the player count are unused",
        allowed="list of ints, one per seat (hand_size + entry >= 0)",
        per_seat=True,
        max_length=MAX_PLAYERS,
    )
    deck: Deck = Field(default_factory=Deck)
    grid: Grid = Field(default_factory=Grid)
    keepers: int | None = knob(
        8, "K-1.3", "zookeepers in the supply; null = unlimited (removes end trigger K-4.1.2)", ge=1, le=4095,
        encode=Int("P_KEEPERS", none=UNLIMITED),
    )
    first_player: Literal["seat0", "random"] = knob(
        "seat0", "K-2.4", "who starts: seat 0, or a seat drawn from the game's random stream",
        encode=Equals("P_FIRST_PLAYER_RANDOM", value="random"),
    )
    take_from: Literal["any_face_down"] = knob(
        "any_face_down", "K-3.2.1", "which face-down card a draw may take"
    )
    must_place_if_able: bool = knob(
        True, "K-3.2.3", "a fitting card must be placed; false also allows a bare keeper then",
        encode=Flag("P_MUST_PLACE_IF_ABLE"),
    )
    allow_pass: bool = knob(False, "K-3.2.6", "a player may end the turn doing nothing",
                            encode=Flag("P_ALLOW_PASS"))
    allow_keeper_replacement: bool = knob(True, "K-3.4", "action B (replace a bare keeper) exists",
                                          encode=Flag("P_ALLOW_REPLACEMENT"))
    replaceable_keepers: Literal["bare_only"] = knob(
        "bare_only", "K-3.4.1", "only a keeper with no card beneath can be replaced"
    )
    blocked_cell_rule: Literal["line_completion", "dead_cell", "either", "off"] = knob(
        "line_completion", "K-3.3", "which blocked-cell exception lets a card go under a keeper",
        encode=Choice("P_BLOCKED_CELL_RULE", prefix="RULE_"),
    )
    line_completion_needs_no_fit: bool = knob(
        True,
        "K-3.3.5",
        "the line-completion exception is open only when no hand card fits the gap (spec T9); "
        "false: whenever the placement completes a row or column (the Dutch summary)",
        encode=Flag("P_LINE_COMPLETION_NEEDS_NO_FIT"),
    )
    blocked_cell_optional: bool = knob(
        True, "K-3.3.4", "the exception may be declined in favour of a bare keeper",
        encode=Flag("P_BLOCKED_CELL_OPTIONAL"),
    )
    line_complete_counts_keepers: bool = knob(
        True, "K-3.3.2", "keepers count as filling a line for the line-completion exception",
        encode=Flag("P_LINE_COMPLETE_COUNTS_KEEPERS"),
    )
    covered_cards_block: bool = knob(
        False, "K-3.1.3", "cards under keepers block their kind like face-up cards",
        encode=Flag("P_COVERED_CARDS_BLOCK"),
    )
    penalty_kind_blocks: bool = knob(
        True, "K-3.1.4", "penalty kinds (cats) block their own kind like any other kind"
    )
    extra_turn_values: list[int] = knob(
        [7], "K-3.5.1", "card values whose placement earns an immediate extra turn"
    )
    skip_values: list[int] = knob([1], "K-3.5.2", "card values whose placement costs the next turn")
    chain_extra_turns: bool = knob(
        True, "K-3.5.1", "a qualifying card placed in an extra turn earns a further one",
        encode=Flag("P_CHAIN_EXTRA_TURNS"),
    )
    value_effects_on: ValueEffectsOn = Field(default_factory=ValueEffectsOn)
    first_turn_limit: Literal["none", "no_extra_turn", "return_drawn_card"] = knob(
        "none",
        "K-3.8",
        "the start seat's first turn of each deal: no_extra_turn = a value effect earns no extra "
        "turn; return_drawn_card = only the card just drawn may go into the gap",
        encode=Choice("P_FIRST_TURN_LIMIT", prefix="FIRST_TURN_"),
    )
    end_when_no_face_down: bool = knob(
        True, "K-4.1.1", "the game ends when no face-down card is left",
        encode=Flag("P_END_WHEN_NO_FACE_DOWN"),
    )
    end_timing: Literal["immediate", "complete_round"] = knob(
        "immediate", "K-4.1.4", "end at once, or let the seats up to the last seat take one more turn",
        encode=Equals("P_END_COMPLETE_ROUND", value="complete_round"),
    )
    lost_extra_turn_in_pass_streak: bool = knob(
        False,
        "K-4.1.5",
        "an extra turn lost because nothing is legal adds to the consecutive passes that end a "
        "deal; false: it is recorded as a forced pass only",
        encode=Flag("P_LOST_EXTRA_TURN_IN_PASS_STREAK"),
    )
    scoring: Scoring = Field(default_factory=Scoring)
    seat_bonus_points: list[float] = knob(
        [0.0] * MAX_STANDARD_PLAYERS,
        "K-4.5",
        "per seat in turn order (seat 0 moves first): points added to the final score before "
        "ranking and the tie-break; seats beyond the list get 0, entries beyond the player "
        "count are unused",
        allowed="list of whole or half numbers (-100..100), one per seat",
        per_seat=True,
        seat_relative=True,  # the same bonus for every seat changes no ranking

        max_length=MAX_PLAYERS,
    )
    tie_break: Literal["shared", "fewest_hand_cards", "fewest_cats", "later_seat"] = knob(
        "shared", "K-4.3", "how a tie for the highest score is decided",
        encode=Choice("P_TIE_BREAK", prefix="TIE_"),
    )
    rounds: int = knob(
        1, "K-4.4", "deals per game; scores are summed, the start seat moves on each deal", ge=1, le=MAX_ROUNDS,
        encode=Int("P_ROUNDS"),
    )
    turn_order: Literal["clockwise", "snake", "random_each_round", "random_after_first_round"] = knob(
        "clockwise", "K-3.6.1",
        "clockwise = ascending seats every round; snake = the direction turns at each end of a "
        "round (0..n-1, n-1..0, ...), so the end seats move twice in a row and no seat always "
        "draws from the fullest zoo of the round; random_each_round (K-3.6.2) = every round of a "
        "deal, the first included, goes in a fresh uniformly random seat order drawn from the "
        "deal's own random stream, so in expectation no seat is later than another; "
        "random_after_first_round = the same, but each deal's first round goes clockwise from its "
        "start seat (K-2.4, K-4.4)",
        encode=Choice("P_TURN_ORDER", prefix="ORDER_"),
    )

    @field_validator("seat_bonus_points")
    @classmethod
    def _half_points(cls, bonuses: list[float]) -> list[float]:
        for seat, bonus in enumerate(bonuses):
            if not -100 <= bonus <= 100 or bonus * 2 != int(bonus * 2):
                raise ValueError(
                    f"seat_bonus_points[{seat}] must be a whole or half number in -100..100"
                )
        return bonuses

    @model_validator(mode="after")
    def _playable(self) -> Params:
        if not self.allow_nonstandard_players and not 2 <= self.players <= MAX_STANDARD_PLAYERS:
            raise ValueError(
                f"players must be 2..5 (the box); got {self.players}; "
                "set allow_nonstandard_players: true for other counts"
            )
        values = set(self.deck.values)
        for name in ("extra_turn_values", "skip_values"):
            missing = sorted(set(getattr(self, name)) - values)
            if missing:
                raise ValueError(f"{name} {missing} are not card values of the deck {sorted(values)}")
        both = sorted(set(self.extra_turn_values) & set(self.skip_values))
        if both:
            raise ValueError(f"values {both} cannot both earn an extra turn and cost a turn")
        sizes = self.seat_hand_sizes
        for seat, size in enumerate(sizes):
            if size < 0:
                raise ValueError(
                    f"seat_hand_size_delta[{seat}] = {self.seat_hand_size_delta[seat]} leaves "
                    f"seat {seat} a hand of {size} cards (hand_size {self.hand_size})"
                )
        deck_size, dealt = self.deck.size, sum(sizes)
        hands = (f"{self.players} hands of {self.hand_size}" if len(set(sizes)) == 1
                 else f"hands of {sizes} (seat 0 first)")
        cols = self.grid.cols
        if dealt + cols > deck_size:
            raise ValueError(f"deck of {deck_size} cards cannot deal {hands} and one row of {cols}")
        rows = self.grid_rows
        if dealt + rows * cols > deck_size:
            raise ValueError(f"deck of {deck_size} cards cannot deal {hands} and {rows} rows of {cols}")
        if rows * cols > MAX_CELLS:
            raise ValueError(f"a zoo of {rows * cols} cells is larger than {MAX_CELLS}")
        return self

    @property
    def seat_hand_sizes(self) -> list[int]:
        """Cards dealt to each seat in turn order (K-2.1, K-2.5)."""
        deltas = self.seat_hand_size_delta
        return [self.hand_size + (deltas[seat] if seat < len(deltas) else 0)
                for seat in range(self.players)]

    @property
    def seat_bonus_halves(self) -> list[int]:
        """Each seat's bonus (K-4.5) in half points."""
        bonuses = self.seat_bonus_points
        return [round(2 * bonuses[seat]) if seat < len(bonuses) else 0
                for seat in range(self.players)]

    @property
    def grid_rows(self) -> int:
        """The zoo's row count with `auto` resolved (K-2.2)."""
        if self.grid.rows == "auto":
            return (self.deck.size - sum(self.seat_hand_sizes)) // self.grid.cols
        return self.grid.rows

    def resolved_rules(self) -> dict[str, Any]:
        """The rules as the games play them (`base.played_rules`): `grid.rows: auto` replaced by
        the row count it resolves to."""
        rules = self.model_dump(mode="json")
        rules["grid"]["rows"] = self.grid_rows
        return rules


def kind_codes(deck: Deck) -> list[str]:
    """Unique letter-only short codes per kind index: the spec's codes for the box's kinds, else
    the first two letters of the name (three, or all of them, if that would collide)."""
    codes: list[str] = []
    for name in deck.kinds:
        letters = re.sub("[^A-Za-z]", "", name).title()
        candidates = [KNOWN_KIND_CODES.get(name.lower(), letters[:2]), letters[:3], letters]
        codes.append(next(code for code in candidates if code not in codes))
    return codes


def _kind_masks(params: Params) -> tuple[int, int]:
    """(every kind, the kinds that block their own kind) as bit masks (K-3.1.4)."""
    deck = params.deck
    all_kinds = (1 << len(deck.kinds)) - 1
    penalty_kinds = sum(1 << index for index in range(len(deck.zoo_kinds), len(deck.kinds)))
    return all_kinds, all_kinds if params.penalty_kind_blocks else all_kinds & ~penalty_kinds


def _cards_with_values(params: Params, values: list[int]) -> int:
    """Cards per deal whose value is among `values`."""
    return len(params.deck.kinds) * params.deck.copies_per_card * len(values)


# The rule array the kernels read: every knob with an `encode=` above (in declaration order),
# then these quantities derived from several knobs, then (rule_array) the per-cell line table.
RULES = RuleLayout(Params, dtype=np.int64, derived=(
    # cards every seat is dealt from its slot's block: the smallest hand (K-2.4, K-2.5)
    Derived("P_HAND_BASE", lambda p: min(p.seat_hand_sizes)),
    # cards dealt beyond P_HAND_BASE, summed over seats (K-2.5)
    Derived("P_HAND_EXTRA_CARDS", lambda p: sum(p.seat_hand_sizes) - p.players * min(p.seat_hand_sizes)),
    Derived("P_ROWS", lambda p: p.grid_rows),
    Derived("P_CELLS", lambda p: p.grid_rows * p.grid.cols),
    Derived("P_KINDS", lambda p: len(p.deck.kinds)),
    Derived("P_VALUES", lambda p: len(p.deck.values)),  # distinct values per kind
    Derived("P_CARD_IDS", lambda p: len(p.deck.kinds) * len(p.deck.values)),
    Derived("P_DECK_SIZE", lambda p: p.deck.size),
    Derived("P_ALL_KINDS", lambda p: _kind_masks(p)[0]),  # mask of every kind in the deck
    Derived("P_BLOCKING_KINDS", lambda p: _kind_masks(p)[1]),  # kinds blocking their own kind
    # cards per deal whose value earns an extra turn (T17.5 bound) / costs a turn
    Derived("P_EXTRA_TURN_CARDS", lambda p: _cards_with_values(p, p.extra_turn_values)),
    Derived("P_SKIP_CARDS", lambda p: _cards_with_values(p, p.skip_values)),
    # 1 if some seat bonus is a half point (scores are recorded as floats)
    Derived("P_BONUS_HALF_POINTS", lambda p: any(bonus % 2 for bonus in p.seat_bonus_halves)),
    # per-seat tables (seat = position in turn order, K-8.1): rules[P_SEAT_HAND_SIZES + seat]
    # is the seat's hand size (K-2.5), rules[P_SEAT_BONUS_HALVES + seat] its bonus (K-4.5)
    Derived("P_SEAT_HAND_SIZES", lambda p: p.seat_hand_sizes, width=MAX_SEATS),
    Derived("P_SEAT_BONUS_HALVES", lambda p: p.seat_bonus_halves, width=MAX_SEATS),
))


def rule_array(params: Params) -> np.ndarray:
    """The flat int64 array the kernels read: RULES, then the per-cell line table (state.py)."""
    rows, cols = params.grid_rows, params.grid.cols
    cell_lines = []
    for cell in range(rows * cols):
        cell_lines += [cell // cols, rows + cell % cols]
    return RULES.array(params, tail=cell_lines)


def deck_cards(params: Params) -> np.ndarray:
    """Every physical card as its card id, in id order (the deal shuffles a copy)."""
    card_ids = len(params.deck.kinds) * len(params.deck.values)
    return np.repeat(np.arange(card_ids, dtype=np.int16), params.deck.copies_per_card)
