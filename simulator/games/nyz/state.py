"""Array layout, dtypes and constants of a New York Zoo game in the numba kernels.

A game is two namedtuples of NumPy arrays (numba passes them by reference):

* `Tables`: read-only, built once per batch from the params (tables.kernel_tables): rule knobs
  as integers, board geometry per seat and every precomputed placement.
* `State`: everything that changes during one game.

Boards are bitboards of at most 128 squares held in two uint64 words (lo = squares 0..63,
hi = squares 64..127). Square index = row * width + col, (0, 0) top left, so the largest board
(14 x 9 = 126 squares) fits. A placement is a pair of words; it is legal iff
`(place_lo & grid_lo) | (place_hi & grid_hi) == 0` (N-4.2).

Spaces of the strip are numbered 1..25 as in the rules (N-3.1); arrays indexed by space have 26
rows and row 0 is unused.
"""

from collections import namedtuple

from simulator.games.nyz.params import (  # noqa: F401
    MAX_CELLS, MAX_HOUSES, N_SPACES, RULES, START_RANDOM,
)


MAX_PLAYERS = 5
MAX_ENCLOSURES = 32  # 128 squares / 4 squares per smallest enclosure
N_SPECIES = 5
N_ENCLOSURE_TILES = 45  # shape ids 0..44 = A1..D7 (components.ENCLOSURES order)
N_ATTRACTION_TYPES = 8  # shape ids 45..52 = T8, T6, T4O, T4I, T3I, T3L, T2, T1
N_SHAPES = N_ENCLOSURE_TILES + N_ATTRACTION_TYPES
FIRST_ATTRACTION = N_ENCLOSURE_TILES
TILE_D1 = 38  # shape id of D1 (A1..A8, B1..B15, C1..C15 come first), see E29
MAX_OPTIONS = 1100  # >= 32*31 + 32 + 1 breeding choices and >= 128*8 placements
MAX_EVENTS = 8
MAX_START_TILES = 8
NO_SPECIES = -1
UNLIMITED = 1 << 30  # supply count standing for "unlimited" (N-1.2, N-1.4)

# strip_kind values
SPACE_BAY, SPACE_ANIMALS = 0, 1

# cell owner codes (State.cells): enclosure index 0..31, attraction type + CELL_ATTRACTION
CELL_EMPTY, CELL_BARN, CELL_ATTRACTION = -1, -2, 64

# Tables.rules: rule knobs as integers (tables.kernel_tables fills them). The index constants
# R_* (tab.rules[R_PLAYERS], ...) and SINGLE_* (the values of single_animal_rule, N-4.3, E3)
# follow from the knob declarations in params.py (`encode=` of each knob, then params.RULES'
# derived entries), the one declaration: they are written out here so grep finds them, and
# tests/games/test_constants.py checks them against `params.RULES.constants()`.
R_PLAYERS = 0  # players
R_SUPPLY_LIMITED = 1  # animal_supply
R_ATTRACTION_OPTIONAL = 2  # attraction_optional
R_SINGLE_RULE = 3  # single_animal_rule
R_PARTIAL_PAIR = 4  # allow_partial_pair
R_FRENCH_LIMIT = 5  # french_two_per_turn_limit
R_HOUSE_ADD = 6  # house_add
R_BREED_HOUSE_ONE = 7  # breeding_house_adds
R_KEEP_ONE = 8  # keep_one
R_POPULATE_MAX = 9  # populate_max
R_BREED_AUTOMATIC = 10  # breeding_choice
R_BONUS_ANY = 11  # bonus_breeding_target
R_BREED_ENCLOSURES = 12  # breeding.enclosures_per_event
R_BREED_MIN = 13  # breeding.min_animals
R_BREED_YOUNG = 14  # breeding.young_per_enclosure
R_BGA_ORDER = 15  # breeding_order
R_MAX_EVENTS = 16  # max_events_per_move
R_BONUS_PER_EVENT = 17  # bonus_per_event
R_END_SKIPS_BREEDING = 18  # end_skips_breeding
R_SOLO_LAP_AWARE = 19  # solo_score
R_SOLO_LAST_TURN_BREEDING = 20  # solo_last_turn_breeding
R_SOLO_LAPS = 21  # solo_laps
R_SHORT_GAME = 22  # short_game_2p
R_D1_BUG = 23  # replicate_bga_fastgame_d1_bug
R_NO_MOVE_ENDS_GAME = 24  # no_legal_move
R_SEES_FULL_STACKS = 25  # ai_sees_full_stacks
R_START_SPACE = 26  # strip.start_space
R_SOLO = 27  # derived
R_BONUS_ENABLED = 28  # derived
R_MAX_TURNS = 29  # derived
R_RANGE = 30  # derived
R_TILES_PER_BAY = 31  # derived
R_END_COMPLETE_ROUND = 32  # derived: end_timing
R_TIE_SHARED = 33  # derived: tie_break
R_ORDER_RANDOM_EACH_ROUND = 34  # derived: turn_order
# values of single_animal_rule (their index in its Literal)
SINGLE_ANY_TIME = 0  # 'any_time'
SINGLE_WHEN_NO_PICTURED_FITS = 1  # 'when_no_pictured_fits'
SINGLE_WHEN_PAIR_DOES_NOT_FIT = 2  # 'when_pair_does_not_fit'
N_RULES = RULES.size

# State.sc: scalars of the game
SC_PLAYERS = 0
SC_ACTIVE = 1  # seat whose turn it is
SC_TURNS = 2  # turns started (passes included)
SC_ELEPHANT = 3  # space 1..25
SC_STAGE = 4  # ST_* below
SC_DECIDER = 5  # seat that takes the current decision
SC_DECISION = 6  # D_* below, D_NONE when over
SC_N_OPTIONS = 7
SC_OVER = 8
SC_END_REASON = 9  # index into END_REASONS
SC_TILE = 10  # shape in hand (enclosure tile, attraction type or short-game start tile)
SC_NEW_ENCLOSURE = 11  # enclosure being populated (N-4.2)
SC_POP_SPECIES = 12
SC_POP_COUNT = 13
SC_PENDING_0 = 14  # species of the animals still to place in option B (N-4.3), -1 = none
SC_PENDING_1 = 15
SC_PLACED_ANIMALS = 16  # animals placed so far in option B
SC_N_EVENTS = 17  # breeding events of this move (State.events)
SC_EVENT = 18  # event being resolved
SC_BREEDER = 19  # offset from the active seat of the player breeding now
SC_BRED = 20  # young placed by that player's normal breeding in this event
SC_LAPS = 21  # solo laps (N-8.2)
SC_FOLLOW_OWNER = 22  # follow-up queue (N-4.4, N-5.4): owner seat
SC_FOLLOW_HEAD = 23
SC_FOLLOW_LEN = 24
SC_FOLLOW_STEP = 25  # FU_* below
SC_FOLLOW_SPECIES = 26  # species of the enclosure just scored (keep-one)
SC_SETUP_SEAT = 27  # short game: seat placing start tiles
SC_BREEDING_EVENTS = 28  # statistics: events resolved in the game
SC_PASSES = 29
SC_VIOLATIONS = 30
SC_FIRST_VIOLATION = 31  # INV_* code of the first violation, 0 = none
SC_CHECKED = 32
SC_SOLO_WON = 33
SC_ROUNDS = 34
SC_STOP_AT_FORCED = 35  # step API: also stop at decisions with a single legal move
SC_ENDER = 36  # seat whose turn triggered the end, -1 = none (yet, or a turn cap)
SC_PENDING_END = 37  # end_timing complete_round: END_* of the trigger, -1 = none; ends the round
SC_START_SPACE = 38  # the elephant's start space (strip.start_space, or drawn at set-up)
# the seats of this round in turn order (turn_order, N-4): seat of place k in bits
# ORDER_BITS * k .. ORDER_BITS * (k + 1) - 1, place 0 in the lowest bits
SC_ROUND_ORDER = 39
SC_ROUND_PLACE = 40  # the active seat's place in SC_ROUND_ORDER, 0..players-1
# turn_order random_each_round: the seed of the seat orders' stream, drawn at set-up, in two
# ORDER_SEED_BITS halves (round r's order: draws r * MAX_PLAYERS + 1.. of that stream)
SC_ORDER_SEED_LO = 41
SC_ORDER_SEED_HI = 42
N_SCALARS = 43
ORDER_BITS = 3  # bits per seat in SC_ROUND_ORDER (seats 0..MAX_PLAYERS-1; bits.packed_field)
ORDER_SEED_BITS = 30
ORDER_SEED_MASK = (1 << ORDER_SEED_BITS) - 1

# stages of the turn machine (moves.advance)
ST_SETUP_PLACE = 0
ST_TURN_START = 1
ST_PLACE_ENCLOSURE = 2
ST_POPULATE = 3
ST_ANIMAL_CHOICE = 4
ST_ANIMAL_PLACE = 5
ST_MAIN_DONE = 6
ST_BREED = 7
ST_BONUS = 8
ST_BREED_NEXT = 9
ST_TURN_END = 10
ST_OVER = 11

# follow-up steps after an animal entered an enclosure
FU_ENTERED = 0
FU_KEEP_ONE = 1
FU_ATTRACTION = 2
FU_ATTRACTION_PLACE = 3

# decisions, and the meaning of a move (an int32) in each
D_NONE = 0
D_DEST = 1  # move = space + 32 * marker code (MARKER_*); multiplayer marker code 0
D_PLACE = 2  # move = placement index into Tables.place_bits (enclosure or short-game start tile)
D_POPULATE = 3  # move = SRC_HOUSE + house | SRC_ENCLOSURE + enclosure | POP_STOP
D_ANIMAL_CHOICE = 4  # move = species (B2 single animal) | CHOICE_PAIR
D_ANIMAL_PLACE = 5  # move = 64 * pending slot + target (enclosure or TARGET_HOUSE) | DECLINE
D_HOUSE_ADD = 6  # move = 0 no / 1 yes
D_KEEP_ONE = 7  # move = 0 no / 1 yes
D_ATTRACTION = 8  # move = attraction type 0..7 | NO_ATTRACTION
D_ATTRACTION_PLACE = 9  # move = placement index
D_BREED = 10  # move = 64 * first + second (NO_ENCLOSURE = none); first is resolved first
D_BONUS = 11  # move = enclosure | NO_ENCLOSURE
DECISION_NAMES = (
    "none", "destination", "place", "populate", "animal_choice", "animal_place", "house_add",
    "keep_one", "attraction", "attraction_place", "breed", "bonus",
)

MARKER_NONE = 0  # multiplayer move
MARKER_FREE = 6  # solo move to the next animal space without a marker; markers "0".."4+" = 1..5
SRC_HOUSE = 0
SRC_ENCLOSURE = 16
POP_STOP = 63
CHOICE_PAIR = 5
TARGET_HOUSE = 32
DECLINE = 255
NO_ATTRACTION = 8
NO_ENCLOSURE = 63
BREED_NONE = 64 * NO_ENCLOSURE + NO_ENCLOSURE

# enclosure fields (State.enc[seat, enclosure, field])
E_TILE = 0
E_PLACEMENT = 1
E_SPECIES = 2
E_COUNT = 3
E_CAPACITY = 4
E_HOUSE_ASKED = 5  # add-from-house offered in this phase (N-5.4, E13)
E_ADDED_THIS_TURN = 6  # animals added this turn (french_two_per_turn_limit, E20)
E_BRED = 7  # received a young in the current breeding event (N-6.3 bonus)
N_ENC_FIELDS = 8

# per-seat counters (State.seat[seat, field])
P_ENCLOSURES = 0  # enclosures on the board
P_HOUSES = 1
P_COVERED = 2  # covered squares incl. barn, for the "never decreases" invariant
P_FILLED = 3  # enclosures scored (filled)
P_ATTRACTIONS = 4  # attractions taken
P_PASSES = 5
P_BONUS_TAKEN = 6  # bonus breeding used this move (bonus_per_event = false)
P_WIN = 7
P_START_TILES = 8  # short game: start tiles still to place
P_YOUNG = 9  # animals bred (normal + bonus)
P_ACQUIRED = 10  # animals taken on animal spaces
P_ATTRACTION_SQUARES = 11
P_TURNS = 12  # turns this seat started (passes included)
P_BONUS_YOUNG = 13  # animals bred by bonus breeding (part of P_YOUNG)
P_KEPT = 14  # animals kept in a house from a full enclosure (N-4.4)
P_HOUSE_ADDS = 15  # animals moved from a house by add-from-house (N-5.4)
P_EVENT_HOUSE_ADDS = 16  # house adds in the current breeding event (breeding_house_adds)
P_DECISIONS = 17  # decisions among two or more legal moves the seat took (play.py counts them)
N_SEAT_FIELDS = 18

# invariant codes (invariants.check_invariants, N-11 T18)
INV_OVERLAP = 1
INV_OUTSIDE = 2
INV_SPECIES = 3
INV_CAPACITY = 4
INV_COVER_DECREASED = 5
INV_CONSERVATION = 6
INV_FULL_BETWEEN_ACTIONS = 7
INV_HOUSES = 8
INV_EMPTY_BAY = 9
INV_POPULATE = 10
INV_MOVE_RANGE = 11
INV_TURN_ORDER = 12
INVARIANT_NAMES = (
    "", "overlap", "outside_board", "species", "capacity", "covered_decreased",
    "animals_not_conserved", "full_enclosure_between_actions", "houses", "elephant_on_empty_bay",
    "populate_count", "move_range", "turn_order",
)

END_REASONS = ("complete_in_action", "complete_in_breeding", "solo_laps", "turn_cap", "stuck")
END_COMPLETE_ACTION, END_COMPLETE_BREEDING, END_SOLO_LAPS, END_TURN_CAP, END_STUCK = range(5)

# per-game and per-seat record columns beyond the required ones (order = kernel output order)
GAME_COLUMNS = (
    "turns", "rounds", "end_reason", "breedings", "solo_won", "solo_score",
    "check_violations", "first_violation", "laps", "last_mover", "ender",
)
SEAT_COLUMNS = (
    "score", "win", "enclosures_placed", "enclosures_filled", "attractions", "empty_squares",
    "animals", "young", "acquired", "passes", "turns_played", "attraction_squares",
    "bonus_young", "kept_from_full", "house_adds", "seat_turns", "decisions",
)
# the statistics Board Game Arena keeps per player for this game, as record columns
SEAT_MEASURES = {
    "turns_played": "turns per player",
    "empty_squares": "empty squares",
    "attraction_squares": "attraction squares",
    "attractions": "attractions placed",
    "young": "animals bred (bonus included)",
    "bonus_young": "bonus-bred animals",
    "kept_from_full": "animals kept from full enclosures",
    "house_adds": "animals added from houses",
}

Tables = namedtuple(
    "Tables",
    [
        "rules",  # int32[N_RULES]
        "width",  # int32[players]
        "height",  # int32[players]
        "board_bits",  # uint64[players, 2]: every square of the grid
        "barn_bits",  # uint64[players, 2]: pre-covered squares
        "edge_bits",  # uint64[players, 4, 2]: first column, last column, first row, last row
        "houses",  # int32[players]
        "start_animals",  # int32[players, 2]
        "to_fill",  # int32[players]: squares to cover
        "place_bits",  # uint64[n_placements, 2]
        # uint64[n_placements, 8]: bits.neighbours() of each placement on its seat's board (a0,
        # a1, b0, b1, c0, c1, d0, d1), so a placement's empty neighbours are the board's minus these
        "place_nb",
        "place_border",  # int32[n_placements]: square edges of the placement on the board's border
        "place_first",  # int32[players, N_SHAPES]: first placement of (seat, shape)
        "place_count",  # int32[players, N_SHAPES]
        "shape_squares",  # int32[N_SHAPES]
        "tile_class",  # int32[N_ENCLOSURE_TILES]: 0..3 = A..D, -1 = not in the game
        "strip_kind",  # int32[26]
        "strip_pair",  # int32[26, 2]: pictured species of an animal space
        "bay_layers",  # int32[26, 3]: setup classes bottom -> top, -1 for animal spaces
        "line_species",  # int32[26]: species of the breeding line whose trigger space this is
        "line_rank",  # int32[N_SPECIES]: position of a species' line on the strip (bga order)
        "animal_caps",  # int32[N_SPECIES]: physical supply
        "attraction_copies",  # int32[N_ATTRACTION_TYPES]
        "marker_absent",  # int32[5]: 1 = this solo marker is not in the set (always "used")
    ],
)

State = namedtuple(
    "State",
    [
        "sc",  # int32[N_SCALARS]
        "rng",  # uint64[1]
        "policy_id",  # int8[players], by seat
        "policy_params",  # float64[players, MAX_POLICY_PARAMS], by seat
        "bay_tiles",  # int32[26, 3]: enclosure tiles bottom..top
        "bay_count",  # int32[26]
        "animal_supply",  # int32[N_SPECIES] (UNLIMITED unless animal_supply = physical)
        "attraction_supply",  # int32[N_ATTRACTION_TYPES]
        "grid",  # uint64[players, 2]: covered squares (barn, enclosures, attractions)
        "cells",  # int8[players, MAX_CELLS]: CELL_* or enclosure index per square
        "house",  # int32[players, MAX_HOUSES]: species or NO_SPECIES
        "enc",  # int32[players, MAX_ENCLOSURES, N_ENC_FIELDS]
        "seat",  # int32[players, N_SEAT_FIELDS]
        "start_tiles",  # int32[players, MAX_START_TILES]: short game tiles to place
        "events",  # int32[MAX_EVENTS]: species of this move's breeding events, in order
        "follow",  # int32[4]: enclosures waiting for their follow-up, queue
        "markers_used",  # int32[5]: solo markers "0", "1", "2", "3", "4+"
        "options",  # int32[MAX_OPTIONS]: legal moves of the current decision
        "option_aux",  # int32[MAX_OPTIONS]: D_DEST: bitmask of species whose line is crossed
        "scratch",  # int32[MAX_ENCLOSURES]: work space of kernels that must not allocate
        "option_values",  # float64[MAX_OPTIONS]: work space, policies.option_values of the decision
        "fit_from",  # int32[players, N_SHAPES]: no placement of (seat, shape) before this fits
    ],
)
