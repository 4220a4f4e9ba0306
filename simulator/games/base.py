"""The contract every game module offers the rest of zoosim (DESIGN.md, "Game module").

A game lives in `simulator/games/<name>/` and exposes one `Game` object as `GAME` in its
`__init__.py`. The runner, CLI, bench and report only ever talk to that object, so they never
need to know which game they are running.

Seating and rotation (DESIGN.md, "Seating"). A seating is one policy per *player slot*. A deal
(everything the game seed decides before the first move: shuffled deck and hands, strip set-up,
...) is dealt to slots. Rotation `r` puts slot `j` in seat `(j + r) % n`: the slot's policy and
everything dealt to it travel together. Seat 0 moves first. Replaying one deal in every rotation
(common random numbers) removes deal luck from seat comparisons.

Records. `play_batch` returns a dict of NumPy arrays, one entry per record column: per-game
columns have shape `(games,)`, per-seat columns shape `(games, players)`. Every game returns at
least `turns`, `rounds`, `end_reason` (index into `Game.end_reasons`), `score` and `win` (bool,
after the game's tie-break; a shared win marks several seats). The runner adds identifiers,
flattens per-seat columns to `<name>_<seat>` and writes Parquet (see `simulator/logs.py`).
A dict of plain arrays, rather than one structured array, is what numba kernels write anyway and
keeps per-seat columns two-dimensional without subarray dtypes.
"""

from __future__ import annotations

import hashlib
import json
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import pydantic

from simulator.errors import ZoosimError

# Policy parameters are passed to kernels as a float64 row per seat of this width.
MAX_POLICY_PARAMS = 8

REQUIRED_GAME_COLUMNS = ("turns", "rounds", "end_reason")
REQUIRED_SEAT_COLUMNS = ("score", "win")


class StrictModel(pydantic.BaseModel):
    """A params or config model that rejects unknown keys (so typos are errors, not defaults)."""

    model_config = pydantic.ConfigDict(extra="forbid")


def knob(default: Any, rule: str, description: str, allowed: str | None = None, **kwargs: Any) -> Any:
    """A rule knob: a pydantic field that documents itself for `zoosim rules GAME` with its rule
    id in `seeds/` and, optionally, an `allowed` text replacing the one derived from its type."""
    extra = {"rule": rule} if allowed is None else {"rule": rule, "allowed": allowed}
    return pydantic.Field(default, description=description, json_schema_extra=extra, **kwargs)


@dataclass(frozen=True)
class PolicySpec:
    """A heuristic as the YAML names it: a numba policy id plus its numeric parameters."""

    name: str
    policy_id: int
    description: str
    params: dict[str, float] = field(default_factory=dict)  # name -> default, in kernel order
    param_help: dict[str, str] = field(default_factory=dict)

    def pack(self, overrides: Mapping[str, Any] | None = None) -> np.ndarray:
        """The kernel's parameter row: defaults, overridden by name. Unknown names are errors."""
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            allowed = ", ".join(self.params) or "none"
            raise ZoosimError(
                f"unknown parameter '{unknown[0]}' for policy '{self.name}' (allowed: {allowed})"
            )
        row = np.zeros(MAX_POLICY_PARAMS, dtype=np.float64)
        for index, (name, default) in enumerate(self.params.items()):
            value = overrides.get(name, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ZoosimError(
                    f"parameter '{name}' of policy '{self.name}' must be a number, got {value!r}"
                )
            row[index] = float(value)
        return row


@dataclass(frozen=True)
class SeatPolicies:
    """Policies of the player slots in a form kernels take: ids (n,) int8, params (n, P) float64."""

    names: tuple[str, ...]
    policy_ids: np.ndarray
    policy_params: np.ndarray

    @property
    def players(self) -> int:
        return len(self.names)


@dataclass(frozen=True)
class Knob:
    """One row of `zoosim rules GAME`: a rule knob, its default, what is allowed and its rule id."""

    name: str
    default: str
    allowed: str
    rule: str
    description: str


@dataclass(frozen=True)
class Game:
    """Everything the rest of zoosim may use of one game."""

    name: str
    title: str
    rules_version: int
    params_model: type[pydantic.BaseModel]  # must have `preset` and `players` fields
    presets: dict[str, dict[str, Any]]
    policies: dict[str, PolicySpec]
    default_policy: str
    end_reasons: tuple[str, ...]
    # True when a deal gives each slot something of its own (Katz hands); then every rotation of
    # a deal is a different game even with identical policies. False when seats only differ by
    # position (New York Zoo boards belong to seats), so rotation only matters for mixed seatings.
    deal_travels_with_slot: bool
    players: Callable[[pydantic.BaseModel], int]
    # play_batch(params, seat_policies, seeds uint64 (g,), rotations int8 (g,), check=False)
    # -> columns; check=True runs the rules' invariants after every move (see violation_names)
    play_batch: Callable[..., dict[str, np.ndarray]]
    # trace(params, seat_policies, seed, rotation) -> the game as text, turn by turn
    trace: Callable[..., str]
    seat_columns: tuple[str, ...]  # per-seat record columns, beyond score and win
    game_columns: tuple[str, ...]  # per-game record columns, beyond turns, rounds, end_reason
    # columns the report shows as game-length distributions besides turns and rounds; a per-seat
    # column is summed over the seats (e.g. enclosures placed by everybody in the game)
    length_columns: tuple[str, ...] = ()
    # Checked mode: with play_batch(..., check=True) the per-game columns `check_violations`
    # (invariant violations seen after any move) and `first_violation` (index into this tuple)
    # are returned; the runner stops the run at the first game with a violation.
    violation_names: tuple[str, ...] = ()
    # final_position_svg(params, seat_policies, seed, rotation) -> a drawing (inline SVG) of the
    # game's final position, for the report; None when the game has no drawing
    final_position_svg: Callable[..., str] | None = None

    def make_params(self, knobs: Mapping[str, Any] | None = None) -> pydantic.BaseModel:
        """Validated params: preset knobs first, then the given ones (dotted names allowed)."""
        knobs = expand_dotted(dict(knobs or {}))
        preset = knobs.get("preset", next(iter(self.presets)))
        if preset not in self.presets:
            raise ZoosimError(
                f"unknown preset '{preset}' (allowed: {', '.join(self.presets)})", key="preset"
            )
        merged = deep_merge(self.presets[preset], knobs)
        merged["preset"] = preset
        return validate_model(self.params_model, merged)

    def seat_policies(self, seats: list[tuple[str, Mapping[str, Any]]]) -> SeatPolicies:
        """Kernel arrays for a seating given as (policy name, parameter overrides) per slot."""
        ids, rows = [], []
        for name, overrides in seats:
            spec = self.policies.get(name)
            if spec is None:
                raise ZoosimError(
                    f"unknown policy '{name}' for {self.name} (allowed: {', '.join(self.policies)})"
                )
            ids.append(spec.policy_id)
            rows.append(spec.pack(overrides))
        return SeatPolicies(
            names=tuple(name for name, _ in seats),
            policy_ids=np.asarray(ids, dtype=np.int8),
            policy_params=np.vstack(rows) if rows else np.zeros((0, MAX_POLICY_PARAMS)),
        )

    def knobs(self) -> list[Knob]:
        return knob_table(self.params_model)


def params_hash(params: pydantic.BaseModel, rules_version: int) -> str:
    """Stable short hash of a params object and the rules version that interprets it."""
    text = json.dumps(
        {"rules_version": rules_version, "params": params.model_dump(mode="json")},
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand_dotted(knobs: dict[str, Any]) -> dict[str, Any]:
    """{'a.b': 1} -> {'a': {'b': 1}}, so `--set value_effects_on.replace=false` works."""
    out: dict[str, Any] = {}
    for key, value in knobs.items():
        parts = key.split(".")
        target = out
        for part in parts[:-1]:
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise ZoosimError(f"knob '{key}' sets a field inside '{part}', which is not a group")
        target[parts[-1]] = value
    return out


def deep_merge(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def validate_model(model: type[pydantic.BaseModel], data: Mapping[str, Any]) -> pydantic.BaseModel:
    """Build a params model, turning pydantic's report into one line naming the knob."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise ZoosimError(describe_validation_error(model, first), key=key or None) from None


def describe_validation_error(model: type[pydantic.BaseModel], err: Mapping[str, Any]) -> str:
    """One readable sentence for a pydantic error, with the allowed values or a did-you-mean."""
    import difflib

    loc = [str(part) for part in err["loc"]]
    if err["type"] == "extra_forbidden":
        siblings = sorted(_fields_at(model, loc[:-1]))
        hint = difflib.get_close_matches(loc[-1], siblings, n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        return f"unknown key '{loc[-1]}'{suggestion} (allowed: {', '.join(siblings)})"
    message = str(err["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    given = err.get("input")
    if err["type"] != "missing" and not isinstance(given, (dict, list)):
        message += f" (got {given!r})"
    return message


def _fields_at(model: type[pydantic.BaseModel], path: list[str]) -> list[str]:
    current: Any = model
    for part in path:
        fields = getattr(current, "model_fields", {})
        if part not in fields:
            return []
        current = _model_in(fields[part].annotation)
    return list(getattr(current, "model_fields", {}))


def _model_in(annotation: Any) -> Any:
    """The BaseModel inside an annotation such as `Deck` or `Deck | None`."""
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def knob_table(
    model: type[pydantic.BaseModel], prefix: str = "", defaults: pydantic.BaseModel | None = None
) -> list[Knob]:
    """Every leaf knob of a params model, with nested groups flattened to dotted names.

    Each field documents itself: `description=` says what it does and
    `json_schema_extra={"rule": "K-5.2"}` names the rule id in `seeds/`. Defaults of a nested
    group are the values its parent gives it (not the group class's own defaults).
    """
    rows: list[Knob] = []
    defaults = model() if defaults is None else defaults
    for name, info in model.model_fields.items():
        nested = _model_in(info.annotation)
        value = getattr(defaults, name)
        if nested is not None and isinstance(value, pydantic.BaseModel):
            rows.extend(knob_table(type(value), prefix=f"{prefix}{name}.", defaults=value))
            continue
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        rows.append(
            Knob(
                name=prefix + name,
                default=json.dumps(_plain(value)),
                allowed=str(extra.get("allowed") or _allowed_text(info)),
                rule=str(extra.get("rule", "")),
                description=info.description or "",
            )
        )
    return rows


def _plain(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, tuple):
        return list(value)
    return value


def _allowed_text(info: Any) -> str:
    annotation = info.annotation
    literal_values = _literal_values(annotation)
    if literal_values:
        return " | ".join(json.dumps(v) for v in literal_values)
    bounds = []
    for meta in info.metadata:
        for attr, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            if getattr(meta, attr, None) is not None:
                bounds.append(f"{symbol} {getattr(meta, attr)}")
    type_name = getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
    return type_name + (f" ({', '.join(bounds)})" if bounds else "")


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    values: tuple[Any, ...] = ()
    for arg in typing.get_args(annotation):
        values += _literal_values(arg)
    return values


def check_columns(game: Game, columns: Mapping[str, np.ndarray], games: int, players: int) -> None:
    """Assert that play_batch returned the columns the contract promises (used by tests)."""
    for name in REQUIRED_GAME_COLUMNS + game.game_columns:
        assert columns[name].shape == (games,), name
    for name in REQUIRED_SEAT_COLUMNS + game.seat_columns:
        assert columns[name].shape == (games, players), name
