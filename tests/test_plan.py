"""Cells, chunks and seeds: the same experiment gives the same games, however it is split."""

import numpy as np
import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan


def plan_for(**overrides):
    document = {"seed": 5, "games": 1000, "chunk_games": 300, "studies": [{"game": "coin", "sweep": {"players": [2, 4]}}]}
    document.update(overrides)
    return build_plan(parse_experiment(document))


def test_rotation_replays_each_deal_in_every_seat_rotation():
    cell = plan_for().cells[1]  # 4 players
    assert cell.rotate and cell.games_per_deal == 4
    seeds, rotations = cell.chunk(0).game_seeds_and_rotations()
    assert np.array_equal(rotations[:8], [0, 1, 2, 3, 0, 1, 2, 3])
    assert len(set(seeds[:4])) == 1 and seeds[3] != seeds[4]
    assert cell.chunk_deals == 75 and cell.games == 1000 and cell.chunks == 4


def test_games_round_up_to_whole_deals():
    cell = plan_for(games=1001).cells[1]
    assert cell.games == 1004


def test_seeds_are_reproducible_and_chunks_differ():
    first, again = plan_for().cells[0], plan_for().cells[0]
    assert np.array_equal(first.chunk(1).deal_seeds(), again.chunk(1).deal_seeds())
    assert not np.array_equal(first.chunk(0).deal_seeds(), first.chunk(1).deal_seeds())


def test_more_games_only_appends_chunks():
    small, large = plan_for(games=600).cells[0], plan_for(games=6000).cells[0]
    assert np.array_equal(small.chunk(1).deal_seeds(), large.chunk(1).deal_seeds())
    assert plan_for(games=600).run_hash != plan_for(games=6000).run_hash


def test_a_cells_games_do_not_depend_on_the_other_cells():
    both = plan_for()
    alone = build_plan(parse_experiment({"seed": 5, "games": 1000, "chunk_games": 300,
                                         "studies": [{"game": "coin", "rules": {"players": 4}}]}))
    assert np.array_equal(both.cells[1].chunk(2).deal_seeds(), alone.cells[0].chunk(2).deal_seeds())


def test_the_seed_changes_the_games():
    assert not np.array_equal(plan_for().cells[0].chunk(0).deal_seeds(), plan_for(seed=6).cells[0].chunk(0).deal_seeds())


def test_no_rotation_when_switched_off():
    cell = plan_for(rotate_seats=False).cells[1]
    assert not cell.rotate and cell.games_per_deal == 1 and cell.deals == 1000


def test_a_grid_sweep_makes_every_combination_and_cases_make_one_cell_each():
    grid = build_plan(parse_experiment({"studies": [{"game": "coin", "sweep": {"players": [2, 3, 4], "first_seat_bonus": [0.0, 0.5]}}]}))
    assert [cell.sweep_values for cell in grid.cells] == [
        {"players": p, "first_seat_bonus": b} for p in (2, 3, 4) for b in (0.0, 0.5)
    ]
    assert [cell.players for cell in grid.cells] == [2, 2, 3, 3, 4, 4]
    assert grid.cells[5].params.first_seat_bonus == 0.5
    cases = build_plan(parse_experiment({"studies": [{"game": "coin", "cases": [{"players": 2}, {"players": 5, "first_seat_bonus": 1.0}]}]}))
    assert [(cell.players, cell.params.first_seat_bonus) for cell in cases.cells] == [(2, 0.0), (5, 1.0)]
    assert cases.cells[1].label == "coin · players=5, first_seat_bonus=1.0"


@pytest.mark.parametrize("game", ["katz", "nyz", "coin"])
def test_cell_seeds_and_rules_hashes_see_only_the_knobs_that_differ_from_the_defaults(game):
    """A knob added to a game at the printed rules' value leaves every earlier experiment's
    seeds, and so its games, as they were: the seeds hash only the knobs a cell changes."""
    from simulator.games import get_game
    from simulator.games.base import changed_knobs

    spec = get_game(game)
    assert changed_knobs(spec.make_params({})) == {}
    players = 3 if spec.make_params({}).players != 3 else 2
    assert changed_knobs(spec.make_params({"players": players})) == {"players": players}
    spelled_out = build_plan(parse_experiment({"studies": [{"game": game, "rules": {"players": players}}]}))
    plain = build_plan(parse_experiment({"studies": [{"game": game, "sweep": {"players": [players]}}]}))
    assert spelled_out.cells[0].seed_entropy == plain.cells[0].seed_entropy


def test_a_changed_policy_default_names_another_run_but_replays_the_same_deals(monkeypatch):
    """A run folder holds the games of the players as they were: when a policy's default
    parameters change (a new zoosim), the same experiment file is another run, so resuming it
    never mixes the old players' games with the new ones'. The deals stay the same (the cell
    seeds do not see the players' rows), so the two runs are paired."""
    import dataclasses

    from tests.conftest import COIN

    experiment = {"name": "defaults", "seed": 7, "games": 100, "studies": [
        {"game": "coin", "rules": {"players": 2}, "seats": ["fair", "lucky"]}]}
    before = build_plan(parse_experiment(experiment))
    lucky = COIN.policies["lucky"]
    monkeypatch.setitem(COIN.policies, "lucky", dataclasses.replace(lucky, params={"luck": 2.0}))
    after = build_plan(parse_experiment(experiment))
    assert after.run_hash != before.run_hash
    assert [cell.seed_entropy for cell in after.cells] == [cell.seed_entropy for cell in before.cells]


def test_run_hash_params_hashes_and_cell_seeds_keep_their_values():
    """The digests that name a run folder and seed every cell (simulator/digest.py) are pinned:
    values computed by the code before the digest functions were merged into one. A change here
    renames every run folder and replays different games; only a deliberate change of the
    experiment schema, a cell's key or the coin game's rules version may update them (the cell
    seeds last on 2026-12-02, when the cell key's knobs became those that differ from the
    defaults; the run hash on 2026-12-04, when it came to include every seat's parameter row)."""
    import hashlib
    import json

    from simulator.digest import json_digest

    plan = build_plan(parse_experiment({"name": "pinned", "seed": 7, "games": 100, "studies": [
        {"game": "coin", "rules": {"players": 3}, "seats": ["fair", "lucky", "fair"]},
        {"game": "coin", "sweep": {"players": [2, 4]}}]}))
    assert plan.run_hash == "7e02e8c9acc84d5f"
    assert [(cell.params_hash, cell.seed_entropy) for cell in plan.cells] == [
        ("999eccd8dce1f3da", (7, 2393508477784151113)),
        ("0a0a3cf59bb2177a", (7, 2305330981290087862)),
        ("5cbc05fe9096517d", (7, 2856976333358125153)),
    ]
    # a sidecar's summary_sha256: the full sha256 of the same canonical JSON
    summary = {"games": 3, "wins": [1, 2], "by": {"b": 0.5, "a": None}}
    canonical = json.dumps(summary, sort_keys=True).encode()
    assert json_digest(summary) == hashlib.sha256(canonical).hexdigest()
