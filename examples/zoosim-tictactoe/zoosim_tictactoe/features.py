"""The learned player's features (specs.FEATURE_NAMES) of a board after a move, from the mover's
view: a row the learned evaluation values (intercept + weights . row)."""

import numpy as np

# the eight lines of three cells (cells numbered 0-8 row by row, T-1)
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
CENTER = 4
CORNERS = (0, 2, 6, 8)
EMPTY = -1


def has_line(cells, seat: int) -> bool:
    return any(all(cells[cell] == seat for cell in line) for line in LINES)


def open_twos(cells, seat: int) -> int:
    """Lines holding two of the seat's marks and an empty cell: a win next move."""
    return sum(sum(cells[cell] == seat for cell in line) == 2 and any(cells[cell] == EMPTY for cell in line)
               for line in LINES)


def feature_row(cells, mover: int) -> np.ndarray:
    """The features of `cells` (after the mover's move) for `mover`, in FEATURE_NAMES order."""
    opponent = 1 - mover
    row = np.array([has_line(cells, mover), open_twos(cells, mover), open_twos(cells, opponent),
                    cells[CENTER] == mover, sum(cells[cell] == mover for cell in CORNERS)], dtype=np.float64)
    return row
