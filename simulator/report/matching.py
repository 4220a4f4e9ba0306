"""Which cells of two runs play the same games, for `zoosim compare` and the report's suggested
compare.

Cells pair by what they play, not by how their knobs were written: a sweep value, a case, a
study's `rules:` and a tune's `best.yaml` all end up as the cell's resolved rules (the game's
params model with presets and defaults filled in, as the manifest stores them), its player count
and its seating. Two cells are candidates when they play the same game with the same number of
players and either the same seating or the same label (a seating change under the same label is
then the change under test). Among all candidate pairs the closest pair first: same seating, then
the fewest rule differences, then the same label; each cell is used at most once.
"""

from __future__ import annotations

from simulator.manifest_cell import ManifestCell
from simulator.plan import flatten_dotted


def any_pair(cells_a: list[ManifestCell], cells_b: list[ManifestCell]) -> bool:
    """Whether `match_cells` pairs any cells, in time linear in the cells: some A cell and B cell
    share the game, player count and seating, or the game, player count and label."""
    def keys(cell: ManifestCell) -> tuple[tuple, tuple]:
        return ((cell.game, cell.players, "seats", *cell.seats), (cell.game, cell.players, "label", cell.label))

    seen = {key for cell in cells_a for key in keys(cell)}
    return any(key in seen for cell in cells_b for key in keys(cell))


def match_cells(cells_a: list[ManifestCell], cells_b: list[ManifestCell]) -> list[tuple[ManifestCell, ManifestCell]]:
    """(A cell, B cell) pairs that play the same thing (see the module doc), in A's cell order.

    The closest pairs are those of the same seating and the same rules; they are found by their
    rules' key in time linear in the cells, and taken first (in the order the module doc gives,
    as the general step would take them). Only the cells left unpaired are compared pair by pair,
    with each cell's rules flattened once."""
    flat = {id(cell): flatten_dotted(cell.rules) for cell in [*cells_a, *cells_b]}
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    pairs: list[tuple[ManifestCell, ManifestCell]] = []

    def take(candidates: list[tuple[tuple, dict, dict]]) -> None:
        for _, cell_a, cell_b in sorted(candidates, key=lambda candidate: candidate[0]):
            if cell_a.index in taken_a or cell_b.index in taken_b:
                continue
            taken_a.add(cell_a.index)
            taken_b.add(cell_b.index)
            pairs.append((cell_a, cell_b))

    def same_play(cell: ManifestCell) -> tuple:
        return (cell.game, cell.players, tuple(cell.seats), repr(sorted(flat[id(cell)].items())))

    by_play: dict[tuple, list[dict]] = {}
    for cell_b in cells_b:
        by_play.setdefault(same_play(cell_b), []).append(cell_b)
    take([((False, 0, cell_b.label != cell_a.label, cell_a.index, cell_b.index), cell_a, cell_b)
          for cell_a in cells_a for cell_b in by_play.get(same_play(cell_a), [])])
    left_b = [cell for cell in cells_b if cell.index not in taken_b]
    candidates = []
    for cell_a in (cell for cell in cells_a if cell.index not in taken_a):
        for cell_b in left_b:
            if cell_b.game != cell_a.game or cell_b.players != cell_a.players:
                continue
            same_seats = cell_b.seats == cell_a.seats
            if not same_seats and cell_b.label != cell_a.label:
                continue
            flat_a, flat_b = flat[id(cell_a)], flat[id(cell_b)]
            differences = sum(flat_a.get(key) != flat_b.get(key) for key in flat_a.keys() | flat_b.keys())
            closeness = (not same_seats, differences, cell_b.label != cell_a.label, cell_a.index, cell_b.index)
            candidates.append((closeness, cell_a, cell_b))
    take(candidates)
    return sorted(pairs, key=lambda pair: pair[0].index)
