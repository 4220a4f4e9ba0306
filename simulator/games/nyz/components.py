"""New York Zoo components as plain data: tiles, attractions, boards, the action strip.

This module owns the physical facts of the game (seeds/new-york-zoo.md, N-1 to N-3). Nothing
here is a rule knob; `params.py` turns the board geometry, movement ranges, tiles per bay, the
strip, the tile classes, the attraction copies and the solo markers into knobs whose defaults are
taken from here. Shapes are written as rows, top to bottom,
`#` = covered square, `.` = empty.
"""

from __future__ import annotations

# Species, in the order used by every array (state.py: species index).
SPECIES = ("meerkat", "flamingo", "kangaroo", "penguin", "fox")
MEERKAT, FLAMINGO, KANGAROO, PENGUIN, FOX = range(5)

# N-1.2: wooden animals per species plus 3 per animal tile (assumed 2 tiles per species).
PHYSICAL_ANIMALS = {"meerkat": 34, "flamingo": 32, "kangaroo": 30, "penguin": 30, "fox": 30}

# N-1.3: the 45 enclosure tiles, id -> (class, rows). Order = tile index 0..44.
ENCLOSURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "A1": ("A", (".#.", "###")),
    "A2": ("A", (".#", "##", "#.")),
    "A3": ("A", (".#", "##", "#.")),
    "A4": ("A", (".#.", "###")),
    "A5": ("A", ("##", "#.", "#.")),
    "A6": ("A", ("##", "#.", "#.")),
    "A7": ("A", ("##", "##")),
    "A8": ("A", ("####",)),
    "B1": ("B", ("#...", "####")),
    "B2": ("B", (".#.", "###", ".#.")),
    "B3": ("B", (".#", "##", ".#", ".#")),
    "B4": ("B", (".##", "##.", ".#.")),
    "B5": ("B", ("###", ".#.", ".#.")),
    "B6": ("B", (".##", "##.", "#..")),
    "B7": ("B", (".##", "##.", "#..")),
    "B8": ("B", (".#", "##", ".#", ".#")),
    "B9": ("B", (".##", "##.", ".#.")),
    "B10": ("B", ("..#", "..#", "###")),
    "B11": ("B", (".##", "###")),
    "B12": ("B", (".##", ".#.", "##.")),
    "B13": ("B", ("#####",)),
    "B14": ("B", (".#", "##", "#.", "#.")),
    "B15": ("B", ("##", "#.", "##")),
    "C1": ("C", ("##.", "###", ".#.")),
    "C2": ("C", ("..#", ".##", "###")),
    "C3": ("C", ("#...", "##..", ".###")),
    "C4": ("C", ("#.", "##", "##", "#.")),
    "C5": ("C", ("#..", "###", ".##")),
    "C6": ("C", ("###", ".#.", ".##")),
    "C7": ("C", ("####", "#..#")),
    "C8": ("C", (".###", "###.")),
    "C9": ("C", (".#.", "###", ".#.", ".#.")),
    "C10": ("C", ("###.", "#.##")),
    "C11": ("C", ("#..", "###", ".#.", ".#.")),
    "C12": ("C", ("#.", "#.", "#.", "##", "#.")),
    "C13": ("C", ("##.", "###", "#..")),
    "C14": ("C", ("#..", "##.", ".##", "..#")),
    "C15": ("C", ("####", "#.#.")),
    "D1": ("D", ("...#", "####", ".##.")),
    "D2": ("D", (".##", "###", "##.")),
    "D3": ("D", ("##..", "####", "..#.")),
    "D4": ("D", ("####", ".##.", ".#..")),
    "D5": ("D", (".#..#", "#####")),
    "D6": ("D", ("#.#", "###", "##.")),
    "D7": ("D", ("..#.", ".###", "###.")),
}
TILE_CLASSES = ("A", "B", "C", "D")

# N-1.4: attraction types, id -> (rows, copies); None = unlimited (the 1x1, knob
# `attraction_1x1_unlimited`; physically 16 copies).
ATTRACTIONS: dict[str, tuple[tuple[str, ...], int | None]] = {
    "T8": (("####", "####"), 1),
    "T6": (("###", "###"), 1),
    "T4O": (("##", "##"), 1),
    "T4I": (("####",), 1),
    "T3I": (("###",), 3),
    "T3L": (("##", "#."), 3),
    "T2": (("##",), 6),
    "T1": (("#",), None),
}
PHYSICAL_1X1_ATTRACTIONS = 16

# N-3.1: the strip, spaces 1..25 clockwise. A bay lists its setup classes bottom -> top; an
# animal space lists its pictured pair.
STRIP: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bay", ("B", "C", "D")),  # 1
    ("animals", ("fox", "kangaroo")),  # 2
    ("bay", ("B", "C", "D")),  # 3
    ("bay", ("A", "B", "C")),  # 4
    ("animals", ("penguin", "meerkat")),  # 5
    ("bay", ("A", "B", "C")),  # 6
    ("animals", ("penguin", "fox")),  # 7
    ("bay", ("A", "B", "C")),  # 8
    ("bay", ("A", "B", "C")),  # 9
    ("animals", ("fox", "flamingo")),  # 10, start
    ("bay", ("B", "C", "D")),  # 11
    ("animals", ("penguin", "kangaroo")),  # 12
    ("bay", ("B", "C", "D")),  # 13
    ("bay", ("B", "C", "D")),  # 14
    ("animals", ("kangaroo", "meerkat")),  # 15
    ("bay", ("B", "C", "D")),  # 16
    ("animals", ("flamingo", "meerkat")),  # 17
    ("bay", ("A", "B", "C")),  # 18
    ("bay", ("A", "B", "C")),  # 19
    ("animals", ("flamingo", "kangaroo")),  # 20
    ("bay", ("A", "B", "C")),  # 21
    ("animals", ("fox", "meerkat")),  # 22
    ("bay", ("A", "B", "C")),  # 23
    ("bay", ("B", "C", "D")),  # 24
    ("animals", ("penguin", "flamingo")),  # 25
)
START_SPACE = 10
# N-3.2: breeding lines as (species, trigger space = first space after the line).
BREEDING_LINES = (("kangaroo", 4), ("penguin", 9), ("fox", 14), ("meerkat", 19), ("flamingo", 24))

# N-8.2: solo range markers, in marker index order.
SOLO_MARKERS = ("0", "1", "2", "3", "4+")


def strip_text(space) -> str:
    """A STRIP entry as the `strip.spaces` knob writes it: 'BCD' or 'fox+kangaroo'."""
    kind, content = space
    return "".join(content) if kind == "bay" else "+".join(content)


def tiles_of_class(cls: str) -> list[str]:
    """Ids of the enclosure tiles printed in a class (the `tile_classes` defaults)."""
    return [tile for tile, (tile_class, _) in ENCLOSURES.items() if tile_class == cls]


def board(width, height, barn_rows, houses, start_animals):
    return {
        "width": width,
        "height": height,
        "barn_rows": list(barn_rows),
        "houses": houses,
        "start_animals": list(start_animals),
    }


# N-2: default boards. Key: "solo_3_houses" / "solo_4_houses" for 1 player, "p<n>" for n players
# with one board per seat (seat 1 = start player).
_MF, _MK, _FK = ("meerkat", "flamingo"), ("meerkat", "kangaroo"), ("flamingo", "kangaroo")
BOARDS = {
    "solo_3_houses": board(11, 9, (4, 4, 4, 4, 3), 3, _MF),
    "solo_4_houses": board(14, 9, (5, 5, 4, 4, 4), 4, _MK),
    "p2": [board(14, 9, (4, 4, 4, 4, 3), 3, _MF), board(14, 9, (5, 4, 4, 4, 4), 3, _MK)],
    "p3": [
        board(11, 9, (4, 4, 4, 3, 3), 2, _MF),
        board(11, 9, (4, 4, 4, 4, 3), 3, _MF),
        board(11, 9, (5, 4, 4, 4, 4), 3, _MK),
    ],
    "p4": [
        board(9, 9, (4, 4, 4, 3, 3), 2, _MF),
        board(9, 9, (4, 4, 4, 4, 3), 3, _MF),
        board(9, 9, (5, 4, 4, 4, 4), 3, _MK),
        board(9, 9, (5, 5, 4, 4, 4), 4, _MK),
    ],
    "p5": [
        board(8, 9, (4, 4, 4, 3, 3), 2, _MF),
        board(8, 9, (4, 4, 4, 4, 3), 3, _MF),
        board(8, 9, (5, 4, 4, 4, 4), 3, _MK),
        board(8, 9, (5, 5, 4, 4, 4), 4, _MK),
        board(8, 9, (5, 5, 5, 4, 4), 4, _FK),
    ],
}

MOVEMENT_RANGE = {2: 4, 3: 3, 4: 4, 5: 3}  # N-4.1
BONUS_BREEDING_PLAYER_COUNTS = (1, 2, 3)  # N-6.3
TILES_PER_BAY = 3  # N-3.3 standard; solo and short game keep 2


def shape_cells(rows) -> list[tuple[int, int]]:
    """(row, col) of every covered square of a shape."""
    return [(r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "#"]


def orientations(rows) -> list[list[tuple[int, int]]]:
    """Distinct orientations (4 rotations x flip) of a shape, each normalised to (0, 0)."""
    cells = shape_cells(rows)
    seen, result = set(), []
    for flip in (False, True):
        current = [(r, -c) if flip else (r, c) for r, c in cells]
        for _ in range(4):
            current = [(c, -r) for r, c in current]
            top, left = min(r for r, _ in current), min(c for _, c in current)
            normal = tuple(sorted((r - top, c - left) for r, c in current))
            if normal not in seen:
                seen.add(normal)
                result.append(list(normal))
    return result
