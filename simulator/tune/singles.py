"""The single changes a tune plays before any sampler: the printed rules and every change of one
knob of the search space, so the simplest answers are measured first and a combination must beat
them (with `prefer: fewer_changes`, within noise it cannot: it changes more knobs).

What one knob's changes are:
- a choice list (a whole knob): each choice but the printed one;
- a range (a whole knob): a few points on either side of the printed value, at 1/8, 1/4, 1/2 and
  the whole of the range's width away (at least one grid step, snapped to the grid, kept inside
  the range), so small and large changes are both tried;
- a per-seat knob (a seat list such as Katz `seat_bonus_points`, or New York Zoo's seat paths):
  two families over those values. *One seat at a time*: seat s alone changed; *later seats*:
  every seat from k on changed alike (the "later seats get +x" compensation). A family member is
  one seat index (from the first seat) for every player count of the tune that has that seat.
  A numeric seat knob moves each seat by the same amount from its printed value (a point's
  distance from the first seat's printed value); a choice sets the seats to that choice.

A knob whose printed value lies outside its searched range starts from the nearest searched
value. Settings that play the same games (the same effective setting, `space.effective_setting`:
seat 0 alone +1 is the later seats -1 of a seat-relative bonus) are played once. The list is a
pure function of the search space, so a resumed tune enqueues the same trials.
"""

from __future__ import annotations

import json
from typing import Any

import optuna

from simulator.games.base import Game
from simulator.tune.config import TuneSection
from simulator.tune.space import Parameter, effective_setting, seat_index

RANGE_FRACTIONS = (1 / 8, 1 / 4, 1 / 2, 1)  # a range's single changes: these shares of its width from the printed value
SINGLE_LABEL = "single change"  # `proposed by` of the single changes (trial 0 says "printed rules")


def single_changes(section: TuneSection, parameters: list[Parameter], game: Game) -> list[tuple[str, dict[str, Any]]]:
    """(label, optimiser values of every parameter) of each single change, printed rules first."""
    base = {p.name: _anchor(p) for p in parameters}
    settings = [("printed rules", base)]
    by_knob: dict[str, list[Parameter]] = {}
    for parameter in parameters:
        by_knob.setdefault(parameter.knob, []).append(parameter)
    for knob, members in by_knob.items():
        if seat_index(members[0]) is None:
            for parameter in members:
                for value in _values(parameter):
                    settings.append((f"{SINGLE_LABEL}: {parameter.name}", {**base, parameter.name: value}))
        else:
            settings += _seat_families(knob, members, base)
    seen, unique = set(), []
    for label, setting in settings:
        key = json.dumps(effective_setting(section, parameters, setting, game), sort_keys=True)
        if key not in seen:
            seen.add(key)
            unique.append((label, setting))
    return unique


def _seat_families(knob: str, members: list[Parameter], base: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One seat at a time, and every seat from k on, for each of the knob's changes."""
    seats = max(seat_index(p) for p in members) + 1
    first = min(members, key=lambda p: (seat_index(p), p.players or 0))
    families = []
    for change in _seat_changes(first):
        for seat in range(seats):
            families.append((f"{SINGLE_LABEL}: {knob}, seat {seat} alone", _apply(members, base, change, lambda s: s == seat)))
        for start in range(1, seats):
            families.append((f"{SINGLE_LABEL}: {knob}, seats {start} on", _apply(members, base, change, lambda s: s >= start)))
    return families


def _seat_changes(parameter: Parameter) -> list[tuple[str, Any]]:
    """A per-seat knob's changes: ("by", amount) for a numeric knob, ("to", choice) for a choice."""
    if isinstance(parameter.distribution, optuna.distributions.CategoricalDistribution):
        return [("to", value) for value in _values(parameter)]
    anchor = _anchor(parameter)
    return [("by", value - anchor) for value in _values(parameter)]


def _apply(members: list[Parameter], base: dict[str, Any], change: tuple[str, Any], chosen) -> dict[str, Any]:
    setting = dict(base)
    how, amount = change
    for parameter in members:
        if not chosen(seat_index(parameter)):
            continue
        if how == "to":
            if amount in parameter.distribution.choices:
                setting[parameter.name] = amount
        else:
            setting[parameter.name] = _snap(parameter.distribution, base[parameter.name] + amount)
    return setting


def _anchor(parameter: Parameter) -> Any:
    """The optimiser value of the printed setting, or the nearest searched value to it."""
    printed = parameter.defaults[0][1]
    distribution = parameter.distribution
    if isinstance(distribution, optuna.distributions.CategoricalDistribution):
        text = json.dumps(printed)
        return text if text in distribution.choices else distribution.choices[0]
    return _snap(distribution, printed)


def _values(parameter: Parameter) -> list[Any]:
    """A whole knob's single changes (module docstring), the printed value left out."""
    distribution = parameter.distribution
    anchor = _anchor(parameter)
    if isinstance(distribution, optuna.distributions.CategoricalDistribution):
        return [choice for choice in distribution.choices if choice != anchor]
    width = distribution.high - distribution.low
    step = distribution.step or 0
    values = []
    for fraction in RANGE_FRACTIONS:
        distance = max(width * fraction, step)
        for value in (anchor - distance, anchor + distance):
            snapped = _snap(distribution, value)
            if snapped != anchor and snapped not in values:
                values.append(snapped)
    return sorted(values)


def _snap(distribution: optuna.distributions.BaseDistribution, value: float) -> Any:
    """A number put inside the range and on its grid (whole numbers for an integer range)."""
    value = min(max(value, distribution.low), distribution.high)
    if distribution.step is not None:
        steps = round((value - distribution.low) / distribution.step)
        value = distribution.low + steps * distribution.step
    if isinstance(distribution, optuna.distributions.IntDistribution):
        return int(round(value))
    return round(float(value), 12)
