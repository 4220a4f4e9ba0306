"""The game registry (issue 8): built-in games are always found, a separately installed package
adds a game through the `zoosim.games` entry-point group, and every place that names games (CLI
choices, `zoosim rules`, `zoosim bench`, config messages) asks the registry."""

from __future__ import annotations

import importlib.metadata

import pytest
from click.testing import CliRunner

import simulator.games as registry
from simulator.cli import main

PLUGIN = '''
import dataclasses, sys
GAME = dataclasses.replace(sys.modules["zoosim_test_coin"].GAME, name="dice", title="Dice (a plugin)")
'''


@pytest.fixture
def installed_plugins(tmp_path, monkeypatch):
    """Installs a distribution with `zoosim.games` entry points (dice works, broken does not)
    on sys.path, the way pip would, and forgets the registry's cached entry points."""
    (tmp_path / "zoosim_dice_plugin.py").write_text(PLUGIN)
    info = tmp_path / "zoosim_dice_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zoosim-dice-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[zoosim.games]\ndice = zoosim_dice_plugin:GAME\nbroken = zoosim_no_such_module:GAME\n"
        "katz = zoosim_dice_plugin:GAME\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry._entry_point_games.cache_clear()
    yield
    registry._entry_point_games.cache_clear()


def test_an_installed_package_adds_a_game_everywhere(installed_plugins, write_experiment):
    assert registry.game_names()[:2] == ("katz", "nyz")
    assert {"dice", "broken"} <= set(registry.game_names())
    listing = CliRunner().invoke(main, ["rules"])
    assert listing.exit_code == 0 and "dice: Dice (a plugin)   [zoosim_dice_plugin:GAME]" in listing.output
    assert CliRunner().invoke(main, ["rules", "dice"]).exit_code == 0
    played = CliRunner().invoke(main, ["play", "dice", "--seed", "3"])
    assert played.exit_code == 0 and "scores" in played.output
    experiment = write_experiment("games: 10\nstudies: [{game: dice, rules: {players: 2}}]\n")
    assert CliRunner().invoke(main, ["validate", str(experiment)]).exit_code == 0
    unknown = CliRunner().invoke(main, ["validate", str(write_experiment("studies: [{game: chess}]\n", "bad.yaml"))])
    assert unknown.exit_code == 2 and "allowed: katz, nyz, coin, lever, ascent, broken, dice" in unknown.stderr


def test_a_plugin_cannot_replace_a_built_in_game(installed_plugins):
    assert registry.registered_games()["katz"] == "simulator.games.katz:GAME"
    assert registry.get_game("katz").title == "Alles für die Katz"


def test_a_broken_plugin_is_one_line_and_harms_no_other_game(installed_plugins):
    result = CliRunner().invoke(main, ["rules", "broken"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "zoosim: error: game 'broken' (zoosim_no_such_module:GAME) cannot be loaded: "
        "No module named 'zoosim_no_such_module'"
    ]
    assert CliRunner().invoke(main, ["rules", "nyz"]).exit_code == 0
    assert CliRunner().invoke(main, ["play", "--help"]).exit_code == 0


def test_built_in_games_are_found_when_entry_points_cannot_be_read(monkeypatch):
    def unreadable(**_):
        raise OSError("metadata unreadable")

    monkeypatch.setattr(importlib.metadata, "entry_points", unreadable)
    registry._entry_point_games.cache_clear()
    try:
        assert registry.game_names() == ("katz", "nyz", "coin", "lever", "ascent")
        assert registry.get_game("nyz").name == "nyz"
    finally:
        registry._entry_point_games.cache_clear()


def test_a_game_registered_in_process_is_found_until_unregistered():
    """register_game: a plugin used from its source folder without installing it."""
    registry.register_game("dice", "zoosim_test_coin:GAME")
    try:
        assert registry.registered_games()["dice"] == "zoosim_test_coin:GAME"
        with pytest.raises(registry.ZoosimError, match="is not a zoosim Game named 'dice'"):
            registry.get_game("dice")  # found, but the object there is named coin
    finally:
        registry.unregister_game("dice")
    assert "dice" not in registry.game_names()
    with pytest.raises(registry.ZoosimError, match="built in and cannot be replaced"):
        registry.register_game("katz", "zoosim_test_coin:GAME")
