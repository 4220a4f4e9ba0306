"""New York Zoo step rules as numba kernels: setup, the turn machine, breeding, the end.

The step rules own every rule of seeds/new-york-zoo.md. A game is a `State` (state.py) advanced by
one machine: `advance` runs everything automatic until the next decision with at least two legal
moves (a decision with a single legal move is applied at once), writes the legal moves to
`State.options` and stops; `apply_move` applies one of them and calls `advance` again. The batch
play loop (play.py), the search adapter (search.py) and the Python step API (step_api.py) all
drive these same functions, so there is one implementation of the rules.

Follow-ups (N-4.4 scoring a full enclosure, N-5.4 add-from-house) are a small queue that `advance`
drains before it continues the stage it interrupted, so they resolve "at once" wherever an animal
enters an enclosure: acquisition, house add, breeding, bonus breeding.
"""

import numpy as np

from simulator.games import rng
from simulator.games.kernels import allocating, by_ref, kernel
from simulator.games.nyz.bits import has_bit, packed_field, popcount, popcount64
from simulator.games.nyz.invariants import check_invariants, violation
from simulator.games.nyz.state import (
    BREED_NONE, CELL_ATTRACTION, CELL_BARN, CELL_EMPTY, CHOICE_PAIR, DECLINE, D_ANIMAL_CHOICE,
    D_ANIMAL_PLACE, D_ATTRACTION, D_ATTRACTION_PLACE, D_BONUS, D_BREED, D_DEST, D_HOUSE_ADD,
    D_KEEP_ONE, D_NONE, D_PLACE, D_POPULATE, END_COMPLETE_ACTION, END_COMPLETE_BREEDING,
    END_SOLO_LAPS, END_STUCK, END_TURN_CAP, E_ADDED_THIS_TURN, E_BRED, E_CAPACITY, E_COUNT,
    E_HOUSE_ASKED, E_PLACEMENT, E_SPECIES, E_TILE, FIRST_ATTRACTION, FU_ATTRACTION,
    FU_ATTRACTION_PLACE, FU_ENTERED, FU_KEEP_ONE, INV_EMPTY_BAY, INV_MOVE_RANGE, INV_OVERLAP,
    INV_POPULATE, MARKER_FREE, MARKER_NONE, MAX_CELLS, MAX_ENCLOSURES, MAX_EVENTS, MAX_HOUSES,
    MAX_OPTIONS, MAX_START_TILES, NO_ATTRACTION, NO_ENCLOSURE, NO_SPECIES, N_ATTRACTION_TYPES,
    N_ENCLOSURE_TILES, N_ENC_FIELDS, N_SCALARS, N_SEAT_FIELDS, N_SPACES, N_SPECIES, MAX_PLAYERS,
    ORDER_BITS, ORDER_SEED_BITS, ORDER_SEED_MASK, POP_STOP,
    P_ACQUIRED, P_ATTRACTIONS, P_ATTRACTION_SQUARES, P_BONUS_TAKEN, P_BONUS_YOUNG, P_COVERED,
    P_ENCLOSURES, P_EVENT_HOUSE_ADDS, P_FILLED, P_HOUSES, P_HOUSE_ADDS, P_KEPT, P_PASSES,
    P_START_TILES, P_TURNS, P_WIN, P_YOUNG, R_ATTRACTION_OPTIONAL, R_BGA_ORDER, R_BONUS_ANY,
    R_BONUS_ENABLED, R_BONUS_PER_EVENT, R_BREED_AUTOMATIC, R_BREED_ENCLOSURES, R_BREED_HOUSE_ONE,
    R_BREED_MIN, R_BREED_YOUNG, R_D1_BUG, R_END_COMPLETE_ROUND, R_END_SKIPS_BREEDING,
    R_FRENCH_LIMIT, R_HOUSE_ADD, R_ORDER_RANDOM_EACH_ROUND,
    R_KEEP_ONE, R_MAX_EVENTS, R_MAX_TURNS, R_NO_MOVE_ENDS_GAME, R_PARTIAL_PAIR, R_PLAYERS,
    R_POPULATE_MAX, R_RANGE, R_SHORT_GAME, R_SINGLE_RULE, R_SOLO, R_SOLO_LAPS, R_SOLO_LAP_AWARE,
    R_SOLO_LAST_TURN_BREEDING, R_START_SPACE, R_SUPPLY_LIMITED, R_TIE_SHARED, R_TILES_PER_BAY,
    SC_ACTIVE, SC_BRED, SC_BREEDER, SC_BREEDING_EVENTS, SC_CHECKED, SC_DECIDER, SC_DECISION,
    SC_ELEPHANT, SC_ENDER, SC_END_REASON, SC_EVENT, SC_FOLLOW_HEAD, SC_FOLLOW_LEN,
    SC_FOLLOW_OWNER, SC_FOLLOW_SPECIES,
    SC_FOLLOW_STEP, SC_LAPS, SC_NEW_ENCLOSURE, SC_N_EVENTS, SC_N_OPTIONS, SC_OVER, SC_PASSES,
    SC_PENDING_0, SC_PENDING_1, SC_PENDING_END, SC_PLACED_ANIMALS, SC_PLAYERS, SC_POP_COUNT,
    SC_POP_SPECIES,
    SC_ORDER_SEED_HI, SC_ORDER_SEED_LO, SC_ROUNDS, SC_ROUND_ORDER, SC_ROUND_PLACE, SC_SETUP_SEAT,
    SC_SOLO_WON, SC_STAGE, SC_START_SPACE, SC_STOP_AT_FORCED, SC_TILE, SC_TURNS,
    SINGLE_WHEN_NO_PICTURED_FITS, SINGLE_WHEN_PAIR_DOES_NOT_FIT, SPACE_ANIMALS, SRC_ENCLOSURE,
    SRC_HOUSE, START_RANDOM, State, ST_ANIMAL_CHOICE, ST_ANIMAL_PLACE, ST_BONUS, ST_BREED, ST_BREED_NEXT,
    ST_MAIN_DONE, ST_OVER, ST_PLACE_ENCLOSURE, ST_POPULATE, ST_SETUP_PLACE, ST_TURN_END,
    ST_TURN_START, TARGET_HOUSE, TILE_D1, UNLIMITED,
)


ALL_SPECIES = (1 << N_SPECIES) - 1

# ---------------------------------------------------------------------------------------------
# small queries


@kernel
def next_space(space):
    return 1 if space == N_SPACES else space + 1


@kernel
def counts_as_step(st, tab, space):
    """N-4.1: animal spaces and bays holding a tile count; empty bays are skipped."""
    return tab.strip_kind[space] == SPACE_ANIMALS or st.bay_count[space] > 0


@kernel
def top_tile(st, space):
    count = st.bay_count[space]
    return st.bay_tiles[space, count - 1] if count > 0 else -1


@kernel
def free_house(st, seat):
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] == NO_SPECIES:
            return h
    return -1


@kernel
def house_with(st, seat, species):
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] == species:
            return h
    return -1


@kernel
def animals_of(st, seat):
    """Animals in houses and enclosures (N-7.2 tie-break)."""
    total = 0
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] != NO_SPECIES:
            total += 1
    for e in range(st.seat[seat, P_ENCLOSURES]):
        total += st.enc[seat, e, E_COUNT]
    return total


@kernel
def empty_squares(st, tab, seat):
    return popcount(tab.board_bits[seat, 0] & ~st.grid[seat, 0],
                    tab.board_bits[seat, 1] & ~st.grid[seat, 1])


@kernel
def fits(st, seat, placement, tab):
    return (tab.place_bits[placement, 0] & st.grid[seat, 0]) == 0 and (
        tab.place_bits[placement, 1] & st.grid[seat, 1]) == 0


@kernel
def has_placement(st, tab, seat, shape):
    """Whether a shape fits anywhere. Covered squares only ever increase, so a placement that
    does not fit now never will: st.fit_from remembers where the first still-possible placement
    of (seat, shape) is, and each game scans every placement list at most once in total."""
    end = tab.place_first[seat, shape] + tab.place_count[seat, shape]
    k = st.fit_from[seat, shape]
    grid_lo = st.grid[seat, 0]
    grid_hi = st.grid[seat, 1]
    bits = tab.place_bits
    while k < end and ((bits[k, 0] & grid_lo) | (bits[k, 1] & grid_hi)) != 0:
        k += 1
    st.fit_from[seat, shape] = k
    return k < end


@kernel
def list_placements(st, tab, seat, shape):
    """Legal placements of a shape (N-4.2 (2)) written to options; returns their number."""
    if not has_placement(st, tab, seat, shape):
        return 0
    end = tab.place_first[seat, shape] + tab.place_count[seat, shape]
    grid_lo = st.grid[seat, 0]
    grid_hi = st.grid[seat, 1]
    bits = tab.place_bits
    options = st.options
    n = 0
    for k in range(st.fit_from[seat, shape], end):  # branchless: fitting is unpredictable
        options[n] = k
        n += ((bits[k, 0] & grid_lo) | (bits[k, 1] & grid_hi)) == 0
    return n


@kernel
def has_movable_animal(st, seat):
    """N-4.2 (4b): an animal in a house, or an enclosure that keeps one after giving one."""
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] != NO_SPECIES:
            return True
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if st.enc[seat, e, E_COUNT] >= 2:
            return True
    return False


@kernel
def may_add(st, tab, seat, e):
    """E20 knob: with the French limit an enclosure takes at most 2 animals per turn."""
    return tab.rules[R_FRENCH_LIMIT] == 0 or st.enc[seat, e, E_ADDED_THIS_TURN] < 2


@kernel
def can_receive(st, tab, seat, e, species):
    """N-4.3 targets: an enclosure that is empty or holds this species, and has room."""
    count = st.enc[seat, e, E_COUNT]
    return (count < st.enc[seat, e, E_CAPACITY]
            and (count == 0 or st.enc[seat, e, E_SPECIES] == species)
            and may_add(st, tab, seat, e))


@kernel
def target_species(st, tab, seat):
    """Bit s set: a newly taken animal of species s has a place on the board (a free house,
    or an enclosure that can_receive it), whatever the supply. One pass for all species."""
    if free_house(st, seat) >= 0:
        return ALL_SPECIES
    enc = st.enc
    french = tab.rules[R_FRENCH_LIMIT] != 0
    mask = 0
    for e in range(st.seat[seat, P_ENCLOSURES]):
        count = enc[seat, e, E_COUNT]
        if count < enc[seat, e, E_CAPACITY] and (not french or enc[seat, e, E_ADDED_THIS_TURN] < 2):
            if count == 0:
                return ALL_SPECIES
            species = enc[seat, e, E_SPECIES]
            if species >= 0:
                mask |= 1 << species
    return mask


@kernel
def target_ok(st, targets, species):
    """has_target from a target_species mask."""
    return st.animal_supply[species] > 0 and (targets >> species) & 1 != 0


@kernel
def has_target(st, tab, seat, species):
    """A newly taken animal of this species can be placed (and the supply has one)."""
    if st.animal_supply[species] <= 0:
        return False
    if free_house(st, seat) >= 0:
        return True
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if can_receive(st, tab, seat, e, species):
            return True
    return False


@kernel
def free_houses(st, seat):
    n = 0
    for h in range(st.seat[seat, P_HOUSES]):
        if st.house[seat, h] == NO_SPECIES:
            n += 1
    return n


@kernel
def fits_after(st, tab, seat, first, target, second, houses):
    """After `first` goes to target (TARGET_HOUSE or an enclosure that can_receive it),
    `second` still has a place (N-4.3, single_animal_rule when_pair_does_not_fit): another free
    house, another enclosure, the same enclosure if the first filled it (scored, empty, E22), or
    the house that the first's add-from-house frees (N-5.4). `houses` = free houses now."""
    if target == TARGET_HOUSE:
        if houses >= 2:
            return True
        for e in range(st.seat[seat, P_ENCLOSURES]):
            if can_receive(st, tab, seat, e, second):
                return True
        return False
    if houses > 0:
        return True
    french = tab.rules[R_FRENCH_LIMIT] != 0
    room_after = not french or st.enc[seat, target, E_ADDED_THIS_TURN] + 1 < 2
    if st.enc[seat, target, E_COUNT] + 1 == st.enc[seat, target, E_CAPACITY]:
        if room_after:
            return True
    elif room_after and tab.rules[R_HOUSE_ADD] != 0 and house_with(st, seat, first) >= 0:
        return True
    for other in range(st.seat[seat, P_ENCLOSURES]):
        if other != target and can_receive(st, tab, seat, other, second):
            return True
    return False


@kernel
def second_fits_after(st, tab, seat, first, second):
    """Some placement of `first` leaves `second` a place (fits_after)."""
    houses = free_houses(st, seat)
    if houses > 0 and fits_after(st, tab, seat, first, TARGET_HOUSE, second, houses):
        return True
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if can_receive(st, tab, seat, e, first) and fits_after(
                st, tab, seat, first, e, second, houses):
            return True
    return False


@kernel
def pair_fits(st, tab, seat, a, b):
    """Both pictured animals can be placed, in one order or the other."""
    if st.animal_supply[a] <= 0 or st.animal_supply[b] <= 0:
        return False
    return second_fits_after(st, tab, seat, a, b) or second_fits_after(st, tab, seat, b, a)


@kernel
def animal_choice_options(st, tab, seat, space):
    """N-4.3: B1 the pictured pair, B2 one animal of another kind; E3/E5, single_animal_rule.

    any_time: B2 (species not pictured) always; when_no_pictured_fits: B2 only when neither
    pictured animal has a target; when_pair_does_not_fit: the pair only when both can be placed,
    otherwise B2 with any species (pictured ones included)."""
    targets = target_species(st, tab, seat)
    a = tab.strip_pair[space, 0]
    b = tab.strip_pair[space, 1]
    rule = tab.rules[R_SINGLE_RULE]
    n = 0
    if rule == SINGLE_WHEN_PAIR_DOES_NOT_FIT:
        if pair_fits(st, tab, seat, a, b):
            st.options[0] = CHOICE_PAIR
            return 1
        for species in range(N_SPECIES):
            if target_ok(st, targets, species):
                st.options[n] = species
                n += 1
        return n
    pair_ok = target_ok(st, targets, a) or target_ok(st, targets, b)
    if pair_ok:
        st.options[n] = CHOICE_PAIR
        n += 1
    if pair_ok and rule == SINGLE_WHEN_NO_PICTURED_FITS:
        return n
    for species in range(N_SPECIES):
        if species != a and species != b and target_ok(st, targets, species):
            st.options[n] = species
            n += 1
    return n


@kernel
def animal_space_legal(st, tab, space, targets):
    """animal_choice_options(...) > 0, without writing the options."""
    a = tab.strip_pair[space, 0]
    b = tab.strip_pair[space, 1]
    if target_ok(st, targets, a) or target_ok(st, targets, b):
        return True
    for species in range(N_SPECIES):
        if species != a and species != b and target_ok(st, targets, species):
            return True
    return False


@kernel
def space_legal(st, tab, seat, space, targets, movable):
    """A destination is legal only if its action can be carried out (N-4.2 (4), N-4.3).
    targets = target_species(seat), movable = has_movable_animal(seat): the same for every
    space of one decision, computed once by destination_options."""
    if tab.strip_kind[space] == SPACE_ANIMALS:
        return animal_space_legal(st, tab, space, targets)
    tile = top_tile(st, space)
    return tile >= 0 and movable and has_placement(st, tab, seat, tile)


@kernel
def line_bit(tab, space):
    species = tab.line_species[space]
    return (1 << species) if species >= 0 else 0


@kernel
def add_destination(st, n, code, space, crossed):
    st.options[n] = space + 32 * code
    st.option_aux[n] = crossed
    return n + 1


@kernel
def destination_options(st, tab, seat):
    """Legal (marker, space) moves of the elephant; option_aux = species lines crossed.

    Multiplayer N-4.1: 1..range counted steps clockwise. Solo N-8.2: unused markers 0 / 1 / 2 / 3
    / 4+ or the free move to the next animal space. Bit 5 of option_aux: the move enters
    space 10 (solo lap, N-8.2).
    """
    start = st.sc[SC_ELEPHANT]
    targets = target_species(st, tab, seat)
    movable = has_movable_animal(st, seat)
    n = 0
    if tab.rules[R_SOLO] == 0:
        space, steps, crossed = start, 0, 0
        while steps < tab.rules[R_RANGE]:
            space = next_space(space)
            crossed |= line_bit(tab, space)
            if counts_as_step(st, tab, space):
                steps += 1
                if space_legal(st, tab, seat, space, targets, movable):
                    n = add_destination(st, n, MARKER_NONE, space, crossed)
        return n
    if st.markers_used[0] == 0 and counts_as_step(st, tab, start) and space_legal(
            st, tab, seat, start, targets, movable):
        n = add_destination(st, n, 1, start, 0)
    space, steps, crossed, free_done = start, 0, 0, False
    for _ in range(N_SPACES - 1):  # 4+ reaches less than one full lap (N-8.2)
        space = next_space(space)
        crossed |= line_bit(tab, space)
        if space == st.sc[SC_START_SPACE]:
            crossed |= 1 << 5
        if not counts_as_step(st, tab, space):
            continue
        steps += 1
        legal = space_legal(st, tab, seat, space, targets, movable)
        marker = steps if steps <= 3 else 4
        if legal and st.markers_used[marker] == 0:
            n = add_destination(st, n, marker + 1, space, crossed)
        if not free_done and tab.strip_kind[space] == SPACE_ANIMALS:
            free_done = True
            if legal:
                n = add_destination(st, n, MARKER_FREE, space, crossed)
    return n


@kernel
def board_complete(st, tab, seat):
    return empty_squares(st, tab, seat) == 0


# ---------------------------------------------------------------------------------------------
# changes of the state


@kernel
def paint(st, tab, seat, placement, code):
    """Cover the squares of a placement with an enclosure index or attraction code."""
    lo = tab.place_bits[placement, 0]
    hi = tab.place_bits[placement, 1]
    if (lo & st.grid[seat, 0]) != 0 or (hi & st.grid[seat, 1]) != 0:
        violation(st, INV_OVERLAP)
    st.grid[seat, 0] |= lo
    st.grid[seat, 1] |= hi
    cells = st.cells
    for word in range(2):
        bits = lo if word == 0 else hi
        while bits != 0:
            lowest = bits & (~bits + np.uint64(1))
            cells[seat, 64 * word + popcount64(lowest - np.uint64(1))] = code
            bits ^= lowest


@kernel
def new_enclosure(st, tab, seat, tile, placement):
    e = st.seat[seat, P_ENCLOSURES]
    st.enc[seat, e, E_TILE] = tile
    st.enc[seat, e, E_PLACEMENT] = placement
    st.enc[seat, e, E_SPECIES] = NO_SPECIES
    st.enc[seat, e, E_COUNT] = 0
    st.enc[seat, e, E_CAPACITY] = tab.shape_squares[tile]
    st.seat[seat, P_ENCLOSURES] = e + 1
    paint(st, tab, seat, placement, e)
    return e


@kernel
def take_from_supply(st, tab, species):
    if tab.rules[R_SUPPLY_LIMITED] != 0:
        st.animal_supply[species] -= 1


@kernel
def put_in_enclosure(st, seat, e, species):
    st.enc[seat, e, E_SPECIES] = species
    st.enc[seat, e, E_COUNT] += 1
    st.enc[seat, e, E_ADDED_THIS_TURN] += 1


@kernel
def push_follow_up(st, seat, e):
    """Queue an enclosure an animal just entered (N-4.4 full check, N-5.4 house add)."""
    if st.sc[SC_FOLLOW_LEN] == st.sc[SC_FOLLOW_HEAD]:
        st.sc[SC_FOLLOW_LEN] = 0
        st.sc[SC_FOLLOW_HEAD] = 0
        st.sc[SC_FOLLOW_STEP] = FU_ENTERED
    st.sc[SC_FOLLOW_OWNER] = seat
    st.follow[st.sc[SC_FOLLOW_LEN]] = e
    st.sc[SC_FOLLOW_LEN] += 1


@kernel
def pop_follow_up(st):
    st.sc[SC_FOLLOW_HEAD] += 1
    st.sc[SC_FOLLOW_STEP] = FU_ENTERED


@kernel
def breed_into(st, tab, seat, e, species):
    """The young of one enclosure (N-6.2/N-6.3): `young_per_enclosure` of them, at most up to
    its capacity; a young a limited supply cannot give is not gained. They enter together, then
    the follow-up (full check, house add) runs once. Returns the young gained."""
    room = st.enc[seat, e, E_CAPACITY] - st.enc[seat, e, E_COUNT]
    young = min(tab.rules[R_BREED_YOUNG], room, st.animal_supply[species])
    if young <= 0:
        return 0
    if tab.rules[R_SUPPLY_LIMITED] != 0:
        st.animal_supply[species] -= young
    st.enc[seat, e, E_SPECIES] = species
    st.enc[seat, e, E_COUNT] += young
    st.enc[seat, e, E_ADDED_THIS_TURN] += young
    st.enc[seat, e, E_BRED] = 1
    st.seat[seat, P_YOUNG] += young
    push_follow_up(st, seat, e)
    return young


@kernel
def reset_house_asked(st):
    """N-5.4 / E13: one house add per enclosure per phase (turn start, each breeding event)."""
    enc = st.enc
    for seat in range(st.sc[SC_PLAYERS]):
        st.seat[seat, P_EVENT_HOUSE_ADDS] = 0
        for e in range(st.seat[seat, P_ENCLOSURES]):
            enc[seat, e, E_HOUSE_ASKED] = 0


@kernel
def record_crossings(st, tab, start, dest):
    """N-3.2 / N-6.1: breeding events of the move start -> dest, in the chosen order."""
    n = 0
    space = start
    while space != dest:
        space = next_space(space)
        species = tab.line_species[space]
        if species >= 0:
            st.events[n] = species
            n += 1
        if space == st.sc[SC_START_SPACE] and tab.rules[R_SOLO] != 0:
            st.sc[SC_LAPS] += 1  # N-8.2: entering the start space (10 as printed) counts a lap
    if tab.rules[R_BGA_ORDER] != 0:  # E7: BGA resolves by position of the line on the strip
        for i in range(1, n):
            j = i
            while j > 0 and tab.line_rank[st.events[j - 1]] > tab.line_rank[st.events[j]]:
                tmp = st.events[j]
                st.events[j] = st.events[j - 1]
                st.events[j - 1] = tmp
                j -= 1
    limit = tab.rules[R_MAX_EVENTS]
    if limit > 0 and n > limit:
        n = limit
    st.sc[SC_N_EVENTS] = n


@kernel
def finish(st, tab, reason):
    """N-7: end the game; winners = complete boards with the most animals (shared on ties; every
    complete board with tie_break shared, N-7.5). A
    game whose end is pending (end_timing complete_round, N-7.4) ends for its trigger's reason,
    even if a stuck seat ends it first. The seat of the turn that ends it is the ender, unless a
    trigger named one already; a turn cap has none."""
    players = st.sc[SC_PLAYERS]
    if st.sc[SC_PENDING_END] >= 0:
        reason = st.sc[SC_PENDING_END]
    if st.sc[SC_ENDER] < 0 and reason != END_TURN_CAP:
        st.sc[SC_ENDER] = st.sc[SC_ACTIVE]
    st.sc[SC_OVER] = 1
    st.sc[SC_END_REASON] = reason
    st.sc[SC_STAGE] = ST_OVER
    st.sc[SC_DECISION] = D_NONE
    st.sc[SC_N_OPTIONS] = 0
    st.sc[SC_ROUNDS] = (st.sc[SC_TURNS] + players - 1) // players
    if reason != END_COMPLETE_ACTION and reason != END_COMPLETE_BREEDING:
        return
    best = -1
    for seat in range(players):
        if board_complete(st, tab, seat):
            best = max(best, animals_of(st, seat))
    shared = tab.rules[R_TIE_SHARED] != 0
    for seat in range(players):
        if board_complete(st, tab, seat) and (shared or animals_of(st, seat) == best):
            st.seat[seat, P_WIN] = 1
    if tab.rules[R_SOLO] != 0:
        st.sc[SC_SOLO_WON] = st.seat[0, P_WIN]


# ---------------------------------------------------------------------------------------------
# setup


@allocating
def new_state(tab, seed, policy_id, policy_params, checked, stop_at_forced):
    """A game after setup (N-3.4), stopped at its first decision."""
    players = tab.rules[R_PLAYERS]
    st = State(
        np.zeros(N_SCALARS, dtype=np.int32),
        rng.new_state(seed),
        policy_id.copy(),
        policy_params.copy(),
        np.full((N_SPACES + 1, 3), -1, dtype=np.int32),
        np.zeros(N_SPACES + 1, dtype=np.int32),
        np.full(N_SPECIES, UNLIMITED, dtype=np.int32),
        tab.attraction_copies.copy(),
        tab.barn_bits.copy(),
        np.full((players, MAX_CELLS), CELL_BARN, dtype=np.int8),
        np.full((players, MAX_HOUSES), NO_SPECIES, dtype=np.int32),
        np.zeros((players, MAX_ENCLOSURES, N_ENC_FIELDS), dtype=np.int32),
        np.zeros((players, N_SEAT_FIELDS), dtype=np.int32),
        np.full((players, MAX_START_TILES), -1, dtype=np.int32),
        np.zeros(MAX_EVENTS, dtype=np.int32),
        np.zeros(4, dtype=np.int32),
        np.zeros(5, dtype=np.int32),
        np.zeros(MAX_OPTIONS, dtype=np.int32),
        np.zeros(MAX_OPTIONS, dtype=np.int32),
        np.zeros(MAX_ENCLOSURES, dtype=np.int32),
        np.zeros(MAX_OPTIONS, dtype=np.float64),
        tab.place_first.copy(),
    )
    st.sc[SC_PLAYERS] = players
    st.sc[SC_ENDER] = -1
    st.sc[SC_PENDING_END] = -1
    for marker in range(5):  # solo_markers: a marker not in the set stays "used"
        st.markers_used[marker] = tab.marker_absent[marker]
    st.sc[SC_CHECKED] = checked
    st.sc[SC_STOP_AT_FORCED] = stop_at_forced
    st.sc[SC_NEW_ENCLOSURE] = -1
    st.sc[SC_PENDING_0] = NO_SPECIES
    st.sc[SC_PENDING_1] = NO_SPECIES
    if tab.rules[R_SUPPLY_LIMITED] != 0:
        st.animal_supply[:] = tab.animal_caps
    for seat in range(players):
        for index in range(tab.width[seat] * tab.height[seat]):
            if not has_bit(tab.barn_bits[seat, 0], tab.barn_bits[seat, 1], index):
                st.cells[seat, index] = CELL_EMPTY
        st.seat[seat, P_HOUSES] = tab.houses[seat]
        for i in range(2):
            species = tab.start_animals[seat, i]
            if species >= 0:
                st.house[seat, i] = species
                take_from_supply(st, tab, species)
        st.seat[seat, P_COVERED] = popcount(st.grid[seat, 0], st.grid[seat, 1])
    stock_strip(st, tab)
    start = tab.rules[R_START_SPACE]
    if start == START_RANDOM:  # drawn after the deal, so a fixed start deals the same tiles
        start = 1 + rng.randint(st.rng, N_SPACES)
    st.sc[SC_START_SPACE] = start
    st.sc[SC_ELEPHANT] = start
    if tab.rules[R_ORDER_RANDOM_EACH_ROUND] != 0:  # drawn last, so the deal is clockwise's
        word = rng.next_u64(st.rng)
        st.sc[SC_ORDER_SEED_LO] = word & ORDER_SEED_MASK
        st.sc[SC_ORDER_SEED_HI] = (word >> ORDER_SEED_BITS) & ORDER_SEED_MASK
    new_round(st, tab)
    st.sc[SC_STAGE] = ST_SETUP_PLACE if tab.rules[R_SHORT_GAME] != 0 else ST_TURN_START
    advance(by_ref(st), by_ref(tab))
    return st


@allocating
def stock_strip(st, tab):
    """N-3.3: shuffle each class, deal A, B, C, D layer by layer; keep the lowest layers.

    Removed top tiles leave the game, except in the 2-player short game, which deals 3 class-D
    and 3 class-C tiles of them to each player (N-8.1).
    """
    by_class = np.full((4, N_ENCLOSURE_TILES), -1, dtype=np.int32)
    class_size = np.zeros(4, dtype=np.int32)
    for tile in range(N_ENCLOSURE_TILES):
        cls = tab.tile_class[tile]
        if cls < 0:  # not in the game (tile_classes)
            continue
        by_class[cls, class_size[cls]] = tile
        class_size[cls] += 1
    for cls in range(4):
        rng.shuffle(st.rng, by_class[cls, :class_size[cls]])
    dealt = np.zeros(4, dtype=np.int32)
    for cls in range(4):
        for space in range(1, N_SPACES + 1):
            for layer in range(3):
                if tab.bay_layers[space, layer] == cls:
                    st.bay_tiles[space, layer] = by_class[cls, dealt[cls]]
                    dealt[cls] += 1
    keep = tab.rules[R_TILES_PER_BAY]
    removed = np.full((4, N_ENCLOSURE_TILES), -1, dtype=np.int32)
    removed_size = np.zeros(4, dtype=np.int32)
    for space in range(1, N_SPACES + 1):
        if tab.bay_layers[space, 0] < 0:
            continue
        for layer in range(keep, 3):
            tile = st.bay_tiles[space, layer]
            cls = tab.tile_class[tile]
            removed[cls, removed_size[cls]] = tile
            removed_size[cls] += 1
            st.bay_tiles[space, layer] = -1
        st.bay_count[space] = keep
    if tab.rules[R_SHORT_GAME] == 0:
        return
    for cls in (2, 3):
        pool = removed[cls, :removed_size[cls]]
        rng.shuffle(st.rng, pool)
        if cls == 3 and tab.rules[R_D1_BUG] != 0:  # E29: BGA never deals D1; move it last
            for i in range(pool.shape[0] - 1):
                if pool[i] == TILE_D1:
                    pool[i] = pool[pool.shape[0] - 1]
                    pool[pool.shape[0] - 1] = TILE_D1
        for seat in range(st.sc[SC_PLAYERS]):
            for k in range(3):
                if 3 * seat + k < pool.shape[0]:
                    st.start_tiles[seat, st.seat[seat, P_START_TILES]] = pool[3 * seat + k]
                    st.seat[seat, P_START_TILES] += 1


# ---------------------------------------------------------------------------------------------
# the turn machine


@kernel
def offer(st, tab, decision, seat, n):
    """Stop at a decision with n >= 2 legal moves; apply a forced single move at once (the
    step API can ask to stop at those too)."""
    if n == 1 and st.sc[SC_STOP_AT_FORCED] == 0:
        st.sc[SC_DECIDER] = seat
        st.sc[SC_DECISION] = decision
        apply_effects(st, tab, st.options[0])
        return False
    st.sc[SC_DECIDER] = seat
    st.sc[SC_DECISION] = decision
    st.sc[SC_N_OPTIONS] = n
    return True


@kernel
def follow_up(st, tab):
    """Resolve the head of the follow-up queue; True when a decision is waiting."""
    seat = st.sc[SC_FOLLOW_OWNER]
    e = st.follow[st.sc[SC_FOLLOW_HEAD]]
    step = st.sc[SC_FOLLOW_STEP]
    if step == FU_ENTERED:
        count = st.enc[seat, e, E_COUNT]
        species = st.enc[seat, e, E_SPECIES]
        if count >= st.enc[seat, e, E_CAPACITY]:
            # N-4.4: all animals back to the supply; the enclosure stays, without species
            if tab.rules[R_SUPPLY_LIMITED] != 0:
                st.animal_supply[species] += count
            st.enc[seat, e, E_COUNT] = 0
            st.enc[seat, e, E_SPECIES] = NO_SPECIES
            st.seat[seat, P_FILLED] += 1
            st.sc[SC_FOLLOW_SPECIES] = species
            st.sc[SC_FOLLOW_STEP] = FU_KEEP_ONE
            if (tab.rules[R_KEEP_ONE] != 0 and free_house(st, seat) >= 0
                    and st.animal_supply[species] > 0):
                st.options[0] = 0
                st.options[1] = 1
                return offer(st, tab, D_KEEP_ONE, seat, 2)
            st.sc[SC_FOLLOW_STEP] = FU_ATTRACTION
            return False
        if (st.enc[seat, e, E_HOUSE_ASKED] == 0 and count > 0 and tab.rules[R_HOUSE_ADD] != 0
                and house_with(st, seat, species) >= 0 and may_add(st, tab, seat, e)
                and not house_add_used(st, tab, seat)):
            st.options[0] = 0
            st.options[1] = 1
            return offer(st, tab, D_HOUSE_ADD, seat, 2)
        pop_follow_up(st)
        return False
    if step == FU_ATTRACTION:
        n = 0
        for kind in range(N_ATTRACTION_TYPES):
            if st.attraction_supply[kind] > 0 and has_placement(
                    st, tab, seat, FIRST_ATTRACTION + kind):
                st.options[n] = kind
                n += 1
        if n == 0:
            pop_follow_up(st)
            return False
        if tab.rules[R_ATTRACTION_OPTIONAL] != 0:  # E1
            st.options[n] = NO_ATTRACTION
            n += 1
        return offer(st, tab, D_ATTRACTION, seat, n)
    # FU_ATTRACTION_PLACE
    n = list_placements(st, tab, seat, st.sc[SC_TILE])
    return offer(st, tab, D_ATTRACTION_PLACE, seat, n)


@kernel
def house_add_used(st, tab, seat):
    """breeding_house_adds = one_per_event (N-5.4): during breeding a player adds at most one
    house animal per event, into any enclosure that got young in it (offers go on until one is
    accepted)."""
    stage = st.sc[SC_STAGE]
    return (tab.rules[R_BREED_HOUSE_ONE] != 0 and stage >= ST_BREED and stage <= ST_BREED_NEXT
            and st.seat[seat, P_EVENT_HOUSE_ADDS] > 0)


@kernel
def populate_options(st, seat):
    """N-4.2 (3): sources of the next populating animal, one option per house species."""
    species = st.sc[SC_POP_SPECIES]
    new = st.sc[SC_NEW_ENCLOSURE]
    n = 0
    for h in range(st.seat[seat, P_HOUSES]):
        held = st.house[seat, h]
        if held == NO_SPECIES or (species != NO_SPECIES and held != species):
            continue
        if house_with(st, seat, held) == h:  # houses of one species are interchangeable
            st.options[n] = SRC_HOUSE + h
            n += 1
    for e in range(st.seat[seat, P_ENCLOSURES]):
        if e != new and st.enc[seat, e, E_COUNT] >= 2 and (
                species == NO_SPECIES or st.enc[seat, e, E_SPECIES] == species):
            st.options[n] = SRC_ENCLOSURE + e
            n += 1
    if n > 0 and st.sc[SC_POP_COUNT] >= 1:
        st.options[n] = POP_STOP
        n += 1
    return n


@kernel
def keep_pair_placeable(st, tab, seat, n):
    """single_animal_rule when_pair_does_not_fit without partial pairs (N-4.3): the pair must
    be taken in full, so drop first placements after which the other animal has no place."""
    houses = free_houses(st, seat)
    kept = 0
    for i in range(n):
        move = st.options[i]
        slot = move // 64
        if fits_after(st, tab, seat, st.sc[SC_PENDING_0 + slot], move % 64,
                      st.sc[SC_PENDING_1 - slot], houses):
            st.options[kept] = move
            kept += 1
    return kept


@kernel
def animal_place_options(st, tab, seat):
    """N-4.3: (pending animal, target) moves, and DECLINE once one animal was placed (E4)."""
    n = 0
    house = free_house(st, seat)
    enc = st.enc
    options = st.options
    french = tab.rules[R_FRENCH_LIMIT] != 0
    enclosures = st.seat[seat, P_ENCLOSURES]
    for slot in range(2):
        species = st.sc[SC_PENDING_0 + slot]
        if species == NO_SPECIES or st.animal_supply[species] <= 0:
            continue
        if house >= 0:
            options[n] = 64 * slot + TARGET_HOUSE
            n += 1
        for e in range(enclosures):  # can_receive
            count = enc[seat, e, E_COUNT]
            if (count < enc[seat, e, E_CAPACITY]
                    and (count == 0 or enc[seat, e, E_SPECIES] == species)
                    and (not french or enc[seat, e, E_ADDED_THIS_TURN] < 2)):
                options[n] = 64 * slot + e
                n += 1
    if (tab.rules[R_SINGLE_RULE] == SINGLE_WHEN_PAIR_DOES_NOT_FIT and tab.rules[R_PARTIAL_PAIR] == 0
            and st.sc[SC_PENDING_0] != NO_SPECIES and st.sc[SC_PENDING_1] != NO_SPECIES):
        n = keep_pair_placeable(st, tab, seat, n)
    if n > 0 and st.sc[SC_PLACED_ANIMALS] > 0 and tab.rules[R_PARTIAL_PAIR] != 0:
        st.options[n] = DECLINE
        n += 1
    return n


@kernel
def breed_options(st, tab, seat, species):
    """N-6.2: up to `enclosures_per_event` (1 or 2) different eligible enclosures (at least
    `min_animals` animals of the event species), as ordered pairs (the first is resolved first,
    E23), singles, or none. breeding_choice = automatic: as many as possible breed (pairs when
    two may and two are eligible), none is not a choice."""
    eligible = st.scratch
    enc = st.enc
    options = st.options
    french = tab.rules[R_FRENCH_LIMIT] != 0
    least = tab.rules[R_BREED_MIN]
    m = 0
    for e in range(st.seat[seat, P_ENCLOSURES]):
        enc[seat, e, E_BRED] = 0
        if (enc[seat, e, E_SPECIES] == species and enc[seat, e, E_COUNT] >= least
                and (not french or enc[seat, e, E_ADDED_THIS_TURN] < 2)):  # may_add
            eligible[m] = e
            m += 1
    if m == 0 or st.animal_supply[species] <= 0:
        return 0
    pairs = tab.rules[R_BREED_ENCLOSURES] >= 2 and m >= 2
    automatic = tab.rules[R_BREED_AUTOMATIC] != 0
    n = 0
    for i in range(m):
        if pairs:
            for j in range(m):
                if i != j:
                    options[n] = 64 * eligible[i] + eligible[j]
                    n += 1
        if not (automatic and pairs):
            options[n] = 64 * eligible[i] + NO_ENCLOSURE
            n += 1
    if not automatic:
        options[n] = BREED_NONE
        n += 1
    return n


@kernel
def bonus_options(st, tab, seat):
    """N-6.3: one enclosure with at least `min_animals` animals that got no young in this event
    (bonus_breeding_target = any: or did), or none."""
    n = 0
    enc = st.enc
    options = st.options
    supply = st.animal_supply
    french = tab.rules[R_FRENCH_LIMIT] != 0
    any_enclosure = tab.rules[R_BONUS_ANY] != 0
    least = tab.rules[R_BREED_MIN]
    for e in range(st.seat[seat, P_ENCLOSURES]):
        species = enc[seat, e, E_SPECIES]
        if ((any_enclosure or enc[seat, e, E_BRED] == 0) and enc[seat, e, E_COUNT] >= least
                and supply[species] > 0
                and (not french or enc[seat, e, E_ADDED_THIS_TURN] < 2)):  # may_add
            options[n] = e
            n += 1
    if n == 0:
        return 0
    options[n] = NO_ENCLOSURE
    return n + 1


@kernel
def start_turn(st, tab):
    """N-4: a new turn of the active seat; True when a decision is waiting."""
    if st.sc[SC_TURNS] >= tab.rules[R_MAX_TURNS]:
        finish(st, tab, END_TURN_CAP)  # N-7.3 safety cap, reported as its own end reason
        return False
    st.sc[SC_TURNS] += 1
    seat = st.sc[SC_ACTIVE]
    st.seat[seat, P_TURNS] += 1
    enc = st.enc
    for p in range(st.sc[SC_PLAYERS]):
        st.seat[p, P_BONUS_TAKEN] = 0
        for e in range(st.seat[p, P_ENCLOSURES]):
            enc[p, e, E_HOUSE_ASKED] = 0
            enc[p, e, E_ADDED_THIS_TURN] = 0
    st.sc[SC_N_EVENTS] = 0
    st.sc[SC_NEW_ENCLOSURE] = -1
    n = destination_options(st, tab, seat)
    if n == 0:  # E27: no legal destination
        if tab.rules[R_NO_MOVE_ENDS_GAME] != 0:
            finish(st, tab, END_STUCK)
            return False
        st.sc[SC_PASSES] += 1
        st.seat[seat, P_PASSES] += 1
        st.sc[SC_STAGE] = ST_TURN_END
        return False
    return offer(st, tab, D_DEST, seat, n)


@kernel
def main_action_done(st, tab):
    """N-7.1 (1): a complete board ends the game before breeding (E14); solo lap end (E17)."""
    new = st.sc[SC_NEW_ENCLOSURE]
    active = st.sc[SC_ACTIVE]
    if new >= 0 and st.sc[SC_CHECKED] != 0:
        count = st.enc[active, new, E_COUNT]
        if count < 1 or count > tab.rules[R_POPULATE_MAX]:
            violation(st, INV_POPULATE)
    if board_complete(st, tab, active):
        if tab.rules[R_END_COMPLETE_ROUND] != 0:  # N-7.4: the turn goes on, breeding included
            end_pending(st, END_COMPLETE_ACTION)
        elif tab.rules[R_END_SKIPS_BREEDING] != 0 or st.sc[SC_N_EVENTS] == 0:
            finish(st, tab, END_COMPLETE_ACTION)
            return
    if (tab.rules[R_SOLO] != 0 and st.sc[SC_LAPS] >= tab.rules[R_SOLO_LAPS]
            and tab.rules[R_SOLO_LAST_TURN_BREEDING] == 0):
        st.sc[SC_N_EVENTS] = 0
    if st.sc[SC_N_EVENTS] > 0:
        st.sc[SC_EVENT] = 0
        st.sc[SC_BREEDER] = 0
        st.sc[SC_BREEDING_EVENTS] += 1
        reset_house_asked(st)
        st.sc[SC_STAGE] = ST_BREED
    else:
        st.sc[SC_STAGE] = ST_TURN_END


@kernel
def end_pending(st, reason):
    """N-7.4 complete_round: the first complete board names the end's reason and its ender (the
    seat whose turn it is); the game ends after the last seat's turn of this round."""
    if st.sc[SC_PENDING_END] < 0:
        st.sc[SC_PENDING_END] = reason
        st.sc[SC_ENDER] = st.sc[SC_ACTIVE]


@kernel
def end_turn(st, tab):
    """N-4.6 / N-7.1 (2): end after breeding if a board is complete (with complete_round, N-7.4,
    after the last seat's turn of that round); solo end and markers."""
    players = st.sc[SC_PLAYERS]
    for seat in range(players):
        if board_complete(st, tab, seat):
            reason = END_COMPLETE_BREEDING if st.sc[SC_N_EVENTS] > 0 else END_COMPLETE_ACTION
            if tab.rules[R_END_COMPLETE_ROUND] == 0:
                finish(st, tab, reason)
                return
            end_pending(st, reason)
    if st.sc[SC_PENDING_END] >= 0 and st.sc[SC_ROUND_PLACE] == players - 1:
        finish(st, tab, st.sc[SC_PENDING_END])
        return
    if tab.rules[R_SOLO] != 0:
        if st.sc[SC_LAPS] >= tab.rules[R_SOLO_LAPS]:
            finish(st, tab, END_SOLO_LAPS)
            return
        if st.markers_used.sum() == 5:  # N-8.2: all markers of the set come back
            for marker in range(5):
                st.markers_used[marker] = tab.marker_absent[marker]
    if st.sc[SC_ROUND_PLACE] == players - 1:
        new_round(st, tab)
    else:
        st.sc[SC_ROUND_PLACE] += 1
        st.sc[SC_ACTIVE] = round_seat(st, st.sc[SC_ROUND_PLACE])
    st.sc[SC_STAGE] = ST_TURN_START


@kernel
def round_seat(st, place):
    """The seat at `place` (0 = first) of this round's order (SC_ROUND_ORDER)."""
    return packed_field(st.sc[SC_ROUND_ORDER], place, ORDER_BITS)


@kernel
def new_round(st, tab):
    """N-4 / turn_order: the next round's seat order, its first seat active. Clockwise: seat 0
    (the start player, seat 1 of the rules) to n-1. random_each_round: a uniformly random order
    (Fisher-Yates on the packed seats) from the seat orders' own stream (SC_ORDER_SEED_*), so it
    depends on the deal and the round only, not on the random numbers the policies draw."""
    players = st.sc[SC_PLAYERS]
    order = 0
    for place in range(players):
        order |= place << (ORDER_BITS * place)
    if tab.rules[R_ORDER_RANDOM_EACH_ROUND] != 0:
        seed = (np.uint64(st.sc[SC_ORDER_SEED_HI]) << np.uint64(ORDER_SEED_BITS)) | np.uint64(st.sc[SC_ORDER_SEED_LO])
        round_index = st.sc[SC_TURNS] // players  # the turns begun are the earlier rounds'
        for i in range(players - 1, 0, -1):
            j = rng.randint_at(seed, round_index * MAX_PLAYERS + i, i + 1)
            swapped = packed_field(order, i, ORDER_BITS) ^ packed_field(order, j, ORDER_BITS)
            order ^= (swapped << (ORDER_BITS * i)) | (swapped << (ORDER_BITS * j))
    st.sc[SC_ROUND_ORDER] = order
    st.sc[SC_ROUND_PLACE] = 0
    st.sc[SC_ACTIVE] = round_seat(st, 0)


@kernel
def advance(st, tab):
    """Run the game until the next decision with >= 2 legal moves, or its end."""
    st.sc[SC_N_OPTIONS] = 0
    while st.sc[SC_OVER] == 0:
        if st.sc[SC_FOLLOW_HEAD] < st.sc[SC_FOLLOW_LEN]:
            if follow_up(st, tab):
                return
            continue
        stage = st.sc[SC_STAGE]
        active = st.sc[SC_ACTIVE]
        if stage == ST_SETUP_PLACE:  # N-8.1 (3): short game start tiles, seat by seat
            seat = st.sc[SC_SETUP_SEAT]
            if seat >= st.sc[SC_PLAYERS]:
                st.sc[SC_STAGE] = ST_TURN_START
                continue
            left = st.seat[seat, P_START_TILES]
            if left == 0:
                st.sc[SC_SETUP_SEAT] += 1
                continue
            st.sc[SC_TILE] = st.start_tiles[seat, left - 1]
            n = list_placements(st, tab, seat, st.sc[SC_TILE])
            if n == 0:
                st.seat[seat, P_START_TILES] -= 1  # cannot happen on real boards
                continue
            if offer(st, tab, D_PLACE, seat, n):
                return
        elif stage == ST_TURN_START:
            if start_turn(st, tab):
                return
        elif stage == ST_PLACE_ENCLOSURE:
            n = list_placements(st, tab, active, st.sc[SC_TILE])
            if offer(st, tab, D_PLACE, active, n):
                return
        elif stage == ST_POPULATE:
            n = populate_options(st, active) if st.sc[SC_POP_COUNT] < tab.rules[R_POPULATE_MAX] else 0
            if n == 0 or (n == 1 and st.options[0] == POP_STOP):
                st.sc[SC_STAGE] = ST_MAIN_DONE
                continue
            if offer(st, tab, D_POPULATE, active, n):
                return
        elif stage == ST_ANIMAL_CHOICE:
            n = animal_choice_options(st, tab, active, st.sc[SC_ELEPHANT])
            if offer(st, tab, D_ANIMAL_CHOICE, active, n):
                return
        elif stage == ST_ANIMAL_PLACE:
            n = animal_place_options(st, tab, active)
            if n == 0:  # nothing left, or no target: the animal is declined (N-4.3)
                st.sc[SC_PENDING_0] = NO_SPECIES
                st.sc[SC_PENDING_1] = NO_SPECIES
                st.sc[SC_STAGE] = ST_MAIN_DONE
                continue
            if offer(st, tab, D_ANIMAL_PLACE, active, n):
                return
        elif stage == ST_MAIN_DONE:
            main_action_done(st, tab)
        elif stage == ST_BREED:
            seat = (active + st.sc[SC_BREEDER]) % st.sc[SC_PLAYERS]
            st.sc[SC_BRED] = 0
            n = breed_options(st, tab, seat, st.events[st.sc[SC_EVENT]])
            st.sc[SC_STAGE] = ST_BONUS if n > 0 else ST_BREED_NEXT
            if n > 0 and offer(st, tab, D_BREED, seat, n):
                return
        elif stage == ST_BONUS:
            seat = (active + st.sc[SC_BREEDER]) % st.sc[SC_PLAYERS]
            st.sc[SC_STAGE] = ST_BREED_NEXT
            if (tab.rules[R_BONUS_ENABLED] != 0 and st.sc[SC_BRED] > 0 and (
                    tab.rules[R_BONUS_PER_EVENT] != 0 or st.seat[seat, P_BONUS_TAKEN] == 0)):
                n = bonus_options(st, tab, seat)
                if n > 0:
                    st.seat[seat, P_BONUS_TAKEN] = 1
                    if offer(st, tab, D_BONUS, seat, n):
                        return
        elif stage == ST_BREED_NEXT:  # N-6.1: every player from the active one, event by event
            st.sc[SC_BREEDER] += 1
            st.sc[SC_STAGE] = ST_BREED
            if st.sc[SC_BREEDER] >= st.sc[SC_PLAYERS]:
                st.sc[SC_BREEDER] = 0
                st.sc[SC_EVENT] += 1
                if st.sc[SC_EVENT] >= st.sc[SC_N_EVENTS]:
                    st.sc[SC_STAGE] = ST_TURN_END
                else:
                    st.sc[SC_BREEDING_EVENTS] += 1
                    reset_house_asked(st)
        elif stage == ST_TURN_END:
            end_turn(st, tab)
    st.sc[SC_DECISION] = D_NONE
    st.sc[SC_N_OPTIONS] = 0


@kernel
def check_move(st, tab, code, dest):
    """T18: never onto an empty bay; a multiplayer move is 1..range counted steps."""
    if not counts_as_step(st, tab, dest):
        violation(st, INV_EMPTY_BAY)
    if code != MARKER_NONE:
        return
    steps = 0
    space = st.sc[SC_ELEPHANT]
    while space != dest:
        space = next_space(space)
        if counts_as_step(st, tab, space):
            steps += 1
    if steps < 1 or steps > tab.rules[R_RANGE]:
        violation(st, INV_MOVE_RANGE)


@kernel
def apply_effects(st, tab, move):
    """Apply one legal move of the current decision (no advancing)."""
    decision = st.sc[SC_DECISION]
    seat = st.sc[SC_DECIDER]
    if decision == D_DEST:
        code = move // 32
        dest = move % 32
        if code >= 1 and code <= 5:
            st.markers_used[code - 1] = 1
        if st.sc[SC_CHECKED] != 0:
            check_move(st, tab, code, dest)
        if code != 1:  # marker "0" stays and crosses nothing (N-8.2)
            record_crossings(st, tab, st.sc[SC_ELEPHANT], dest)
        st.sc[SC_ELEPHANT] = dest
        if tab.strip_kind[dest] == SPACE_ANIMALS:
            st.sc[SC_STAGE] = ST_ANIMAL_CHOICE
        else:
            st.bay_count[dest] -= 1
            st.sc[SC_TILE] = st.bay_tiles[dest, st.bay_count[dest]]
            st.bay_tiles[dest, st.bay_count[dest]] = -1
            st.sc[SC_STAGE] = ST_PLACE_ENCLOSURE
    elif decision == D_PLACE:
        e = new_enclosure(st, tab, seat, st.sc[SC_TILE], move)
        if st.sc[SC_STAGE] == ST_SETUP_PLACE:
            st.seat[seat, P_START_TILES] -= 1
        else:
            st.sc[SC_NEW_ENCLOSURE] = e
            st.sc[SC_POP_SPECIES] = NO_SPECIES
            st.sc[SC_POP_COUNT] = 0
            st.sc[SC_STAGE] = ST_POPULATE
    elif decision == D_POPULATE:
        if move == POP_STOP:
            st.sc[SC_STAGE] = ST_MAIN_DONE
            return
        if move >= SRC_ENCLOSURE:
            source = move - SRC_ENCLOSURE
            species = st.enc[seat, source, E_SPECIES]
            st.enc[seat, source, E_COUNT] -= 1
        else:
            species = st.house[seat, move - SRC_HOUSE]
            st.house[seat, move - SRC_HOUSE] = NO_SPECIES
        put_in_enclosure(st, seat, st.sc[SC_NEW_ENCLOSURE], species)
        st.sc[SC_POP_SPECIES] = species
        st.sc[SC_POP_COUNT] += 1
    elif decision == D_ANIMAL_CHOICE:
        if move == CHOICE_PAIR:
            st.sc[SC_PENDING_0] = tab.strip_pair[st.sc[SC_ELEPHANT], 0]
            st.sc[SC_PENDING_1] = tab.strip_pair[st.sc[SC_ELEPHANT], 1]
        else:
            st.sc[SC_PENDING_0] = move
            st.sc[SC_PENDING_1] = NO_SPECIES
        st.sc[SC_PLACED_ANIMALS] = 0
        st.sc[SC_STAGE] = ST_ANIMAL_PLACE
    elif decision == D_ANIMAL_PLACE:
        if move == DECLINE:
            st.sc[SC_PENDING_0] = NO_SPECIES
            st.sc[SC_PENDING_1] = NO_SPECIES
            return
        slot = move // 64
        target = move % 64
        species = st.sc[SC_PENDING_0 + slot]
        st.sc[SC_PENDING_0 + slot] = NO_SPECIES
        st.sc[SC_PLACED_ANIMALS] += 1
        st.seat[seat, P_ACQUIRED] += 1
        take_from_supply(st, tab, species)
        if target == TARGET_HOUSE:
            st.house[seat, free_house(st, seat)] = species
        else:
            put_in_enclosure(st, seat, target, species)
            push_follow_up(st, seat, target)
    elif decision == D_HOUSE_ADD:
        e = st.follow[st.sc[SC_FOLLOW_HEAD]]
        st.enc[seat, e, E_HOUSE_ASKED] = 1
        if move == 1:
            species = st.enc[seat, e, E_SPECIES]
            st.house[seat, house_with(st, seat, species)] = NO_SPECIES
            put_in_enclosure(st, seat, e, species)
            st.seat[seat, P_HOUSE_ADDS] += 1
            st.seat[seat, P_EVENT_HOUSE_ADDS] += 1
    elif decision == D_KEEP_ONE:
        if move == 1:  # E21: one animal of the scored species into a free house
            species = st.sc[SC_FOLLOW_SPECIES]
            take_from_supply(st, tab, species)
            st.house[seat, free_house(st, seat)] = species
            st.seat[seat, P_KEPT] += 1
        st.sc[SC_FOLLOW_STEP] = FU_ATTRACTION
    elif decision == D_ATTRACTION:
        if move == NO_ATTRACTION:
            pop_follow_up(st)
        else:
            st.sc[SC_TILE] = FIRST_ATTRACTION + move
            st.sc[SC_FOLLOW_STEP] = FU_ATTRACTION_PLACE
    elif decision == D_ATTRACTION_PLACE:
        kind = st.sc[SC_TILE] - FIRST_ATTRACTION
        paint(st, tab, seat, move, CELL_ATTRACTION + kind)
        st.attraction_supply[kind] -= 1
        st.seat[seat, P_ATTRACTIONS] += 1
        st.seat[seat, P_ATTRACTION_SQUARES] += tab.shape_squares[st.sc[SC_TILE]]
        pop_follow_up(st)
    elif decision == D_BREED:
        species = st.events[st.sc[SC_EVENT]]
        first = move // 64
        second = move % 64
        if first != NO_ENCLOSURE:
            st.sc[SC_BRED] += breed_into(st, tab, seat, first, species)
        if second != NO_ENCLOSURE:
            st.sc[SC_BRED] += breed_into(st, tab, seat, second, species)
    elif decision == D_BONUS:
        if move != NO_ENCLOSURE:
            st.seat[seat, P_BONUS_YOUNG] += breed_into(st, tab, seat, move, st.enc[seat, move, E_SPECIES])


@kernel
def apply_move(st, tab, move):
    """Apply a legal move of the current decision and run on to the next decision, without the
    invariants (unchecked batches, the search's scratch games): `apply_checked_move` runs them,
    so a kernel that calls only this one compiles no `check_invariants`."""
    apply_effects(st, tab, move)
    advance(st, tab)


@kernel
def apply_checked_move(st, tab, move):
    """`apply_move`, then the invariants (N-11 T18) when the game is checked (SC_CHECKED): what
    checked batches and the step API play."""
    apply_move(st, tab, move)
    if st.sc[SC_CHECKED] != 0:
        check_invariants(st, tab)


@kernel
def solo_score(st, tab):
    """N-8.2 / E16: spaces from the elephant to the start space, 10 as printed (bga), or to the
    end of the last lap (lap_aware), if the board is complete; else minus the uncovered squares."""
    if not board_complete(st, tab, 0):
        return -empty_squares(st, tab, 0)
    distance = 0
    space = st.sc[SC_ELEPHANT]
    while space != st.sc[SC_START_SPACE]:
        space = next_space(space)
        distance += 1
    if tab.rules[R_SOLO_LAP_AWARE] != 0:
        distance += N_SPACES * max(0, tab.rules[R_SOLO_LAPS] - 1 - st.sc[SC_LAPS])
    return distance
