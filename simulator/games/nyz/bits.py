"""128-bit bitboard helpers on (lo, hi) uint64 pairs, shared by the engine and the policies, and
the field of a word packed with small fields (packed_field: the round's seat order, state.py).

Square index = row * width + col (state.py). Shifting by 1 moves a square to its right/left
neighbour, shifting by the board width moves it one row down/up; column masks stop a shift from
wrapping a square into the neighbouring row.
"""

import numpy as np

from simulator.games.kernels import kernel

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)

@kernel
def popcount64(x):
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@kernel
def popcount(lo, hi):
    return popcount64(lo) + popcount64(hi)


@kernel
def shift_up_index(lo, hi, k):
    """Bits moved to higher square indices by k (0 < k < 64)."""
    kk = np.uint64(k)
    return lo << kk, (hi << kk) | (lo >> np.uint64(64 - k))


@kernel
def shift_down_index(lo, hi, k):
    """Bits moved to lower square indices by k (0 < k < 64)."""
    kk = np.uint64(k)
    return (lo >> kk) | (hi << np.uint64(64 - k)), hi >> kk


@kernel
def has_bit(lo, hi, index):
    if index < 64:
        return (lo >> np.uint64(index)) & _ONE == _ONE
    return (hi >> np.uint64(index - 64)) & _ONE == _ONE


@kernel
def neighbours(lo, hi, width, edges, board):
    """Four masks: squares whose left / right / upper / lower neighbour is in (lo, hi).

    `edges` = Tables.edge_bits[seat] (first col, last col, first row, last row), `board` =
    Tables.board_bits[seat].
    """
    # left neighbour in set: shift right by one index, but a last-column square does not move
    # to the next row's first column
    a_lo, a_hi = shift_up_index(lo & ~edges[1, 0], hi & ~edges[1, 1], 1)
    b_lo, b_hi = shift_down_index(lo & ~edges[0, 0], hi & ~edges[0, 1], 1)
    c_lo, c_hi = shift_up_index(lo, hi, width)
    d_lo, d_hi = shift_down_index(lo, hi, width)
    return (
        a_lo & board[0], a_hi & board[1], b_lo & board[0], b_hi & board[1],
        c_lo & board[0], c_hi & board[1], d_lo & board[0], d_hi & board[1],
    )


@kernel
def packed_field(word, index, bits):
    """Field `index` (0 = the lowest bits) of an integer packed with fields of `bits` bits each."""
    return (word >> (bits * index)) & ((1 << bits) - 1)
