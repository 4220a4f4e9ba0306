"""The New York Zoo greedy weights added for issue #9 (pair_value and the breeding look-ahead):
they change the moves they are meant to change, the presets using them keep every rule
invariant, and their bounds are checked. That the new weights at 0 keep the games of `greedy`,
`greedy_builder` and `greedy_breeder` is pinned by test_speed_equivalence.py."""

import numpy as np
import pytest
from click.testing import CliRunner

from nyz_helpers import add_enclosure, restart_turn, set_houses
from simulator.cli import main
from simulator.errors import ZoosimError
from simulator.games.nyz import GAME, policies, step_api
from simulator.games.nyz import components as comp
from simulator.games.nyz import state as S

MEERKAT = comp.SPECIES.index("meerkat")


def populate_choice(policy, params):
    """N-4.2 (3), N-6.2: seat 0 populates a new enclosure with meerkats; its sources are a
    5-square enclosure holding a breeding pair (2) and a 4-square one holding 3, no house
    animals. Returns the enclosure the seat's policy takes the first animal from."""
    pos = step_api.new_game(GAME.make_params({"players": 2}),
                          GAME.seat_policies([(policy, params), ("greedy", {})]), seed=1)
    set_houses(pos, 0, [None, None, None])
    pos.state.seat[0, S.P_ENCLOSURES] = 0
    pair = add_enclosure(pos, 0, "B1", "meerkat", 2)
    three = add_enclosure(pos, 0, "A8", "meerkat", 3)
    restart_turn(pos, active=0, elephant=10)
    step_api.apply(pos, 11)  # the tile bay after the elephant (N-4.1)
    step_api.apply(pos, step_api.legal_moves(pos)[0])  # place the tile anywhere
    assert pos.decision == S.D_POPULATE
    assert sorted(step_api.legal_moves(pos)) == [S.SRC_ENCLOSURE + pair, S.SRC_ENCLOSURE + three]
    return step_api.policy_move(pos) - S.SRC_ENCLOSURE, pair, three


def test_greedy_breaks_the_pair_and_pair_value_keeps_it():
    """The issue's finding: greedy charges only animal_value / capacity for a source, so it takes
    from the bigger enclosure and leaves it with one meerkat (no breeding, N-6.2); with
    pair_value it takes from the enclosure of three, which keeps a pair."""
    source, pair, three = populate_choice("greedy", {})
    assert source == pair
    source, pair, three = populate_choice("greedy", {"pair_value": 2.0})
    assert source == three
    source, pair, three = populate_choice("greedy_pairs", {})
    assert source == three


def test_pair_value_prefers_the_animal_that_makes_a_pair():
    """N-6.2: an animal joining a lone animal of its species makes an enclosure that breeds."""
    pos = step_api.new_game(GAME.make_params({"players": 2}),
                          GAME.seat_policies([("greedy_pairs", {}), ("greedy", {})]), seed=1)
    gains = {}
    for policy, params in (("greedy", {}), ("greedy_pairs", {})):
        row = GAME.policies[policy].pack(params)
        set_houses(pos, 0, [None, None, None])
        pos.state.seat[0, S.P_ENCLOSURES] = 0
        lone = add_enclosure(pos, 0, "A8", "meerkat", 1)
        gains[policy] = policies.animal_gain(pos.state, pos.tables, 0, lone, row)
    assert gains["greedy_pairs"] == pytest.approx(gains["greedy"] + 2.0)


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_new_presets_keep_every_invariant(players):
    """T18 in checked mode over 3,000 games per player count for the presets using the new
    weights (mixed with greedy so both sides of the opponent term are exercised)."""
    names = ["greedy_pairs", "greedy_tuned", "greedy_duel", "greedy"]
    seating = GAME.seat_policies([(names[(i + players) % 4], {}) for i in range(players)])
    games = 3000
    seeds = np.arange(1, games + 1, dtype=np.uint64) * np.uint64(7919)
    rotations = (np.arange(games) % players).astype(np.int64)
    cols = GAME.play_batch(GAME.make_params({"players": players}), seating, seeds, rotations, check=True)
    assert cols["check_violations"].sum() == 0, np.bincount(cols["first_violation"])


def test_tuned_preset_is_registered_and_documented():
    result = CliRunner().invoke(main, ["rules", "nyz"])
    assert result.exit_code == 0
    for name in ("greedy_pairs", "greedy_tuned", "greedy_duel"):
        assert name in GAME.policies
        assert f"\n{name}: " in result.output
    assert "ahead_spaces = " in result.output and "a whole number from 0 to 24" in result.output


def test_parameters_are_checked_before_any_kernel_sees_them():
    spec = GAME.policies["greedy_tuned"]
    for bad in ({"pair_value": float("nan")}, {"pair_value": -0.5}, {"ahead_spaces": -1}):
        with pytest.raises(ZoosimError, match="must be a"):
            spec.pack(bad)
    assert spec.pack({"ahead_spaces": 3})[policies.W_AHEAD_SPACES] == 3.0


@pytest.mark.parametrize("name, text, words", [
    ("pair_value", "-1.0", "a number from 0 to 1,000,000"),
    ("ahead_spaces", "2.5", "a whole number from 0 to 24"),
    ("ahead_spaces", "25", "a whole number from 0 to 24"),
    ("opponent_breeding", ".nan", "finite"),
    ("breeding_ahead", ".inf", "finite"),
])
def test_bad_parameters_give_one_line(tmp_path, monkeypatch, name, text, words):
    path = tmp_path / "bad.yaml"
    path.write_text("studies: [{game: nyz, rules: {players: 2}, "
                    f"seats: [{{policy: greedy_tuned, params: {{{name}: {text}}}}}]}}]\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.yaml" in lines[0] and name in lines[0], lines
    assert words in lines[0], lines[0]
