"""The public plugin API: every name a game package needs, from one module (docs/plugin-api.md).

A game package imports from here only (`from simulator.plugin import Game, PolicySpec, knob`);
the names below are zoosim's stable promise to plugin authors, versioned as docs/plugin-api.md
says (a minor version only adds; a name moves only with its old path kept working, with a
DeprecationWarning naming the new one; only a major version removes). Where a name lives inside
zoosim is not part of the promise.

Importing this module imports no numba: the kernel toolkit's numba names (`kernel`,
`inline_kernel`, `allocating`, `by_ref`, `slot_of_seat`, and the modules `random_stream` and
`tree_search`) are imported on first use (module `__getattr__`), so that a game's `GAME` module,
which every plan loads, stays light.

Layer: just above `simulator.games`, whose names it re-exports (tests/test_layers.py).
"""

from __future__ import annotations

import importlib
from typing import Any

from simulator.errors import ZoosimError
from simulator.games import register_game, unregister_game
from simulator.games.base import (
    DOUBLE_ITERATIONS, HALVE_TEMPERATURE, MAX_POLICY_PARAMS, WEIGHTS_PARAM, Climb, Deferred, Game,
    InvariantViolation, ParamRange, PolicySpec, ReferencePlayers, SeatPolicies, StepAPI, Training, knob,
    outcome_lines,
)
from simulator.games.layouts import (
    EXPLORATION_HELP, ROLLOUT_POLICIES, ROLLOUT_RANDOM, SEARCH_CHOICES, SEARCH_RANGES, Choice, Derived,
    Equals, Flag, Int, RecordColumns, RuleLayout,
)
from simulator.games.learned import (
    DEFAULT_WEIGHTS, WEIGHTS_FORMAT, LearnedWeights, fit_ridge, fit_visit_logits, load_weights, save_weights,
)
from simulator.games.matches import deal_seeds, head_to_head, solo_rate
from simulator.games.rounds import play_rounds
from simulator.schema import StrictModel

# The kernel toolkit's names that load numba, imported on first use: name -> "module" or
# "module:attribute".
NUMBA_NAMES = {
    "kernel": "simulator.games.kernels:kernel",
    "inline_kernel": "simulator.games.kernels:inline_kernel",
    "allocating": "simulator.games.kernels:allocating",
    "by_ref": "simulator.games.kernels:by_ref",
    "slot_of_seat": "simulator.games.kernels:slot_of_seat",
    "random_stream": "simulator.games.rng",
    "tree_search": "simulator.games.search",
}

__all__ = [
    # the game record and its parts
    "Game", "Training", "ReferencePlayers", "PolicySpec", "ParamRange", "Climb", "DOUBLE_ITERATIONS", "HALVE_TEMPERATURE",
    "SeatPolicies", "StepAPI", "Deferred", "MAX_POLICY_PARAMS", "WEIGHTS_PARAM",
    # knobs
    "StrictModel", "knob",
    # invariants, outcomes, errors
    "InvariantViolation", "outcome_lines", "ZoosimError",
    # the per-round score (Game.round_scores) from a step API
    "play_rounds",
    # registering a game without installing it
    "register_game", "unregister_game",
    # the kernel toolkit: rule arrays and record columns (no numba), decorators and streams (numba)
    "RuleLayout", "Flag", "Int", "Equals", "Choice", "Derived", "RecordColumns",
    "SEARCH_RANGES", "SEARCH_CHOICES", "EXPLORATION_HELP", "ROLLOUT_RANDOM", "ROLLOUT_POLICIES",
    *NUMBA_NAMES,
    # learned players and their training
    "LearnedWeights", "DEFAULT_WEIGHTS", "WEIGHTS_FORMAT", "fit_ridge", "fit_visit_logits", "load_weights",
    "save_weights", "deal_seeds", "head_to_head", "solo_rate",
]


def __getattr__(name: str) -> Any:
    target = NUMBA_NAMES.get(name)
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    found = getattr(module, attribute) if attribute else module
    globals()[name] = found  # once imported, an ordinary attribute
    return found


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(NUMBA_NAMES))
