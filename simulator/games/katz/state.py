"""Array layout, dtypes and constants of the Katz kernels. Nothing here computes anything.

A game in progress is held in seven NumPy arrays (all created by `moves.allocate_game`):

  scalars  int64 (S_SIZE,)            game-wide scalars and counters, indices `S_*`
  cells    int16 (2, cells)           public zoo: cells[CELL_STATE, i] is a cell state
                                      (FACE_DOWN ... GAP), cells[CELL_CARD, i] the card id shown
                                      (face up) or covered (KEEPER_OVER), NO_CARD otherwise.
                                      Cell i is row i // cols, column i % cols.
  hidden   int16 (cells + deck_size,) private to the engine: hidden[i] for i < cells is the card
                                      lying face down in cell i (NO_CARD once drawn); the tail
                                      hidden[cells:cells + scalars[S_SET_ASIDE]] holds the cards
                                      set aside at the deal (K-2.3). Policies never receive it.
  lines    int64 (LINE_FIELDS, rows + cols)
                                      per line summaries; line l < rows is row l, line rows + c
                                      is column c. Masks have one bit per kind (bit = kind index).
  hands    int16 (players, deck_size) hands[seat, :seats[seat, SEAT_HAND_LEN]] are card ids.
  seats    int64 (players, SEAT_FIELDS) per-seat public facts, indices `SEAT_*`.
  events   int64 (capacity, EVENT_FIELDS) optional log for traces (capacity 0 = off).

Cards. A card id is `kind * value_count + value_index` where kinds are numbered zoo kinds
first, then penalty kinds (K-1.2); the card table (`moves.card_table`) gives each id's kind,
value and flags. With `copies_per_card > 1` several physical cards share one id.

Moves are int64 codes: `type * MOVE_TYPE_UNIT + cell * MOVE_CELL_UNIT + card`, with cell and
card below 4096 (0 when unused).
"""

import numpy as np

from simulator.games.katz.params import MAX_CELLS, MAX_SEATS, RULES, UNLIMITED  # noqa: F401

NO_CARD = -1

# ---- rule array (params.rule_array) -----------------------------------------------------------
# The index constants P_* (rules[P_PLAYERS], ...) and the constants of each choice knob's values
# (RULE_* for blocked_cell_rule, SCORE_* for scoring.other_of_kind_penalty, PENALTY_* for
# scoring.penalty_kind_card, TIE_* for tie_break, FIRST_TURN_* for first_turn_limit; each the
# value's index in the knob's Literal) follow from the knob declarations in params.py (`encode=`
# of each knob, then params.RULES' derived entries), the one declaration: they are written out
# here so grep finds them, and tests/games/test_constants.py checks them against
# `params.RULES.constants()` (a new knob's line is that test's expected value). The fixed part
# has P_SIZE entries; then the per-cell table:
# rules[P_CELL_LINES + 2 * cell] is the cell's row line (row), rules[P_CELL_LINES + 2 * cell + 1]
# its column line (rows + column), so the hot loops need no division to find a cell's lines.
P_PLAYERS = 0  # players
P_COPIES = 1  # deck.copies_per_card
P_COLS = 2  # grid.cols
P_KEEPERS = 3  # keepers
P_FIRST_PLAYER_RANDOM = 4  # first_player
P_MUST_PLACE_IF_ABLE = 5  # must_place_if_able
P_ALLOW_PASS = 6  # allow_pass
P_ALLOW_REPLACEMENT = 7  # allow_keeper_replacement
P_BLOCKED_CELL_RULE = 8  # blocked_cell_rule
P_LINE_COMPLETION_NEEDS_NO_FIT = 9  # line_completion_needs_no_fit
P_BLOCKED_CELL_OPTIONAL = 10  # blocked_cell_optional
P_LINE_COMPLETE_COUNTS_KEEPERS = 11  # line_complete_counts_keepers
P_COVERED_CARDS_BLOCK = 12  # covered_cards_block
P_CHAIN_EXTRA_TURNS = 13  # chain_extra_turns
P_EFFECTS_ON_PLACE = 14  # value_effects_on.place
P_EFFECTS_ON_REPLACE = 15  # value_effects_on.replace
P_EFFECTS_ON_COVERED = 16  # value_effects_on.covered
P_FIRST_TURN_LIMIT = 17  # first_turn_limit
P_END_WHEN_NO_FACE_DOWN = 18  # end_when_no_face_down
P_END_COMPLETE_ROUND = 19  # end_timing
P_LOST_EXTRA_TURN_IN_PASS_STREAK = 20  # lost_extra_turn_in_pass_streak
P_OTHER_OF_KIND_PENALTY = 21  # scoring.other_of_kind_penalty
P_PENALTY_KIND_CARD = 22  # scoring.penalty_kind_card
P_TIE_BREAK = 23  # tie_break
P_ROUNDS = 24  # rounds
P_TURN_ORDER = 25  # turn_order
P_HAND_BASE = 26  # derived
P_HAND_EXTRA_CARDS = 27  # derived
P_ROWS = 28  # derived
P_CELLS = 29  # derived
P_KINDS = 30  # derived
P_VALUES = 31  # derived
P_CARD_IDS = 32  # derived
P_DECK_SIZE = 33  # derived
P_ALL_KINDS = 34  # derived
P_BLOCKING_KINDS = 35  # derived
P_EXTRA_TURN_CARDS = 36  # derived
P_SKIP_CARDS = 37  # derived
P_BONUS_HALF_POINTS = 38  # derived
P_SEAT_HAND_SIZES = 39  # derived, 16 entries
P_SEAT_BONUS_HALVES = 55  # derived, 16 entries
# values of blocked_cell_rule (their index in its Literal)
RULE_LINE_COMPLETION = 0  # 'line_completion'
RULE_DEAD_CELL = 1  # 'dead_cell'
RULE_EITHER = 2  # 'either'
RULE_OFF = 3  # 'off'
# values of first_turn_limit (their index in its Literal)
FIRST_TURN_NONE = 0  # 'none'
FIRST_TURN_NO_EXTRA_TURN = 1  # 'no_extra_turn'
FIRST_TURN_RETURN_DRAWN_CARD = 2  # 'return_drawn_card'
# values of scoring.other_of_kind_penalty (their index in its Literal)
SCORE_MINUS_FACE = 0  # 'minus_face'
SCORE_ZERO = 1  # 'zero'
SCORE_MINUS_ONE = 2  # 'minus_one'
# values of scoring.penalty_kind_card (their index in its Literal)
PENALTY_MINUS_FACE = 0  # 'minus_face'
PENALTY_MINUS_ONE = 1  # 'minus_one'
# values of tie_break (their index in its Literal)
TIE_SHARED = 0  # 'shared'
TIE_FEWEST_HAND_CARDS = 1  # 'fewest_hand_cards'
TIE_FEWEST_CATS = 2  # 'fewest_cats'
TIE_LATER_SEAT = 3  # 'later_seat'
# values of turn_order (their index in its Literal)
ORDER_CLOCKWISE = 0  # 'clockwise'
ORDER_SNAKE = 1  # 'snake'
ORDER_RANDOM_EACH_ROUND = 2  # 'random_each_round'
ORDER_RANDOM_AFTER_FIRST_ROUND = 3  # 'random_after_first_round'
P_SIZE = RULES.size
P_CELL_LINES = P_SIZE

# ---- card table (moves.card_table), one row per card id ---------------------------------------
CARD_KIND = 0
CARD_VALUE = 1
CARD_KIND_BIT = 2
CARD_IS_PENALTY = 3
CARD_EXTRA_TURN = 4
CARD_SKIP = 5
CARD_COPIES = 6
CARD_FIELDS = 7

# ---- cells ------------------------------------------------------------------------------------
CELL_STATE = 0
CELL_CARD = 1
FACE_DOWN = 0
FACE_UP = 1
KEEPER = 2  # bare keeper
KEEPER_OVER = 3  # keeper covering CELL_CARD; permanent (K-3.3.3)
GAP = 4  # the cell just drawn from, until the placement (K-3.2.1)

# ---- lines ------------------------------------------------------------------------------------
LINE_FACE_UP_KINDS = 0  # mask of blocking kinds shown face up in the line
LINE_COVERED_KINDS = 1  # mask of blocking kinds lying under keepers in the line
LINE_FACE_DOWN = 2  # face-down cells in the line (a gap no longer counts)
LINE_KEEPERS = 3  # keeper cells in the line, bare and covered
LINE_FIELDS = 4

# ---- seats ------------------------------------------------------------------------------------
SEAT_HAND_LEN = 0
SEAT_SKIP_PENDING = 1  # 1 while the seat's next turn is lost (K-3.5.2)
SEAT_SLOT = 2  # the player slot sitting here (rotation, K-8.1)
SEAT_TOTAL_SCORE = 3  # summed over finished deals
SEAT_TOTAL_HAND_CARDS = 4
SEAT_TOTAL_PENALTY_CARDS = 5  # cats held at the end, summed over deals
# per-seat counters, summed over deals (K-8.2 per-seat records)
SEAT_CARDS_DRAWN = 6
SEAT_KEEPERS_REPLACED = 7
SEAT_ZOOKEEPERS_PLACED = 8  # bare and covered keepers put into gaps
SEAT_EXTRA_TURNS = 9  # extra turns granted
SEAT_TURNS_SKIPPED = 10  # seat turns lost to a skip
SEAT_TURNS = 11  # seat turns that came round to the seat (skipped and passed ones included)
SEAT_DECISIONS = 12  # moves the seat chose among two or more legal ones (play.py counts them)
SEAT_FIELDS = 13

# ---- scalars ----------------------------------------------------------------------------------
S_PHASE = 0  # PHASE_*
S_SEAT = 1  # seat to decide
S_GAP = 2  # gap cell during PHASE_PLACE, else -1
S_START_SEAT = 3  # seat that started the current deal
S_FIRST_SEAT = 4  # seat that started the first deal
S_DEAL = 5  # index of the current deal (0 .. rounds - 1)
S_FACE_DOWN = 6  # face-down cells left
S_SUPPLY = 7  # keepers in the supply (meaningless when unlimited)
S_IN_EXTRA_TURN = 8  # 1 while the acting seat is taking an extra turn
S_FINAL_TURNS_LEFT = 9  # -1, or seat turns left after an end trigger (end_timing complete_round)
S_PASS_STREAK = 10  # consecutive seat turns without an action (K-4.1.5)
S_SET_ASIDE = 11  # cards in the hidden tail
S_END_REASON = 12  # END_* of the last finished deal, -1 while running
S_INITIAL_KEEPERS = 13  # bare keepers already in the zoo when a scripted state began
S_EVENT_COUNT = 14
S_VIOLATIONS = 15  # checked mode: invariant violations seen
S_FIRST_VIOLATION = 16  # checked mode: VIOLATION_* of the first one
S_TURNS = 17  # actions taken (draws, replacements, chosen passes), extra turns included
S_TABLE_ROUNDS = 18  # turn-order rounds begun (the start seat's turn came up)
S_DRAWS = 19
S_REPLACEMENTS = 20
S_KEEPERS_PLACED = 21  # bare keepers put into gaps
S_COVERED_KEEPERS = 22  # keepers put over a card (blocked-cell exception)
S_EXTRA_TURNS = 23  # extra turns granted
S_SKIPS_EARNED = 24  # skip effects triggered
S_SKIPPED_TURNS = 25  # seat turns lost to a skip
S_PASSES = 26  # passes chosen by a player (allow_pass)
S_FORCED_PASSES = 27  # seat turns with no legal action
S_NO_FIT_DRAWS = 28  # draws where no hand card fitted the gap
S_DEAD_CELL_DRAWS = 29  # ... of which the gap was dead
S_STEPS = 30  # apply calls, the safety bound of K-4.1.6
S_BARE_KEEPERS = 31  # bare keepers in the zoo now
S_FIRST_TURN = 32  # 1 during the start seat's first action of a deal (K-3.8)
S_LAST_MOVER = 33  # seat of the last move applied
S_ENDER = 34  # seat whose action (or pass) ended the last finished deal
S_REVERSED = 35  # 1 while a snake turn order (K-3.6.1) runs backwards
# turn_order random_each_round / random_after_first_round (K-3.6.2), the "drawn orders"
# (moves.drawn_orders): the deal's order stream, a SplitMix64 state (rng.py)
# kept as the int64 of its bits; the orders of the rounds to come follow from it, so it is
# hidden like `hidden` (policies never read it; an ismcts determinization redraws it)
S_ORDER_STREAM = 36
S_ORDER_PLACE = 37  # drawn orders: place of the current seat turn in its round's order
# drawn orders: S_ROUND_ORDER + k is the seat in place k (0 .. players - 1) of the current
# round's order, public from the round's start (MAX_SEATS entries)
S_ROUND_ORDER = 38
S_SIZE = S_ROUND_ORDER + MAX_SEATS

PHASE_ACTION = 0  # choose draw, replacement or pass
PHASE_PLACE = 1  # a gap is open: choose the placement outcome
PHASE_OVER = 2  # the game (every deal) is over
PHASE_DEAL_OVER = 3  # transient inside apply: a deal ended, the next one is not dealt yet

END_REASONS = ("no_face_down", "keepers_exhausted", "no_progress")
END_NO_FACE_DOWN = 0
END_KEEPERS_EXHAUSTED = 1
END_NO_PROGRESS = 2

# ---- moves ------------------------------------------------------------------------------------
MOVE_TYPE_UNIT = 1 << 24
MOVE_CELL_UNIT = 1 << 12
MOVE_CARD_MASK = MOVE_CELL_UNIT - 1
MOVE_DRAW = 0  # action A: take the face-down card of `cell`
MOVE_REPLACE = 1  # action B: put `card` on the bare keeper of `cell`
MOVE_PASS = 2  # allow_pass only
MOVE_PLACE = 3  # put `card` face up into the gap
MOVE_KEEPER = 4  # put a bare keeper into the gap
MOVE_COVER = 5  # put `card` into the gap under a keeper (blocked-cell exception)
MOVE_NAMES = ("draw", "replace", "pass", "place", "keeper", "cover")

# Which value-effect switch applies to a card entering the zoo (K-3.5.3).
ENTRY_PLACE = 0
ENTRY_REPLACE = 1
ENTRY_COVERED = 2

# ---- events (trace log) -----------------------------------------------------------------------
EVENT_CODE = 0
EVENT_SEAT = 1
EVENT_CELL = 2
EVENT_CARD = 3
EVENT_FIELDS = 4
EV_DEAL = 0  # seat = start seat, cell = deal index
EV_DRAW = 1
EV_PLACE = 2
EV_KEEPER = 3
EV_COVER = 4
EV_REPLACE = 5
EV_PASS = 6
EV_FORCED_PASS = 7
EV_SKIPPED = 8  # a pending skip used up this seat turn
EV_EXTRA_TURN = 9
EV_SKIP_EARNED = 10
EV_DEAL_OVER = 11  # cell = END_* reason
EV_FINAL_TURNS = 12  # end_timing complete_round: cell = seat turns still to come
TRACE_EVENT_CAPACITY = 512

# ---- checked mode (T17) -----------------------------------------------------------------------
VIOLATION_NONE = 0
VIOLATION_DUPLICATE_KIND = 1  # T17.1 two face-up cards of one blocking kind in a line
VIOLATION_CARDS = 2  # T17.2 cards not conserved
VIOLATION_KEEPERS = 3  # T17.3 keepers not conserved
VIOLATION_BOUNDS = 4  # T17.4/5 counter bounds, hand or line bookkeeping out of range
VIOLATION_KEEPER_WHILE_FIT = 5  # T17.9 a keeper offered while a hand card fits the gap
VIOLATION_FROZEN_CELL = 6  # T17.7/8 a face-up or covered cell changed
VIOLATION_NO_TERMINATION = 7  # T17.6 the step bound was hit, or the end state is wrong
VIOLATION_NAMES = (
    "none", "duplicate_kind", "cards", "keepers", "bounds", "keeper_while_fit", "frozen_cell",
    "no_termination",
)

# ---- record dtypes ----------------------------------------------------------------------------
COUNT_DTYPE = np.int16
SCORE_DTYPE = np.int16

# ---- record columns (play.RECORDS, in kernel output order) ------------------------------------
# Per-game record columns (beyond the contract's turns, rounds, end_reason) and per-seat ones.
GAME_COLUMNS = (
    "turns", "rounds", "end_reason", "first_seat", "draws", "replacements", "keepers_placed",
    "covered_keepers", "extra_turns", "skips", "skips_earned", "passes", "forced_passes",
    "no_fit_draws", "dead_cell_draws", "check_violations", "first_violation",
    "last_mover", "ender",
)
SEAT_COLUMNS = ("score", "win", "rank", "hand_cards", "cats_held", "cards_drawn",
                "keepers_replaced", "zookeepers_placed", "extra_turns_taken", "turns_skipped",
                "seat_turns", "decisions")

# What the report calls the per-seat measures (K-8.2), in display order.
SEAT_MEASURES = {
    "cards_drawn": "cards drawn", "keepers_replaced": "keepers replaced",
    "zookeepers_placed": "zookeepers placed", "extra_turns_taken": "extra turns",
    "turns_skipped": "turns skipped", "cats_held": "cats held at the end",
    "hand_cards": "cards held at the end",
}
