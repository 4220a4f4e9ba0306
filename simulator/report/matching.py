"""Which cells of two runs play the same games, for `zoosim compare` and the report's suggested
compare.

Cells pair by what they play, not by how their knobs were written: a sweep value, a case, a
study's `rules:` and a tune's `best.yaml` all end up as the cell's resolved rules (the game's
params model with presets and defaults filled in, as the manifest stores them), its player count
and its seating. Two cells are candidates when they play the same game with the same number of
players and either the same seating or the same label (a seating change under the same label is
then the change under test). Among all candidate pairs the closest pair first: same seating, then
the fewest rule differences, then the same label; each cell is used at most once.
"""

from __future__ import annotations

from typing import Any

from simulator.plan import flatten_dotted


def played(cell: dict[str, Any]) -> dict[str, Any]:
    """A manifest cell's rules as played (`auto` resolved); a manifest written before the cells
    recorded them gives the rules as written."""
    return cell.get("played_rules") or cell["params"]


def rule_differences(params_a: dict[str, Any], params_b: dict[str, Any]) -> list[str]:
    """The dotted knob names whose resolved values differ between two cells' rules."""
    flat_a, flat_b = flatten_dotted(params_a), flatten_dotted(params_b)
    return [key for key in sorted(set(flat_a) | set(flat_b)) if flat_a.get(key) != flat_b.get(key)]


def match_cells(cells_a: list[dict[str, Any]], cells_b: list[dict[str, Any]]) -> list[tuple[dict, dict]]:
    """(A cell, B cell) pairs that play the same thing (see the module doc), in A's cell order."""
    candidates = []
    for cell_a in cells_a:
        for cell_b in cells_b:
            if cell_b["game"] != cell_a["game"] or cell_b["players"] != cell_a["players"]:
                continue
            same_seats = cell_b["seats"] == cell_a["seats"]
            if not same_seats and cell_b["label"] != cell_a["label"]:
                continue
            closeness = (not same_seats, len(rule_differences(played(cell_a), played(cell_b))),
                         cell_b["label"] != cell_a["label"], cell_a["index"], cell_b["index"])
            candidates.append((closeness, cell_a, cell_b))
    taken_a: set[int] = set()
    taken_b: set[int] = set()
    pairs = []
    for _, cell_a, cell_b in sorted(candidates, key=lambda candidate: candidate[0]):
        if cell_a["index"] in taken_a or cell_b["index"] in taken_b:
            continue
        taken_a.add(cell_a["index"])
        taken_b.add(cell_b["index"])
        pairs.append((cell_a, cell_b))
    return sorted(pairs, key=lambda pair: pair[0]["index"])
