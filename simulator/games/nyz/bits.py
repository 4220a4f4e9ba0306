"""128-bit bitboard helpers on (lo, hi) uint64 pairs, shared by the engine and the policies.

Square index = row * width + col (state.py). Shifting by 1 moves a square to its right/left
neighbour, shifting by the board width moves it one row down/up; column masks stop a shift from
wrapping a square into the neighbouring row.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (
    infer_getattr, intrinsic, lower_getattr_generic, models, register_model,
)

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)

# Kernels that never allocate are compiled without numba's reference counting. A game state is
# a namedtuple of ~20 arrays, and every call that passes it would otherwise increment and
# decrement each array's reference count (measured: 200 ns per call, 500x the work itself).
# Functions that allocate (engine.new_state, stock_strip, play_games) use plain njit.
kernel = njit(cache=True, nogil=True, _nrt=False)


# A namedtuple of arrays is passed to a compiled function as one scalar argument per array
# field (meminfo, parent, sizes, data pointer, shape, strides): State and Tables together are
# about 340 machine words, pushed on the stack at every call that is not inlined, several times
# per decision (measured: most of the time of a random game). `by_ref(tup)` stores the tuple
# once in the caller's stack frame and passes its address instead; `ref.field` reads the field
# from there, so the kernels' code is the same for a tuple and a reference to one. The address
# is only valid while the caller that made it runs (play_games, new_state and the step API
# call into the kernels and return).


class Ref(types.Type):
    """The address of a namedtuple held by a caller (see by_ref)."""

    def __init__(self, inner):
        self.inner = inner
        super().__init__(name=f"Ref[{inner}]")


@register_model(Ref)
class _RefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        inner = dmm.lookup(fe_type.inner).get_data_type()
        super().__init__(dmm, fe_type, ir.PointerType(inner))


@infer_getattr
class _RefAttributes(AttributeTemplate):
    key = Ref

    def generic_resolve(self, typ, attr):
        inner = typ.inner
        if attr in inner.fields:
            return inner.types[inner.fields.index(attr)]
        return None


@lower_getattr_generic(Ref)
def _ref_getattr(context, builder, typ, value, attr):
    inner = typ.inner
    index = inner.fields.index(attr)
    field_type = inner.types[index]
    i32 = ir.IntType(32)
    address = builder.gep(value, [ir.Constant(i32, 0), ir.Constant(i32, index)], inbounds=True)
    model = context.data_model_manager.lookup(field_type)
    field = model.from_data(builder, builder.load(address))
    return impl_ret_borrowed(context, builder, field_type, field)


@intrinsic
def by_ref(typingctx, tup):
    """A Ref to a namedtuple, valid while the calling function runs."""
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    def codegen(context, builder, signature, args):
        model = context.data_model_manager.lookup(tup)
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        return slot

    return Ref(tup)(tup), codegen


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
