"""New York Zoo drawn for people (#21 finding 8): the final-position drawing outlines every
enclosure, so two enclosures of one species side by side are drawn as two (they merged); and
`zoosim play nyz` draws the board under every placement (it printed coordinate lists and showed
boards only at the end)."""

import re

from simulator.games import get_game
from simulator.games.nyz.render import region_borders, trace
from simulator.games.nyz.state import CELL_ATTRACTION, CELL_BARN, CELL_EMPTY


def test_two_adjacent_enclosures_are_separated_and_each_is_outlined():
    # enclosure 0 (two squares) beside enclosure 1 (two squares), then an empty square and the barn
    codes = [[0, 0, 1],
             [CELL_EMPTY, 1, CELL_BARN]]
    segments = set(region_borders(codes))
    assert ((2, 0), (2, 1)) in segments  # between 0 and 1 in the top row
    assert ((1, 1), (2, 1)) in segments  # between 0 (above) and 1 (below)
    assert ((0, 0), (1, 0)) in segments and ((0, 0), (0, 1)) in segments  # the board's edge next to 0
    assert ((0, 1), (0, 2)) not in segments  # the empty square's board edge: not an enclosure
    assert ((1, 0), (1, 1)) not in segments  # inside enclosure 0
    # enclosure 0 outlined all round: 6 unit edges (2 top, 2 bottom, 1 left, 1 right)
    around_zero = [s for s in segments if s in {((0, 0), (1, 0)), ((1, 0), (2, 0)), ((0, 1), (1, 1)),
                                                ((1, 1), (2, 1)), ((0, 0), (0, 1)), ((2, 0), (2, 1))}]
    assert len(around_zero) == 6


def test_attractions_and_empty_squares_get_no_outline_of_their_own():
    assert region_borders([[CELL_EMPTY, CELL_ATTRACTION], [CELL_BARN, CELL_EMPTY]]) == []


def test_the_trace_draws_the_board_under_every_placement():
    game = get_game("nyz")
    params = game.make_params({"players": 2})
    text = trace(params, game.seat_policies([("greedy", {})] * 2), 5)
    lines = text.splitlines()
    placements = [number for number, line in enumerate(lines) if "as enclosure " in line]
    assert placements and not re.search(r"on \[\(", text)  # no coordinate lists
    for number in placements:
        letter = re.search(r"as enclosure (\w)", lines[number]).group(1)
        grid = []
        for line in lines[number + 1:]:
            if not re.fullmatch(r"    [#.+a-zA-Z]+", line):
                break
            grid.append(line)
        assert grid and any(letter in row for row in grid), (lines[number], grid)
