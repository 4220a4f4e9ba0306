"""Index constants are written out where grep finds them, and each table of them matches the one
declaration it comes from (docs/design.md, "Constants"): a game's rule-array indices and choice
values (state.py) are those its params declare (`params.RULES`), and the indices of a policy's
parameter row (specs.py) follow the order of the policy's parameters."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from simulator.games import get_game

GAMES = ("katz", "nyz")


def literal_assignments(module) -> dict[str, object]:
    """Module-level `NAME = <literal>` assignments of a module's source."""
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node.value.value
    return found


@pytest.mark.parametrize("game", GAMES)
def test_rule_array_constants_are_written_out_as_the_params_declare_them(game):
    state = importlib.import_module(f"simulator.games.{game}.state")
    params = importlib.import_module(f"simulator.games.{game}.params")
    declared = params.RULES.constants()
    written = literal_assignments(state)
    assert {name: written.get(name) for name in declared} == declared
    assert "globals()" not in Path(state.__file__).read_text(encoding="utf-8")


def row_prefix(game: str, policy_id: int, name: str = "") -> str:
    """The prefix of a policy's parameter-row constants: New York Zoo's greedy weights are W_*;
    in both games `learned`'s row is L_*, and `strong`'s row is its search's (mcts, ismcts: no
    prefix) followed by S_* of its own; New York Zoo's `expert` has `strong`'s row
    (specs.halving_spec)."""
    specs = importlib.import_module(f"simulator.games.{game}.specs")
    search = {"nyz": "mcts", "katz": "ismcts"}[game]
    if policy_id == specs.LEARNED:
        return "L_"
    halving = (specs.STRONG, specs.EXPERT) if game == "nyz" else (specs.STRONG,)
    if policy_id in halving and name not in specs.SEARCH_POLICIES[search].params:
        return "S_"
    return "W_" if game == "nyz" and policy_id == specs.GREEDY else ""


@pytest.mark.parametrize("game", GAMES)
def test_every_policy_parameter_has_a_row_constant_at_its_place_in_the_row(game):
    specs = importlib.import_module(f"simulator.games.{game}.specs")
    written = literal_assignments(specs)
    policies = get_game(game).policies
    checked = 0
    for spec in policies.values():
        for index, name in enumerate(spec.params):
            constant = row_prefix(game, spec.policy_id, name) + name.upper()
            assert written.get(constant) == index, (spec.name, name, constant)
            checked += 1
    assert checked > 0
