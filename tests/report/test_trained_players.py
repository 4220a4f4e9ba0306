"""The run report on learned players (issue #23 items 2-3): it names the rules each learned
player was trained on, warns once per cell whose rules differ from them (compared at the cell's
player count), and says what each ladder rung models."""

from __future__ import annotations

import dataclasses
import json
import shutil
import types

from click.testing import CliRunner

from simulator.cli import main
from simulator.config import parse_experiment
from simulator.games import get_game
from simulator.games.base import params_hash, played_rules
from simulator.games.katz.specs import WEIGHTS_FILE
from simulator.plan import build_plan, rung_model, trained_players
from simulator.report.build import trained_lines


def variant_weights(folder, **knobs):
    """The shipped Katz weights with a card saying they were trained under `knobs`."""
    game = get_game("katz")
    target = folder / "variant.npz"
    shutil.copyfile(WEIGHTS_FILE, target)
    card = json.loads(WEIGHTS_FILE.with_suffix(".json").read_text())
    params = game.make_params({"players": 4, **knobs})
    card.update(rules=played_rules(params), rules_hash=params_hash(params, game.rules_version))
    target.with_suffix(".json").write_text(json.dumps(card))
    return target


def experiment(variant, games=4):
    return {"seed": 1, "games": games, "studies": [
        {"name": "printed", "game": "katz", "rules": {"players": 2},
         "seats": [{"policy": "learned", "params": {"weights": str(variant)}}, "learned"]},
        {"name": "variant", "game": "katz", "rules": {"players": 3, "hand_size": 6},
         "seats": [{"policy": "learned", "params": {"weights": str(variant)}}]},
        {"name": "ladder", "game": "katz", "rules": {"players": 2},
         "ladder": ["random", {"policy": "learned", "params": {"temperature": 2.0}}, "learned"]},
    ]}


def test_the_warning_appears_exactly_where_the_rules_differ(tmp_path):
    variant = variant_weights(tmp_path, hand_size=6)
    plan = build_plan(parse_experiment(experiment(variant)))
    trained = {cell.study: trained_players(cell) for cell in plan.cells if cell.study != "ladder"}
    printed_cell = trained["printed"]
    assert [entry["differ"] for entry in printed_cell] == [True, False]  # the variant file, the shipped one
    assert printed_cell[0]["rules"] == "hand_size=6" and printed_cell[1]["rules"] == "the printed rules"
    assert [entry["differ"] for entry in trained["variant"]] == [False] * 3  # 3 players, same variant: no warning
    lines = trained_lines([cell.describe() for cell in plan.cells])
    assert len(lines["warnings"]) == 1 and lines["warnings"][0].startswith("printed")
    assert "learned(weights=" in lines["notes"][0] and "trained on hand_size=6" in lines["notes"][0]


def test_a_study_whose_cells_change_the_rules_warns_once(tmp_path):
    """The explain study's report opened with 60 warnings, one per mechanism setting, each naming
    expert in every seat slot: a study's cells whose rules differ from the same players' training
    rules give one line, with how many of its cells they are; the same player in several slots is
    named once."""
    document = {"seed": 1, "games": 4, "studies": [
        {"name": "sizes", "game": "katz", "seats": ["learned"], "sweep": {"players": [2], "hand_size": [5, 6, 7]}},
        {"name": "one", "game": "katz", "rules": {"players": 2, "hand_size": 6}, "seats": ["learned"]},
    ]}
    plan = build_plan(parse_experiment(document))
    warnings = trained_lines([cell.describe() for cell in plan.cells])["warnings"]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("sizes: the rules of 2 of its 3 cells differ from the training rules of seat slots "
                                  "0 and 1 learned (trained on the printed rules)")
    assert warnings[1].startswith("one: its rules differ from the training rules of seat slots 0 and 1 learned")


def test_the_report_names_training_rules_warns_and_describes_the_rungs(tmp_path):
    variant = variant_weights(tmp_path, hand_size=6)
    path = tmp_path / "e.yaml"
    path.write_text(json.dumps(experiment(variant)))
    result = CliRunner().invoke(main, ["run", str(path), "--out", str(tmp_path / "run"), "-q"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "run" / "report.html").read_text()
    assert page.count('class="warning rules-mismatch"') == 1
    assert "trained on hand_size=6" in page and "learned: trained on the printed rules" in page
    assert "random: a newcomer who moves at random" in page
    assert "learned(temperature=2): a player who makes mistakes: moves drawn in proportion to exp(value / 2)" in page


def test_rung_models_say_search_temperature_and_heuristic():
    katz, nyz = get_game("katz"), get_game("nyz")
    assert "a player who makes mistakes: moves drawn in proportion to exp(value / 0.5)" in rung_model(
        katz, "learned", {"temperature": 0.5})
    assert rung_model(katz, "strong", {}).startswith("an expert who looks ahead")
    assert "without looking ahead" in rung_model(katz, "learned", {})
    assert rung_model(katz, "greedy", {}).startswith("a rule-of-thumb player")
    # nyz strong's `temperature` draws its sampled lines, not its moves: still the expert
    assert rung_model(nyz, "strong", {}).startswith("an expert who looks ahead")
    assert "exp(value" not in rung_model(nyz, "strong", {"temperature": 0.5})
    # nyz learned looks no further than its own turn: not a search
    assert rung_model(nyz, "learned", {}).startswith("a practised player") and "search" not in rung_model(nyz, "learned", {})
    assert "exp(value / 6)" in rung_model(nyz, "learned", {"temperature": 6})
    # a player (a plugin's) that declares a mistake temperature but no words: its description stands in
    wordless = dataclasses.replace(katz.policies["learned"], models="")
    game = types.SimpleNamespace(policies={"learned": wordless}, search_policies=frozenset())
    assert rung_model(game, "learned", {"temperature": 2}).endswith(
        f"at temperature 0 a rule-of-thumb player ({wordless.description})")


def test_the_shipped_players_count_as_trained_on_the_printed_rules():
    """The shipped nyz card predates some knobs (equal_houses, ...): missing knobs are printed."""
    plan = build_plan(parse_experiment({"games": 2, "studies": [
        {"game": "nyz", "rules": {"players": 3}, "seats": ["learned"]},
        {"game": "katz", "rules": {"players": 2}, "seats": ["strong"]}]}))
    for cell in plan.cells:
        assert [(entry["rules"], entry["differ"]) for entry in trained_players(cell)] == \
            [("the printed rules", False)] * cell.players


def test_each_games_learned_player_gets_its_own_training_note():
    """Katz's and New York Zoo's `learned` are different players with different weights: a run
    seating both (the quick start's seat_bias.yaml) named only the first game's."""
    plan = build_plan(parse_experiment({"name": "both", "seed": 1, "games": 10, "studies": [
        {"name": "k", "game": "katz", "seats": ["learned"]},
        {"name": "n", "game": "nyz", "seats": ["learned"]}]}))
    notes = trained_lines([cell.describe() for cell in plan.cells])["notes"]
    assert notes == ["katz learned: trained on the printed rules", "nyz learned: trained on the printed rules"]
