"""The run manifest's cell: what a run folder says about one cell, declared once.

The writing half (`plan.Cell.describe()`, saved by `rundir.write_manifest`) and the reading half
(`rundir.read_manifest`, then the analysis, the report, compare, tune, train and the Python API)
share this one model: the writer builds a `ManifestCell`, `to_json()` is what `manifest.json`
holds, `from_json()` checks a manifest's cell (types and consistency) and gives it back typed, and
readers use its attributes. It carries what the analysis needs of the game, so a report never
loads a game engine.

Run folders written by earlier zoosim versions still open: the keys they lacked have defaults
here (`played_rules`, `components`, `score_meaning`, ...), and keys a newer zoosim adds are kept.
Reading a cell as a mapping (`cell["players"]`, `cell.get("explain")`, as `Run.manifest` gave
before) still works, with a DeprecationWarning.
"""

from __future__ import annotations

import warnings
from typing import Annotated, Any

import pydantic

# What the seat table's mean score counts for a run written before the manifest carried the
# game's own words (Game.score_meaning).
SCORE_NOT_CARRIED = "the game's final score"

# Keys written only when the cell has them (an explain setting, a trained player, a note on the
# reference players, a ladder's rung models): `to_json()` leaves them out when None.
WRITTEN_WHEN_SET = ("explain", "trained", "reference_players", "rung_models")

# [per-seat record column, human name]
NamedColumn = Annotated[list[str], pydantic.Field(min_length=2, max_length=2)]


class ManifestCell(pydantic.BaseModel):
    """One cell of `manifest.json` (`Cell.describe()`), with the types and consistency its
    readers rely on."""

    model_config = pydantic.ConfigDict(strict=True, extra="allow", frozen=True)

    index: int = pydantic.Field(ge=0)  # names its logs folder, logs/cell=NNNN
    study: str
    game: str
    label: str  # e.g. "GAME · players=4"
    sweep_values: dict[str, Any]  # knob -> value of this cell's combination of its study's sweep
    players: int = pydantic.Field(ge=1)
    seats: list[str]  # readable policy label per slot, e.g. "greedy(skip_cost=3)"
    rotate: bool
    games: int = pydantic.Field(ge=0)
    deals: int = pydantic.Field(ge=0)
    chunks: int = pydantic.Field(ge=0)
    chunk_deals: int = pydantic.Field(ge=1)
    params: dict[str, Any]  # the rules as the params model dumps them
    seed_entropy: list[int]  # (experiment seed, cell key): plan.deal_seeds
    # the deals whose games are replayed round by round for the trajectory figures (the first
    # ones; 0: none, and for a manifest written before the setting existed)
    trajectory_deals: int = pydantic.Field(default=0, ge=0)
    end_reasons: list[str]  # Game.end_reasons: the `end_reason` codes' names
    # game-length measures: turns and rounds, plus the game's own (a per-seat one is shown as its
    # total over the seats)
    length_columns: list[str]
    # per-seat measures in display order (a list: the manifest's JSON has its keys sorted)
    seat_measures: list[NamedColumn]
    rules_version: int | None = None
    params_hash: str | None = None
    # the rules with every `auto` knob resolved, what compare matches on (None: `params`)
    played_rules: dict[str, Any] | None = None
    # the components a seat takes (Game.components), for component strength
    components: list[NamedColumn] = []
    score_meaning: str = SCORE_NOT_CARRIED  # what the score counts (Game.score_meaning)
    # what the per-round score behind the trajectory figures counts (Game.round_score_meaning;
    # "" for a manifest written before it)
    round_score_meaning: str = ""
    # An explain study's setting: {"group": index of the cell's setting as written, "off": names
    # of the mechanisms switched off, "method": ..., "mechanisms": [{"name", "knobs", "rules"}],
    # "unused_knobs": ...}
    explain: dict[str, Any] | None = None
    trained: list[dict[str, Any]] | None = None  # plan.trained_players: its seats' trained players
    reference_players: dict[str, Any] | None = None  # plan.reference_note
    rung_models: dict[str, Any] | None = None  # a ladder cell: rung label -> what it models

    @pydantic.model_validator(mode="after")
    def _consistent(self) -> "ManifestCell":
        if len(self.seats) != self.players:
            raise ValueError(f"lists {len(self.seats)} seats for {self.players} players")
        if self.games != self.deals * (self.players if self.rotate else 1):
            raise ValueError(f"{self.games} games do not match {self.deals} deals")
        if self.chunks != -(-self.deals // self.chunk_deals):
            raise ValueError(f"{self.chunks} chunks do not match {self.deals} deals of {self.chunk_deals} per chunk")
        return self

    @classmethod
    def from_json(cls, data: Any) -> "ManifestCell":
        """A manifest cell as parsed from JSON; pydantic.ValidationError when it is not one."""
        return cls.model_validate(data)

    def to_json(self) -> dict[str, Any]:
        """The cell as `manifest.json` holds it (keys of WRITTEN_WHEN_SET only when set)."""
        data = self.model_dump(mode="json")
        for key in WRITTEN_WHEN_SET:
            if data[key] is None:
                del data[key]
        return data

    @property
    def games_per_deal(self) -> int:
        return self.players if self.rotate else 1

    @property
    def rules(self) -> dict[str, Any]:
        """The rules as played (`auto` resolved) where the manifest carries them, else as written."""
        return self.played_rules or self.params

    @property
    def mixed(self) -> bool:
        """Whether different players sit at the table."""
        return len(set(self.seats)) > 1

    # ---- deprecated: reading a cell as the dict it was ----------------------------------------

    def __getitem__(self, key: str) -> Any:
        _warn_mapping_access()
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        _warn_mapping_access()
        return self.to_json().get(key, default)


def _warn_mapping_access() -> None:
    warnings.warn("a manifest cell is a simulator.manifest_cell.ManifestCell: read its attributes "
                  "(cell.players) instead of keys (cell['players']); key access will be removed",
                  DeprecationWarning, stacklevel=3)
