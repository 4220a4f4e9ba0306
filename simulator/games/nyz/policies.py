"""Heuristic players of New York Zoo (numba; their ids and parameters as the YAML names them are
in specs.py).

A policy sees the state (everything in New York Zoo is public, N-12.6) and the legal moves of the
current decision, and returns the index of the move it takes. `random` picks uniformly at every
decision. `greedy` scores every legal move with a few designer-set weights and takes the best
(first on ties); `greedy_builder` and `greedy_breeder` are greedy with weights that favour tiles
or animals. These heuristics only read top tiles of bays; the search policies `mcts` and
`mcts_duel` (search.py) rank their moves with option_values and greedy_tuned's or greedy_duel's
weights.

Greedy weights: their names, their order in the policy parameter row and their help are
declared once, in specs.GREEDY_WEIGHTS (`zoosim rules nyz` lists them); the kernels read them
through the W_* constants there. What the help leaves out: a square with no empty neighbour
(hole_weight) only a 1x1 tile fills; pair_value is gained by a move that makes an enclosure able
to breed (N-6.2) and lost by a populate move that takes its last breeder away; the lines within
ahead_spaces of the destination are crossed soon by someone (N-6.1); opponent_breeding counts the
lines within the next player's reach (rules range).

The last four weights default to 0, which plays exactly the games of the first eight alone
(every added term is then +0.0), so `greedy`, `greedy_builder` and `greedy_breeder` keep their
games; `greedy_pairs`, `greedy_tuned` and `greedy_duel` use them.
"""


from simulator.games import rng
from simulator.games.kernels import inline_kernel
from simulator.games.nyz.bits import kernel, neighbours, popcount
from simulator.games.nyz.state import (
    CHOICE_PAIR, D_ANIMAL_CHOICE, D_ANIMAL_PLACE, D_ATTRACTION, D_ATTRACTION_PLACE,
    D_BREED, D_DEST, D_HOUSE_ADD, D_KEEP_ONE, D_PLACE, D_POPULATE, DECLINE, E_CAPACITY,
    E_COUNT, E_SPECIES, FIRST_ATTRACTION, N_SPACES, N_SPECIES, NO_ATTRACTION, NO_ENCLOSURE, NO_SPECIES,
    P_ENCLOSURES, P_HOUSES, POP_STOP, R_BONUS_ENABLED, R_BREED_ENCLOSURES, R_BREED_MIN, R_RANGE,
    R_SOLO,
    SC_DECIDER, SC_DECISION, SC_ELEPHANT, SC_FOLLOW_HEAD, SC_N_OPTIONS, SC_NEW_ENCLOSURE,
    SC_PLAYERS, SC_POP_COUNT, SPACE_ANIMALS, SRC_ENCLOSURE, TARGET_HOUSE,
)
from simulator.games.nyz.specs import (
    RANDOM, W_AHEAD_SPACES, W_ANIMAL_VALUE, W_BREEDING_AHEAD, W_BREEDING_VALUE, W_CONTACT_WEIGHT,
    W_DEAD_END_WEIGHT, W_FILL_BONUS, W_HOLE_WEIGHT, W_HOUSE_VALUE, W_OPPONENT_BREEDING,
    W_PAIR_VALUE, W_TILE_VALUE,
)


@kernel
def choose(st, tab):
    """Index into st.options of the move the deciding seat's policy takes."""
    seat = st.sc[SC_DECIDER]
    n = st.sc[SC_N_OPTIONS]
    if n == 1:  # forced (step API only): no random draw, so traces replay play_batch games
        return 0
    if st.policy_id[seat] == RANDOM:
        return rng.randint(st.rng, n)
    return greedy(st, tab, seat, n, st.policy_params[seat])


@kernel
def animal_gain(st, tab, seat, e, w):
    """Value of one more animal in enclosure e (pair_value when it makes the enclosure able to
    breed, N-6.2; a full enclosure scores instead, N-4.4)."""
    count = st.enc[seat, e, E_COUNT] + 1
    capacity = st.enc[seat, e, E_CAPACITY]
    if count >= capacity:
        return w[W_ANIMAL_VALUE] + w[W_FILL_BONUS]
    return w[W_ANIMAL_VALUE] * count / capacity + (w[W_PAIR_VALUE] if count == tab.rules[R_BREED_MIN] else 0.0)


@kernel
def breeders(st, tab, seat, species):
    """Enclosures of a seat that would breed on a line of this species (N-6.2), before the
    per-event limit."""
    count = 0
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if st.enc[seat, e, E_SPECIES] == species and st.enc[seat, e, E_COUNT] >= tab.rules[R_BREED_MIN]:
            count += 1
    return count


@kernel
def count_breeders(st, tab):
    """st.scratch[seat * N_SPECIES + species] = breeders(seat, species) for every seat and
    species: a destination decision's work space (option_values), read by breeders_of."""
    for seat in range(st.sc[SC_PLAYERS]):
        for species in range(N_SPECIES):
            st.scratch[seat * N_SPECIES + species] = breeders(st, tab, seat, species)


@kernel
def breeders_of(st, seat, species):
    """breeders(seat, species) as count_breeders left it."""
    return st.scratch[seat * N_SPECIES + species]


@kernel
def becomes_breeder(st, tab, seat, species):
    """1 when one more animal of the species makes some enclosure of the seat able to breed."""
    for e in range(st.seat[seat, P_ENCLOSURES]):
        count = st.enc[seat, e, E_COUNT] + 1
        if (st.enc[seat, e, E_SPECIES] == species and count == tab.rules[R_BREED_MIN]
                and count < st.enc[seat, e, E_CAPACITY]):
            return 1
    return 0


@kernel
def line_at(tab, space, k):
    """Species of the breeding line k spaces clockwise after a strip space (-1: none)."""
    return tab.line_species[(space + k - 1) % N_SPACES + 1]


@kernel
def lookahead_value(st, tab, seat, space, gained_a, gained_b, w):
    """breeding_ahead per own breeding enclosure (counting one the move makes for species
    gained_a / gained_b, -1 for none) on the lines within ahead_spaces after the destination,
    minus opponent_breeding per opponent breeding enclosure on the lines the next player can
    cross from there (N-4.1 range; every player breeds on a crossed line, N-6.1)."""
    limit = tab.rules[R_BREED_ENCLOSURES]
    value = 0.0
    for k in range(1, int(w[W_AHEAD_SPACES]) + 1):
        species = line_at(tab, space, k)
        if species >= 0:
            own = breeders_of(st, seat, species)
            if species == gained_a or species == gained_b:
                own += becomes_breeder(st, tab, seat, species)
            value += w[W_BREEDING_AHEAD] * min(own, limit)
    for k in range(1, tab.rules[R_RANGE] + 1):
        species = line_at(tab, space, k)
        if species >= 0:
            for other in range(st.sc[SC_PLAYERS]):
                if other != seat:
                    value -= w[W_OPPONENT_BREEDING] * min(breeders_of(st, other, species), limit)
    return value


@kernel
def best_target(st, tab, seat, species, w):
    """Best value of placing one new animal of a species (-1 when it has no target)."""
    best = -1.0
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] == NO_SPECIES:
            best = w[W_HOUSE_VALUE]
            break
    for e in range(st.seat[seat, P_ENCLOSURES]):
        count = st.enc[seat, e, E_COUNT]
        if count == 0 or st.enc[seat, e, E_SPECIES] == species:
            best = max(best, animal_gain(st, tab, seat, e, w))
    return best


@kernel
def pair_value(st, tab, seat, a, b, w):
    return max(best_target(st, tab, seat, a, w), 0.0) + max(best_target(st, tab, seat, b, w), 0.0)


@kernel
def species_targets(st, tab, seat, w):
    """best_target of each species, for the destinations of one decision."""
    return (best_target(st, tab, seat, 0, w), best_target(st, tab, seat, 1, w),
            best_target(st, tab, seat, 2, w), best_target(st, tab, seat, 3, w),
            best_target(st, tab, seat, 4, w))


@kernel
def destination_value(st, tab, seat, move, crossed, targets, w):
    """Value of a destination (D_DEST; targets: species_targets, breeders: count_breeders)."""
    space = move % 32
    gained_a, gained_b = -1, -1
    if tab.strip_kind[space] == SPACE_ANIMALS:
        gained_a, gained_b = tab.strip_pair[space, 0], tab.strip_pair[space, 1]
        value = max(targets[gained_a], 0.0) + max(targets[gained_b], 0.0)  # pair_value
        for species in range(N_SPECIES):
            value = max(value, targets[species])
    else:
        tile = st.bay_tiles[space, st.bay_count[space] - 1]
        value = w[W_TILE_VALUE] * tab.shape_squares[tile]
    for species in range(N_SPECIES):
        if crossed & (1 << species):
            own = breeders_of(st, seat, species)
            value += w[W_BREEDING_VALUE] * (min(own, tab.rules[R_BREED_ENCLOSURES])
                                   + (tab.rules[R_BONUS_ENABLED] if own else 0))
    if w[W_AHEAD_SPACES] > 0 or w[W_OPPONENT_BREEDING] != 0:
        value += lookahead_value(st, tab, seat, space, gained_a, gained_b, w)
    if tab.rules[R_SOLO] != 0:  # laps are limited: a long move costs time
        distance = (space - st.sc[SC_ELEPHANT]) % 25
        value -= 0.2 * w[W_TILE_VALUE] * distance
    return value


@kernel
def hole_penalty(holes, dead_ends, w):
    """Penalty for the empty squares no enclosure can use: no or one empty neighbour."""
    return w[W_HOLE_WEIGHT] * holes + w[W_DEAD_END_WEIGHT] * dead_ends


@inline_kernel
def holes_and_dead_ends(empty_lo, empty_hi, a0, a1, b0, b1, c0, c1, d0, d1):
    """(holes, dead ends) of the empty squares given their bits.neighbours() masks a0 .. d1."""
    any0 = a0 | b0 | c0 | d0
    any1 = a1 | b1 | c1 | d1
    two0 = (a0 & b0) | (a0 & c0) | (a0 & d0) | (b0 & c0) | (b0 & d0) | (c0 & d0)
    two1 = (a1 & b1) | (a1 & c1) | (a1 & d1) | (b1 & c1) | (b1 & d1) | (c1 & d1)
    holes = popcount(empty_lo & ~any0, empty_hi & ~any1)
    dead_ends = popcount(empty_lo & any0 & ~two0, empty_hi & any1 & ~two1)
    return holes, dead_ends


@kernel
def hole_counts(tab, seat, empty_lo, empty_hi):
    """(holes, dead ends): the empty squares with no empty neighbour, and with exactly one."""
    a0, a1, b0, b1, c0, c1, d0, d1 = neighbours(
        empty_lo, empty_hi, tab.width[seat], tab.edge_bits[seat], tab.board_bits[seat])
    return holes_and_dead_ends(empty_lo, empty_hi, a0, a1, b0, b1, c0, c1, d0, d1)


# A seat's board as a placement decision values it (board_context), a tuple of 18 words:
# 0-7 bits.neighbours() of the covered squares (a0, a1, b0, b1, c0, c1, d0, d1), 8-9 the empty
# squares (lo, hi), 10-17 bits.neighbours() of the empty squares. Covering a placement P leaves
# the empty squares E & ~P, whose neighbour masks are E's minus P's (tables' place_nb): a shift
# of E & ~P is the shift of E and-not the shift of P.
@kernel
def board_context(st, tab, seat):
    grid_lo = st.grid[seat, 0]
    grid_hi = st.grid[seat, 1]
    width, edges, board = tab.width[seat], tab.edge_bits[seat], tab.board_bits[seat]
    c0, c1, c2, c3, c4, c5, c6, c7 = neighbours(grid_lo, grid_hi, width, edges, board)
    empty_lo = board[0] & ~grid_lo
    empty_hi = board[1] & ~grid_hi
    e0, e1, e2, e3, e4, e5, e6, e7 = neighbours(empty_lo, empty_hi, width, edges, board)
    return (c0, c1, c2, c3, c4, c5, c6, c7, empty_lo, empty_hi, e0, e1, e2, e3, e4, e5, e6, e7)


@inline_kernel
def placement_value(tab, placement, board, w):
    """Squares covered, contact with covered squares and borders, minus the holes left
    (`board`: board_context of the seat)."""
    lo = tab.place_bits[placement, 0]
    hi = tab.place_bits[placement, 1]
    nb = tab.place_nb
    contact = (tab.place_border[placement] + popcount(lo & board[0], hi & board[1])
               + popcount(lo & board[2], hi & board[3]) + popcount(lo & board[4], hi & board[5])
               + popcount(lo & board[6], hi & board[7]))
    holes, dead_ends = holes_and_dead_ends(
        board[8] & ~lo, board[9] & ~hi,
        board[10] & ~nb[placement, 0], board[11] & ~nb[placement, 1],
        board[12] & ~nb[placement, 2], board[13] & ~nb[placement, 3],
        board[14] & ~nb[placement, 4], board[15] & ~nb[placement, 5],
        board[16] & ~nb[placement, 6], board[17] & ~nb[placement, 7])
    return (w[W_CONTACT_WEIGHT] * contact + w[W_TILE_VALUE] * popcount(lo, hi)
            - hole_penalty(holes, dead_ends, w))


@kernel
def best_placement_value(st, tab, seat, shape, board, w):
    """The best placement_value of the shape on the seat's board (-1e18: it fits nowhere); the
    placements before st.fit_from fit no longer (moves.has_placement)."""
    best = -1e18
    end = tab.place_first[seat, shape] + tab.place_count[seat, shape]
    for k in range(st.fit_from[seat, shape], end):
        if (tab.place_bits[k, 0] & st.grid[seat, 0]) == 0 and (
                tab.place_bits[k, 1] & st.grid[seat, 1]) == 0:
            best = max(best, placement_value(tab, k, board, w))
    return best


@kernel
def attraction_value(st, tab, seat, move, board, w):
    """Value of an attraction choice (D_ATTRACTION) against the board as it is: an attraction
    that fills holes gains their penalty."""
    if move == NO_ATTRACTION:
        return 0.0
    holes, dead_ends = holes_and_dead_ends(board[8], board[9], board[10], board[11], board[12],
                                           board[13], board[14], board[15], board[16], board[17])
    return best_placement_value(st, tab, seat, FIRST_ATTRACTION + move, board, w) + (
        hole_penalty(holes, dead_ends, w))


@kernel
def populate_value(st, tab, seat, move, w):
    """Value of moving one more animal into the new enclosure (N-4.2): its fill, minus the fill
    and (pair_value) the breeding ability the source enclosure loses, plus pair_value when the
    new enclosure becomes able to breed."""
    if move == POP_STOP:
        return 0.0
    new = st.sc[SC_NEW_ENCLOSURE]
    count = st.sc[SC_POP_COUNT] + 1
    value = w[W_ANIMAL_VALUE] * count / st.enc[seat, new, E_CAPACITY]
    if count == tab.rules[R_BREED_MIN] and count < st.enc[seat, new, E_CAPACITY]:
        value += w[W_PAIR_VALUE]
    if move >= SRC_ENCLOSURE:
        source = move - SRC_ENCLOSURE
        species = st.enc[seat, source, E_SPECIES]
        value -= w[W_ANIMAL_VALUE] / st.enc[seat, source, E_CAPACITY]
        if st.enc[seat, source, E_COUNT] == tab.rules[R_BREED_MIN]:
            value -= w[W_PAIR_VALUE]
    else:
        species = st.house[seat, move]
        value += 0.5 * w[W_HOUSE_VALUE]
    # prefer a species with more movable animals, so a second one can follow
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] == species:
            value += 0.1
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if e != new and st.enc[seat, e, E_SPECIES] == species:
            value += 0.1 * (st.enc[seat, e, E_COUNT] - 1)
    return value


@kernel
def move_value(st, tab, seat, decision, i, w):
    """Greedy value of legal move st.options[i] of a decision that is not a destination, a
    placement or an attraction choice (option_values values those). Higher is better."""
    move = st.options[i]
    if decision == D_POPULATE:
        value = populate_value(st, tab, seat, move, w)
    elif decision == D_ANIMAL_CHOICE:
        space = st.sc[SC_ELEPHANT]
        if move == CHOICE_PAIR:
            value = pair_value(st, tab, seat, tab.strip_pair[space, 0], tab.strip_pair[space, 1],
                               w)
        else:
            value = best_target(st, tab, seat, move, w)
    elif decision == D_ANIMAL_PLACE:
        if move == DECLINE:
            value = 0.0
        elif move % 64 == TARGET_HOUSE:
            value = w[W_HOUSE_VALUE]
        else:
            value = animal_gain(st, tab, seat, move % 64, w)
    elif decision == D_HOUSE_ADD or decision == D_KEEP_ONE:
        value = 0.0
        if move == 1:
            value = w[W_HOUSE_VALUE]
            if decision == D_HOUSE_ADD:
                enclosure = st.follow[st.sc[SC_FOLLOW_HEAD]]
                value = animal_gain(st, tab, seat, enclosure, w) - w[W_HOUSE_VALUE]
    elif decision == D_BREED:
        value = 0.0
        first = move // 64
        second = move % 64
        if first != NO_ENCLOSURE:
            gain = animal_gain(st, tab, seat, first, w)
            value += gain * 1.001  # resolve the more valuable young first (E23)
        if second != NO_ENCLOSURE:
            value += animal_gain(st, tab, seat, second, w)
    else:  # D_BONUS
        value = 0.0 if move == NO_ENCLOSURE else animal_gain(st, tab, seat, move, w)
    return value


@kernel
def option_values(st, tab, seat, w):
    """st.option_values[i] = the greedy value of legal move st.options[i] of the current decision
    for `seat` with weights `w`, for every legal move. A placement decision's board is looked at
    once (board_context), its placements valued in one loop; a destination decision's breeders
    and animal targets are counted once (count_breeders, species_targets)."""
    n = st.sc[SC_N_OPTIONS]
    decision = st.sc[SC_DECISION]
    values = st.option_values
    if decision == D_PLACE or decision == D_ATTRACTION_PLACE:
        board = board_context(st, tab, seat)
        for i in range(n):
            values[i] = placement_value(tab, st.options[i], board, w)
    elif decision == D_ATTRACTION:
        board = board_context(st, tab, seat)
        for i in range(n):
            values[i] = attraction_value(st, tab, seat, st.options[i], board, w)
    elif decision == D_DEST:
        count_breeders(st, tab)
        targets = species_targets(st, tab, seat, w)
        for i in range(n):
            values[i] = destination_value(st, tab, seat, st.options[i], st.option_aux[i], targets, w)
    else:
        for i in range(n):
            values[i] = move_value(st, tab, seat, decision, i, w)


@kernel
def greedy(st, tab, seat, n, w):
    """Index of the legal move with the highest option value (the first on ties)."""
    option_values(st, tab, seat, w)
    values = st.option_values
    best_index = 0
    best = -1e300
    for i in range(n):
        if values[i] > best:
            best = values[i]
            best_index = i
    return best_index
