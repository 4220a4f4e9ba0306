"""The search space of a tune: which rule knobs a trial sets, to what, and how far from the
printed rules a setting is.

A `search` entry names a knob of `zoosim rules GAME` and becomes one optimiser parameter, or,
with `per_seat: true`, one parameter per seat of every player count of the tune. Two kinds of
knob are set per seat:

- *seat paths*: knobs whose dotted name has a `p<n>.seat<k>` part, such as New York Zoo's
  `geometry.boards.p4.seat2.houses` (seat1 moves first). The search key is the name after the
  seat (`houses`); the parameter is the whole path, so it pastes into a `rules:` block as it is.
- *seat lists*: knobs named `seat_...` whose value is a list indexed by seat (seat 0 moves
  first), such as Katz's `seat_bonus_points`. The parameter `seat_bonus_points[5p][0]` is entry 0
  of the list the 5-player games get; a trial's list has one entry per seat of its player count.

Choices are handed to the optimiser as their JSON text (optuna's categorical values must be
scalars; New York Zoo's starting animals are lists) and decoded when a trial is played.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

import optuna

from simulator.config import SeatSpec
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.games.base import Game
from simulator.tune.config import SearchRange, TuneSection, same_value

SEAT_PATH = re.compile(r"^(?P<prefix>(?:.*\.)?)p(?P<players>\d+)\.seat(?P<seat>\d+)\.(?P<key>[^.]+)$")
SEAT_LIST_PREFIX = "seat_"


@dataclass(frozen=True)
class Parameter:
    """One optimiser parameter and the knob it sets."""

    name: str  # optuna's parameter name
    knob: str  # the `search` key it comes from
    path: str  # dotted knob it sets
    players: int | None  # None: every player count; else only this one
    seat: int | None  # entry of a seat list (seat 0 first); None for a whole knob
    distribution: optuna.distributions.BaseDistribution
    defaults: tuple[tuple[int, Any], ...]  # (player count, printed default) for each count it affects
    seat_relative: bool = False  # an entry of a seat list of which only differences count (Knob.seat_relative)

    def decode(self, raw: Any) -> Any:
        """The knob value of an optimiser value (categorical choices are JSON text)."""
        if isinstance(self.distribution, optuna.distributions.CategoricalDistribution):
            return json.loads(raw)
        return raw

    def is_default(self, raw: Any) -> bool:
        value = self.decode(raw)
        return all(same_value(value, default) for _, default in self.defaults)


def game_of(section: TuneSection, file: str | None) -> Game:
    try:
        return get_game(section.game)
    except ZoosimError as error:
        raise ZoosimError(error.detail, file=file, key="tune.game") from None


def build_space(section: TuneSection, file: str | None = None) -> list[Parameter]:
    """Every parameter of the search, checked against the game's knobs; also checks the tune's
    players, fixed rules and seats, so that a bad file fails before anything is written."""
    game = game_of(section, file)
    if "players" in section.rules:
        raise ZoosimError("set player counts in tune.players, not in rules", file=file, key="tune.rules.players")
    for players in section.players:
        if players < 2:
            raise ZoosimError(f"player count {players} is not allowed: a tune's player counts must be at least 2 "
                              "(a solo game has no seats to balance)", file=file, key="tune.players")
        _params_or_error(game, {"players": players}, file, "tune.players")
        _params_or_error(game, {**section.rules, "players": players}, file, "tune.rules")
    _check_seats(game, section, file)
    knob_names = [knob.name for knob in game.knobs()]
    parameters: list[Parameter] = []
    for key in section.search:
        entry = section.choice_range(key)
        where = f"tune.search.{key}"
        if key in ("players", "preset"):
            raise ZoosimError(f"'{key}' cannot be searched (set player counts in tune.players)", file=file, key=where)
        if entry.per_seat:
            found = _seat_parameters(game, section, key, entry, knob_names, file, where)
        else:
            found = [_whole_parameter(game, section, key, entry, knob_names, file, where)]
        for parameter in found:
            _check_values(game, section, parameter, entry, file, where)
        parameters += found
    return parameters


def _check_seats(game: Game, section: TuneSection, file: str | None) -> None:
    """The tune's seats, and each seating of the confirmation (confirm.seatings)."""
    _check_seating(game, section, section.seats, file, "tune.seats")
    if section.confirm.seatings is not None:
        for index, seating in enumerate(section.confirm.seat_lists(section.seats)):
            _check_seating(game, section, seating, file, f"tune.confirm.seatings[{index}]")


def _check_seating(game: Game, section: TuneSection, entries, file: str | None, key: str) -> None:
    seats = []
    for entry in entries or [game.default_policy]:
        spec = entry if isinstance(entry, SeatSpec) else SeatSpec(policy=entry)
        seats.append((spec.policy, dict(spec.params)))
    try:
        game.seat_policies(seats)
    except ZoosimError as error:
        raise ZoosimError(error.detail, file=file, key=key) from None
    if len(seats) > 1 and any(len(seats) != players for players in section.players):
        raise ZoosimError(
            f"{len(seats)} seats listed but the tune plays {section.players} players "
            "(list one policy for all seats when several player counts are tuned)",
            file=file, key=key,
        )


def _whole_parameter(game, section, key, entry, knob_names, file, where) -> Parameter:
    if key not in knob_names:
        seat_keys = sorted({m["key"] for m in map(SEAT_PATH.match, knob_names) if m})
        if key in seat_keys:
            raise ZoosimError(f"'{key}' is set per seat: add per_seat: true", file=file, key=where)
        raise ZoosimError(_unknown_knob(game, key, knob_names), file=file, key=where)
    defaults = tuple((n, _lookup(_printed(game, n), key)) for n in section.players)
    return Parameter(key, key, key, None, None, _distribution(entry, [value for _, value in defaults]), defaults)


def _seat_parameters(game, section, key, entry, knob_names, file, where) -> list[Parameter]:
    """Seat paths (`...p<n>.seat<k>.KEY`) or a seat list (`seat_...`), for every player count."""
    parameters = []
    if key in knob_names and key.startswith(SEAT_LIST_PREFIX) and isinstance(_lookup(_printed(game, section.players[0]), key), list):
        relative = any(knob.seat_relative for knob in game.knobs() if knob.name == key) and entry.choices is None
        for n in section.players:
            printed = _lookup(_printed(game, n), key)
            for seat in range(n):
                default = printed[seat] if seat < len(printed) else 0
                parameters.append(Parameter(f"{key}[{n}p][{seat}]", key, key, n, seat, _distribution(entry, [default]),
                                            ((n, default),), relative))
        return parameters
    paths = [(m, name) for m, name in ((SEAT_PATH.match(name), name) for name in knob_names) if m and m["key"] == key]
    if not paths:
        per_seat = sorted({m["key"] for m in map(SEAT_PATH.match, knob_names) if m})
        per_seat += sorted(n for n in knob_names if n.startswith(SEAT_LIST_PREFIX))
        allowed = ", ".join(per_seat) or "none"
        what = "not a per-seat knob" if key in knob_names else "not a knob"
        raise ZoosimError(f"'{key}' is {what} of {game.name} (per-seat knobs: {allowed})", file=file, key=where)
    for n in section.players:
        for match, name in paths:
            if int(match["players"]) == n:
                default = _lookup(_printed(game, n), name)
                parameters.append(Parameter(name, key, name, n, None, _distribution(entry, [default]), ((n, default),)))
    if not parameters:
        raise ZoosimError(
            f"'{key}' has no seats at {section.players} players", file=file, key=where
        )
    return parameters


def _unknown_knob(game: Game, key: str, knob_names: list[str]) -> str:
    hint = difflib.get_close_matches(key, knob_names, n=1)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
    return f"unknown knob '{key}' of {game.name}{suggestion} (see `zoosim rules {game.name}`)"


def _distribution(entry: SearchRange, defaults: list[Any]) -> optuna.distributions.BaseDistribution:
    """The optimiser's distribution of a search entry. Trial 0 plays the printed rules (README):
    a printed value that the choices leave out is added to them, after the listed ones. A range
    is searched as written (trial 0 says which printed values lie outside it)."""
    if entry.choices is not None:
        choices = list(entry.choices)
        for default in defaults:
            if not any(same_value(default, choice) for choice in choices):
                choices.append(default)
        return optuna.distributions.CategoricalDistribution([json.dumps(c) for c in choices])
    default = defaults[0]
    if entry.is_integer_for(default):
        return optuna.distributions.IntDistribution(int(entry.low), int(entry.high), step=int(entry.step or 1))
    return optuna.distributions.FloatDistribution(entry.low, entry.high, step=entry.step, log=entry.log)


def _check_values(game, section, parameter: Parameter, entry: SearchRange, file, where) -> None:
    """Every choice, and a range's ends (and first step), must be a valid setting on its own."""
    if entry.choices is not None:
        raws = list(parameter.distribution.choices)
    else:
        raws = [parameter.distribution.low, parameter.distribution.high]
        if entry.step is not None:
            raws.append(parameter.distribution.low + parameter.distribution.step)
    for raw in raws:
        for n in section.players if parameter.players is None else [parameter.players]:
            knobs = {**section.rules, "players": n, **knob_values([parameter], {parameter.name: raw}, n, game)}
            try:
                game.make_params(knobs)
            except ZoosimError as error:
                value = json.dumps(parameter.decode(raw))
                raise ZoosimError(
                    f"the value {value} is not allowed at {n} players: {error.detail}", file=file, key=where
                ) from None


def knob_values(parameters: list[Parameter], raw: dict[str, Any], players: int, game: Game) -> dict[str, Any]:
    """The dotted knobs a trial's parameter values set for one player count."""
    knobs: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.players not in (None, players) or parameter.name not in raw:
            continue
        value = parameter.decode(raw[parameter.name])
        if parameter.seat is None:
            knobs[parameter.path] = value
        else:
            seats = knobs.setdefault(parameter.path, _seat_list_defaults(game, parameter.path, players))
            seats[parameter.seat] = value
    return knobs


def _seat_list_defaults(game: Game, path: str, players: int) -> list[Any]:
    printed = _lookup(_printed(game, players), path)
    return [printed[seat] if seat < len(printed) else 0 for seat in range(players)]


def seat_index(parameter: Parameter) -> int | None:
    """The seat (0 moves first) a per-seat parameter sets, None for a whole knob. Seat lists
    count from 0; seat paths count from seat1, as `zoosim rules GAME` prints them."""
    if parameter.seat is not None:
        return parameter.seat
    match = SEAT_PATH.match(parameter.path) if parameter.players is not None else None
    return int(match["seat"]) - 1 if match else None


def effective_setting(section: TuneSection, parameters: list[Parameter], raw: dict[str, Any], game: Game) -> dict[str, Any]:
    """A trial's setting reduced to what changes a game: the parameters it sets away from the
    printed rules once what changes nothing is removed. That is a value equal to the printed
    one, a seat path of a player count the tune does not play (`geometry.boards.p4...` in a
    5-player tune), and a common offset of a seat-relative seat list (Katz `seat_bonus_points`
    [3, 3, 3.5, 3.5] plays as [0, 0, 0.5, 0.5]). The offset removed is the one that leaves the
    most seats at their printed value (the smaller offset at a tie), when the game allows the
    shifted values. The result maps parameter names to optimiser values, like `raw`, so
    `knob_values` and `trial_rules` write it as they write a trial."""
    reduced = dict(raw)
    groups: dict[tuple[int, str], list[Parameter]] = {}
    for parameter in parameters:
        if parameter.seat_relative and parameter.name in raw:
            groups.setdefault((parameter.players, parameter.knob), []).append(parameter)
    for (players, _), seats in groups.items():
        if len(seats) != players:
            continue
        deltas = [raw[p.name] - p.defaults[0][1] for p in seats]
        offset = min(set(deltas), key=lambda d: (-sum(same_value(d, other) for other in deltas), abs(d), d))
        shifted = {p.name: _rounded(raw[p.name] - offset) for p in seats}
        if not same_value(offset, 0) and _allowed(section, parameters, {**reduced, **shifted}, players, game):
            reduced.update(shifted)
    return {p.name: reduced[p.name] for p in parameters
            if p.name in reduced and not p.is_default(reduced[p.name]) and not _ignored(p)}


def _rounded(value: Any) -> Any:
    return round(value, 12) if isinstance(value, float) else value


def _allowed(section: TuneSection, parameters: list[Parameter], raw: dict[str, Any], players: int, game: Game) -> bool:
    try:
        game.make_params({**section.rules, "players": players, **knob_values(parameters, raw, players, game)})
    except ZoosimError:
        return False
    return True


def _ignored(parameter: Parameter) -> bool:
    """A whole knob that is a seat path of a player count the tune does not play."""
    match = SEAT_PATH.match(parameter.path) if parameter.players is None else None
    return match is not None and all(int(match["players"]) != players for players, _ in parameter.defaults)


def changes(parameters: list[Parameter], effective: dict[str, Any]) -> tuple[int, int]:
    """How far an effective setting is from the printed rules: the knobs it changes (a search
    key counts once, over all its seats and player counts) and the parameters (seat entries)."""
    changed = [p for p in parameters if p.name in effective]
    return len({p.knob for p in changed}), len(changed)


def setting_text(parameters: list[Parameter], effective: dict[str, Any], game: Game) -> str:
    """An effective setting as a designer reads it: whole knobs as "knob = value", seat lists
    whole per player count ("seat_bonus_points (4 players) = [0, 0, 0.5, 0.5]"); "the printed
    rules" when it changes nothing."""
    parts = []
    for parameter in parameters:
        if parameter.name in effective and parameter.seat is None:
            parts.append(f"{parameter.path} = {_shown(parameter.decode(effective[parameter.name]))}")
    lists = dict.fromkeys((p.players, p.path) for p in parameters if p.seat is not None and p.name in effective)
    for players, path in lists:
        seats = knob_values(parameters, effective, players, game)[path]
        parts.append(f"{path} ({players} players) = {_shown(seats)}")
    return ", ".join(parts) or "the printed rules"


def _shown(value: Any) -> str:
    """A value to read: lists as [1, 0.5], true/false in lower case, 3.0 as 3, other numbers to 4 digits."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, (bool, dict)) or value is None else str(value)


def _printed(game: Game, players: int) -> dict[str, Any]:
    return game.make_params({"players": players}).model_dump(mode="json")


def _lookup(values: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        values = values[part]
    return values


def _params_or_error(game: Game, knobs: dict[str, Any], file: str | None, key: str) -> None:
    try:
        game.make_params(knobs)
    except ZoosimError as error:
        where = f"{key}.{error.key}" if error.key and key == "tune.rules" else key
        raise ZoosimError(error.detail, file=file, key=where) from None
