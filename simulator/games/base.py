"""The contract every game module offers the rest of zoosim (docs/design.md, "Game module").

A game lives in `simulator/games/<name>/` and exposes one `Game` object as `GAME` in its
`__init__.py`. The runner, CLI, bench and report only ever talk to that object, so they never
need to know which game they are running.

Seating and rotation (docs/design.md, "Seating"). A seating is one policy per *player slot*. A deal
(everything the game seed decides before the first move: shuffled deck and hands, strip set-up,
...) is dealt to slots. Rotation `r` puts slot `j` in seat `(j + r) % n`: the slot's policy and
everything dealt to it travel together. Seat 0 moves first. Replaying one deal in every rotation
(common random numbers) removes deal luck from seat comparisons.

Records. `play_batch` returns a dict of NumPy arrays, one entry per record column: per-game
columns have shape `(games,)`, per-seat columns shape `(games, players)`. Every game returns at
least `turns`, `rounds`, `end_reason` (index into `Game.end_reasons`), `score` and `win` (bool,
after the game's tie-break; a shared win marks several seats); every column holds numbers or
booleans (the chunk summaries add them up). The runner adds identifiers,
flattens per-seat columns to `<name>_<seat>` and writes Parquet (see `simulator/logs.py`).
Turn-order facts (issue #24) are part of the contract: a game should also return per seat
`seat_turns` and `decisions` and per game `last_mover` and `ender` (their meaning:
logs.TURN_ORDER_*); a game that does not gets logs.with_turn_order's round-robin reading of
`turns` (right for a game where every turn is one seat's plain turn in seat order).
A dict of plain arrays, rather than one structured array, is what numba kernels write anyway and
keeps per-seat columns two-dimensional without subarray dtypes.
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import typing
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pydantic

from simulator.digest import SHORT, json_digest
from simulator.errors import ZoosimError
from simulator.games.learned import NextTrainingRound
from simulator.logs import TURN_ORDER_GAME_COLUMNS, TURN_ORDER_SEAT_COLUMNS
from simulator import schema
from simulator.schema import allowed_text, model_in, one_of, validate_model

# Policy parameters are passed to kernels as a float64 row per seat of this width (wide enough
# for a learned policy's weights, which games/learned.py packs into the row).
MAX_POLICY_PARAMS = 64

WEIGHTS_PARAM = "weights"  # the parameter naming a learned policy's weights file (PolicySpec)

# Names that moved from this module to simulator/schema.py, still importable from here with a
# DeprecationWarning naming where to import them now (docs/plugin-api.md, "Older import paths"):
# name -> its path now. A game package imports StrictModel from the public surface, simulator.plugin.
MOVED_TO_SCHEMA = {
    "StrictModel": "simulator.plugin.StrictModel",
    "key_path": "simulator.schema.key_path",
    "explain_validation_error": "simulator.schema.explain_validation_error",
    "describe_validation_error": "simulator.schema.describe_validation_error",
}

REQUIRED_GAME_COLUMNS = ("turns", "rounds", "end_reason")
REQUIRED_SEAT_COLUMNS = ("score", "win")
CHECK_COLUMNS = ("check_violations", "first_violation")  # per game, from play_batch(..., check=True)


def knob(default: Any, rule: str, description: str, allowed: str | None = None,
         per_seat: bool = False, encode: Any = None, seat_relative: bool = False, **kwargs: Any) -> Any:
    """A rule knob: a pydantic field that documents itself for `zoosim rules GAME` with its rule
    id in `seeds/` and, optionally, an `allowed` text replacing the one derived from its type.
    `per_seat` marks a list knob whose index is the seat in turn order (seat 0 moves first);
    `seat_relative` a per-seat numeric knob of which only the differences between seats count
    (adding the same to every seat ranks every game the same: Katz's seat bonus points).
    `encode` (a `layouts.Encoding`: Flag, Int, Equals, Choice) says how the knob enters the
    kernels' rule array; `layouts.RuleLayout` numbers and fills the array from these."""
    extra: dict[str, Any] = {"rule": rule}
    if encode is not None:
        extra["encode"] = encode
    if allowed is not None:
        extra["allowed"] = allowed
    if per_seat:
        extra["per_seat"] = True
    if seat_relative:
        extra["seat_relative"] = True
    return pydantic.Field(default, description=description, json_schema_extra=extra, **kwargs)


# Every numeric policy parameter lies within -MAX_PARAM_MAGNITUDE..MAX_PARAM_MAGNITUDE (besides
# its own range): the largest search budget (iterations) is 1,000,000, and heuristic weights are
# points of a score.
MAX_PARAM_MAGNITUDE = 1_000_000

@dataclass(frozen=True)
class ParamRange:
    """The values a numeric policy parameter admits: low <= value <= high, whole numbers only
    when `integer`."""

    low: float = -math.inf
    high: float = math.inf
    integer: bool = False

    def allows(self, value: float) -> bool:
        return self.low <= value <= self.high and (not self.integer or value == int(value))

    def within(self, magnitude: float) -> "ParamRange":
        """This range cut to -magnitude..magnitude."""
        return ParamRange(max(self.low, -magnitude), min(self.high, magnitude), self.integer)

    def describe(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        if self.high == math.inf:
            return f"{kind} of at least {_number_text(self.low)}" if self.low > -math.inf else kind
        return f"{kind} from {_number_text(self.low)} to {_number_text(self.high)}"


def _number_text(value: float) -> str:
    """1000000 -> '1,000,000', 0.5 -> '0.5' (never '1e+06')."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


@dataclass(frozen=True)
class Climb:
    """How a policy plays one step stronger when a strength ladder climbs (`climb:` in a ladder
    study, simulator/climb.py): its parameter `param` multiplied by `factor` (a search's budget
    doubled, a learned player's temperature halved). `doing` says the step in words ("search
    iterations per decision doubled")."""

    param: str
    factor: float
    doing: str
    then: Any = None  # a further climb (same `step`) taken when this one changes nothing

    def step(self, spec: "PolicySpec", overrides: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str]:
        """(the overrides of the player one step stronger, how it was made), or (None, why the
        player cannot climb: the step leaves the parameter as it is, or leaves its range)."""
        value = float(overrides.get(self.param, spec.params[self.param]))
        stepped = value * self.factor
        if stepped == value:
            if self.then is not None:
                return self.then.step(spec, overrides)
            return None, f"its {self.param} is {value:g} already, so one step ({self.doing}) changes nothing"
        allowed = spec.bounds(self.param)
        if not allowed.allows(stepped):
            return None, f"its {self.param} would become {stepped:g}, outside {allowed.describe()}"
        return {**overrides, self.param: stepped}, f"{self.param} {value:g} -> {stepped:g} ({self.doing})"


# The climbs the shipped players declare: a search plays twice the iterations per decision, a
# learned player samples its moves at half the temperature (closer to always its best move), and
# at temperature 0 plays the next kept round of its training (learned.NextTrainingRound).
DOUBLE_ITERATIONS = Climb("iterations", 2.0, "search iterations per decision doubled")
HALVE_TEMPERATURE = Climb("temperature", 0.5, "temperature halved", then=NextTrainingRound())


@dataclass(frozen=True)
class PolicySpec:
    """A heuristic as the YAML names it: a numba policy id plus its numeric parameters.

    A parameter may be restricted to a range (`ranges`, e.g. iterations >= 1), or be a choice
    among names (`choices`: its default and YAML value are one of the names; the kernel receives
    the name's index). Every numeric parameter lies within ±MAX_PARAM_MAGNITUDE besides (issue
    #45: every numeric setting has bounds; a weight of 1e300 only overflows a kernel's sums)."""

    name: str
    policy_id: int
    description: str
    params: dict[str, float | str] = field(default_factory=dict)  # name -> default, kernel order
    param_help: dict[str, str] = field(default_factory=dict)
    ranges: dict[str, ParamRange] = field(default_factory=dict)
    choices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    weights: Any = None  # games.learned.LearnedWeights of the `weights` parameter, if any
    climb: Climb | None = None  # how a ladder's climb makes it one step stronger; None: it cannot
    # A ladder report's words for the player (plan.rung_model): what it models at its defaults
    # ("" : said from its description), and the parameter, if any, whose temperature makes it
    # draw its moves from a softmax over their values instead of always playing the best.
    models: str = ""
    mistake_temperature: str | None = None
    # A parameter not given takes the value given to another (name -> the other's name), else its
    # default: a parameter split off an older one keeps an older experiment's games.
    follows: dict[str, str] = field(default_factory=dict)

    def pack(self, overrides: Mapping[str, Any] | None = None) -> np.ndarray:
        """The kernel's parameter row: defaults, overridden by name. Unknown names, values of the
        wrong kind and values outside a parameter's range are errors."""
        overrides = dict(overrides or {})
        unknown = sorted(set(overrides) - set(self.params))
        if unknown:
            allowed = ", ".join(self.params) or "none"
            raise ZoosimError(
                f"unknown parameter '{unknown[0]}' for policy '{self.name}' (allowed: {allowed})"
            )
        for name, source in self.follows.items():
            if name not in overrides and source in overrides:
                overrides[name] = overrides[source]
        row = np.zeros(MAX_POLICY_PARAMS, dtype=np.float64)
        for index, (name, default) in enumerate(self.params.items()):
            if name == WEIGHTS_PARAM and self.weights is not None:
                vector = self._weights(overrides.get(name, default), self.weights.vector)
                row[index:index + len(vector)] = vector
            else:
                row[index] = self._value(name, overrides.get(name, default))
        return row

    def identity(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The overrides as the plan hashes them: a weights file is named by its contents (so a
        changed file changes the run), the shipped default included; other parameters as given."""
        overrides = dict(overrides or {})
        if self.weights is not None:
            overrides[WEIGHTS_PARAM] = self._weights(
                overrides.get(WEIGHTS_PARAM, self.params[WEIGHTS_PARAM]), self.weights.identity)
        return overrides

    def _weights(self, given: Any, read: Callable[[Any], Any]) -> Any:
        try:
            return read(given)
        except ZoosimError as error:
            raise ZoosimError(f"parameter 'weights' of policy '{self.name}': {error}") from None

    def _value(self, name: str, given: Any) -> float:
        if name in self.choices:
            names = self.choices[name]
            if not isinstance(given, str) or given not in names:
                raise ZoosimError(
                    f"parameter '{name}' of policy '{self.name}' must be one of "
                    f"{', '.join(names)}, got {given!r}"
                )
            return float(names.index(given))
        value = _finite_float(given)
        if value is None:
            raise ZoosimError(
                f"parameter '{name}' of policy '{self.name}' must be a finite number, got {given!r}"
            )
        allowed = self.bounds(name)
        if not allowed.allows(value):
            raise ZoosimError(
                f"parameter '{name}' of policy '{self.name}' must be {allowed.describe()}, "
                f"got {given!r}"
            )
        return value

    def describe_value(self, name: str) -> str:
        """The default of a parameter as `zoosim rules` prints it, with what it admits."""
        default = self.params[name]
        if name == WEIGHTS_PARAM and self.weights is not None:
            return self.weights.describe()
        if name in self.choices:
            return f"{default} (one of {', '.join(self.choices[name])})"
        return f"{default:g} ({self.bounds(name).describe()})"

    def bounds(self, name: str) -> ParamRange:
        """The values a numeric parameter admits: its range, within ±MAX_PARAM_MAGNITUDE."""
        return self.ranges.get(name, ParamRange()).within(MAX_PARAM_MAGNITUDE)


def _finite_float(value: Any) -> float | None:
    """A number (not a bool) as a finite float, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int beyond float range
        return None
    return number if math.isfinite(number) else None


@dataclass(frozen=True)
class SeatPolicies:
    """Policies of the player slots in a form kernels take: ids (n,) int8, params (n, P) float64."""

    names: tuple[str, ...]
    policy_ids: np.ndarray
    policy_params: np.ndarray

    @property
    def players(self) -> int:
        return len(self.names)


class InvariantViolation(AssertionError):
    """A rules invariant failed in checked mode (an engine bug, not a user error)."""


@typing.runtime_checkable
class StepAPI(typing.Protocol):
    """One game driven a decision at a time through the very kernels play_batch uses (traces,
    tests, notebooks), with the same signatures for every game. `new_game(params, seat_policies,
    seed, rotation)` is the game play_batch plays for (seed, rotation), stopped at its first
    decision; following `policy_move` to the end replays that game exactly. With `check`,
    `apply` raises InvariantViolation when a move breaks one of the rules' invariants. A state
    is the game's own object; only these functions look inside it."""

    def new_game(self, params: Any, seat_policies: SeatPolicies | None = None, seed: int = 0,
                 rotation: int = 0, check: bool = False) -> Any: ...

    def legal_moves(self, state: Any) -> list[int]: ...

    def apply(self, state: Any, move: int) -> None: ...

    def policy_move(self, state: Any) -> int: ...

    def is_over(self, state: Any) -> bool: ...

    def scores(self, state: Any) -> np.ndarray: ...

    def winners(self, state: Any) -> list[int]: ...


class Deferred:
    """A part of a game that lives with its numba kernels, named by "module" or
    "module:attribute" and imported on first use, so that the `Game` object (its params, presets
    and policies: all a plan needs) loads no engine. Calling it calls the attribute; reading an
    attribute of it reads that of the target (a step-API module: `steps.new_game`)."""

    def __init__(self, target: str):
        self.target = target

    def resolve(self) -> Any:
        module_name, _, attribute = self.target.partition(":")
        found = importlib.import_module(module_name)
        return getattr(found, attribute) if attribute else found

    @property
    def module_name(self) -> str:
        return self.target.partition(":")[0]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy/pickle probes, and `target` before __init__ set it
            raise AttributeError(name)
        return getattr(self.resolve(), name)

    def __repr__(self) -> str:
        return f"Deferred({self.target!r})"


def source_module(function: Any) -> str:
    """The name of the module defining a game function, without importing it when deferred."""
    return function.module_name if isinstance(function, Deferred) else function.__module__


@dataclass(frozen=True)
class Training:
    """A game's training role: what `zoosim train GAME` needs of it (docs/learned-players.md,
    "Training your own players"). A game without one (`Game.training` None) cannot be trained.

    `code` is the game's training module (usually `Deferred("package.training")`, so that loading
    the Game loads no engine) with `record(params, seat_policies, seeds, rotations, explore)` ->
    {set name: (rows, targets, ...)} and `fit(data, seed)` -> (weights (sets, features),
    intercepts (sets,), fit quality per set), and optionally `tune(weights, intercepts, rules,
    seed, incumbent=PATH, policy=NAME)` -> (weights, tuning record). The features it records
    are those of the `gate_policy`'s learned weights (`PolicySpec.weights`, a
    learned.LearnedWeights naming the feature and set names in row order)."""

    code: Any
    play: str  # the policy playing the recorded games (a learned one plays the best weights so far)
    gate_policy: str  # the learned policy whose weights are trained, gated and measured
    heuristic: str  # the policy each round's strength is measured against
    players: Mapping[int, float]  # player count -> its share of a round's recorded games
    games: int  # recorded games per round (`zoosim train --games`' default)
    explore: float = 0.0  # share of random decisions in the recorded games (--explore's default)
    explore_allowed: bool = True  # False: record() takes the players' own decisions only

    def problem(self, policies: Mapping[str, PolicySpec]) -> str | None:
        """What makes the role unusable with these policies, or None (base.contract_problem)."""
        for role, name in (("play", self.play), ("gate_policy", self.gate_policy), ("heuristic", self.heuristic)):
            if name not in policies:
                return f"its training's {role} {name!r} is not one of its policies ({', '.join(policies)})"
        if policies[self.gate_policy].weights is None:
            return f"its training's gate_policy {self.gate_policy!r} plays no learned weights"
        if not self.players or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 or not share > 0
                                   for n, share in self.players.items()):
            return "its training's players must map player counts (whole numbers >= 1) to shares above 0"
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 1:
            return f"its training's games must be a whole number >= 1, got {self.games!r}"
        if not 0.0 <= self.explore <= 1.0 or (self.explore and not self.explore_allowed):
            return f"its training's explore {self.explore!r} must be from 0 to 1 (0 when explore_allowed is False)"
        return None


@dataclass(frozen=True)
class Knob:
    """One row of `zoosim rules GAME`: a rule knob, its default, what is allowed and its rule id."""

    name: str
    default: str
    allowed: str
    rule: str
    description: str
    per_seat: bool = False  # a list indexed by seat in turn order (knob(..., per_seat=True))
    seat_relative: bool = False  # only differences between seats count (knob(..., seat_relative=True))


@dataclass(frozen=True)
class ReferencePlayers:
    """A game's reference players (docs/players.md, "Which players a study seats"): the player
    its quick start seats (`player`), where that is (`source`), and the Elo of players on one
    shipped strength ladder (`rated_by`; `ratings`, weakest first). A seat-verdict study seating
    other players says so, with the Elo gap where both are rated. Each player is written as an
    experiment file seats it: a policy name, or a mapping with `policy` and `params`."""

    source: str
    player: str | Mapping[str, Any]
    rated_by: str = ""
    ratings: tuple[tuple[str | Mapping[str, Any], float], ...] = ()

    @staticmethod
    def policy_and_params(player: str | Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """A player as written here as its policy name and parameter overrides."""
        return (player, {}) if isinstance(player, str) else (player["policy"], dict(player.get("params", {})))

    def problem(self, policies: Mapping[str, PolicySpec]) -> str | None:
        """What makes the entry unusable with these policies, or None (base.contract_problem)."""
        for player in (self.player, *(rated for rated, _ in self.ratings)):
            if not isinstance(player, str) and not (isinstance(player, Mapping) and "policy" in player):
                return f"its reference_players name a player as {player!r} (a policy name, or a mapping with policy)"
            name = self.policy_and_params(player)[0]
            if name not in policies:
                return f"its reference_players name {name!r}, not one of its policies ({', '.join(policies)})"
        return None


# What a game that does not say counts in its `score` column (Game.score_meaning)
DEFAULT_SCORE_MEANING = "the game's final score"


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
    # True when something travels with a slot: a deal gives each slot something of its own (Katz
    # hands), or random streams depend on the rotation; then every rotation of a deal is a
    # different game even with identical policies. False when seats only differ by position (New
    # York Zoo boards belong to seats): a rotation only moves the slots' policies to other seats,
    # so the deal and every random draw depend on the game seed alone, and rotation only matters
    # for mixed seatings (docs/adding-a-game.md, "Seating and random streams"; testing.check_rotation).
    deal_travels_with_slot: bool
    players: Callable[[pydantic.BaseModel], int]
    # The functions and the step API below may be `Deferred` (imported on first use), so that
    # loading the Game, which every plan does, loads no engine.
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
    # Per-seat record columns the report shows as measures per seat, with human names
    seat_measures: Mapping[str, str] = field(default_factory=dict)
    # Per-seat record columns counting components a seat took or played (cats held, attractions
    # placed), with human names: the report's component strength (analysis/gameplay/components.py)
    # compares the win share of seat-games that took one with those that did not
    components: Mapping[str, str] = field(default_factory=dict)
    # What the `score` column counts, in words (the report's seat table says it beside the mean)
    score_meaning: str = DEFAULT_SCORE_MEANING
    # Per-round score, for the report's trajectory figures (lead changes, comebacks,
    # decisiveness; analysis/gameplay/trajectories.py): round_scores(params, seat_policies, seed,
    # rotation) -> (scores (rounds, players) float64, each seat's score by the game's own measure
    # after each round, the last row at the game's end; win (players,) bool, the winners), for
    # the game play_batch plays for (seed, rotation). games.rounds.play_rounds builds one from the
    # step API. None: the game declares none, and its cells have no trajectory figures.
    round_scores: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    # What the per-round score counts, in words (the report's "How the game plays" says it)
    round_score_meaning: str = ""
    # Checked mode: with play_batch(..., check=True) the per-game columns `check_violations`
    # (invariant violations seen after any move) and `first_violation` (index into this tuple)
    # are returned; the runner stops the run at the first game with a violation.
    violation_names: tuple[str, ...] = ()
    # legend(params) -> a short key to the codes `trace` prints (card, tile and board codes);
    # `zoosim play` prints it above the game and under --help
    legend: Callable[..., str] | None = None
    # the step API (a module or object satisfying StepAPI); None for a game without one
    steps: StepAPI | None = None
    # final_position_svg(params, seat_policies, seed, rotation) -> a drawing (inline SVG) of the
    # game's final position, for the report; None when the game has no drawing
    final_position_svg: Callable[..., str] | None = None
    # Policies whose kernels compile only for seatings that play them (the search): a seating
    # without any of them compiles play kernels without them, so the runner warms each kind up
    # that a run plays (`kernel_variant`)
    search_policies: frozenset[str] = frozenset()
    # Policies that need none of the heuristics' code (random play): a seating of only these
    # compiles play kernels without the heuristics (`kernel_variant` "plain")
    plain_policies: frozenset[str] = frozenset()
    # The training role (`zoosim train GAME`); None: the game cannot be trained
    training: Training | None = None
    # The players its quick start seats, with ladder ratings; None: studies are not compared
    # with reference players
    reference_players: ReferencePlayers | None = None

    def kernel_variant(self, seat_names: Iterable[str]) -> str:
        """Which specialisation of the play kernels a seating compiles: "search" when a seat
        plays one of `search_policies`, "plain" when every seat plays one of `plain_policies`,
        else "heuristic"."""
        names = set(seat_names)
        if self.search_policies & names:
            return "search"
        return "plain" if names and names <= self.plain_policies else "heuristic"

    def make_params(self, knobs: Mapping[str, Any] | None = None) -> pydantic.BaseModel:
        """Validated params: preset knobs first, then the given ones (dotted names allowed)."""
        knobs = expand_dotted(dict(knobs or {}))
        preset = knobs.get("preset", next(iter(self.presets)))
        if not isinstance(preset, str) or preset not in self.presets:
            raise ZoosimError(
                f"unknown preset {preset!r} (allowed: {', '.join(self.presets)})", key="preset"
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
        """Rows of `zoosim rules`; the contract's `preset` knob accepts this game's presets."""
        presets = one_of(tuple(self.presets))
        return [replace(row, allowed=presets) if row.name == "preset" else row
                for row in knob_table(self.params_model)]


def played_rules(params: pydantic.BaseModel) -> dict[str, Any]:
    """A cell's rules as its games play them: the params as JSON with every `auto` knob resolved,
    by the params model's `resolved_rules()` where it has one (a game without `auto` knobs needs
    none). Two cells with equal played rules play the same rules however they were written."""
    resolve = getattr(params, "resolved_rules", None)
    return resolve() if callable(resolve) else params.model_dump(mode="json")


def changed_knobs(params: pydantic.BaseModel) -> dict[str, Any]:
    """The knobs of a params object that differ from its model's defaults (nested as the params
    are): what identifies its rules in hashes and seeds, so that a knob added to a game later, at
    the printed rules' value, changes no earlier cell's hash or games."""
    return params.model_dump(mode="json", exclude_defaults=True)


def params_hash(params: pydantic.BaseModel, rules_version: int) -> str:
    """Stable short hash of a params object (its changed_knobs) and the rules version that
    interprets it."""
    return json_digest({"rules_version": rules_version, "params": changed_knobs(params)}, SHORT)


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


def flatten_dotted(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{'a': {'b': 1}} -> {'a.b': 1}, the dotted knob names `--set` takes (expand_dotted's
    inverse)."""
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            flat.update(flatten_dotted(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def deep_merge(base: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


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
        nested = model_in(info.annotation)
        value = getattr(defaults, name)
        if nested is not None and isinstance(value, pydantic.BaseModel):
            rows.extend(knob_table(type(value), prefix=f"{prefix}{name}.", defaults=value))
            continue
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        rows.append(
            Knob(
                name=prefix + name,
                default=json.dumps(_plain(value)),
                allowed=str(extra.get("allowed") or allowed_text(info)),
                rule=str(extra.get("rule", "")),
                description=info.description or "",
                per_seat=bool(extra.get("per_seat", False)),
                seat_relative=bool(extra.get("seat_relative", False)),
            )
        )
    return rows


def _plain(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, tuple):
        return list(value)
    return value


def outcome_lines(scores: Any, winners: Any, seat_names: Any) -> list[str]:
    """The closing lines of every game's trace, the same for every game: each seat's final
    score, then the winning seats with their policies (several on a shared win)."""
    won = ", ".join(f"seat {seat} ({seat_names[seat]})" for seat in winners) or "none"
    return ["final scores: " + ", ".join(f"seat {seat} {float(score):g}" for seat, score in enumerate(scores)),
            f"winners: {won}"]


def call_game(game: Game, what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call one of a game's own functions (`what` names it, e.g. "trace()"): whatever it raises
    but a ZoosimError, a bug of the game (often a plugin's), becomes one line naming the game and
    the function, never a traceback."""
    try:
        return function(*args, **kwargs)
    except ZoosimError:
        raise
    except Exception as error:  # noqa: BLE001 - a game's bug, reported in one line
        raise ZoosimError(f"{_named(game)}: {what} raised {type(error).__name__}: {error}") from None


def _named(game: Game) -> str:
    return f"game '{game.name}'"


def player_count(game: Game, params: pydantic.BaseModel) -> int:
    """`game.players(params)`, checked: a whole number of at least 1, or one line naming the game."""
    players = call_game(game, "players()", game.players, params)
    if isinstance(players, bool) or not isinstance(players, numbers.Integral) or players < 1:
        raise ZoosimError(f"{_named(game)}: players() returned {players!r}, not a player count (a whole number >= 1)")
    return int(players)


def game_legend(game: Game, params: pydantic.BaseModel) -> str:
    """`game.legend(params)`, checked to be text, or one line naming the game."""
    legend = call_game(game, "legend()", game.legend, params)
    if not isinstance(legend, str):
        raise ZoosimError(f"{_named(game)}: legend() returned {type(legend).__name__}, not text")
    return legend


def contract_problem(game: Game) -> str | None:
    """What a game breaks of the contract every command relies on, or None: checked once when
    the registry loads it (games/__init__.py), so that a broken plugin is one line naming it and
    never a traceback in a command of another game. Covers what `zoosim rules`, `play --help`
    and every plan use of it: presets, policies, the default rules, players() and legend() (when
    it is not `Deferred`: that would load the engine; it is checked where it is called)."""
    if not isinstance(game.presets, Mapping) or not game.presets:
        return "it has no presets (it needs one at least; the first is the default)"
    if not isinstance(game.policies, Mapping) or not game.policies:
        return "it has no policies"
    if game.default_policy not in game.policies:
        return f"its default policy {game.default_policy!r} is not one of its policies ({', '.join(game.policies)})"
    missing = [name for name in ("preset", "players") if name not in getattr(game.params_model, "model_fields", {})]
    if missing:
        return f"its params_model has no {' and no '.join(missing)} field"
    for role, kind in (("training", Training), ("reference_players", ReferencePlayers)):
        value = getattr(game, role)
        if value is None:
            continue
        if not isinstance(value, kind):
            return f"its {role} must be a {kind.__name__}, got {type(value).__name__}"
        problem = value.problem(game.policies)
        if problem is not None:
            return problem
    for column in (*game.seat_columns, *game.game_columns):
        if not isinstance(column, str):
            return f"its record columns must be names, got {column!r}"
    try:
        params = game.make_params()
    except ZoosimError as error:
        return f"its default rules are invalid ({error})"
    except Exception as error:  # noqa: BLE001 - a broken params model of the game
        return f"make_params() raised {type(error).__name__}: {error}"
    try:
        player_count(game, params)
        call_game(game, "knobs()", game.knobs)
        if game.legend is not None and not isinstance(game.legend, Deferred):  # a deferred one loads an engine
            game_legend(game, params)
    except ZoosimError as error:
        return error.detail.removeprefix(f"{_named(game)}: ")
    return None


def batch_problem(game: Game, columns: Any, games: int, players: int, check: bool = False) -> str | None:
    """What a play_batch result breaks of the contract (columns, shapes, dtypes, row count), or
    None. Every column is recorded, so each must be a numeric (or bool) array of one row per
    game, per game or per seat; the declared ones must be there with their shape. The runner
    checks every batch where it arrives, so a broken game ends a run in one line naming the
    column; the conformance tests check the same."""
    if not isinstance(columns, Mapping):
        return f"play_batch returned {type(columns).__name__}, not a mapping of column name to array"
    per_game, per_seat = (games,), (games, players)
    declared = {name: per_game for name in REQUIRED_GAME_COLUMNS + game.game_columns + (CHECK_COLUMNS if check else ())}
    declared.update({name: per_seat for name in REQUIRED_SEAT_COLUMNS + game.seat_columns})
    # the turn-order facts are optional (logs.with_turn_order fills them in) but shaped if given
    declared.update({name: per_game for name in TURN_ORDER_GAME_COLUMNS if name in columns})
    declared.update({name: per_seat for name in TURN_ORDER_SEAT_COLUMNS if name in columns})
    missing = [name for name in declared if name not in columns]
    if missing:
        return f"play_batch returned no column '{missing[0]}'"
    for name, values in columns.items():
        if not isinstance(values, np.ndarray):
            return f"play_batch column '{name}' is a {type(values).__name__}, not a numpy array"
        allowed = [declared[name]] if name in declared else [per_game, per_seat]
        if values.shape not in allowed:
            expected = " or ".join(str(shape) for shape in allowed)
            return f"play_batch column '{name}' has shape {values.shape}, expected {expected} ({games} games, {players} seats)"
        if name == "win" and values.dtype != np.bool_:
            return f"play_batch column 'win' has dtype {values.dtype}, expected bool"
        if not (np.issubdtype(values.dtype, np.number) or values.dtype == np.bool_):
            return f"play_batch column '{name}' has dtype {values.dtype}, expected numbers"
    return None


def round_scores_problem(scores: Any, win: Any, players: int) -> str | None:
    """What a `Game.round_scores` result breaks of its contract, or None: scores a finite
    (rounds >= 1, players) array, win a bool (players,) array."""
    if not isinstance(scores, np.ndarray) or scores.ndim != 2 or scores.shape[0] < 1 or scores.shape[1] != players:
        shape = getattr(scores, "shape", type(scores).__name__)
        return f"round_scores() returned scores of shape {shape}, expected (rounds >= 1, {players})"
    if not np.issubdtype(scores.dtype, np.number) or not np.isfinite(scores).all():
        return "round_scores() returned scores that are not all finite numbers"
    if not isinstance(win, np.ndarray) or win.shape != (players,) or win.dtype != np.bool_:
        return f"round_scores() returned win of shape {getattr(win, 'shape', None)}, expected bool ({players},)"
    return None


def check_columns(game: Game, columns: Mapping[str, np.ndarray], games: int, players: int) -> None:
    """Assert that play_batch returned the columns the contract promises (used by tests)."""
    problem = batch_problem(game, columns, games, players)
    assert problem is None, problem


def __getattr__(name: str) -> Any:
    """The moved names (MOVED_TO_SCHEMA), with a DeprecationWarning naming their path now."""
    if name not in MOVED_TO_SCHEMA:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} moved: import it from {MOVED_TO_SCHEMA[name].rpartition('.')[0]} "
                  f"({MOVED_TO_SCHEMA[name]}); the old path goes in the next major version",
                  DeprecationWarning, stacklevel=2)
    return getattr(schema, name)
