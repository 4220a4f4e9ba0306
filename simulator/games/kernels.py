"""The kernel toolkit every game engine is written with: decorators, state passed by reference,
rule arrays declared as data, seat rotation and record columns.

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
in declaration order, and `layout.constants()` gives the module-level index constants (`P_X`,
`R_X`) kernels read - plain ints fixed at import, so numba compiles them as constants and speed
is that of hand-numbered indices. `Choice(name, prefix)` also defines one constant per allowed
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

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pydantic
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import (
    infer_getattr, intrinsic, lower_getattr_generic, models, register_model,
)

from simulator.games import kernel_cache  # noqa: F401  installs the kernel cache locator before any kernel below
from simulator.games.base import _literal_values, _model_in

# ---- decorators ---------------------------------------------------------------------------------



def kernel_options(allocates: bool = False, inline: bool = False, cache: bool = True) -> dict:
    """numba options of the decorators below (tests compile uncached copies with them)."""
    options: dict[str, Any] = dict(cache=cache, nogil=True, error_model="numpy")
    if not allocates:
        options["_nrt"] = False
    if inline:
        options["inline"] = "always"
    return options


kernel = njit(**kernel_options())
inline_kernel = njit(**kernel_options(inline=True))
allocating = njit(**kernel_options(allocates=True))


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
    """A Ref to a namedtuple, valid while the calling function runs."""
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


# ---- record columns ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordColumns:
    """A game's record columns in kernel output order, with their record dtypes."""

    game: tuple[str, ...]  # per-game columns
    seat: tuple[str, ...]  # per-seat columns
    kernel_dtype: Any  # what the batch kernel writes
    default_dtype: Any  # record dtype of a column not in `dtypes`
    dtypes: Mapping[str, Any] = field(default_factory=dict)
    # seat_out as [seat column, game, seat] instead of [game, seat, seat column]
    columns_first: bool = False

    def allocate(self, games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
        """(game_out[games, game columns], seat_out[games, players, seat columns] or, with
        columns_first, seat_out[seat columns, games, players]), zeroed."""
        seat_shape = ((len(self.seat), games, players) if self.columns_first
                      else (games, players, len(self.seat)))
        return (np.zeros((games, len(self.game)), dtype=self.kernel_dtype),
                np.zeros(seat_shape, dtype=self.kernel_dtype))

    def unpack(self, game_out: np.ndarray, seat_out: np.ndarray) -> dict[str, np.ndarray]:
        """play_batch's column dict: (games,) per-game and (games, players) per-seat arrays."""
        columns = {name: game_out[:, index].astype(self.dtype(name))
                   for index, name in enumerate(self.game)}
        for index, name in enumerate(self.seat):
            columns[name] = self.seat_column(seat_out, index).astype(self.dtype(name))
        return columns

    def seat_column(self, seat_out: np.ndarray, index: int) -> np.ndarray:
        """The (games, players) values of per-seat column `index` as the kernel wrote them."""
        return seat_out[index] if self.columns_first else seat_out[:, :, index]

    def dtype(self, name: str) -> Any:
        return self.dtypes.get(name, self.default_dtype)


# ---- rule arrays as data ----------------------------------------------------------------------


@dataclass(frozen=True)
class Encoding:
    """How a value becomes rule-array entries. `name` is the index constant (`P_X`); the knob a
    field-level encoding belongs to is set by RuleLayout."""

    name: str

    width = 1  # entries taken in the array

    def values(self, value: Any, params: Any) -> Sequence[int]:
        raise NotImplementedError

    def value_constants(self, annotation: Any) -> dict[str, int]:
        return {}


@dataclass(frozen=True)
class Flag(Encoding):
    """A bool knob: 1 or 0."""

    def values(self, value, params):
        return [int(bool(value))]


@dataclass(frozen=True)
class Int(Encoding):
    """An int knob as is; `none` stands for a null value (e.g. 'unlimited')."""

    none: int = 0

    def values(self, value, params):
        return [self.none if value is None else int(value)]


@dataclass(frozen=True)
class Equals(Encoding):
    """1 when the knob has `value`, else 0 (a two-way choice the kernels test as a flag)."""

    value: Any = None

    def values(self, value, params):
        return [int(value == self.value)]


@dataclass(frozen=True)
class Choice(Encoding):
    """A `Literal` knob as the index of its value among the allowed ones. With `prefix`, each
    allowed value also becomes a constant (`prefix` + value in capitals, e.g. RULE_OFF)."""

    prefix: str = ""

    def values(self, value, params):
        raise AssertionError("RuleLayout encodes choices")  # needs the annotation

    def value_constants(self, annotation):
        if not self.prefix:
            return {}
        return {self.prefix + re.sub(r"\W", "_", str(choice)).upper(): index
                for index, choice in enumerate(_literal_values(annotation))}


@dataclass(frozen=True)
class Derived(Encoding):
    """Entries computed from the whole params object: `compute(params)` gives an int, or up to
    `width` ints (the rest stay 0), e.g. a per-seat table."""

    compute: Callable[[Any], Any] = None  # type: ignore[assignment]
    width: int = 1

    def values(self, value, params):
        result = self.compute(params)
        return [int(v) for v in result] if isinstance(result, (list, tuple)) else [int(result)]


@dataclass(frozen=True)
class _Entry:
    path: tuple[str, ...]  # attribute path from the params object; () for Derived
    encoding: Encoding
    choices: tuple[Any, ...]
    index: int


class RuleLayout:
    """The rule array of a game: every knob with an `encode=` in `model` (nested models
    included, in declaration order), then the `derived` entries, numbered from 0."""

    def __init__(self, model: type[pydantic.BaseModel], derived: Sequence[Derived] = (),
                 dtype: Any = np.int64):
        self.dtype = np.dtype(dtype)
        self.entries: list[_Entry] = []
        self._value_constants: dict[str, int] = {}
        for path, info in _encoded_fields(model, ()):
            encoding = info.json_schema_extra["encode"]
            choices = _literal_values(info.annotation) if isinstance(encoding, Choice) else ()
            self._add(path, encoding, choices)
            for name, value in encoding.value_constants(info.annotation).items():
                self._define(self._value_constants, name, value)
        for encoding in derived:
            self._add((), encoding, ())
        self.size = sum(entry.encoding.width for entry in self.entries)

    def _add(self, path, encoding, choices):
        index = sum(entry.encoding.width for entry in self.entries)
        if any(entry.encoding.name == encoding.name for entry in self.entries):
            raise ValueError(f"rule index {encoding.name} is declared twice")
        self.entries.append(_Entry(path, encoding, choices, index))

    @staticmethod
    def _define(target, name, value):
        if target.get(name, value) != value:
            raise ValueError(f"constant {name} declared with two values")
        target[name] = value

    def constants(self) -> dict[str, int]:
        """Index constants (name -> first index) and the value constants of choices."""
        found = {entry.encoding.name: entry.index for entry in self.entries}
        clash = set(found) & set(self._value_constants)
        if clash:
            raise ValueError(f"constants {sorted(clash)} name both an index and a value")
        return {**found, **self._value_constants}

    def array(self, params: Any, tail: Sequence[int] = ()) -> np.ndarray:
        """The rule array for a params object; `tail` (a variable-length table) follows the
        fixed entries at index `size`."""
        out = np.zeros(self.size + len(tail), dtype=self.dtype)
        for entry in self.entries:
            if entry.path:
                value = params
                for part in entry.path:
                    value = getattr(value, part)
                if isinstance(entry.encoding, Choice):
                    values = [entry.choices.index(value)]
                else:
                    values = entry.encoding.values(value, params)
            else:
                values = entry.encoding.values(None, params)
            if len(values) > entry.encoding.width:
                raise ValueError(f"{entry.encoding.name}: {len(values)} values for "
                                 f"{entry.encoding.width} entries")
            out[entry.index:entry.index + len(values)] = values
        out[self.size:] = tail
        return out


def _encoded_fields(model: type[pydantic.BaseModel], prefix: tuple[str, ...]):
    """(attribute path, field info) of every field with an `encode=`, nested models walked."""
    for name, info in model.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        if "encode" in extra:
            yield prefix + (name,), info
            continue
        nested = _model_in(info.annotation)
        if nested is not None:
            yield from _encoded_fields(nested, prefix + (name,))

