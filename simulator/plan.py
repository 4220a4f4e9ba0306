"""Expands an experiment into cells and chunks, and assigns every game its seed.

A *cell* is one game under one set of rules and one seating (a study, or one combination of its
sweep). A cell's games come in *deals*: with seat rotation, deal d is played once per rotation
r = 0..n-1 as games d*n + r (common random numbers); without it, every game is its own deal.
Deals are split into fixed-size *chunks*, the unit of work and of logging (one Parquet file each).

Seeds (docs/design.md, "Randomness"): the seeds of chunk c of a cell are
`SeedSequence(entropy=(experiment seed, cell key), spawn_key=(c,)).generate_state(deals)`, where
the cell key hashes what the cell plays (game, rules version, the knobs that differ from the
game's defaults, seating, rotation, chunk size).
Nothing depends on the worker, the backend or the clock, so every game is the same for any
`--jobs`, after a resume, and even when cells are added to or removed from the experiment; and
raising `games` keeps every earlier whole chunk's games (precision mode grows cells this way).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import itertools
import json
import math
import shlex
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pydantic

from simulator.config import (
    AUTO_TRAJECTORY, AUTO_TRAJECTORY_MAX_DEALS, AUTO_TRAJECTORY_SHARE_DEALS, MAX_CELLS, MAX_CHUNKS, Experiment,
    PrecisionGames, Rung, SeatSpec, Study,
)
from simulator.digest import SHORT, json_digest
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import (
    WEIGHTS_PARAM, SeatPolicies, changed_knobs, expand_dotted, flatten_dotted, knob_table, params_hash,
    played_rules, player_count,
)
from simulator.manifest_cell import ManifestCell


# The label of a study's empty case `{}`: its rules as written, the other cases' point of comparison.
BASELINE_LABEL = "baseline"


@dataclass(frozen=True)
class Cell:
    index: int
    study: str
    game: str
    label: str  # e.g. "GAME · players=4"
    sweep_values: dict[str, Any]
    params: pydantic.BaseModel
    params_hash: str
    rules_version: int
    seats: tuple[tuple[str, dict[str, float]], ...]  # (policy, parameter overrides) per slot
    players: int
    rotate: bool
    deals: int
    max_deals: int | None  # precision mode: the cap; None for a fixed number of games
    chunk_deals: int
    seed_entropy: tuple[int, int]
    # deals replayed round by round for the trajectory figures (the cell's first ones; 0: none)
    trajectory_deals: int = 0
    # An explain study's setting (see `_explain_cells`): {"group": index of the cell's setting as
    # written, "off": names of the mechanisms switched off, "method": ..., "mechanisms": [{"name",
    # "knobs" (dotted knob -> the value that switches it off), "rules" (their rule ids)}]}; None for every other cell.
    explain: dict[str, Any] | None = None

    @property
    def games_per_deal(self) -> int:
        return self.players if self.rotate else 1

    @property
    def games(self) -> int:
        return self.deals * self.games_per_deal

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk_deals)

    @property
    def seat_labels(self) -> list[str]:
        """Readable seating, e.g. ['greedy', 'greedy(skip_cost=3)']."""
        return [policy_label(name, overrides) for name, overrides in self.seats]

    def seat_policies(self) -> SeatPolicies:
        return get_game(self.game).seat_policies(list(self.seats))

    def chunk(self, chunk_index: int) -> "Chunk":
        first = chunk_index * self.chunk_deals
        return Chunk(self, chunk_index, first, min(self.chunk_deals, self.deals - first))

    def all_chunks(self) -> list["Chunk"]:
        return [self.chunk(index) for index in range(self.chunks)]

    def replay_command(self, seed: int, rotation: int) -> str:
        """The `zoosim play` command line that replays one game of this cell."""
        game = get_game(self.game)
        defaults = game.make_params({"preset": self.params.preset}).model_dump(mode="json")
        settings = [
            ["--set", f"{name}={json.dumps(value, separators=(',', ':'))}"]
            for name, value in flatten_dotted(self.params.model_dump(mode="json")).items()
            if flatten_dotted(defaults).get(name) != value or (name == "preset" and value != next(iter(game.presets)))
        ]
        policies = ",".join(name for name, _ in self.seats)
        words = ["zoosim", "play", self.game, "--seed", str(seed), "--rotation", str(rotation), "--policy", policies]
        return shlex.join(words + [word for setting in settings for word in setting])

    def describe(self) -> ManifestCell:
        """What the manifest and the report say about this cell (with what the analysis needs
        of the game, so a report never loads a game engine)."""
        game = get_game(self.game)
        return ManifestCell(
            index=self.index,
            study=self.study,
            game=self.game,
            label=self.label,
            sweep_values=self.sweep_values,
            players=self.players,
            seats=self.seat_labels,
            rotate=self.rotate,
            games=self.games,
            deals=self.deals,
            chunks=self.chunks,
            chunk_deals=self.chunk_deals,
            rules_version=self.rules_version,
            params_hash=self.params_hash,
            params=self.params.model_dump(mode="json"),
            played_rules=played_rules(self.params),
            seed_entropy=list(self.seed_entropy),
            trajectory_deals=self.trajectory_deals,
            end_reasons=list(game.end_reasons),
            length_columns=["turns", "rounds"] + [c for c in game.length_columns if c not in ("turns", "rounds")],
            seat_measures=[[column, name] for column, name in game.seat_measures.items()],
            components=[[column, name] for column, name in game.components.items()],
            score_meaning=game.score_meaning,
            round_score_meaning=game.round_score_meaning,
            explain=self.explain,
            trained=trained_players(self) or None,
            reference_players=reference_note(self),
            rung_models=({policy_label(name, o): rung_model(game, name, o) for name, o in self.seats}
                         if "rungs" in self.sweep_values else None),
        )


@dataclass(frozen=True)
class Chunk:
    cell: Cell
    index: int
    first_deal: int
    deals: int

    @property
    def games(self) -> int:
        return self.deals * self.cell.games_per_deal

    @property
    def first_game(self) -> int:
        return self.first_deal * self.cell.games_per_deal

    def deal_seeds(self) -> np.ndarray:
        return deal_seeds(self.cell.seed_entropy, self.index, self.deals)

    def game_seeds_and_rotations(self) -> tuple[np.ndarray, np.ndarray]:
        """Per game: its deal's seed and its rotation, in game-index order."""
        per_deal = self.cell.games_per_deal
        seeds = np.repeat(self.deal_seeds(), per_deal)
        rotations = np.tile(np.arange(per_deal, dtype=np.int8), self.deals)
        return seeds, rotations


def deal_seeds(seed_entropy, chunk_index: int, deals: int) -> np.ndarray:
    """The deal seeds of chunk `chunk_index` of a cell (see the module doc)."""
    sequence = np.random.SeedSequence(entropy=list(seed_entropy), spawn_key=(chunk_index,))
    return sequence.generate_state(deals, dtype=np.uint64)


@dataclass
class Plan:
    experiment: Experiment
    run_hash: str
    cells: list[Cell] = field(default_factory=list)
    # a climbing ladder's record per study and player count (simulator/climb.py's ClimbRecord, as
    # JSON), which the manifest keeps for the report; empty without a climbing ladder
    climbs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(cell.games for cell in self.cells)

    @property
    def chunk_count(self) -> int:
        return sum(cell.chunks for cell in self.cells)

    def chunks(self) -> list[Chunk]:
        return [chunk for cell in self.cells for chunk in cell.all_chunks()]


def _weights_identities(cells: list[Cell]) -> list[list[Any]]:
    """Per cell with a learned player, the contents (sha256) of its seats' weights files, so that
    a changed file is another run (base.PolicySpec.identity)."""
    found = []
    for cell in cells:
        game = get_game(cell.game)
        named = [game.policies[policy].identity(o).get(WEIGHTS_PARAM) for policy, o in cell.seats]
        if any(named):
            found.append([cell.index, named])
    return found


def _player_rows(cell: Cell) -> list[list[Any]]:
    """The cell's seats as the kernels receive them: each policy's name and parameter row."""
    game = get_game(cell.game)
    return [[policy, game.policies[policy].pack(o).tolist()] for policy, o in cell.seats]


def rung_model(game, name: str, params: dict[str, Any]) -> str:
    """What a ladder rung models in words ("a newcomer who moves at random", ...), from its
    policy's declared `models` and `mistake_temperature` (base.PolicySpec). A temperature is in
    the evaluation's units (the game's score units: points, squares), so the words say what it does, not
    how often: the ladder's ratings measure that."""
    spec = game.policies[name]
    if name == "random":
        return "a newcomer who moves at random"
    if spec.models:
        at_best = spec.models
    elif name in game.search_policies:
        at_best = f"a player who looks ahead by search ({spec.description})"
    else:
        at_best = f"a rule-of-thumb player ({spec.description})"
    if spec.mistake_temperature is not None:
        temperature = float(params.get(spec.mistake_temperature, spec.params[spec.mistake_temperature]))
        if temperature > 0:
            return (f"a player who makes mistakes: moves drawn in proportion to exp(value / {temperature:g}) "
                    f"(values in the evaluation's units; the higher the temperature, the more often a lesser "
                    f"move), and at temperature 0 {at_best}")
    return at_best


def trained_players(cell: Cell) -> list[dict[str, Any]]:
    """Per seating slot of a learned player: the rules its weights were trained on, in words
    (their card's `rules`, as knobs changed from the printed rules), and whether those differ
    from the rules this cell plays (compared at the cell's player count, so a file trained at 4
    players matches a 2-player cell of the same rules). Empty for a cell without one."""
    game = get_game(cell.game)
    found = []
    for slot, (name, overrides) in enumerate(cell.seats):
        spec = game.policies[name]
        if spec.weights is None:
            continue
        card = spec.weights.resolve(overrides.get(WEIGHTS_PARAM, spec.params[WEIGHTS_PARAM])).card
        changed = _changed_rules(game, card.get("rules") or {})
        differ = changed is None
        if changed is not None:
            try:
                trained = game.make_params({**changed, "players": cell.players})
                differ = played_rules(trained) != played_rules(cell.params)
            except ZoosimError:  # the training rules do not exist at this player count
                differ = True
        rules = "unknown rules" if changed is None else (
            ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(changed.items())) or "the printed rules")
        found.append({"slot": slot, "player": policy_label(name, overrides), "rules": rules, "differ": differ})
    return found


def reference_note(cell: Cell) -> dict[str, Any] | None:
    """How a seat-verdict cell's players differ from its game's reference players: the reference
    player, where it is seated, and per other player seated its Elo gap to the reference player
    (None where either is not rated). Players are compared as played (every parameter, defaults
    filled in). None when every seat plays the reference player, when the game declares none
    (`Game.reference_players`), and for a ladder's or a tournament's cell, which seat other
    players by design."""
    game = get_game(cell.game)
    reference = game.reference_players
    if reference is None or "rungs" in cell.sweep_values or "seating" in cell.sweep_values:
        return None

    def played(player) -> tuple[str, tuple[float, ...]]:
        policy, params = reference.policy_and_params(player)
        return policy, tuple(game.policies[policy].pack(params).tolist())

    target = played(reference.player)
    elo = {played(player): value for player, value in reference.ratings}
    others = {policy_label(name, overrides): played({"policy": name, "params": overrides})
              for name, overrides in cell.seats if played({"policy": name, "params": overrides}) != target}
    if not others:
        return None
    return {
        "reference": policy_label(*reference.policy_and_params(reference.player)),
        "source": reference.source,
        "rated_by": reference.rated_by,
        "players": [{"player": label, "elo_gap": elo[player] - elo[target] if player in elo and target in elo else None}
                    for label, player in others.items()],
    }


def _changed_rules(game, rules: dict[str, Any]) -> dict[str, Any] | None:
    """The knobs (top level) in which a card's played rules differ from the printed rules at the
    same player count; None when the card names no player count or knobs the game does not have.
    A knob the card lacks is at its printed value (the card predates the knob: a shipped card
    made before a knob was added does not name it)."""
    if "players" not in rules:
        return None
    try:
        printed = played_rules(game.make_params({"players": rules["players"]}))
    except ZoosimError:
        return None
    if not set(rules) <= set(printed):
        return None
    return {key: value for key, value in rules.items() if key != "players" and printed[key] != value}


def policy_label(name: str, overrides: dict[str, float | str]) -> str:
    """`ismcts(iterations=200, rollout=random)`: a policy with its overridden parameters."""
    if not overrides:
        return name
    shown = (f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}" for key, value in sorted(overrides.items()))
    return f"{name}({', '.join(shown)})"


def build_plan(experiment: Experiment, *, file: str | None = None) -> Plan:
    """Every cell of every study, validated (rules, seats, sizes) before anything runs.

    Sizes are arithmetic before anything is listed: a sweep's cell count is the product of its
    value counts and a tournament's the number of seatings of its pool, checked against
    MAX_CELLS before the grid or the seatings are built (the first combination of a sweep is
    validated first, so a typo in a knob name is reported as such); the run's chunk files are
    counted against MAX_CHUNKS. Repeated values and cells that would play the same games are
    refused, since they would silently duplicate games under identical seeds.
    """
    cells: list[Cell] = []
    for study_index, study in enumerate(experiment.studies):
        where = f"studies[{study_index}]"
        _refuse_repeated_entries(study, where, file)
        if study.explain is not None:
            _refuse_unexplainable(study, experiment, where, file)
        if study.climb is not None:
            _refuse_unclimbable(study, experiment, where, file)
        first_cell = len(cells)
        for sweep_values in _combinations(study, where, file, used=len(cells)):
            game, params = _cell_params(study, sweep_values, where, file)
            for seating in _seatings(study, player_count(game, params), where, file, used=len(cells)):
                cell = _make_cell(experiment, study, where, sweep_values, game, params, seating, len(cells), file)
                if study.explain is None:
                    cells.append(cell)
                    continue
                settings = len(explain_settings(len(study.explain.mechanisms), study.explain.method))
                _refuse_too_many_cells(settings, len(cells), "the explain settings of a cell", f"{where}.explain", file)
                cells.extend(_explain_cells(cell, study, where, game, file))
        _refuse_repeated_cells(cells[first_cell:], where, file)
    _check_chunk_count(cells, file)
    # the trajectory sample changes no game: a resume with another one replays only the sample
    dumped = experiment.model_dump(mode="json", exclude={"name", "description", "trajectory_deals"})
    for study in dumped["studies"]:  # keys added later hash, when unset, as before they existed
        study.pop("trajectory_deals", None)  # a study's sample, like the experiment's
        for key in ("explain", "climb"):
            if study.get(key) is None:
                study.pop(key, None)
        for rung in study.get("ladder") or []:  # a rung's own game count
            if isinstance(rung, dict) and rung.get("games") is None:
                rung.pop("games", None)
    run_key = {
        "experiment": dumped,
        "cells": [[cell.game, cell.rules_version, cell.params_hash] for cell in cells],
    }
    weights = _weights_identities(cells)
    if weights:  # only runs seating learned players: every other run keeps its hash
        run_key["weights"] = weights
    # every seat's parameter row, defaults filled in: a zoosim whose players play otherwise by
    # default names another run, so a resumed folder never mixes two versions' games (the cell
    # seeds leave the rows out: the deals stay the same)
    run_key["players"] = [_player_rows(cell) for cell in cells]
    return Plan(experiment=experiment, run_hash=json_digest(run_key, SHORT), cells=cells)


def _combinations(study: Study, where: str, file: str | None, used: int) -> list[dict[str, Any]]:
    if study.cases is not None:
        # an empty case `{}` is the baseline: the study's rules as they are (labelled "baseline")
        _refuse_too_many_cells(len(study.cases), used, "the case list", f"{where}.cases", file)
        return [dict(case) for case in study.cases]
    if not study.sweep:
        return [{}]
    first = {name: values[0] for name, values in study.sweep.items()}
    _cell_params(study, first, where, file)  # a typo in a knob name is reported before the size
    count = math.prod(len(values) for values in study.sweep.values())
    _refuse_too_many_cells(count, used, "the sweep grid (the product of its value counts)", f"{where}.sweep", file)
    names = list(study.sweep)
    return [dict(zip(names, values)) for values in itertools.product(*study.sweep.values())]


def explain_settings(mechanisms: int, method: str) -> list[tuple[int, ...]]:
    """The mechanism subsets an explain study switches off, each a setting (a cell): the rules as
    written first (the empty subset), then for Shapley every subset by size (2^k), for
    one-at-a-time each mechanism alone and then all of them together."""
    everything = tuple(range(mechanisms))
    if method == "shapley":
        return [subset for size in range(mechanisms + 1) for subset in itertools.combinations(everything, size)]
    return [()] + [(index,) for index in everything] + ([everything] if mechanisms > 1 else [])


def _refuse_unexplainable(study: Study, experiment: Experiment, where: str, file: str | None) -> None:
    """An explain study explains one seating's seat edge over a fixed set of deals: not a
    tournament or ladder, and not precision mode (whose cells grow apart)."""
    key = f"{where}.explain"
    if study.pool is not None or study.ladder is not None:
        kind = "a tournament pool" if study.pool is not None else "a strength ladder"
        raise ZoosimError(f"an explain study explains one seating's seat edge: give 'seats', not {kind}",
                          file=file, key=key)
    if isinstance(study.games or experiment.games, PrecisionGames):
        raise ZoosimError("an explain study plays the same deals in every setting: give the study a fixed "
                          "number of games (games: N), not precision mode", file=file, key=key)


def _explain_cells(cell: Cell, study: Study, where: str, game, file: str | None) -> list[Cell]:
    """An explain study's settings of one cell: the cell as written and the cell with each subset
    of the mechanisms switched off. Every setting keeps the cell's seeds (its `seed_entropy`, from
    the rules as written), so all settings play the same deals in the same rotations (common random
    numbers) and their per-deal differences are the rules' effects, not deal luck."""
    key = f"{where}.explain"
    # the cell's knobs by dotted leaf name, so that a mechanism's dotted knob replaces exactly its
    # leaf of a group the study's rules set as a whole (copied: expanding reuses the study's dicts)
    written = flatten_dotted(expand_dotted(copy.deepcopy({**study.rules, **cell.sweep_values})))
    mechanisms = _checked_mechanisms(study, where, written, game, cell, file)
    described = [{"name": name, "knobs": knobs, "rules": rules} for name, knobs, rules in mechanisms]
    unused = unused_knobs(game, [knob for _, knobs, _ in mechanisms for knob in knobs], cell.sweep_values)
    names = [name for name, _, _ in mechanisms]
    ends_deals = _explain_ends_deals(cell, study, key, file)
    everything = tuple(range(len(mechanisms)))
    settings = []
    for offset, switched in enumerate(explain_settings(len(mechanisms), study.explain.method)):
        knobs = dict(written)
        for index in switched:
            knobs.update(mechanisms[index][1])
        off = [names[index] for index in switched]
        params = _setting_params(game, knobs, off, cell.label, key, file)
        label = f"{cell.label} · " + (f"without {', '.join(off)}" if off else "as written")
        settings.append(dataclasses.replace(
            cell, index=cell.index + offset, label=label, params=params,
            deals=ends_deals if switched in ((), everything) else cell.deals,
            params_hash=params_hash(params, game.rules_version),
            explain={"group": cell.index, "off": off, "method": study.explain.method, "mechanisms": described,
                     "unused_knobs": unused},
        ))
    return settings


def _explain_ends_deals(cell: Cell, study: Study, key: str, file: str | None) -> int:
    """The deals of an explain study's rules as written and every mechanism off: its
    `games_as_written_and_all_off`, at least the cell's own (their first deals are every other
    setting's: a chunk's deal seeds depend on its index alone), or the cell's."""
    games = study.explain.games_as_written_and_all_off
    if games is None:
        return cell.deals
    key = f"{key}.games_as_written_and_all_off"
    if study.explain.method != "shapley":
        raise ZoosimError("only Shapley shares take the unexplained rest from every mechanism off alone; "
                          "leave this out with method: one_at_a_time", file=file, key=key)
    deals = -(-games // cell.games_per_deal)
    if deals < cell.deals:
        raise ZoosimError(f"{games:,} games, fewer than the study's {cell.games:,}; allowed: at least the "
                          "study's games per setting", file=file, key=key)
    return deals


# Knobs that change what is played rather than a rule of it: never a mechanism.
NOT_MECHANISM_KNOBS = ("players", "preset")


def unused_knobs(game, used: list[str], sweep_values: dict[str, Any]) -> list[dict[str, Any]]:
    """The game's rule knobs an explain study's mechanisms do not switch, which a designer could
    add as mechanisms where much of the seat edge stays unexplained: grouped by their top-level
    name (a knob group such as `geometry` counts its leaves not used), with their rule ids, in
    the order `zoosim rules` lists them. Knobs that are never mechanisms (NOT_MECHANISM_KNOBS)
    and knobs the study sweeps are left out."""
    swept = set(flatten_dotted(expand_dotted(dict(sweep_values))))
    groups: dict[str, dict[str, Any]] = {}
    for row in knob_table(game.params_model):
        if row.name in NOT_MECHANISM_KNOBS or row.name in used or row.name in swept:
            continue
        top = row.name.split(".")[0]
        group = groups.setdefault(top, {"name": top if top == row.name else f"{top}.*", "rules": [], "knobs": 0})
        group["knobs"] += 1
        if row.rule not in group["rules"]:
            group["rules"].append(row.rule)
    return list(groups.values())


def _checked_mechanisms(study: Study, where: str, written: dict[str, Any], game, cell: Cell,
                        file: str | None) -> list[tuple[str, dict[str, Any], list[str]]]:
    """(name, dotted knob -> value, rule ids) per mechanism, each checked: its knobs exist, are
    rules (not the player count or preset), are not set by the study's sweep or cases, belong to no
    other mechanism, and switching the mechanism off changes the cell's rules."""
    rows = {row.name: row for row in knob_table(game.params_model)}
    swept = set(flatten_dotted(expand_dotted(dict(cell.sweep_values))))
    owner: dict[str, str] = {}
    mechanisms = []
    for position, mechanism in enumerate(study.explain.mechanisms):
        key = f"{where}.explain.mechanisms[{position}].knobs"
        off = flatten_dotted(expand_dotted(dict(mechanism.knobs)))
        for name in off:
            if name not in rows:
                hint = difflib.get_close_matches(name, list(rows), n=1)
                suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                raise ZoosimError(f"'{name}' is not a rule knob of {study.game}{suggestion} "
                                  f"(`zoosim rules {study.game}` lists them)", file=file, key=f"{key}.{name}")
            if name in NOT_MECHANISM_KNOBS:
                raise ZoosimError(f"'{name}' changes the game played, not one of its rules; a mechanism "
                                  "switches a rule knob", file=file, key=f"{key}.{name}")
            if name in swept:
                raise ZoosimError(f"'{name}' is set by the study's sweep or cases; a mechanism's knob must "
                                  "keep its value in every cell", file=file, key=f"{key}.{name}")
            if name in owner:
                raise ZoosimError(f"'{name}' is already switched by the mechanism '{owner[name]}'; give "
                                  "each knob to one mechanism", file=file, key=f"{key}.{name}")
            owner[name] = mechanism.name
        params = _setting_params(game, {**written, **off}, [mechanism.name], cell.label, key, file)
        if played_rules(params) == played_rules(cell.params):
            raise ZoosimError(f"switching off '{mechanism.name}' leaves the rules of the cell '{cell.label}' "
                              "as they are (its rules already have these values)", file=file, key=key)
        rules = list(dict.fromkeys(rows[name].rule for name in off if rows[name].rule))
        mechanisms.append((mechanism.name, off, rules))
    return mechanisms


def _setting_params(game, knobs: dict[str, Any], switched: list[str], label: str, key: str, file: str | None):
    """The validated params of an explain setting; invalid rules name the mechanisms switched off."""
    try:
        return game.make_params(knobs)
    except ZoosimError as error:
        what = " and ".join(f"'{name}'" for name in switched)
        raise ZoosimError(f"switching off {what} in the cell '{label}' gives rules the game refuses: "
                          f"{error.detail}", file=file, key=f"{key}.{error.key}" if error.key else key) from None


def _seatings(study: Study, players: int, where: str, file: str | None, used: int) -> list[list | None]:
    """The seatings of a study: its `seats` (None = game default), the tournament's, or the
    ladder's."""
    if study.ladder is not None:
        seatings = ladder_seatings(study.ladder, players)
        _refuse_too_many_cells(len(seatings), used, "the ladder", f"{where}.ladder", file)
        return seatings
    if study.pool is None:
        return [study.seats]
    if len(study.pool) < players:
        raise ZoosimError(
            f"the pool has {len(study.pool)} policies but the game seats {players}",
            file=file, key=f"{where}.pool",
        )
    permutations = study.pool_format == "permutations"
    count = (math.perm if permutations else math.comb)(len(study.pool), players)
    what = f"seating {players} of {len(study.pool)} policies ({study.pool_format})"
    _refuse_too_many_cells(count, used, what, f"{where}.pool", file)
    arrange = itertools.permutations if permutations else itertools.combinations
    return [list(seating) for seating in arrange(study.pool, players)]


def ladder_seatings(rungs: list, players: int) -> list[list]:
    """A strength ladder's seatings at one player count: every rung in self-play (its seat
    verdict), then every pair of neighbouring rungs k, k+1 alternating around the table
    (k, k+1, k, ...; seats rotated, so each plays every seat). The head-to-heads chain all rungs
    into one Bradley-Terry (Elo) scale; in a solo game only self-play is possible."""
    self_play = [[rung] * players for rung in rungs]
    if players < 2:
        return self_play
    return self_play + [[pair[s % 2] for s in range(players)] for pair in zip(rungs, rungs[1:])]


def _refuse_unclimbable(study: Study, experiment: Experiment, where: str, file: str | None) -> None:
    """A climb adds rungs of fixed game counts and judges the ladder per player count: not in
    precision mode (whose cells grow apart), and not over a sweep of anything but the player count
    (the ladder verdict is per player count)."""
    key = f"{where}.climb"
    if isinstance(study.games or experiment.games, PrecisionGames):
        raise ZoosimError("a climbing ladder plays a fixed number of games per rung: give the study "
                          "games: N, not precision mode", file=file, key=key)
    swept = sorted(_swept_knobs(study) - {"players"})
    if swept:
        raise ZoosimError(f"a climbing ladder is judged per player count: sweep only 'players', not "
                          f"'{swept[0]}' (give each rule its own ladder study)", file=file, key=key)


def climbed_rung_cells(plan: Plan, study_index: int, like: Cell, top: Rung, climbed: Rung,
                       file: str | None = None) -> list[Cell]:
    """The cells a climb adds to a ladder study at the player count of its cell `like`: the
    climbed rung `climbed` in self-play and its head-to-head with the top rung `top`
    (ladder_seatings of the pair less the top rung's self-play, which was played). They are
    numbered after the plan's cells and seeded as any cell is, from the experiment's seed and what
    they play."""
    study = plan.experiment.studies[study_index]
    where = f"studies[{study_index}]"
    sweep_values = {key: value for key, value in like.sweep_values.items() if key != "rungs"}
    game, params = _cell_params(study, sweep_values, where, file)
    seatings = ladder_seatings([top, climbed], like.players)[1:]
    return [_make_cell(plan.experiment, study, where, sweep_values, game, params, seating, len(plan.cells) + offset, file)
            for offset, seating in enumerate(seatings)]


def _swept_knobs(study: Study) -> set[str]:
    return set(study.sweep or {}).union(*(case for case in study.cases or []))


def _refuse_too_many_cells(count: int, used: int, what: str, key: str, file: str | None) -> None:
    if used + count > MAX_CELLS:
        earlier = f" after {used:,} cells of earlier studies" if used else ""
        raise ZoosimError(
            f"{what} makes {count:,} cells{earlier}; an experiment may have at most {MAX_CELLS:,} cells",
            file=file, key=key,
        )


def _refuse_repeated_entries(study: Study, where: str, file: str | None) -> None:
    """A sweep value, case or pool entry listed twice would make a second cell with the same
    games under the same seeds."""
    for knob, values in (study.sweep or {}).items():
        repeat = _first_repeat(values)
        if repeat:
            raise ZoosimError(
                f"the value {_value_text(values[repeat[1]])} is listed twice; list each value once",
                file=file, key=f"{where}.sweep.{knob}",
            )
    repeat = _first_repeat(study.cases or [])
    if repeat:
        raise ZoosimError(
            f"repeats cases[{repeat[0]}]; list each combination once", file=file, key=f"{where}.cases[{repeat[1]}]"
        )
    for key in ("pool", "ladder"):
        entries = getattr(study, key) or []
        if not entries:
            continue
        repeat = _first_repeat([resolved_player(study, entry, where, file) for entry in entries])
        if repeat:
            earlier, later = (_value_text(_as_written(entries[index])) for index in repeat)
            same = "is listed twice" if earlier == later else f"is the same player as {earlier} (its parameters' defaults filled in)"
            raise ZoosimError(f"the policy {later} {same}; list each policy once", file=file, key=f"{where}.{key}")


def _as_written(entry: str | SeatSpec) -> str | dict[str, Any]:
    """A pool or ladder entry as the file wrote it (a name, or its mapping without unset keys)."""
    return entry if isinstance(entry, str) else entry.model_dump(exclude_none=True)


def resolved_player(study: Study, entry: str | SeatSpec, where: str = "", file: str | None = None) -> Any:
    """A pool or ladder entry as the player it is: its policy and every parameter, defaults
    filled in (`{policy: greedy, params: {skip_cost: 3}}` is `greedy` when 3 is the default); a
    rung's own game count is not part of the player. An entry the game refuses is compared as
    written (the seating check reports it)."""
    spec = SeatSpec(policy=entry) if isinstance(entry, str) else entry
    try:
        game = get_game(study.game)
    except ZoosimError as error:
        raise ZoosimError(error.detail, file=file, key=f"{where}.game") from None
    policy = game.policies.get(spec.policy)
    if policy is None:
        return _as_written(entry)
    try:
        return [spec.policy, policy.pack(spec.params).tolist()]
    except ZoosimError:
        return _as_written(entry)


def _first_repeat(values: list[Any]) -> tuple[int, int] | None:
    """(earlier, later) index of the first value listed twice, compared as written (JSON)."""
    seen: dict[str, int] = {}
    for index, value in enumerate(values):
        text = json.dumps(value, sort_keys=True, default=str)
        if text in seen:
            return seen[text], index
        seen[text] = index
    return None


def _refuse_repeated_cells(cells: list[Cell], where: str, file: str | None) -> None:
    """Two cells of a study that play the same games (e.g. a sweep over [0, 0.0], or a case that
    spells out a default), caught by their seeds, which hash everything a cell plays, and their
    rules (an explain study's settings share their seeds on purpose)."""
    first_with: dict[tuple, Cell] = {}
    for cell in cells:
        other = first_with.setdefault((cell.seed_entropy, cell.params_hash), cell)
        if other is not cell:
            raise ZoosimError(
                f"cells '{other.label}' and '{cell.label}' play the same games (same rules, seats "
                "and rotation); list each combination once",
                file=file, key=where,
            )


def _check_chunk_count(cells: list[Cell], file: str | None) -> None:
    """Chunk files of the whole run (for precision mode at its cap), counted, not listed."""
    total = sum(-(-(cell.max_deals or cell.deals) // cell.chunk_deals) for cell in cells)
    if total > MAX_CHUNKS:
        raise ZoosimError(
            f"the experiment needs {total:,} chunk files (games / chunk_games per cell); at most "
            f"{MAX_CHUNKS:,} allowed: raise chunk_games or lower games",
            file=file, key="chunk_games",
        )


def _cell_params(study: Study, sweep_values: dict[str, Any], where: str, file: str | None):
    """The game and validated params of one cell; errors name the study key that set the knob."""
    try:
        game = get_game(study.game)
    except ZoosimError as error:
        raise ZoosimError(error.detail, file=file, key=f"{where}.game") from None
    try:
        return game, game.make_params({**study.rules, **sweep_values})
    except ZoosimError as error:
        origin = "sweep" if error.key and error.key.split(".")[0] in _roots(sweep_values) else "rules"
        key = f"{where}.{origin}" + (f".{error.key}" if error.key else "")
        label = f" (in the cell {_sweep_text(sweep_values)})" if sweep_values else ""
        raise ZoosimError(error.detail + label, file=file, key=key) from None


def _make_cell(
    experiment: Experiment,
    study: Study,
    where: str,
    sweep_values: dict[str, Any],
    game,
    params: pydantic.BaseModel,
    seating: list | None,
    index: int,
    file: str | None,
) -> Cell:
    players = player_count(game, params)
    seats_key = "ladder" if study.ladder is not None else "pool" if study.pool is not None else "seats"
    seats = _resolve_seats(seating, game, players, f"{where}.{seats_key}", file)
    rotate = experiment.rotate_seats and (
        game.deal_travels_with_slot or len({(name, tuple(sorted(o.items()))) for name, o in seats}) > 1
    )
    games_per_deal = players if rotate else 1
    chunk_deals = max(1, experiment.chunk_games // games_per_deal)
    target = _rung_games(seating) or study.games or experiment.games
    if isinstance(target, PrecisionGames):
        # Precision mode grows cells by whole chunks, so a chunk file, once written, stays whole.
        deals = _round_up(-(-target.start // games_per_deal), chunk_deals)
        max_deals = -(-target.max // games_per_deal)
        deals = min(deals, max_deals)
    else:
        deals, max_deals = -(-target // games_per_deal), None
    name = study.name or study.game
    labels = [policy_label(policy, overrides) for policy, overrides in seats]
    if study.pool is not None:
        sweep_values = {**sweep_values, "seating": " / ".join(labels)}
    if study.ladder is not None:
        sweep_values = {**sweep_values, "rungs": " vs ".join(dict.fromkeys(labels))}
    cell_key = {
        "game": study.game,
        "rules_version": game.rules_version,
        "params": changed_knobs(params),
        # a weights file by its contents (PolicySpec.identity): a changed file, other games
        "seats": [[policy, sorted(game.policies[policy].identity(o).items())] for policy, o in seats],
        "rotate": rotate,
        "chunk_deals": chunk_deals,
    }
    shown = _sweep_text(sweep_values) or (BASELINE_LABEL if study.cases is not None else "")
    return Cell(
        index=index,
        study=name,
        game=study.game,
        label=f"{name} · {shown}" if shown else name,
        sweep_values=sweep_values,
        params=params,
        params_hash=params_hash(params, game.rules_version),
        rules_version=game.rules_version,
        seats=tuple(seats),
        players=players,
        rotate=rotate,
        deals=deals,
        max_deals=max_deals,
        chunk_deals=chunk_deals,
        seed_entropy=(experiment.seed, int(json_digest(cell_key, SHORT), 16)),
        trajectory_deals=(trajectory_sample(experiment.trajectory_deals if study.trajectory_deals is None
                                            else study.trajectory_deals, deals)
                          if game.round_scores is not None else 0),
    )


def trajectory_sample(setting: int | str, deals: int) -> int:
    """The deals of a cell of `deals` replayed round by round under the experiment's
    `trajectory_deals` (config.AUTO_TRAJECTORY: a share of the cell, within bounds)."""
    if setting == AUTO_TRAJECTORY:
        setting = min(deals // AUTO_TRAJECTORY_SHARE_DEALS, AUTO_TRAJECTORY_MAX_DEALS)
    return min(int(setting), deals)


def _rung_games(seating: list | None) -> int | None:
    """A ladder cell's own game count: the smallest `games` its rungs set (a head-to-head with an
    expensive rung costs what that rung allows), or None when none sets one."""
    counts = [entry.games for entry in seating or [] if isinstance(entry, Rung) and entry.games is not None]
    return min(counts, default=None)


def _resolve_seats(seating: list | None, game, players: int, key: str, file: str | None):
    entries = seating or [game.default_policy]
    if len(entries) == 1:
        entries = entries * players
    if len(entries) != players:
        raise ZoosimError(
            f"{len(entries)} seats listed but the game has {players} players "
            "(list one policy for every seat, or a single policy for all)",
            file=file,
            key=key,
        )
    seats = []
    for seat_index, entry in enumerate(entries):
        spec = entry if isinstance(entry, SeatSpec) else SeatSpec(policy=entry)
        seats.append((spec.policy, dict(spec.params)))
    try:
        game.seat_policies(seats)  # validates names and parameters
    except ZoosimError as error:
        raise ZoosimError(error.detail, file=file, key=key) from None
    return seats


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def grow_cell(cell: Cell, games: int) -> Cell | None:
    """Precision mode: the cell grown to at least `games` games and at least one chunk more
    (whole chunks, at most its cap), or None when it is at its cap."""
    if cell.max_deals is None or cell.deals >= cell.max_deals:
        return None
    deals = max(-(-games // cell.games_per_deal), cell.deals + 1)
    return dataclasses.replace(cell, deals=min(_round_up(deals, cell.chunk_deals), cell.max_deals))


def _roots(values: dict[str, Any]) -> set[str]:
    return {key.split(".")[0] for key in values}


def _sweep_text(values: dict[str, Any]) -> str:
    return ", ".join(f"{key}={_value_text(value)}" for key, value in values.items())


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)
