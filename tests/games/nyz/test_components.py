"""Components and geometry against the specification's counts (seeds N-1..N-3, T16, T17, E30)."""

import pytest

from simulator.errors import ZoosimError
from simulator.games.nyz import GAME
from simulator.games.nyz import components as comp
from simulator.games.nyz import params as P
from simulator.games.nyz.tables import kernel_tables


def test_enclosure_tiles_per_class_and_squares():
    """N-1.3: 8 A x 4, 15 B x 5, 15 C x 6, 7 D x 7 = 45 tiles, 246 squares."""
    per_class = {}
    for cls, rows in comp.ENCLOSURES.values():
        squares = len(comp.shape_cells(rows))
        per_class.setdefault(cls, []).append(squares)
    assert {cls: len(v) for cls, v in per_class.items()} == {"A": 8, "B": 15, "C": 15, "D": 7}
    assert {cls: set(v) for cls, v in per_class.items()} == {
        "A": {4}, "B": {5}, "C": {6}, "D": {7}
    }
    assert sum(sum(v) for v in per_class.values()) == 246


@pytest.mark.parametrize(
    "tile, orientations",
    [("A7", 1), ("A8", 2), ("A1", 4), ("A5", 8), ("B2", 1), ("B13", 2), ("D2", 2), ("C7", 4)],
)
def test_distinct_orientations(tile, orientations):
    """N-1.3 'distinct orientations' column."""
    assert len(comp.orientations(comp.ENCLOSURES[tile][1])) == orientations


def test_attractions():
    """N-1.4: 16 limited attractions of 52 squares, 1x1 unlimited."""
    limited = [(rows, n) for rows, n in comp.ATTRACTIONS.values() if n is not None]
    assert sum(n for _, n in limited) == 16
    assert sum(n * len(comp.shape_cells(rows)) for rows, n in limited) == 52
    assert comp.ATTRACTIONS["T1"][1] is None


def test_strip_has_ten_distinct_pairs_and_bay_classes():
    """N-3.1: 10 animal spaces with the 10 distinct pairs; 7 D-bays and 8 A-bays."""
    pairs = [frozenset(c) for kind, c in comp.STRIP if kind == "animals"]
    assert len(pairs) == 10 and len(set(pairs)) == 10
    for species in comp.SPECIES:
        assert sum(species in p for p in pairs) == 4
    bays = [c for kind, c in comp.STRIP if kind == "bay"]
    assert len(bays) == 15
    assert sum(c == ("B", "C", "D") for c in bays) == 7
    assert sum(c == ("A", "B", "C") for c in bays) == 8
    assert [t for _, t in comp.BREEDING_LINES] == [4, 9, 14, 19, 24]


SQUARES_TO_FILL = {
    1: [80],
    2: [107, 105],
    3: [81, 80, 78],
    4: [63, 62, 60, 59],
    5: [54, 53, 51, 50, 49],
}


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_squares_to_fill_per_board(players):
    """N-2 table and T16: squares to fill per (player count, seat)."""
    tables = kernel_tables(P.Params(players=players))
    assert tables.to_fill.tolist() == SQUARES_TO_FILL[players]


def test_solo_four_house_board():
    tables = kernel_tables(P.Params(players=1, solo_board="4_houses"))
    assert tables.to_fill.tolist() == [104] and tables.houses.tolist() == [4]


def test_later_seats_have_smaller_areas_and_more_houses():
    """E30: later seats get fewer squares and at least as many houses."""
    for players in (3, 4, 5):
        tables = kernel_tables(P.Params(players=players))
        assert list(tables.to_fill) == sorted(tables.to_fill, reverse=True)
        assert list(tables.houses) == sorted(tables.houses)


def _count(tables, seat, name):
    return int(tables.place_count[seat, (list(comp.ENCLOSURES) + list(comp.ATTRACTIONS)).index(name)])


@pytest.mark.parametrize(
    "players, seat, expected",
    [
        (5, 4, [33, 47, 33, 21, 117, 36, 49]),
        (4, 0, [46, 72, 54, 33, 209, 60, 63]),
        (2, 0, [85, 145, 122, 67, 460, 128, 107]),
    ],
)
def test_t17_placement_counts(players, seat, expected):
    """T17 (and E24: placements need not touch anything): distinct placements on empty boards."""
    tables = kernel_tables(P.Params(players=players))
    names = ["A7", "A8", "B13", "B2", "D1", "T8", "T1"]
    assert [_count(tables, seat, n) for n in names] == expected


@pytest.mark.parametrize(
    "knobs, message",
    [
        ({"geometry.boards.p2.seat1.barn_rows": [4, 15]}, "barn row 2 covers 15 squares"),
        ({"geometry.boards.p2.seat1.width": 20}, "at most 128"),
        ({"geometry.boards.p2.seat1.barn_rows": [14] * 9}, "fewer than 4 squares"),
        ({"geometry.boards.p2.seat2.houses": 1}, "do not fit in 1 houses"),
        ({"geometry.boards.p2.seat2.houses": 9}, "9 houses do not fit"),
        ({"geometry.boards.p2.seat1.barn_rows": [1] * 12}, "barn has 12 rows"),
        ({"geometry.boards.p2.seat1.barn_rows": [14] * 7 + [13, 11]},
         "no 4-square enclosure"),
        ({"short_game_2p": True, "players": 3}, "short_game_2p needs players = 2"),
        ({"geometry.boards.p2.seat1.colour": 3}, "unknown key 'colour'"),
    ],
)
def test_invalid_geometry_is_rejected_with_reason(knobs, message):
    with pytest.raises(ZoosimError, match=message):
        GAME.make_params(knobs)


def test_geometry_knob_changes_the_board():
    params = GAME.make_params({"geometry.boards.p2.seat1.width": 12})
    assert kernel_tables(params).to_fill.tolist() == [9 * 12 - 19, 105]


def test_every_knob_has_rule_and_description():
    knobs = GAME.knobs()
    assert len(knobs) > 40
    for knob in knobs:
        assert knob.rule.startswith("N-"), knob.name
        assert knob.description, knob.name
    names = {k.name for k in knobs}
    for expected in ("animal_supply", "breeding_order", "max_turns_per_player",
                     "geometry.boards.p5.seat5.barn_rows", "geometry.movement_range.p3",
                     "geometry.tiles_per_bay", "geometry.bonus_breeding_player_counts"):
        assert expected in names
