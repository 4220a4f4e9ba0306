"""The studio's form: a game's knobs and policies as the page's controls, and the page's settings
as an experiment document checked on the command line's path.

Controls come from the same rows as `zoosim rules GAME` (`Game.knobs`: names, defaults, allowed
values, rule ids), each with the input that fits its type: a choice (a Literal, a preset, a
true/false knob) is a select, a number with its bounds a number input (empty meaning null where
the knob allows null), a per-seat list of numbers one number input per seat, a choice or a
number ("auto" or an integer) a select and a number input, any other list an input per item
(a number, a select or a text, with buttons to add and remove items), a mapping of fixed keys an
input per key, and only a knob of none of these types a text field holding its JSON value.

Settings (what the page sends) are {game, preset, players, knobs: {dotted name: value}, seats:
[{policy, params}], margin_points}. `experiment_document` writes them as an experiment file would
(the knobs that differ from the preset's values under `rules:`, one seat entry per seat), and
`checked_cell` validates that document with `config.parse_experiment` and `plan.build_plan`,
so the page shows the very one-line message `zoosim run` gives for the same file, and nothing
invalid reaches an engine.
"""

from __future__ import annotations

import json
import math
import types
import typing
from pathlib import Path
from typing import Any

import annotated_types
import pydantic

from simulator.config import DEFAULT_CHUNK_GAMES, MAX_CHUNKS, Experiment, load_experiment, parse_experiment
from simulator.errors import ZoosimError
from simulator.games import get_game, registered_games
from simulator.games.base import WEIGHTS_PARAM, Game, PolicySpec, knob_table
from simulator.plan import Cell, Plan, build_plan
from simulator.schema import literal_values, model_in, one_of

STUDY_NAME = "studio"
# What the live run may play of one setting at most: the cap of its cell in the plan (the cell's
# seeds do not depend on it; a save writes the games actually played), and at most the plan's
# MAX_CHUNKS chunks of the experiment's chunk size (`live_games`).
MAX_LIVE_GAMES = 100_000_000


def games_list() -> list[dict[str, str]]:
    """[{name, title}] of the registered games whose modules load."""
    games = []
    for name in registered_games():
        try:
            games.append({"name": name, "title": get_game(name).title})
        except ZoosimError:
            continue  # a broken plugin: `zoosim rules` names it; the studio leaves it out
    return games


def game_form(name: str, preset: str | None = None, players: int | None = None) -> dict[str, Any]:
    """The controls of game `name` at `preset` and `players` (defaults: the game's), with their
    values there: {game, title, preset, players, knobs: [control], policies: [policy],
    default_policy}."""
    game = get_game(name)
    knobs: dict[str, Any] = {"preset": preset} if preset is not None else {}
    if players is not None:
        knobs["players"] = players
    params = game.make_params(knobs)
    fields = _leaf_fields(game.params_model)
    controls = []
    for row in knob_table(game.params_model, defaults=params):
        control = {"name": row.name, "value": json.loads(row.default), "allowed": row.allowed, "rule": row.rule,
                   "description": row.description, "per_seat": row.per_seat}
        if row.name == "preset":
            control.update(kind="select", choices=list(game.presets), allowed=one_of(tuple(game.presets)))
        else:
            control.update(_input_kind(fields[row.name], row.per_seat))
        controls.append(control)
    return {"game": name, "title": game.title, "preset": params.preset, "players": params.players,
            "knobs": controls, "policies": [_policy_controls(spec) for spec in game.policies.values()],
            "default_policy": game.default_policy}


def _leaf_fields(model: type[pydantic.BaseModel], prefix: str = "") -> dict[str, Any]:
    """Dotted knob name -> its pydantic FieldInfo, nested groups flattened as knob_table does."""
    found = {}
    for name, info in model.model_fields.items():
        nested = model_in(info.annotation)
        if nested is not None:
            found.update(_leaf_fields(nested, f"{prefix}{name}."))
        else:
            found[prefix + name] = info
    return found


def _input_kind(info: Any, per_seat: bool) -> dict[str, Any]:
    """The page's input for a knob of this field: select, number (bounds, integer, nullable),
    seats (a number per seat), choice_or_number (a select of `choices` or a number), list (an
    `item` input per entry), mapping (an `item` input per one of `keys`) or json."""
    annotation, bounds = info.annotation, _bounds(info.metadata)
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if annotation in (int, float):
        return {"kind": "number", "integer": annotation is int, "nullable": False, **bounds}
    members = [arg for arg in args if arg is not type(None)]
    if type(None) in args and len(members) == 1 and members[0] in (int, float) and not literal_values(members[0]):
        return {"kind": "number", "integer": members[0] is int, "nullable": True, **bounds}
    if per_seat and origin is list and args and args[0] in (int, float):
        return {"kind": "seats", "integer": args[0] is int}
    numbers = [arg for arg in args if arg in (int, float)]
    literals = [arg for arg in args if typing.get_origin(arg) is typing.Literal]
    if origin in (typing.Union, types.UnionType) and len(numbers) == 1 and literals and len(numbers) + len(literals) == len(args):
        choices = [value for literal in literals for value in typing.get_args(literal)]
        return {"kind": "choice_or_number", "choices": choices, "integer": numbers[0] is int, **bounds}
    if origin is list and len(args) == 1 and (item := _item_kind(args[0])) is not None:
        return {"kind": "list", "item": item}
    if origin is dict and len(args) == 2 and literal_values(args[0]) and (item := _item_kind(args[1])) is not None:
        return {"kind": "mapping", "keys": list(literal_values(args[0])), "item": item}
    return _item_kind(annotation) or {"kind": "json"}


def _item_kind(annotation: Any) -> dict[str, Any] | None:
    """The input of one value of this type (a knob's, or one entry of a list or mapping knob): a
    select of a Literal's values or true/false, a number, a text; None for any other type."""
    if typing.get_origin(annotation) is typing.Literal:
        return {"kind": "select", "choices": list(typing.get_args(annotation))}
    if annotation is bool:
        return {"kind": "select", "choices": [True, False]}
    if annotation in (int, float):
        return {"kind": "number", "integer": annotation is int}
    if annotation is str:
        return {"kind": "text"}
    return None


def _bounds(metadata: Any) -> dict[str, float]:
    """{min, max} of a number's Ge/Le (and Gt/Lt, as the page's nearest inputs allow)."""
    bounds = {}
    for item in metadata:
        if isinstance(item, (annotated_types.Ge, annotated_types.Gt)):
            bounds["min"] = item.ge if isinstance(item, annotated_types.Ge) else item.gt
        if isinstance(item, (annotated_types.Le, annotated_types.Lt)):
            bounds["max"] = item.le if isinstance(item, annotated_types.Le) else item.lt
    return {key: value for key, value in bounds.items() if math.isfinite(value)}


def _policy_controls(spec: PolicySpec) -> dict[str, Any]:
    params = []
    for name, default in spec.params.items():
        control: dict[str, Any] = {"name": name, "value": default, "help": spec.param_help.get(name, ""),
                                   "allowed": spec.describe_value(name)}
        if name in spec.choices:
            control.update(kind="select", choices=list(spec.choices[name]))
        elif isinstance(default, str):
            control.update(kind="text")
        else:
            allowed = spec.bounds(name)
            control.update(kind="number", integer=allowed.integer, min=allowed.low, max=allowed.high)
        params.append(control)
    return {"name": spec.name, "description": spec.description, "params": params}


def live_games(chunk_games: int) -> int:
    """The games a live run may play at most with this chunk size (MAX_LIVE_GAMES)."""
    return min(MAX_LIVE_GAMES, MAX_CHUNKS * chunk_games)


def experiment_document(settings: dict[str, Any], *, games: int | None = None, seed: int = 0,
                        chunk_games: int = DEFAULT_CHUNK_GAMES, name: str = STUDY_NAME,
                        description: str = "") -> dict[str, Any]:
    """The experiment file the page's settings stand for: one study of `games` games (default:
    what a live run may play, `live_games`)."""
    if not isinstance(settings, dict):
        raise ZoosimError("the settings must be a mapping")
    game_name = settings.get("game")
    try:
        game = get_game(game_name) if isinstance(game_name, str) else None
    except ZoosimError as error:
        raise ZoosimError(error.detail, key="studies[0].game") from None
    if game is None:
        raise ZoosimError("a registered game (`zoosim rules` lists them)", key="studies[0].game")
    rules = {"preset": settings.get("preset"), "players": settings.get("players")}
    knobs = settings.get("knobs") or {}
    if not isinstance(knobs, dict):
        raise ZoosimError("the knobs must be a mapping of knob name to value", key="studies[0].rules")
    rules.update(_changed(game, rules, knobs))
    document = {"name": name, **({"description": description} if description else {}), "seed": seed,
                "games": live_games(chunk_games) if games is None else games, "chunk_games": chunk_games,
                "margin_points": settings.get("margin_points", 1.0),
                "studies": [{"name": STUDY_NAME, "game": game_name, "rules": rules,
                             "seats": [_seat_entry(seat) for seat in settings.get("seats") or []] or None}]}
    if document["studies"][0]["seats"] is None:
        del document["studies"][0]["seats"]
    return document


def _changed(game: Game, rules: dict[str, Any], knobs: dict[str, Any]) -> dict[str, Any]:
    """The knobs whose values differ from those the preset and player count give (so the saved
    file says only what the designer changed); all of them when those are invalid (the check
    then names the bad one)."""
    try:
        printed = knob_values(game, game.make_params(rules))
    except ZoosimError:
        printed = {}
    return {name: value for name, value in knobs.items()
            if name not in ("preset", "players") and printed.get(name, object()) != value}


def knob_values(game: Game, params: pydantic.BaseModel) -> dict[str, Any]:
    """Knob name -> value of `params`, by the names of `zoosim rules` (a mapping knob such as
    New York Zoo's strip.breeding_lines is one knob, as the page has it)."""
    return {row.name: json.loads(row.default) for row in knob_table(game.params_model, defaults=params)}


def _seat_entry(seat: Any) -> Any:
    if not isinstance(seat, dict):
        return seat
    params = seat.get("params") or {}
    return {"policy": seat.get("policy"), "params": params} if params else seat.get("policy")


def checked_cell(document: dict[str, Any]) -> tuple[Plan, Cell]:
    """The plan of an experiment document and its one cell, validated as `zoosim run` validates a
    file (config, plan); a game of one player has no seats to judge."""
    plan = build_plan(parse_experiment(document))
    cell = plan.cells[0]
    if cell.players < 2:
        raise ZoosimError("the studio judges seat balance: choose 2 or more players", key="studies[0].rules.players")
    return plan, cell


def yaml_text(document: dict[str, Any]) -> str:
    """An experiment document as a YAML file (the key order as written)."""
    import yaml

    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)




def settings_from_experiment(path: Path) -> tuple[dict[str, Any], Experiment, frozenset[str]]:
    """The page's first settings from an experiment file's first study (its first cell's rules
    and seating), the experiment, and the weights files its seats name."""
    experiment, _ = load_experiment(path)
    plan = build_plan(experiment, file=str(path))
    cell = plan.cells[0]
    knobs = knob_values(get_game(cell.game), cell.params)
    seats = [{"policy": name, "params": dict(overrides)} for name, overrides in cell.seats]
    weights = frozenset(str(overrides[WEIGHTS_PARAM]) for _, overrides in cell.seats if WEIGHTS_PARAM in overrides)
    return ({"game": cell.game, "preset": knobs.pop("preset"), "players": knobs.pop("players"), "knobs": knobs,
             "seats": seats, "margin_points": experiment.margin_points}, experiment, weights)


def default_settings(game_name: str) -> dict[str, Any]:
    """The page's first settings without an experiment: the game's defaults, its default policy
    in every seat, a 1-point margin."""
    form = game_form(game_name)
    players = max(2, form["players"])
    return {"game": game_name, "preset": form["preset"], "players": players, "knobs": {},
            "seats": [{"policy": form["default_policy"], "params": {}}] * players, "margin_points": 1.0}
