"""Tune files: the typed schema of an experiment with a `tune:` section, and its loading.

A tune file names a game, who sits where, the player counts, the knobs to search (choices or
ranges, optionally one parameter per seat), the objectives, the budget and the confirmation run.
The schema is strict like `simulator.config`: unknown keys are errors, and every problem becomes a
one-line `ZoosimError` naming the file and the key. Whether the searched knobs exist for the game
is checked by `simulator.tune.space`, which knows the game's knob table.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal

import pydantic
import yaml
from pydantic import Field

from simulator.config import (
    DEFAULT_CHUNK_GAMES, MAX_CELLS, MAX_CHUNK_GAMES, MAX_CHUNKS, MAX_GAMES_PER_CELL, NAME_LENGTH, SeatSpec,
    checked_name, name_from_file, parse_document, read_yaml_mapping,
)
from simulator.errors import ZoosimError
from simulator.schema import StrictModel, explain_validation_error

# Objectives, all minimised; each is the worst (largest) value over the tune's player counts.
OBJECTIVES = {
    "seat_fairness": "largest |deviation from a fair 1/n win rate| of any seat, in points",
    "game_length": "mean turns per game",
    "tie_rate": "share of games with a shared win, in points (percent)",
}
BEST_SUFFIX = "-best"  # best.yaml's experiment name is the tune's name with this suffix
TUNE_NAME_LENGTH = NAME_LENGTH - len(BEST_SUFFIX)
MAX_SEATINGS = 8  # confirm.seatings: each adds the best setting and the printed rules to the confirmation
SAMPLERS = ("auto", "tpe", "cmaes", "nsga2", "random")
# Bounds of a search range (issue #45: every numeric setting has bounds). A knob's own bounds
# are checked against the game (space.py); these hold for every knob, so that no arithmetic on a
# range (its width, its grid) overflows, and a grid stays a list a sampler can walk.
MAX_SEARCH_VALUE = 1e9  # |low|, |high|
MAX_GRID_STEPS = 1_000_000  # (high - low) / step
MAX_MEAN_TURNS = 1_000_000  # constraints.turns


def on_grid(steps: float) -> bool:
    """A whole number of steps, up to rounding."""
    return abs(steps - round(steps)) < 1e-9


def _refuse_repeated_choice(choices: list[Any], of: str = "") -> None:
    """A choice listed twice (`hand_size: [6, 6]`, or 6 and 6.0) would only weigh that setting
    twice; a search with one distinct value is no search."""
    seen: list[Any] = []
    for choice in choices:
        if any(same_value(choice, earlier) for earlier in seen):
            raise ValueError(f"the choice {json.dumps(choice)}{of} is listed twice; list each value once")
        seen.append(choice)


def same_value(a: Any, b: Any) -> bool:
    """Two knob values are the same setting: numbers by value (6 and 6.0, within an optimiser's
    rounding), anything else when equal and of one type (true is not 1)."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    return abs(a - b) < 1e-9 if numbers else type(a) is type(b) and a == b


class SearchRange(StrictModel):
    """A numeric range, or (with `choices`) a list of values; `per_seat` makes one parameter per
    seat of every player count."""

    low: float | None = Field(None, ge=-MAX_SEARCH_VALUE, le=MAX_SEARCH_VALUE, description="smallest value searched")
    high: float | None = Field(None, ge=-MAX_SEARCH_VALUE, le=MAX_SEARCH_VALUE, description="largest value searched")
    step: float | None = Field(
        None, gt=0, description=f"grid step (a discrete range, at most {MAX_GRID_STEPS:,} steps from low to high); "
        "none = continuous")
    log: bool = Field(False, description="search on a log scale (continuous ranges with low > 0)")
    choices: list[Any] | None = Field(None, description="values to choose from, instead of low/high")
    per_seat: bool = Field(False, description="one parameter per seat of every player count")

    @pydantic.model_validator(mode="after")
    def _well_formed(self) -> "SearchRange":
        if self.choices is not None:
            if self.low is not None or self.high is not None or self.step is not None or self.log:
                raise ValueError("give either 'choices' or a range (low, high, step, log), not both")
            if len(self.choices) < 2:
                raise ValueError("an empty search: list at least 2 choices")
            _refuse_repeated_choice(self.choices)
            return self
        if self.low is None or self.high is None:
            raise ValueError("a range needs both 'low' and 'high' (or give 'choices')")
        if self.low > self.high:
            raise ValueError(f"low ({self.low:g}) is above high ({self.high:g})")
        if self.low == self.high:
            raise ValueError(f"an empty range: low and high are both {self.low:g}; high must be above low")
        if self.step is not None:
            if self.log:
                raise ValueError("a log-scale range cannot have a step")
            if self.step > self.high - self.low:
                raise ValueError(f"step ({self.step:g}) is larger than the range (high - low = {self.high - self.low:g}); "
                                 "it must be at most high - low")
            if (self.high - self.low) / self.step > MAX_GRID_STEPS:
                raise ValueError(f"a grid of {(self.high - self.low) / self.step:,.0f} steps from low to high; at most "
                                 f"{MAX_GRID_STEPS:,} allowed: raise step, or leave it out for a continuous range")
            if not on_grid((self.high - self.low) / self.step):
                raise ValueError(f"high - low ({self.high - self.low:g}) is not a multiple of step ({self.step:g})")
        if self.log and self.low <= 0:
            raise ValueError("a log-scale range needs low > 0")
        return self

    def is_integer_for(self, default: Any) -> bool:
        """An integer range: for a knob whose printed value is a whole number (hand_size, houses),
        with whole-number bounds and step; any other range is continuous (or a float grid)."""
        numbers = [self.low, self.high] + ([self.step] if self.step is not None else [])
        whole_knob = isinstance(default, int) and not isinstance(default, bool)
        return whole_knob and self.choices is None and not self.log and all(float(v).is_integer() for v in numbers)


class RacingGames(StrictModel):
    start: int = Field(ge=1, le=MAX_CHUNK_GAMES,
                       description="games per player count for every trial (one chunk of a trial's run)")
    max: int = Field(ge=1, le=MAX_GAMES_PER_CELL, description="games per player count for the best trials")

    @pydantic.model_validator(mode="after")
    def _ordered(self) -> "RacingGames":
        if self.max < self.start:
            raise ValueError(f"max ({self.max}) is below start ({self.start}); it must be at least start")
        return self

    def last_rung(self) -> int:
        """The index R of the last rung of racing: start x 2^R <= max."""
        return int(math.floor(math.log2(self.max / self.start) + 1e-12))


class Budget(StrictModel):
    trials: int = Field(ge=1, le=100_000, description="rule settings to try")
    games: RacingGames
    batch: int = Field(
        8, ge=1, le=1000,
        description="trials proposed and played together (more = better use of many cores); "
        "part of what decides the trials, unlike --jobs",
    )


class Confirm(StrictModel):
    games: int = Field(ge=1, le=MAX_GAMES_PER_CELL, description="games per player count on fresh seeds")
    margin_points: float = Field(1.0, gt=0, le=50, description="equivalence margin of the verdict, in points")
    seatings: list[str | list[str | SeatSpec]] | None = Field(
        None, min_length=1, max_length=MAX_SEATINGS,
        description="who plays the confirmation: a list of seatings, each a policy for every seat (learned) "
        "or a list with one per seat; the best setting is confirmed for each. Default: the tune's seats",
    )

    def seat_lists(self, tune_seats: list[str | SeatSpec] | None) -> list[list[str | SeatSpec] | None]:
        """Each seating as a study's `seats` (None: the game's default policy)."""
        if self.seatings is None:
            return [tune_seats]
        return [[seating] if isinstance(seating, str) else seating for seating in self.seatings]


class Constraints(StrictModel):
    turns: Annotated[list[Annotated[float, Field(ge=0, le=MAX_MEAN_TURNS)]], Field(min_length=2, max_length=2)] | None = Field(
        None, description="[lowest, highest] allowed mean turns per game"
    )

    @pydantic.model_validator(mode="after")
    def _ordered(self) -> "Constraints":
        if self.turns is not None and self.turns[0] > self.turns[1]:
            raise ValueError(f"turns: the lowest ({self.turns[0]:g}) is above the highest ({self.turns[1]:g})")
        return self


class TuneSection(StrictModel):
    game: str = Field(description="a registered game (zoosim rules lists them)")
    seats: list[str | SeatSpec] | None = Field(None, min_length=1, description="policy per seat, or one for all")
    players: list[int] = Field(min_length=1, description="player counts; every trial plays each")
    rules: dict[str, Any] = Field(default_factory=dict, description="fixed rule knobs every trial starts from")
    search: dict[str, list[Any] | SearchRange] = Field(description="knob -> choices or range")
    objective: str | list[str] = Field("seat_fairness", description=", ".join(OBJECTIVES))
    constraints: Constraints = Field(default_factory=Constraints)
    prefer: Literal["fewer_changes"] | None = Field(
        None, description="among trials as good as the best within noise, the fewest knobs changed"
    )
    sampler: Literal[SAMPLERS] = Field(  # type: ignore[valid-type]
        "auto", description="auto (NSGA-II for several objectives, CMA-ES for continuous spaces, else TPE) | "
        "tpe | cmaes | nsga2 | random"
    )
    single_changes: bool = Field(
        True, description="play the printed rules and every single-knob change first, raced like any trial "
        "(they come on top of budget.trials)"
    )
    budget: Budget
    confirm: Confirm

    @pydantic.field_validator("players")
    @classmethod
    def _each_count_once(cls, players: list[int]) -> list[int]:
        for count in players:
            if players.count(count) > 1:
                raise ValueError(f"player count {count} is listed twice; list each once")
        return players

    # Each batch of trials is one run (a cell per trial and player count, 2^R chunks per cell at
    # racing's last rung R) and the confirmation another (the best setting's experiment with
    # the default chunk_games): both are held to the plan limits before the tune folder is written.
    @pydantic.field_validator("budget")
    @classmethod
    def _batch_fits_a_run(cls, budget: "Budget", info: pydantic.ValidationInfo) -> "Budget":
        counts = len(info.data.get("players", []))
        cells = budget.batch * counts
        if cells > MAX_CELLS:
            raise ValueError(f"a batch of {budget.batch} trials at {counts} player counts makes {cells:,} cells; "
                             f"at most {MAX_CELLS:,} allowed: lower batch")
        chunks = cells * 2 ** budget.games.last_rung()
        if chunks > MAX_CHUNKS:
            raise ValueError(f"racing from {budget.games.start:,} to {budget.games.max:,} games makes up to "
                             f"{chunks:,} chunk files per batch; at most {MAX_CHUNKS:,} allowed: raise games.start, "
                             "lower games.max or lower batch")
        return budget

    @pydantic.field_validator("confirm")
    @classmethod
    def _confirmation_fits_a_run(cls, confirm: "Confirm", info: pydantic.ValidationInfo) -> "Confirm":
        # the best setting and the printed rules beside it (best.best_document): two cells per player
        # count and seating
        seatings = len(confirm.seatings or [None])
        chunks = 2 * seatings * len(info.data.get("players", [])) * math.ceil(confirm.games / DEFAULT_CHUNK_GAMES)
        if chunks > MAX_CHUNKS:
            raise ValueError(f"confirming on {confirm.games:,} games per player count (the best setting and the "
                             f"printed rules, {seatings} seating(s)) makes {chunks:,} chunk files "
                             f"of {DEFAULT_CHUNK_GAMES:,} games; at most {MAX_CHUNKS:,} allowed: lower games")
        return confirm

    @pydantic.field_validator("search", mode="before")
    @classmethod
    def _choices_lists(cls, search: Any) -> Any:
        if search == {}:
            raise ValueError("search names no knob (name at least one, e.g. hand_size: [6, 7, 8])")
        if isinstance(search, dict):
            for knob, value in search.items():
                if isinstance(value, list) and len(value) < 2:
                    raise ValueError(f"an empty search over '{knob}': list at least 2 choices")
                if isinstance(value, list):
                    _refuse_repeated_choice(value, f" of '{knob}'")
        return search

    @pydantic.field_validator("objective")
    @classmethod
    def _known_objectives(cls, objective: str | list[str]) -> str | list[str]:
        names = [objective] if isinstance(objective, str) else objective
        if not names:
            raise ValueError(f"name at least one objective (allowed: {', '.join(OBJECTIVES)})")
        for name in names:
            if name not in OBJECTIVES:
                raise ValueError(f"unknown objective '{name}' (allowed: {', '.join(OBJECTIVES)})")
        if len(set(names)) != len(names):
            raise ValueError("an objective is listed twice")
        return objective

    @property
    def objectives(self) -> list[str]:
        return [self.objective] if isinstance(self.objective, str) else list(self.objective)

    def choice_range(self, knob: str) -> SearchRange:
        """A search entry as a SearchRange (a plain list is its choices)."""
        entry = self.search[knob]
        return SearchRange(choices=entry) if isinstance(entry, list) else entry


class TuneExperiment(StrictModel):
    """A whole tune file."""

    name: str | None = Field(None, description="defaults to the file name without .yaml")
    description: str = ""
    seed: int = Field(0, ge=0, lt=2**63, description="master seed; same seed, same trials")
    rotate_seats: bool = Field(True, description="replay every deal in every seat rotation")
    tune: TuneSection

    @pydantic.field_validator("name")
    @classmethod
    def _one_path_component(cls, name: str | None) -> str | None:
        # The name names the tune folder and, with BEST_SUFFIX, the best-settings experiment.
        return checked_name(name, "the tune name", TUNE_NAME_LENGTH)


def load_tune(path: str | Path, *, games: int | None = None, trials: int | None = None) -> tuple[TuneExperiment, str]:
    """Read and validate a tune file. Returns the model and the file's text. `games` and
    `trials` are the command line's overrides (`with_tune_overrides`), validated like the file's keys."""
    path = Path(path)
    document, text = read_yaml_mapping(path, what="a tune file must be a mapping with a 'tune' section")
    if "tune" not in document:
        raise ZoosimError("no 'tune' section (a file with studies is run with `zoosim run`)", file=str(path), key="tune")
    experiment = parse_document(TuneExperiment, with_tune_overrides(document, games=games, trials=trials), file=str(path))
    if experiment.name is None:
        experiment = experiment.model_copy(update={"name": name_from_file(path)[:TUNE_NAME_LENGTH]})
    return experiment, text


def with_tune_overrides(document: dict[str, Any], *, games: int | None = None, trials: int | None = None) -> dict[str, Any]:
    """A tune document with `zoosim tune --games/--trials` applied (in place). --trials replaces
    budget.trials. --games N replaces the games every trial plays first (budget.games.start), and
    scales the racing's top (budget.games.max) and the confirmation (confirm.games) by the same
    factor, rounded up, so racing keeps its rungs and a quick look stays quick throughout. A
    document whose budget is not a mapping is left for the schema to refuse."""
    section = document.get("tune")
    budget = section.get("budget") if isinstance(section, dict) else None
    if not isinstance(budget, dict):
        return document
    if trials is not None:
        budget["trials"] = trials
    racing = budget.get("games")
    if games is not None and isinstance(racing, dict) and isinstance(racing.get("start"), int) and racing["start"] > 0:
        factor = games / racing["start"]
        racing["start"] = games
        if isinstance(racing.get("max"), int):
            racing["max"] = max(games, math.ceil(racing["max"] * factor))
        confirm = section.get("confirm")
        if isinstance(confirm, dict) and isinstance(confirm.get("games"), int):
            confirm["games"] = max(1, math.ceil(confirm["games"] * factor))
    return document


def with_confirm_games(experiment: TuneExperiment, games: int | None, *, file: str | None = None) -> TuneExperiment:
    """The tune with `zoosim tune --confirm-games N`: its confirmation plays N games per player
    count. Unlike --games and --trials this is not part of the tune (its hash and default folder
    stay the file's, as the trials do not depend on it), so a finished tune resumed with it grows
    its confirmation (best.confirm). Held to `confirm.games`'s limits; a refusal names the option."""
    if games is None:
        return experiment
    document = experiment.model_dump(mode="json")
    document["tune"]["confirm"]["games"] = games
    try:
        return TuneExperiment.model_validate(document)
    except pydantic.ValidationError as error:
        message, _ = explain_validation_error(TuneExperiment, error)
        raise ZoosimError(message, file=file, key="--confirm-games") from None


def dump_yaml(data: Any) -> str:
    """YAML as people write it: keys in the given order, short lists on one line."""
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100)
