"""Experiment files: the typed schema, loading with one-line errors, and the experiment hash.

An experiment is a list of studies. A study names a game, its rule knobs, who sits where, and
optionally a sweep over knobs; `simulator.plan` expands it into cells. Everything a user can get
wrong is reported as a `ZoosimError` naming the file, the key path and what is allowed, before
anything is written. Files are read by `simulator.safe_yaml` (bounded size, depth and aliases;
no tags or duplicate keys); models are strict (`StrictModel`: no bool as a number, finite floats).
The plan limits (cells, chunk files) live here and are checked by `simulator.plan`.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
from pydantic import Field, field_validator

from simulator.errors import ZoosimError
from simulator.schema import StrictModel, explain_validation_error, key_path
from simulator.safe_yaml import load_yaml, read_text_file

MAX_GAMES_PER_CELL = 10_000_000_000
MAX_CHUNK_GAMES = 10_000_000
DEFAULT_CHUNK_GAMES = 20_000
# The trajectory figures' sample (issue #43): the deals per cell replayed round by round.
# `auto` replays one deal in AUTO_TRAJECTORY_SHARE_DEALS, at most AUTO_TRAJECTORY_MAX_DEALS: a
# replay through the step API costs about 50 batch games (docs/benchmarks.md), so this keeps it
# near a tenth of the play time in every cell; a cell of fewer deals gets none (set a number to
# ask for one).
AUTO_TRAJECTORY = "auto"
AUTO_TRAJECTORY_SHARE_DEALS = 500
AUTO_TRAJECTORY_MAX_DEALS = 500
MAX_TRAJECTORY_DEALS = 100_000
# Plan limits, checked by arithmetic before any cell or chunk is built (simulator.plan).
MAX_CELLS = 10_000
MAX_CHUNKS = 100_000  # chunk files of a whole run, counting precision mode's caps
# Precision mode's narrowest target: 0.01 points needs about 10^8 games per cell, more than a run
# plays; a narrower one would only overflow the projection. The equivalence margin's smallest.
MIN_HALFWIDTH = 0.0001
MIN_MARGIN_POINTS = 0.01
MAX_MARGIN_POINTS = 50

# The experiment name is the run folder's name (reports/<name>-<hash>), so it must be one safe
# path component on every file system: no separators, no leading dot or dash, short.
NAME_LENGTH = 64
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def checked_name(name: str | None, what: str, length: int = NAME_LENGTH) -> str | None:
    """`name` when it is one safe path component of at most `length` characters; otherwise a
    ValueError saying `what` (e.g. "the experiment name") must be."""
    if name is not None and not (NAME_PATTERN.fullmatch(name) and len(name) <= length):
        raise ValueError(
            f"{what} must be 1-{length} characters: letters A-Z a-z, digits, '_', '-' and '.', "
            "starting with a letter or digit (it names the run folder)"
        )
    return name


class SeatSpec(StrictModel):
    """A heuristic in one seat: its registered name and overrides of its parameters (numbers, or
    names for a choice parameter such as ismcts's rollout); the policy's PolicySpec checks them."""

    policy: str
    params: dict[str, Any] = Field(default_factory=dict)

    @field_validator("params")
    @classmethod
    def _numbers_as_floats(cls, params: dict[str, Any]) -> dict[str, Any]:
        """100 and 100.0 are the same parameter value (and the same run); what is not a number
        or a name reaches PolicySpec, which says what the parameter allows."""
        return {name: float(value) if type(value) is int and abs(value) <= sys.float_info.max else value
                for name, value in params.items()}  # an int beyond a float's range stays, to be refused


class Rung(SeatSpec):
    """A strength-ladder rung: a player, and optionally its own games per cell, so that an
    expensive rung (a search) plays only what its verdict needs while cheap rungs play more."""

    games: int | None = Field(
        None, ge=1, le=MAX_GAMES_PER_CELL,
        description="games of this rung's self-play cell and of its head-to-heads (a head-to-head "
        "of two rungs that both set games plays the smaller count); default: the study's games",
    )


# A ladder's climb adds at most this many rungs per player count (each one plays twice the
# search of the one before: ten doublings is a thousand times the top rung's cost).
MAX_CLIMBS = 10


class LadderClimb(StrictModel):
    """A strength ladder that climbs until its two top rungs agree (simulator/climb.py): after the
    ladder is played, per player count, while the ladder verdict is not *stable* and fewer than
    `max_climbs` rungs were added, a rung one step stronger than the top rung (the step its policy
    declares: a search's iterations doubled, a learned player's temperature halved or, at 0, its
    next kept training round) is added and played, and the ladder judged again."""

    max_climbs: int = Field(ge=1, le=MAX_CLIMBS, description="the most rungs the climb adds per player count")


class PrecisionTarget(StrictModel):
    halfwidth: float = Field(ge=MIN_HALFWIDTH, lt=0.5,
                             description="largest allowed interval half-width of a seat win rate")


class PrecisionGames(StrictModel):
    """Precision mode: after a pilot of `start` games, play the games projected to make every
    seat's shown simultaneous interval this narrow (analysis/summary.py, docs/statistics.md)."""

    until: PrecisionTarget
    max: int = Field(ge=1, le=MAX_GAMES_PER_CELL, description="stop at this many games per cell regardless")
    start: int = Field(
        20_000, ge=1, le=MAX_GAMES_PER_CELL, description="games per cell before the first look"
    )


# Shapley shares play every subset of the mechanisms (2^k settings per cell): at most this many.
MAX_SHAPLEY_MECHANISMS = 6
MECHANISM_NAME_LENGTH = 60


class Mechanism(StrictModel):
    """One cause of seat advantage an explain study switches off: its name in the report and the
    rule knob(s) with the value(s) that switch it off (`simulator.plan` checks them against the
    game and takes the rule ids from the knobs)."""

    name: str = Field(min_length=1, max_length=MECHANISM_NAME_LENGTH,
                      description="what the report calls it, e.g. 'extra turn on a 7'")
    knobs: dict[str, Any] = Field(
        min_length=1, description="rule knob -> the value that switches the mechanism off (dotted names allowed)"
    )


class Explain(StrictModel):
    """Where a cell's seat edge comes from: every cell of the study is played again, on the same
    deals, with mechanisms switched off (analysis/explain.py, docs/statistics.md)."""

    method: Literal["shapley", "one_at_a_time"] = Field(
        "shapley",
        description=f"shapley: every subset of the mechanisms is played (2^k settings, at most "
        f"{MAX_SHAPLEY_MECHANISMS} mechanisms) and each gets its Shapley share; one_at_a_time: each "
        "mechanism alone, and all of them together",
    )
    mechanisms: list[Mechanism] = Field(
        min_length=1, description="the mechanisms to switch off, one at a time or in every subset"
    )
    games_as_written_and_all_off: int | None = Field(
        None, ge=1, le=MAX_GAMES_PER_CELL,
        description="shapley: games of the two settings the explained share and the unexplained rest "
        "come from, the rules as written and every mechanism off, at least the study's games "
        "(default: the study's games); their extra deals narrow those two intervals, and the shares "
        "come from the deals every setting played",
    )

    @field_validator("mechanisms")
    @classmethod
    def _shapley_size_and_names(cls, mechanisms: list[Mechanism], info) -> list[Mechanism]:
        if info.data.get("method", "shapley") == "shapley" and len(mechanisms) > MAX_SHAPLEY_MECHANISMS:
            raise ValueError(
                f"{len(mechanisms)} mechanisms: Shapley shares play every subset (2^k settings), at most "
                f"{MAX_SHAPLEY_MECHANISMS} mechanisms; list fewer, or set method: one_at_a_time"
            )
        names = [mechanism.name for mechanism in mechanisms]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"the mechanism name '{repeated[0]}' is used twice; give each mechanism its own name")
        return mechanisms


class Study(StrictModel):
    """One game under one set of rules, seatings and sweeps. Each sweep combination is a cell."""

    name: str | None = Field(None, description="label in the report; defaults to the game name")
    game: str = Field(description="a registered game (`zoosim rules` lists them)")
    rules: dict[str, Any] = Field(default_factory=dict, description="rule knobs (`zoosim rules GAME`)")
    seats: list[str | SeatSpec] | None = Field(
        None, min_length=1,
        description="policy per seat in turn order; one entry means every seat; "
        "default: the game's default policy everywhere",
    )
    pool: list[str | SeatSpec] | None = Field(
        None,
        description="heuristic tournament: policies of which every combination of `players` "
        "(round_robin) or every ordering (permutations) plays as its own cell; instead of seats",
    )
    ladder: list[str | Rung] | None = Field(
        None,
        description="strength ladder, weakest first (at least 2 distinct policies): every rung "
        "plays self-play, and each rung plays the next one (alternating around the table), so "
        "all rungs get one Elo scale; instead of seats or pool",
    )
    climb: LadderClimb | None = Field(
        None,
        description="with a ladder: {max_climbs: N}: add rungs one step stronger than the top rung "
        "until the two top rungs agree (the ladder verdict is stable), at most N per player count",
    )
    pool_format: Literal["round_robin", "permutations"] = Field(
        "round_robin", description="how the pool is seated: round_robin | permutations"
    )
    sweep: dict[str, list[Any]] | None = Field(
        None, description="knob -> values; every combination becomes a cell (a grid)"
    )
    cases: list[dict[str, Any]] | None = Field(
        None, min_length=1, description="listed knob combinations, one cell each (instead of a grid)"
    )
    games: int | None = Field(None, ge=1, le=MAX_GAMES_PER_CELL, description="games per cell")
    trajectory_deals: Annotated[int, Field(ge=0, le=MAX_TRAJECTORY_DEALS)] | Literal["auto"] | None = Field(
        None, description="this study's trajectory sample per cell (the experiment's `trajectory_deals` when not given)",
    )
    explain: Explain | None = Field(
        None,
        description="explain each cell's largest seat deviation: replay its deals with mechanisms "
        "switched off (Shapley shares or one at a time); with `seats`, not a pool or ladder",
    )

    @pydantic.model_validator(mode="after")
    def _sweep_xor_cases(self) -> "Study":
        if self.sweep is not None and self.cases is not None:
            raise ValueError("give either 'sweep' (a grid) or 'cases' (listed combinations), not both")
        given = [key for key in ("seats", "pool", "ladder") if getattr(self, key) is not None]
        if len(given) > 1:
            raise ValueError(f"give one of 'seats' (one seating), 'pool' (a tournament) or 'ladder' "
                             f"(a strength ladder), not {' and '.join(given)}")
        if self.ladder is not None and len(self.ladder) < 2:
            raise ValueError("a strength ladder needs at least 2 rungs")
        if self.climb is not None and self.ladder is None:
            raise ValueError("'climb' climbs a strength ladder: give the study a 'ladder' (rungs weakest first)")
        if self.pool is not None and len(self.pool) < 2:
            raise ValueError("a tournament pool needs at least 2 policies")
        for knob, values in (self.sweep or {}).items():
            if not values:
                raise ValueError(f"sweep over '{knob}' lists no values")
        return self


class Experiment(StrictModel):
    """A whole experiment file."""

    name: str | None = Field(None, description="defaults to the file name without .yaml")
    description: str = ""
    seed: int = Field(0, ge=0, lt=2**63, description="master seed; same seed, same games")
    games: Annotated[int, Field(ge=1, le=MAX_GAMES_PER_CELL)] | PrecisionGames = Field(
        10_000, description="games per cell, or {until: {halfwidth: H}, max: N} for precision mode"
    )
    chunk_games: int = Field(
        DEFAULT_CHUNK_GAMES, ge=1, le=MAX_CHUNK_GAMES, description="games per chunk (one Parquet file each)"
    )
    rotate_seats: bool = Field(
        True, description="replay every deal in every rotation of the seating (common random numbers)"
    )
    margin_points: float = Field(
        1.0, ge=MIN_MARGIN_POINTS, le=MAX_MARGIN_POINTS,
        description="equivalence margin: a seat within ±this many points of 1/n counts as balanced"
    )
    trajectory_deals: Annotated[int, Field(ge=0, le=MAX_TRAJECTORY_DEALS)] | Literal["auto"] = Field(
        AUTO_TRAJECTORY,
        description=("deals per cell replayed round by round for the trajectory figures (lead changes, comebacks, "
                     f"decisiveness); 0: none; auto: one deal in {AUTO_TRAJECTORY_SHARE_DEALS}, at most "
                     f"{AUTO_TRAJECTORY_MAX_DEALS}"),
    )
    studies: list[Study] = Field(min_length=1)

    @pydantic.field_validator("name")
    @classmethod
    def _one_path_component(cls, name: str | None) -> str | None:
        return checked_name(name, "the experiment name")


def name_from_file(path: Path) -> str:
    """A valid experiment name from a file name: 'my study (v2).yaml' -> 'my_study_v2'."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", path.stem).strip("._-")[:NAME_LENGTH]
    return name or "experiment"


def load_experiment(
    path: str | Path, *, games: int | None = None, seed: int | None = None
) -> tuple[Experiment, str]:
    """Read and validate an experiment file. Returns the model and the file's text.

    `games` and `seed` are the command line's overrides; they are validated like the file's keys.
    """
    path = Path(path)
    document, text = read_yaml_mapping(path, what="an experiment file must be a mapping with at least a 'studies' list")
    experiment = parse_experiment(with_overrides(document, games=games, seed=seed), file=str(path))
    if experiment.name is None:
        experiment = experiment.model_copy(update={"name": name_from_file(path)})
    return experiment, text


def with_overrides(document: dict[str, Any], *, games: int | None = None, seed: int | None = None) -> dict[str, Any]:
    """An experiment document with the command line's --games and --seed applied (in place):
    --games replaces the file's games, every study's own and an explain study's
    games_as_written_and_all_off: every cell plays that many."""
    if games is not None:
        document["games"] = games
        studies = document.get("studies")
        for study in studies if isinstance(studies, list) else []:
            if isinstance(study, dict):
                study.pop("games", None)
                if isinstance(study.get("explain"), dict):
                    study["explain"].pop("games_as_written_and_all_off", None)
    if seed is not None:
        document["seed"] = seed
    return document


def read_yaml_mapping(path: Path, *, what: str) -> tuple[dict[str, Any], str]:
    """A YAML file's mapping and text; unreadable files and malformed YAML are one-line errors.
    `what` says what the file must be when it is not a mapping."""
    file = str(path)
    text = read_text_file(path)
    document = load_yaml(text, source=file)
    if not isinstance(document, dict):
        raise ZoosimError(what, file=file)
    return document, text


def parse_experiment(document: dict[str, Any], *, file: str | None = None) -> Experiment:
    """Validate a parsed document; errors become one-line ZoosimErrors naming the key path."""
    if "tune" in document and "studies" not in document:
        raise ZoosimError("is a tune file (it has a 'tune:' section, no 'studies:'): run it with "
                          f"zoosim tune {shlex.quote(file or 'FILE')}", file=file or "the document")
    _refuse_misplaced_knobs(document, file)
    return parse_document(Experiment, document, file=file)


def _refuse_misplaced_knobs(document: dict[str, Any], file: str | None) -> None:
    """A rule knob written beside `game:` or at the experiment's top level (`players: 3`) belongs
    under a study's `rules:` or `sweep:`; said so rather than as an unknown key with a look-alike
    suggestion. A study whose game is not known is left to the schema, which names the game."""
    studies = document.get("studies")
    studies = studies if isinstance(studies, list) else []
    for key in _unknown_keys(document, Experiment):
        for study in studies:
            if isinstance(study, dict) and key.split(".")[0] in _knobs_of(study.get("game")):
                raise ZoosimError(
                    f"'{key}' is a rule knob of {study['game']}, not an experiment key: put it under a "
                    f"study's 'rules:' (one value) or 'sweep:' (a list of values to compare)",
                    file=file, key=key,
                )
    for index, study in enumerate(studies):
        if not isinstance(study, dict):
            continue
        for key in _unknown_keys(study, Study):
            if key.split(".")[0] in _knobs_of(study.get("game")):
                raise ZoosimError(
                    f"'{key}' is a rule knob of {study['game']}, not a study key: put it under 'rules:' "
                    f"(one value, e.g. rules: {{{key}: ...}}) or 'sweep:' (a list of values to compare)",
                    file=file, key=f"studies[{index}].{key}",
                )


def _unknown_keys(mapping: dict, model: type[pydantic.BaseModel]) -> list[str]:
    return [key for key in mapping if isinstance(key, str) and key not in model.model_fields]


def _knobs_of(game: Any) -> dict:
    """The rule knobs of a game named in a file, or none when the name is not a known game."""
    if not isinstance(game, str):
        return {}
    from simulator.games import get_game  # only on an error path: the schema knows no game

    try:
        return get_game(game).params_model.model_fields
    except ZoosimError:
        return {}


def parse_document(model: type[pydantic.BaseModel], document: dict[str, Any], *, file: str | None = None):
    """Validate a document against a file schema; the first relevant error becomes a one-line
    ZoosimError naming the key path as the user wrote it."""
    try:
        return model.model_validate(document)
    except pydantic.ValidationError as error:
        message, path = explain_validation_error(model, error)
        raise ZoosimError(message, file=file, key=key_path(path)) from None
