"""The read-only arrays New York Zoo's kernels read (`state.Tables`), built from a params object:
the rule array (params.RULES, from the knob declarations), each seat's board geometry and every
precomputed placement, and the strip and supply tables. Layouts are documented in state.py.
"""

from __future__ import annotations

import functools

import numpy as np

from simulator.games.nyz import components as comp
from simulator.games.nyz import state as S
from simulator.games.nyz.params import RULES, Params, placements_of, strip_space, boards_for


def kernel_tables(params: Params) -> S.Tables:
    """The flat arrays the kernels read (state.Tables), for this params object."""
    return S.Tables(rules=RULES.array(params), **_board_arrays(params), **_strip_arrays(params))


def shape_rows() -> list[tuple[str, ...]]:
    """Rows of every shape in shape-id order: 45 enclosures then 8 attraction types."""
    return [rows for _, rows in comp.ENCLOSURES.values()] + [
        rows for rows, _ in comp.ATTRACTIONS.values()
    ]


@functools.lru_cache(maxsize=32)
def _board_tables(width: int, height: int, barn_rows: tuple[int, ...]):
    """Placements of all 53 shapes on one board as (uint64[n, 2], counts per shape)."""
    names = list(comp.ENCLOSURES) + list(comp.ATTRACTIONS)
    masks = [placements_of(width, height, barn_rows, name) for name in names]
    flat = [m for shape in masks for m in shape]
    bits = np.array([[m & (2**64 - 1), m >> 64] for m in flat], dtype=np.uint64).reshape(-1, 2)
    return bits, np.array([len(shape) for shape in masks], dtype=np.int32)


def _placement_neighbours(bits: np.ndarray, width: int, edges: np.ndarray, board: np.ndarray):
    """bits.neighbours() of every placement row (uint64[n, 2]) at once: uint64[n, 8] (a0 .. d1),
    and the square edges each placement has on the board's border (int32[n])."""
    lo, hi = bits[:, 0], bits[:, 1]

    def up(lo, hi, k):  # bits.shift_up_index
        return lo << np.uint64(k), (hi << np.uint64(k)) | (lo >> np.uint64(64 - k))

    def down(lo, hi, k):  # bits.shift_down_index
        return (lo >> np.uint64(k)) | (hi << np.uint64(64 - k)), hi >> np.uint64(k)

    a = up(lo & ~edges[1, 0], hi & ~edges[1, 1], 1)
    b = down(lo & ~edges[0, 0], hi & ~edges[0, 1], 1)
    c = up(lo, hi, width)
    d = down(lo, hi, width)
    nb = np.stack([part & board[i % 2] for i, part in enumerate((*a, *b, *c, *d))], axis=1)
    border = sum(_popcount(lo & edges[side, 0]) + _popcount(hi & edges[side, 1]) for side in range(4))
    return nb, border.astype(np.int32)


def _popcount(words: np.ndarray) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)


def _split(mask: int) -> list[int]:
    return [mask & (2**64 - 1), mask >> 64]


def _board_arrays(params: Params) -> dict[str, np.ndarray]:
    """Per-seat board geometry (N-2) and every placement of every shape on each board."""
    players = params.players
    boards = boards_for(params)
    board_bits = np.zeros((players, 2), dtype=np.uint64)
    barn_bits = np.zeros((players, 2), dtype=np.uint64)
    edge_bits = np.zeros((players, 4, 2), dtype=np.uint64)
    start_animals = np.full((players, 2), S.NO_SPECIES, dtype=np.int32)
    to_fill = np.zeros(players, dtype=np.int32)
    place_parts, place_first = [], np.zeros((players, S.N_SHAPES), dtype=np.int32)
    nb_parts, border_parts = [], []
    place_count = np.zeros((players, S.N_SHAPES), dtype=np.int32)
    offset = 0
    for seat, b in enumerate(boards):
        w, h = b.width, b.height
        cell = lambda r, c: 1 << (r * w + c)  # noqa: E731
        board_bits[seat] = _split(sum(cell(r, c) for r in range(h) for c in range(w)))
        barn_bits[seat] = _split(
            sum(cell(r, c) for r, run in enumerate(b.barn_rows) for c in range(run))
        )
        edge_bits[seat, 0] = _split(sum(cell(r, 0) for r in range(h)))
        edge_bits[seat, 1] = _split(sum(cell(r, w - 1) for r in range(h)))
        edge_bits[seat, 2] = _split(sum(cell(0, c) for c in range(w)))
        edge_bits[seat, 3] = _split(sum(cell(h - 1, c) for c in range(w)))
        for i, name in enumerate(b.start_animals):
            start_animals[seat, i] = comp.SPECIES.index(name)
        to_fill[seat] = w * h - sum(b.barn_rows)
        bits, counts = _board_tables(w, h, tuple(b.barn_rows))
        place_parts.append(bits)
        nb, border = _placement_neighbours(bits, w, edge_bits[seat], board_bits[seat])
        nb_parts.append(nb)
        border_parts.append(border)
        place_count[seat] = counts
        place_first[seat] = offset + np.concatenate(([0], np.cumsum(counts)[:-1]))
        offset += len(bits)
    return dict(
        width=np.array([b.width for b in boards], dtype=np.int32),
        height=np.array([b.height for b in boards], dtype=np.int32),
        board_bits=board_bits,
        barn_bits=barn_bits,
        edge_bits=edge_bits,
        houses=np.array([b.houses for b in boards], dtype=np.int32),
        start_animals=start_animals,
        to_fill=to_fill,
        place_bits=np.ascontiguousarray(np.concatenate(place_parts)),
        place_nb=np.ascontiguousarray(np.concatenate(nb_parts)),
        place_border=np.concatenate(border_parts),
        place_first=place_first,
        place_count=place_count,
        shape_squares=np.array(
            [sum(line.count("#") for line in rows) for rows in shape_rows()], dtype=np.int32
        ),
    )


def _strip_arrays(params: Params) -> dict[str, np.ndarray]:
    """The strip (N-3), tile classes (N-1.3), supplies (N-1.2, N-1.4) and solo markers (N-8.2)."""
    tile_ids = list(comp.ENCLOSURES)
    tile_class = np.full(S.N_ENCLOSURE_TILES, -1, dtype=np.int32)
    for cls_index, cls in enumerate(comp.TILE_CLASSES):
        for tile in getattr(params.tile_classes, cls):
            tile_class[tile_ids.index(tile)] = cls_index
    strip_kind = np.zeros(26, dtype=np.int32)
    strip_pair = np.full((26, 2), S.NO_SPECIES, dtype=np.int32)
    bay_layers = np.full((26, 3), -1, dtype=np.int32)
    for space, text in enumerate(params.strip.spaces, start=1):
        kind, content = strip_space(text)
        if kind == "bay":
            strip_kind[space] = S.SPACE_BAY
            bay_layers[space] = [comp.TILE_CLASSES.index(cls) for cls in content]
        else:
            strip_kind[space] = S.SPACE_ANIMALS
            strip_pair[space] = [comp.SPECIES.index(sp) for sp in content]
    line_species = np.full(26, S.NO_SPECIES, dtype=np.int32)
    line_rank = np.zeros(S.N_SPECIES, dtype=np.int32)
    lines = sorted(params.strip.breeding_lines.items(), key=lambda line: line[1])
    for rank, (species, trigger) in enumerate(lines):  # E7 bga_index: order on the strip
        line_species[trigger] = comp.SPECIES.index(species)
        line_rank[comp.SPECIES.index(species)] = rank
    caps = params.physical_animals
    copies = [getattr(params.attraction_copies, kind) for kind in comp.ATTRACTIONS]
    if params.attraction_1x1_unlimited:
        copies[-1] = S.UNLIMITED
    return dict(
        tile_class=tile_class,
        strip_kind=strip_kind,
        strip_pair=strip_pair,
        bay_layers=bay_layers,
        line_species=line_species,
        line_rank=line_rank,
        animal_caps=np.array([getattr(caps, sp) for sp in comp.SPECIES], dtype=np.int32),
        attraction_copies=np.array(copies, dtype=np.int32),
        marker_absent=np.array(
            [marker not in params.solo_markers for marker in comp.SOLO_MARKERS], dtype=np.int32
        ),
    )
