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
from simulator.games.nyz.bits import kernel, popcount
from simulator.games.nyz.specs import FEATURE_NAMES, SET_MULTI, SET_SOLO
from simulator.games.nyz.state import (
    E_CAPACITY, E_COUNT, N_SPACES, NO_SPECIES, P_ENCLOSURES, P_HOUSES, P_WIN, R_BREED_ENCLOSURES,
    R_BREED_MIN, R_RANGE, R_SOLO, R_SOLO_LAPS, R_START_SPACE, SC_ELEPHANT, SC_LAPS, SC_OVER,
    SC_PLAYERS,
)

N_FEATURES = len(FEATURE_NAMES)

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
    travelled = st.sc[SC_LAPS] * N_SPACES + (st.sc[SC_ELEPHANT] - tab.rules[R_START_SPACE]) % N_SPACES
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
def linear_value(st, tab, seat, w, set_index, buffer):
    """w[set's intercept] + w[set's weights] . features of the seat (buffer: N_FEATURES floats)."""
    seat_features(st, tab, seat, buffer)
    first = set_index * (N_FEATURES + 1)
    value = w[first]
    for f in range(N_FEATURES):
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
def all_seat_features(st, tab):
    """(players, N_FEATURES) features of every seat, for training (benchmarks/train_eval.py)."""
    out = np.empty((st.sc[SC_PLAYERS], N_FEATURES), dtype=np.float64)
    for seat in range(st.sc[SC_PLAYERS]):
        seat_features(by_ref(st), by_ref(tab), seat, out[seat])
    return out
