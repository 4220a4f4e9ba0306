"""New York Zoo's learned evaluation (numba): the features of a seat's position and the linear
value the policies `learned` and `strong` (search.py) read from their weights (the file format and
the fit are simulator/games/learned.py's; the names and sets are declared in specs.py).

Features of seat s (specs.FEATURE_NAMES order; all counts of the seat's own board):
- empty: uncovered squares (the score, N-7.1); holes / dead_ends: empty squares with no / exactly
  one empty neighbour (only a 1x1 tile fills a hole);
- fill_share: the filled share of each unfilled enclosure, summed; open_enclosures: enclosures
  with some animals, not full; unstarted_enclosures: enclosures without animals; animals_needed:
  the animals the unfilled enclosures still need (a full one brings an attraction, N-4.4);
- breeders: enclosures able to breed (at least breeding.min_animals, N-6.2), not full;
- house_animals / free_houses: animals in houses, empty houses (N-5);
- breeding_ahead: per breeding line within the rules range after the elephant (the lines the
  next move may cross, N-6.1), the seat's breeding enclosures of its species, capped at the
  per-event limit;
- offer_fits: bays whose top tile fits somewhere on the board (the tiles on offer);
- time_left (solo only, else 0): the share of the solo laps still to go (N-8.2);
  empty_x_time_used: empty times the share used (solo only, else 0).

Value. Set SET_SOLO predicts the seat's final score as minus its empty squares: value =
w[0] + w[1:] . features. Set SET_MULTI predicts the final margin in squares over the other
seats' mean: value(s) = w . (features(s) - mean of the others' features), i.e. the difference
of per-seat linear values (its intercept cancels). `w` is a seat's policy row from the weights'
slot on (learned.py's layout: per set the intercept, then one weight per feature).

The expert's evaluation (policy `expert`, issue #39): the same two sets and the same value,
over the 14 features above and 72 more (specs.EXPERT_FEATURE_NAMES, expert_seat_features): the
board's shape, as the count of empty squares per class of their eight neighbours' pattern
(which neighbours are empty squares of the board; the 256 patterns fall into 51 classes under
rotation and reflection: a hole, a corridor end, a corridor, a corner, an edge, open floor...),
and the enclosures' states, as the count of unfilled enclosures per (capacity, animals in it).
Its weights are too many for the parameter row, so the row holds the weights file's key and the
search workspace holds the vector (learned.KeyedWeights, search.py's search_workspace); the
weights are fitted on the expert's own games (training.py, "The expert's training").

A finished game is valued by its outcome first (finished_value): OUTCOME_SQUARES times the
seat's win share over the others' mean (N-7.2; solo +1 for a win, -1 for a loss, N-8.2), plus
its true margin (solo: minus the empty squares). The evaluation of an unfinished position is
tens of squares either way (the tuned weights are not a calibrated margin), so a finished game
valued by its margin alone, as before issue #19's budget scaling fix, was worth less to its
winner than a lead a few turns before the end: a line that ran on to a win lost to a line cut
off before the end, and strong played worse with the larger budgets whose lines reach the end.
"""

import numpy as np

from simulator.games.kernels import allocating, by_ref
from simulator.games.nyz import moves as M
from simulator.games.nyz import policies as P
from simulator.games.nyz.bits import kernel, neighbours, popcount
from simulator.games.nyz.specs import (
    EXPERT_FEATURE_NAMES, FEATURE_NAMES, MAX_CAPACITY, SET_MULTI, SET_SOLO, SHAPE_CLASSES,
)
from simulator.games.nyz.state import (
    E_CAPACITY, E_COUNT, N_SPACES, NO_SPECIES, P_ENCLOSURES, P_HOUSES, P_WIN, R_BREED_ENCLOSURES,
    R_BREED_MIN, R_RANGE, R_SOLO, R_SOLO_LAPS, SC_ELEPHANT, SC_LAPS, SC_OVER,
    SC_PLAYERS, SC_START_SPACE,
)

N_FEATURES = len(FEATURE_NAMES)
N_EXPERT_FEATURES = len(EXPERT_FEATURE_NAMES)
# where the expert's shape counts and enclosure states start (specs.EXPERT_FEATURE_NAMES)
FIRST_SHAPE = N_FEATURES
FIRST_ENCLOSURE_STATE = N_FEATURES + SHAPE_CLASSES

# An empty square's eight neighbours, in ring order (row, column offsets): a quarter turn moves
# the ring by two places, a mirror image reverses it. Bit k of a square's pattern is set when
# neighbour k is an empty square of the board.
RING = ((-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1))


def shape_classes() -> np.ndarray:
    """(256,) int64: each neighbour pattern's class, the classes numbered in the order of their
    smallest pattern (the 51 orbits of the 8 rotations and reflections, specs.SHAPE_CLASSES)."""
    def turned(pattern, by, mirrored):
        bits = [(pattern >> k) & 1 for k in range(8)]
        if mirrored:  # neighbour k to -k: the mirror image in the diagonal through neighbour 0
            bits = [bits[-k % 8] for k in range(8)]
        bits = bits[-by:] + bits[:-by] if by else bits
        return sum(bit << k for k, bit in enumerate(bits))

    smallest = [min(turned(p, by, m) for by in (0, 2, 4, 6) for m in (False, True)) for p in range(256)]
    numbers = {pattern: number for number, pattern in enumerate(sorted(set(smallest)))}
    assert len(numbers) == SHAPE_CLASSES
    return np.array([numbers[pattern] for pattern in smallest], dtype=np.int64)


SHAPE_CLASS = shape_classes()  # a constant of the kernels (computed from this source)

# What the outcome of a finished game weighs in squares (finished_value): more than any
# evaluation of an unfinished position (a board has at most 128 squares), so a won game ranks
# above every unfinished position and a lost one below.
OUTCOME_SQUARES = 1e6
# Feature indices (specs.FEATURE_NAMES order), written out for grep
F_EMPTY = 0
F_HOLES = 1
F_DEAD_ENDS = 2
F_FILL_SHARE = 3
F_OPEN_ENCLOSURES = 4
F_UNSTARTED_ENCLOSURES = 5
F_ANIMALS_NEEDED = 6
F_BREEDERS = 7
F_HOUSE_ANIMALS = 8
F_FREE_HOUSES = 9
F_BREEDING_AHEAD = 10
F_OFFER_FITS = 11
F_TIME_LEFT = 12
F_EMPTY_X_TIME_USED = 13


@kernel
def solo_time_used(st, tab):
    """Share of the solo game's spaces the elephant has travelled (N-8.2: laps from the start
    space), at least one space's worth."""
    travelled = st.sc[SC_LAPS] * N_SPACES + (st.sc[SC_ELEPHANT] - st.sc[SC_START_SPACE]) % N_SPACES
    return max(travelled, 1) / (tab.rules[R_SOLO_LAPS] * N_SPACES)


@kernel
def offer_fits(st, tab, seat):
    """Bays whose top tile fits somewhere on the seat's board (M.has_placement, which moves
    st.fit_from on past the placements that no longer fit)."""
    fitting = 0
    for space in range(1, N_SPACES + 1):
        if st.bay_count[space] > 0 and M.has_placement(st, tab, seat, M.top_tile(st, space)):
            fitting += 1
    return fitting


@kernel
def advance_offer_scans(st, tab):
    """offer_fits of every seat on the game itself, for its fit_from: the copies of it that a
    policy values (search.py's lines) then start their offer_fits scans where the game is, not
    where its own last placement check left them. fit_from is a cache: no move changes."""
    for seat in range(st.sc[SC_PLAYERS]):
        offer_fits(st, tab, seat)


@kernel
def seat_features(st, tab, seat, out):
    """out[:N_FEATURES] = the features of the seat's position (module docstring)."""
    empty_lo = tab.board_bits[seat, 0] & ~st.grid[seat, 0]
    empty_hi = tab.board_bits[seat, 1] & ~st.grid[seat, 1]
    empty = popcount(empty_lo, empty_hi)
    out[F_EMPTY] = empty
    out[F_HOLES], out[F_DEAD_ENDS] = P.hole_counts(tab, seat, empty_lo, empty_hi)
    fill_share, open_count, unstarted, needed, breeders = 0.0, 0, 0, 0, 0
    for e in range(st.seat[seat, P_ENCLOSURES]):
        count = st.enc[seat, e, E_COUNT]
        capacity = st.enc[seat, e, E_CAPACITY]
        if count >= capacity:
            continue
        fill_share += count / capacity
        needed += capacity - count
        if count == 0:
            unstarted += 1
        else:
            open_count += 1
        if count >= tab.rules[R_BREED_MIN]:
            breeders += 1
    out[F_FILL_SHARE] = fill_share
    out[F_OPEN_ENCLOSURES] = open_count
    out[F_UNSTARTED_ENCLOSURES] = unstarted
    out[F_ANIMALS_NEEDED] = needed
    out[F_BREEDERS] = breeders
    in_houses = 0
    for h in range(st.seat[seat, P_HOUSES]):
        in_houses += st.house[seat, h] != NO_SPECIES
    out[F_HOUSE_ANIMALS] = in_houses
    out[F_FREE_HOUSES] = st.seat[seat, P_HOUSES] - in_houses
    ahead = 0
    for k in range(1, tab.rules[R_RANGE] + 1):
        species = P.line_at(tab, st.sc[SC_ELEPHANT], k)
        if species >= 0:
            ahead += min(P.breeders(st, tab, seat, species), tab.rules[R_BREED_ENCLOSURES])
    out[F_BREEDING_AHEAD] = ahead
    out[F_OFFER_FITS] = offer_fits(st, tab, seat)
    if tab.rules[R_SOLO] != 0:
        used = solo_time_used(st, tab)
        out[F_TIME_LEFT] = 1.0 - used
        out[F_EMPTY_X_TIME_USED] = empty * used
    else:
        out[F_TIME_LEFT] = 0.0
        out[F_EMPTY_X_TIME_USED] = 0.0


@kernel
def ring_bit(mask, square, k):
    """Bit k of a square's neighbour pattern: whether the square (its bit `square` of one word)
    is in the same word `mask` of neighbour k's ring mask (shape_counts)."""
    return np.int64((mask & square) != 0) << k


@kernel
def count_patterns(empty, up_left, up, up_right, right, down_right, down, down_left, left, out):
    """shape_counts for the squares of one word: `empty` and the ring masks' same word."""
    while empty != 0:
        square = empty & (~empty + np.uint64(1))  # the lowest empty square left
        pattern = (ring_bit(up_left, square, 0) | ring_bit(up, square, 1) | ring_bit(up_right, square, 2)
                   | ring_bit(right, square, 3) | ring_bit(down_right, square, 4) | ring_bit(down, square, 5)
                   | ring_bit(down_left, square, 6) | ring_bit(left, square, 7))
        out[FIRST_SHAPE + SHAPE_CLASS[pattern]] += 1.0
        empty ^= square


@kernel
def shape_counts(tab, seat, empty_lo, empty_hi, out):
    """out[FIRST_SHAPE + class] += 1 for each empty square of the seat's board, by the class of
    its neighbour pattern (module docstring, "The expert's evaluation"). The ring masks: a
    square is in neighbour k's mask when that neighbour is an empty square of the board
    (bits.neighbours gives the four sides; a diagonal is a side of a side: the upper-left
    neighbour is the left neighbour's upper one, and a board is a full rectangle)."""
    width, edges, board = tab.width[seat], tab.edge_bits[seat], tab.board_bits[seat]
    left_lo, left_hi, right_lo, right_hi, up_lo, up_hi, down_lo, down_hi = neighbours(
        empty_lo, empty_hi, width, edges, board)
    up_left_lo, up_left_hi, up_right_lo, up_right_hi, _, _, _, _ = neighbours(up_lo, up_hi, width, edges, board)
    down_left_lo, down_left_hi, down_right_lo, down_right_hi, _, _, _, _ = neighbours(
        down_lo, down_hi, width, edges, board)
    count_patterns(empty_lo, up_left_lo, up_lo, up_right_lo, right_lo, down_right_lo, down_lo, down_left_lo,
                   left_lo, out)
    count_patterns(empty_hi, up_left_hi, up_hi, up_right_hi, right_hi, down_right_hi, down_hi, down_left_hi,
                   left_hi, out)


@kernel
def expert_seat_features(st, tab, seat, out):
    """out[:N_EXPERT_FEATURES] = the expert's features of the seat (module docstring, "The
    expert's evaluation")."""
    seat_features(st, tab, seat, out)
    for f in range(N_FEATURES, N_EXPERT_FEATURES):
        out[f] = 0.0
    shape_counts(tab, seat, tab.board_bits[seat, 0] & ~st.grid[seat, 0], tab.board_bits[seat, 1] & ~st.grid[seat, 1],
                 out)
    for e in range(st.seat[seat, P_ENCLOSURES]):
        count = st.enc[seat, e, E_COUNT]
        capacity = st.enc[seat, e, E_CAPACITY]
        if count >= capacity:
            continue
        # capacity c's states start after those of the smaller capacities: c (c - 1) / 2
        capacity = min(capacity, MAX_CAPACITY)
        count = min(count, capacity - 1)
        out[FIRST_ENCLOSURE_STATE + capacity * (capacity - 1) // 2 + count] += 1.0


@kernel
def linear_value(st, tab, seat, w, set_index, buffer):
    """w[set's intercept] + w[set's weights] . features of the seat: buffer's length says which
    evaluation, N_FEATURES floats `learned` and `strong`'s, N_EXPERT_FEATURES the expert's."""
    n = buffer.shape[0]
    if n == N_EXPERT_FEATURES:
        expert_seat_features(st, tab, seat, buffer)
    else:
        seat_features(st, tab, seat, buffer)
    first = set_index * (n + 1)
    value = w[first]
    for f in range(n):
        value += w[first + 1 + f] * buffer[f]
    return value


@kernel
def finished_value(st, tab, seat):
    """A finished game's value to the seat (module docstring, "Value"): OUTCOME_SQUARES times its
    win share over the others' mean (1/k each for k winners, N-7.2; none at the turn cap), plus
    its margin in squares; solo plus or minus OUTCOME_SQUARES for a win or a loss (N-8.2), minus
    the empty squares."""
    if tab.rules[R_SOLO] != 0:
        outcome = 1.0 if st.seat[0, P_WIN] != 0 else -1.0
        return OUTCOME_SQUARES * outcome - float(M.empty_squares(st, tab, 0))
    players = st.sc[SC_PLAYERS]
    winners = 0
    for other in range(players):
        winners += st.seat[other, P_WIN] != 0
    own, others, own_share, others_share = 0.0, 0.0, 0.0, 0.0
    for other in range(players):
        value = -float(M.empty_squares(st, tab, other))
        share = (st.seat[other, P_WIN] != 0) / winners if winners > 0 else 0.0
        if other == seat:
            own, own_share = value, share
        else:
            others += value
            others_share += share
    return (OUTCOME_SQUARES * (own_share - others_share / (players - 1))
            + own - others / (players - 1))


@kernel
def position_value(st, tab, seat, w, buffer):
    """The seat's value of the position in squares (module docstring, "Value"): solo, minus the
    predicted final empty squares; 2-5 players, the predicted margin over the others' mean. A
    finished game is worth its outcome (finished_value)."""
    if st.sc[SC_OVER] != 0:
        return finished_value(st, tab, seat)
    if tab.rules[R_SOLO] != 0:
        return linear_value(st, tab, 0, w, SET_SOLO, buffer)
    players = st.sc[SC_PLAYERS]
    others = 0.0
    own = 0.0
    for other in range(players):
        value = linear_value(st, tab, other, w, SET_MULTI, buffer)
        if other == seat:
            own = value
        else:
            others += value
    return own - others / (players - 1)


@allocating
def all_seat_features(st, tab, width=N_FEATURES):
    """(players, width) features of every seat, for training (training.py): `learned` and
    `strong`'s (width N_FEATURES) or the expert's (N_EXPERT_FEATURES)."""
    out = np.empty((st.sc[SC_PLAYERS], width), dtype=np.float64)
    for seat in range(st.sc[SC_PLAYERS]):
        if width == N_EXPERT_FEATURES:
            expert_seat_features(by_ref(st), by_ref(tab), seat, out[seat])
        else:
            seat_features(by_ref(st), by_ref(tab), seat, out[seat])
    return out
