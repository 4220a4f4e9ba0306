"""The kernel toolkit every game engine is written with: decorators, state passed by reference,
rule arrays declared as data, seat rotation and record columns. The last two's Python side
(`RuleLayout` and its encodings, `RecordColumns`) lives in simulator/games/layouts.py, which
imports no numba: a plan reads rule layouts and policy specs without loading any engine.

Decorators. A game's hot code runs in numba kernels:

* `kernel`: a function that never allocates, compiled without numba's reference counting
  (the private option `_nrt=False`; every call that passes arrays would otherwise pay atomic
  increments and decrements LLVM cannot prune - measured at up to 85% of a game's run time).
  Integer division follows NumPy (`error_model="numpy"`: no zero-divisor branch, kernels must not
  divide by zero). A kernel may call kernels only; it cannot raise with a message.
* `inline_kernel`: a small hot helper inlined into its callers at numba IR level; a non-inlined
  call passes every array as ~7-9 machine words and costs more than such bodies.
* `allocating`: the few functions that allocate (`np.empty`, a game's buffers, the batch loop
  that owns them). They call kernels; kernels never call them.

All three compile through `KernelDispatcher`, which compiles a kernel called with constants
(`violation(st, V_X)`) once for their types instead of once per value, as numba's own does.

`_nrt=False` is private numba API and appears in this module only; tests/games/test_kernels.py
fails loudly if a numba upgrade stops accepting or honouring it.

State by reference. A state held as a namedtuple of arrays is passed to a compiled function as
one argument per array field and word of it (meminfo, parent, sizes, data, shape, strides): a
20-array state is ~340 machine words per call. `by_ref(tup)` stores the tuple once in the
caller's stack frame and passes its address; `ref.field` reads the field through it, so kernel
code is the same for a tuple and a reference to one. The address is valid while the function
that made it runs: make it in an `allocating` driver (batch loop, step-API entry point) and pass
it down. It pays for states of many arrays called many times per decision (New York Zoo); a
state of a few arrays passed to inlined kernels gains nothing (Alles für die Katz passes its
seven arrays directly).

Rule arrays as data. Each knob is declared once, as a pydantic field in the game's params
module (`base.knob(..., encode=Flag("P_X"))`): name, type, default, rule id, description and how
it becomes an integer of the kernels' rule array. Quantities that are not one knob (a derived
count, a per-seat table) are `Derived` entries. `RuleLayout(model, derived)` numbers every entry
in declaration order, and `layout.constants()` gives the index constants (`P_X`, `R_X`)
kernels read. A game's state.py writes them out as plain ints, where grep finds them, and
tests/games/test_constants.py checks them against `layout.constants()`; numba compiles them as
constants, so speed is that of hand-numbered indices. `Choice(name, prefix)` also defines one constant per allowed
value (`prefix + VALUE`), its index in the knob's `Literal`. `layout.array(params)` fills the
array.

Seat rotation. A seating gives one policy per player slot; rotation `r` puts slot `j` in seat
`(j + r) % n` (base.py). `slot_of_seat` is the one place that arithmetic lives in kernels.

Record columns. `RecordColumns` names a game's per-game and per-seat columns in kernel output
order with their record dtypes: `allocate` gives the (games, columns) and (games, players,
columns) arrays a batch kernel fills - or, with `columns_first`, the per-seat array as (columns,
games, players), each column one contiguous block - and `unpack` turns them into play_batch's
column dict.

Kernel-level contract for a generic search (the issue "Players worth trusting": one MCTS/ISMCTS
in numba serving every game). A game that wants the shared search provides step kernels over its
own state (namedtuple by reference or fixed tuple) and read-only tables - copy_state,
determinize, legal_moves, apply_move, is_over, decider, rollout_move, scores and optional move
priors - and allocates the search's workspace (`search.allocate_tree`) in an `allocating`
function. The contract's list of record is simulator/games/search.py's module docstring, with
the search itself (`make_search`, a factory closing over these kernels); the adapters are
games/katz/search.py and games/nyz/search.py.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.registry import CPUDispatcher
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (
    infer_getattr, intrinsic, lower_getattr_generic, models, register_model,
)

from simulator.games import kernel_cache  # noqa: F401  installs the kernel cache locator before any kernel below

# ---- decorators ---------------------------------------------------------------------------------



def kernel_options(allocates: bool = False, inline: bool = False, cache: bool = True) -> dict:
    """numba options of the decorators below (tests compile uncached copies with them)."""
    options: dict[str, Any] = dict(cache=cache, nogil=True, error_model="numpy")
    if not allocates:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"
    return options


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, except that a call from compiled code passing constants compiles
    the callee for the constants' types, not their values. numba's own compiles (and caches) one
    copy of a function per literal it is called with: `violation(st, V_X)` for each of eleven
    invariants was eleven full compiles of the same kernel. Calls from Python never pass
    literals, so what they compile is unchanged."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(types.unliteral(arg) for arg in args),
                                         {name: types.unliteral(arg) for name, arg in kws.items()})


def jit_with(options: dict):
    """A decorator compiling with `options` (kernel_options) through KernelDispatcher."""
    options = dict(options)
    cache = options.pop("cache")

    def decorate(function):
        dispatcher = KernelDispatcher(py_func=function, locals={}, targetoptions=options)
        if cache:
            dispatcher.enable_caching()
        return dispatcher

    return decorate


kernel = jit_with(kernel_options())
inline_kernel = jit_with(kernel_options(inline=True))
allocating = jit_with(kernel_options(allocates=True))


# ---- state by reference -----------------------------------------------------------------------


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
    loaded = model.from_data(builder, builder.load(address))
    return impl_ret_borrowed(context, builder, field_type, loaded)


@intrinsic
def by_ref(typingctx, tup):
    """A Ref to a namedtuple, valid while the calling function runs; None for None (a state a
    batch does without, such as the search's scratch game when no seat searches)."""
    if isinstance(tup, types.NoneType):
        return types.none(tup), lambda context, builder, signature, args: context.get_dummy_value()
    if not isinstance(tup, types.BaseNamedTuple):
        return None

    def codegen(context, builder, signature, args):
        model = context.data_model_manager.lookup(tup)
        slot = cgutils.alloca_once(builder, model.get_data_type())
        builder.store(model.as_data(builder, args[0]), slot)
        return slot

    return Ref(tup)(tup), codegen


# ---- seat rotation ----------------------------------------------------------------------------


@kernel
def slot_of_seat(seat, rotation, players):
    """The player slot sitting in `seat` under `rotation` (slot j sits in seat (j + r) % n)."""
    return (seat - rotation) % players
