"""Rule arrays, record columns and the search's rollout choice declared as data: the numba-free
half of the kernel toolkit (simulator/games/kernels.py's docstring says how kernels read them).
Kernels compile the numbers defined here as constants, so kernel_cache.py keys the compiled
kernels by this file's content too.

A game's params module declares its knobs with these encodings and builds its `RuleLayout`; a
game declares its record columns with `RecordColumns`. Nothing here imports numba, so a plan
(config -> cells, `zoosim validate`) is built without loading the engines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pydantic

from simulator.games.base import ParamRange
from simulator.schema import literal_values, model_in


# The shared tree search's `rollout` parameter (simulator/games/search.py): its value reaches the
# kernels as an index into ROLLOUT_POLICIES; the games' rollout_move plays randomly for
# ROLLOUT_RANDOM and their heuristic otherwise.
ROLLOUT_RANDOM = 0
ROLLOUT_POLICIES = ("random", "greedy")
# What the shared search's parameters allow in every game's search policies (PolicySpec.ranges,
# choices and help); each game adds its own parameters and help.
SEARCH_RANGES = {
    "iterations": ParamRange(1, 1_000_000, integer=True),
    "exploration": ParamRange(0.0),
    "rollout_depth": ParamRange(0, 100_000, integer=True),
}
SEARCH_CHOICES = {"rollout": ROLLOUT_POLICIES}
EXPLORATION_HELP = "UCB exploration constant c (rewards are win shares in [0, 1])"


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
    """An int knob as is; `none` stands for a null value (e.g. 'unlimited') and `words` for the
    named values an int knob may also take (e.g. {"random": 0})."""

    none: int = 0
    words: tuple[tuple[str, int], ...] = ()

    def values(self, value, params):
        if value is None:
            return [self.none]
        return [dict(self.words)[value] if isinstance(value, str) else int(value)]


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
                for index, choice in enumerate(literal_values(annotation))}


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
            choices = literal_values(info.annotation) if isinstance(encoding, Choice) else ()
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
        nested = model_in(info.annotation)
        if nested is not None:
            yield from _encoded_fields(nested, prefix + (name,))

