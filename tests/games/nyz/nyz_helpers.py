"""Scripted New York Zoo positions for the scenario tests: put tiles, animals and houses on a
board, empty bays, then restart the turn so the engine stops at the next decision. They write the
engine's state arrays directly (layouts in simulator/games/nyz/state.py). Also the policy tests'
shorthands for a seating and a batch of games (`seating`, `play`)."""

import numpy as np

from simulator.games.kernels import allocating, by_ref
from simulator.games.nyz import GAME, components
from simulator.games.nyz.bits import popcount
from simulator.games.nyz.moves import advance, fits, new_enclosure
from simulator.games.nyz.step_api import Position
from simulator.games.nyz.state import (
    CELL_ATTRACTION, CELL_EMPTY, E_COUNT, E_SPECIES, MAX_CELLS, N_ATTRACTION_TYPES, NO_SPECIES,
    ORDER_BITS, P_COVERED, P_HOUSES, P_TURNS, SC_ACTIVE, SC_ELEPHANT, SC_FOLLOW_HEAD,
    SC_FOLLOW_LEN, SC_PLAYERS, SC_ROUND_ORDER, SC_ROUND_PLACE, SC_STAGE, SC_TURNS,
    ST_TURN_START,
)


@allocating
def _advance(st, tab):
    advance(by_ref(st), by_ref(tab))


def shape_index(name: str) -> int:
    names = list(components.ENCLOSURES) + list(components.ATTRACTIONS)
    return names.index(name)


def placement_of(position: Position, seat: int, shape: str, cells=None) -> int:
    """Index of a placement of a shape covering exactly `cells` [(row, col), ...], or the
    first legal placement when cells is None."""
    st, tab = position.state, position.tables
    index = shape_index(shape)
    first = tab.place_first[seat, index]
    width = int(tab.width[seat])
    wanted = None
    if cells is not None:
        wanted = sum(1 << (r * width + c) for r, c in cells)
    for k in range(first, first + tab.place_count[seat, index]):
        mask = int(tab.place_bits[k, 0]) | (int(tab.place_bits[k, 1]) << 64)
        if wanted is None and fits(st, seat, k, tab):
            return k
        if mask == wanted:
            return k
    raise ValueError(f"no placement of {shape} covering {cells}")


def add_enclosure(position, seat, tile, species=None, count=0, cells=None) -> int:
    """Put an enclosure tile on a board with `count` animals; returns its enclosure index."""
    st, tab = position.state, position.tables
    placement = placement_of(position, seat, tile, cells)
    e = new_enclosure(st, tab, seat, shape_index(tile), placement)
    if count:
        st.enc[seat, e, E_SPECIES] = components.SPECIES.index(species)
        st.enc[seat, e, E_COUNT] = count
    st.seat[seat, P_COVERED] = popcount(st.grid[seat, 0], st.grid[seat, 1])
    return e


def cover_squares(position, seat, keep_free: int) -> None:
    """Cover all but the last `keep_free` empty squares of a board with 1x1 attractions."""
    st = position.state
    empty = [i for i in range(MAX_CELLS) if st.cells[seat, i] == CELL_EMPTY]
    for index in empty[: len(empty) - keep_free]:
        st.cells[seat, index] = CELL_ATTRACTION + N_ATTRACTION_TYPES - 1
        st.grid[seat, index // 64] |= np.uint64(1) << np.uint64(index % 64)
    st.seat[seat, P_COVERED] = popcount(st.grid[seat, 0], st.grid[seat, 1])


def set_houses(position, seat, species_or_none) -> None:
    st = position.state
    st.house[seat, :] = NO_SPECIES
    st.seat[seat, P_HOUSES] = len(species_or_none)
    for h, name in enumerate(species_or_none):
        st.house[seat, h] = NO_SPECIES if name is None else components.SPECIES.index(name)


def set_bay(position, space, tiles) -> None:
    """Tiles of a bay, bottom -> top, by name ([] empties it)."""
    st = position.state
    st.bay_tiles[space, :] = -1
    for layer, name in enumerate(tiles):
        st.bay_tiles[space, layer] = shape_index(name)
    st.bay_count[space] = len(tiles)


def restart_turn(position, active=None, elephant=None) -> Position:
    """Start the turn of `active` again (after scripted changes) and stop at its decision. The
    turn is the one of the active seat's place in the current round's seat order: the seats
    before it have moved in this round, the others not (so checked mode's turn-order invariant,
    every seat once a round, holds)."""
    st = position.state
    if active is not None:
        st.sc[SC_ACTIVE] = active
    players = int(st.sc[SC_PLAYERS])
    order = [(int(st.sc[SC_ROUND_ORDER]) >> (ORDER_BITS * place)) % (1 << ORDER_BITS) for place in range(players)]
    place = order.index(int(st.sc[SC_ACTIVE]))
    round_index = max(int(st.sc[SC_TURNS]) - 1, 0) // players
    st.sc[SC_ROUND_PLACE] = place
    st.sc[SC_TURNS] = round_index * players + place
    for earlier, seat in enumerate(order):
        st.seat[seat, P_TURNS] = round_index + (earlier < place)
    if elephant is not None:
        st.sc[SC_ELEPHANT] = elephant
    st.sc[SC_STAGE] = ST_TURN_START
    st.sc[SC_FOLLOW_HEAD] = 0
    st.sc[SC_FOLLOW_LEN] = 0
    _advance(st, position.tables)
    return position


def seating(*policies):
    """The seat policies of (name, params) pairs, slot order."""
    return GAME.seat_policies([(name, params) for name, params in policies])


def play(params, seats, seeds, rotations=None, check=False):
    """play_batch's columns for the seeds (rotation 0 unless given)."""
    seeds = np.asarray(seeds, dtype=np.uint64)
    rotations = np.zeros(len(seeds), dtype=np.int64) if rotations is None else np.asarray(rotations, dtype=np.int64)
    return GAME.play_batch(params, seats, seeds, rotations, check=check)
