"""Every numeric setting has bounds (issue #45): every numeric field of the experiment and tune
schemas (found by walking their pydantic models, so a field added later is covered or this test
fails), and every numeric parameter of every built-in game's policies (`zoosim rules katz|nyz`),
is fed extremes through `zoosim validate`, which checks a file without playing it. Each extreme
is either refused (exit 2, one line naming the file, the key and what is allowed) or accepted;
what is accepted validated within a bounded time and memory, and no setting accepts a value
beyond a finite bound (huge numbers, infinities and NaN are refused everywhere), so no accepted
value can ask for unbounded work later."""

from __future__ import annotations

import copy
import itertools
import math
import re
import signal
import tracemalloc
import types
import typing

import pydantic
import pytest
import yaml
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import Experiment
from simulator.games import get_game
from simulator.games.base import WEIGHTS_PARAM
from simulator.tune.config import TuneExperiment

HUGE = [1e300, -1e300, 10**30, -(10**30), math.inf, -math.inf, math.nan]  # refused everywhere
SMALL = [0, -1, 1e-300, 1]  # refused, or accepted within bounded time and memory
SECONDS = 30  # a validation that takes longer hangs, for this test
PEAK_BYTES = 256 * 2**20  # a validation that allocates more allocates without bound, for this test
ALLOWED_WORDS = ("should be", "must be", "allowed", "at most", "at least", "is not a multiple", "is above",
                 "is below", "finite")

# Documents that between them hold every numeric field of the schemas, each valid as it is.
EXPERIMENTS = [
    {"name": "bounds", "seed": 1, "games": 100, "chunk_games": 100, "margin_points": 1.0, "trajectory_deals": 10,
     "studies": [{"name": "plain", "game": "katz", "games": 100, "trajectory_deals": 5,
                  "ladder": [{"policy": "random", "games": 100}, {"policy": "greedy", "games": 100}],
                  "climb": {"max_climbs": 1}}]},
    {"name": "precision", "seed": 1, "games": {"until": {"halfwidth": 0.05}, "max": 1000, "start": 100},
     "studies": [{"game": "katz"}]},
    {"name": "explained", "seed": 1, "games": 100,
     "studies": [{"game": "katz", "explain": {"games_as_written_and_all_off": 200,
                                              "mechanisms": [{"name": "sevens", "knobs": {"extra_turn_values": []}}]}}]},
]
TUNES = [
    {"name": "tunebounds", "seed": 1,
     "tune": {"game": "katz", "players": [4],
              "search": {"hand_size": {"low": 5, "high": 8, "step": 1},
                         "seat_bonus_points": {"low": 0, "high": 4, "step": 0.5, "per_seat": True}},
              "constraints": {"turns": [1, 100]},
              "budget": {"trials": 2, "batch": 2, "games": {"start": 100, "max": 200}},
              "confirm": {"games": 100, "margin_points": 1.0}}},
]


def numeric_paths(model: type[pydantic.BaseModel], prefix: str = "", seen: tuple = ()) -> typing.Iterator[str]:
    """Dotted paths of every int or float field of a model, through nested models, lists
    ("[]") and mappings ("{}")."""
    for name, field in model.model_fields.items():
        yield from _paths_in(field.annotation, f"{prefix}{name}", seen + (model,))


def _paths_in(annotation, path: str, seen: tuple) -> typing.Iterator[str]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        yield from _paths_in(args[0], path, seen)
    elif origin in (typing.Union, types.UnionType):
        yield from dict.fromkeys(found for arg in args for found in _paths_in(arg, path, seen))
    elif origin in (list, tuple):
        yield from (found for arg in args for found in _paths_in(arg, path + "[]", seen))
    elif origin is dict:
        yield from _paths_in(args[1], path + "{}", seen)
    elif annotation in (int, float):
        yield path
    elif isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel) and annotation not in seen:
        yield from numeric_paths(annotation, path + ".", seen)


def places(document: dict, path: str) -> list[str]:
    """The keys, as an error names them (studies[0].ladder[0].games), at which the document holds
    a schema path ("[]": a list's first entry, "{}": every key of a mapping); none when it lacks it."""
    keys = [("", document)]
    for part in path.replace("[]", ".[]").replace("{}", ".{}").split("."):
        found = []
        for key, node in keys:
            if part == "[]" and isinstance(node, list) and node:
                found.append((f"{key}[0]", node[0]))
            elif part == "{}" and isinstance(node, dict):
                found += [(f"{key}.{name}", value) for name, value in node.items()]
            elif part not in ("[]", "{}") and isinstance(node, dict) and part in node:
                found.append((f"{key}.{part}" if key else part, node[part]))
        keys = found
    return [key for key, _ in keys]


def with_value(document: dict, key: str, value) -> dict:
    """A copy of the document with `value` at `key` (as `places` names it)."""
    document = copy.deepcopy(document)
    node = document
    parts = [int(part[1:-1]) if part.startswith("[") else part
             for part in key.replace("[", ".[").split(".") if part]
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return document


def policy_cases() -> list[tuple[str, str, str]]:
    """(game, policy, parameter) of every numeric parameter of every built-in game's policies."""
    cases = []
    for game_name in ("katz", "nyz"):
        for name, spec in get_game(game_name).policies.items():
            for parameter in spec.params:
                if parameter in spec.choices or (parameter == WEIGHTS_PARAM and spec.weights is not None):
                    continue
                cases.append((game_name, name, parameter))
    return cases


class _TooSlow(Exception):
    pass


def _validate(tmp_path, document: dict, value) -> tuple[int, str, int, str]:
    """`zoosim validate` of the document, within SECONDS: exit code, stderr, peak bytes allocated, file."""
    path = tmp_path / f"case-{abs(hash((repr(value), repr(document)))):x}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))

    def too_slow(*_):
        raise _TooSlow

    previous = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(SECONDS)
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, ["validate", str(path)])
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if isinstance(result.exception, _TooSlow):
        pytest.fail(f"{path}: validating {value!r} took over {SECONDS} s")
    return result.exit_code, result.stderr, peak, str(path)


def _judge(tmp_path, document: dict, key: str, value, named: str | None = None) -> str | None:
    """None when the outcome keeps the contract, else what is wrong. A refusal's line names the
    file and `named` (default: the key, or the object or list that holds it, which a model
    validator's error names) and says what is allowed."""
    code, stderr, peak, file = _validate(tmp_path, document, value)
    lines = stderr.strip().splitlines()
    if code == 0:
        if value in HUGE:
            return f"{key} = {value!r} accepted (no finite bound)"
        if peak > PEAK_BYTES:
            return f"{key} = {value!r}: validation allocated {peak / 2**20:.0f} MiB"
        return None
    if code != 2 or len(lines) != 1 or "Traceback" in stderr:
        return f"{key} = {value!r}: exit {code}, {len(lines)} line(s): {stderr[-300:]!r}"
    line = lines[0]
    names = [named] if named else [f"{key}:", re.sub(r"(\.[^.\[]+|\[\d+\])$", "", key) + ":"]
    if file not in line or not any(name in line for name in names) or not any(w in line for w in ALLOWED_WORDS):
        return f"{key} = {value!r}: {line!r} does not name the file, the key ({key}) and what is allowed"
    return None


@pytest.mark.parametrize("model, documents", [(Experiment, EXPERIMENTS), (TuneExperiment, TUNES)],
                         ids=["experiment", "tune"])
def test_every_numeric_field_of_the_schemas_is_bounded(tmp_path, model, documents):
    problems = []
    for path in numeric_paths(model):
        cases = [(base, key) for base in documents for key in places(base, path)]
        assert cases, f"no document of {__name__} holds {model.__name__}'s {path}: add one"
        for (base, key), value in itertools.product(cases, HUGE + SMALL):
            problem = _judge(tmp_path, with_value(base, key, value), key, value)
            if problem:
                problems.append(problem)
    assert not problems, "\n".join(problems)


def test_every_numeric_policy_parameter_is_bounded(tmp_path):
    problems = []
    for game, policy, parameter in policy_cases():
        for value in HUGE + SMALL:
            document = {"name": "policy", "seed": 1, "games": 100,
                        "studies": [{"game": game, "seats": [{"policy": policy, "params": {parameter: value}}]}]}
            problem = _judge(tmp_path, document, f"{game} {policy}.{parameter}", value,
                             named=f"studies[0].seats: parameter '{parameter}' of policy '{policy}'")
            if problem:
                problems.append(problem)
    assert not problems, "\n".join(problems)
