"""Plugins are isolated (issue #22, finding 2): a game package that raises anything while it is
imported, or whose `Game` breaks the contract, is one line naming the package and what is
wrong; every other game and every command works as before (`rules`, `play --help`, `bench`,
`validate`, `run`), and the broken game's own commands end in one line, never a traceback. A
`play_batch` whose result breaks the contract (columns, shapes, dtypes, row count) ends a run in
one line naming the game and the column. The plugins are fakes installed through entry points,
as in test_registry.py, each a variant of the `coin` test game."""

from __future__ import annotations

import itertools

import numpy as np

import pytest
from click.testing import CliRunner

import simulator.games as registry
from simulator.cli import main
from simulator.games.base import batch_problem, contract_problem

COIN = 'import dataclasses, sys\nimport numpy as np\nfrom simulator.games.base import Deferred\ncoin = sys.modules["zoosim_test_coin"].GAME\n'


def _variant(changes: str, before: str = "") -> str:
    return f"{COIN}{before}\nGAME = dataclasses.replace(coin, name='broken', {changes})\n"


def _batch_changed(change: str) -> str:
    """A play_batch that plays coin, then breaks its result with `change` (columns `c`)."""
    return _variant("play_batch=play_batch", f"def play_batch(*args, **kwargs):\n    c = dict(coin.play_batch(*args, **kwargs))\n    {change}\n    return c\n")


# what the package holds -> words the one line says
BROKEN_ON_IMPORT = {
    "RuntimeError": ("raise RuntimeError('no licence server')", ["RuntimeError: no licence server"]),
    "SyntaxError": ("def broken(:\n    pass", ["SyntaxError"]),
    "ZeroDivisionError": ("1 / 0", ["ZeroDivisionError"]),
    "SystemExit": ("import sys\nsys.exit(3)", ["SystemExit"]),
    "not a Game": ("GAME = 42", ["is not a zoosim Game"]),
}
BROKEN_CONTRACT = {
    "legend raises": (_variant("legend=lambda params: 1 / 0"), ["legend() raised ZeroDivisionError"]),
    "legend not text": (_variant("legend=lambda params: 7"), ["legend() returned int"]),
    "no presets": (_variant("presets={}"), ["no presets"]),
    "players raises": (_variant("players=lambda params: [][1]"), ["players() raised IndexError"]),
    "players not a count": (_variant("players=lambda params: 0"), ["players() returned 0"]),
    "no policies": (_variant("policies={}"), ["no policies"]),
    "default policy unknown": (_variant("default_policy='shrewd'"), ["default policy 'shrewd'"]),
}
# contract breaks only found where the function is called
BROKEN_WHEN_CALLED = {
    "deferred legend raises": (_variant("legend=Deferred('zoosim_no_such_module_x:legend')"), ["legend() raised"]),
    "trace raises": (_variant("trace=lambda *args: {}['x']"), ["trace() raised KeyError"]),
}
BROKEN_BATCH = {
    "1-D score": (_batch_changed("c['score'] = c['score'][:, 0]"), ["column 'score'", "shape"]),
    "no win column": (_batch_changed("del c['win']"), ["no column 'win'"]),
    "one row too few": (_batch_changed("c = {k: v[:-1] for k, v in c.items()}"), ["column", "shape"]),
    "win not bool": (_batch_changed("c['win'] = c['win'].astype(float)"), ["column 'win'", "dtype float64"]),
    "a list": (_batch_changed("c = list(c)"), ["returned list"]),
    "text column": (_batch_changed("c['turns'] = c['turns'].astype(str)"), ["column 'turns'", "dtype"]),
    "undeclared column of another length": (_batch_changed("c['extra'] = np.zeros(3)"), ["column 'extra'", "shape (3,)"]),
}

_counter = itertools.count()


@pytest.fixture
def install(tmp_path, monkeypatch):
    """Install a fake plugin package `broken` holding `source`, through the entry point group."""

    def installer(source: str) -> str:
        module = f"zoosim_broken_plugin_{next(_counter)}"  # a fresh module each time
        (tmp_path / f"{module}.py").write_text(source)
        info = tmp_path / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[zoosim.games]\nbroken = {module}:GAME\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        registry._entry_point_games.cache_clear()
        return module

    yield installer
    registry._entry_point_games.cache_clear()


def invoke(*args):
    result = CliRunner().invoke(main, [str(arg) for arg in args])
    assert "Traceback" not in result.output + result.stderr, result.output + result.stderr
    return result


def assert_one_error_line(result, module: str | None, words: list[str]) -> None:
    assert result.exit_code == 2, result.output + result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("zoosim: error: "), result.stderr
    if module:
        assert f"game 'broken' ({module}:GAME)" in lines[0], lines[0]
    for word in words:
        assert word in lines[0], lines[0]


def assert_other_games_work(write_experiment) -> None:
    listing = invoke("rules")
    assert listing.exit_code == 0 and "katz: Alles für die Katz" in listing.output and "coin: Coin test game" in listing.output
    assert "broken: unusable: " in listing.output  # the broken game is named, in one line
    help_text = invoke("play", "--help")
    assert help_text.exit_code == 0 and "katz: " in help_text.output and "nyz: " in help_text.output
    assert invoke("rules", "nyz").exit_code == 0
    experiment = write_experiment("games: 10\nstudies: [{game: coin, rules: {players: 2}}]\n", "coin.yaml")
    assert invoke("validate", experiment).exit_code == 0


@pytest.mark.parametrize("kind", BROKEN_ON_IMPORT)
def test_a_package_that_fails_to_import_is_one_line_and_harms_no_other_game(install, write_experiment, kind):
    source, words = BROKEN_ON_IMPORT[kind]
    module = install(source)
    assert_other_games_work(write_experiment)
    assert_one_error_line(invoke("rules", "broken"), module, words)
    assert_one_error_line(invoke("play", "broken"), module, words)


@pytest.mark.parametrize("kind", {**BROKEN_CONTRACT, **BROKEN_WHEN_CALLED})
def test_a_game_breaking_the_contract_is_one_line_and_harms_no_other_game(install, write_experiment, kind):
    source, words = {**BROKEN_CONTRACT, **BROKEN_WHEN_CALLED}[kind]
    module = install(source)
    if kind in BROKEN_WHEN_CALLED:  # loads; fails in its own commands only
        listing = invoke("rules")
        assert listing.exit_code == 0 and "katz: Alles für die Katz" in listing.output
        help_text = invoke("play", "--help")
        assert help_text.exit_code == 0 and "katz: " in help_text.output
        assert_one_error_line(invoke("play", "broken"), None, ["game 'broken'", *words])
        return
    assert_other_games_work(write_experiment)
    assert_one_error_line(invoke("rules", "broken"), module, ["breaks the game contract", *words])
    assert_one_error_line(invoke("play", "broken"), module, words)
    experiment = write_experiment("games: 10\nstudies: [{game: broken}]\n", "broken.yaml")
    assert_one_error_line(invoke("validate", experiment), module, words)


def test_players_raising_for_some_rules_is_one_line_in_validate(install, write_experiment):
    module = install(_variant("players=players", "def players(params):\n"
                                                 "    if params.players == 4:\n        raise ValueError('four is too many')\n"
                                                 "    return params.players\n"))
    experiment = write_experiment("games: 10\nstudies: [{game: broken, rules: {players: 4}}]\n")
    assert_one_error_line(invoke("validate", experiment), None, ["game 'broken'", "players() raised ValueError: four is too many"])
    assert module


@pytest.mark.parametrize("kind", BROKEN_BATCH)
def test_a_batch_breaking_the_contract_ends_a_run_in_one_line_naming_game_and_column(install, write_experiment, tmp_path, kind):
    source, words = BROKEN_BATCH[kind]
    install(source)
    experiment = write_experiment("name: b\ngames: 20\nchunk_games: 10\nstudies: [{game: broken, rules: {players: 2}}]\n")
    result = invoke("run", experiment, "--out", tmp_path / "run", "--jobs", "1", "--quiet", "--no-report")
    assert_one_error_line(result, None, ["game 'broken' broke the game contract", "Replay its first game with", *words])


def test_bench_of_every_game_names_a_broken_plugin_once_and_measures_the_others(install, monkeypatch):
    from simulator import bench

    module = install(BROKEN_ON_IMPORT["RuntimeError"][0])
    monkeypatch.setattr(bench, "measure", lambda game, players, policy, seconds: 1.0)  # the loop, not the speed
    result = invoke("bench", "--players", "2")
    assert result.exit_code == 0, result.stderr
    measured = {line.split()[0] for line in result.stdout.splitlines()[1:]}
    assert {"katz", "nyz", "coin"} <= measured and "broken" not in measured
    warnings = [line for line in result.stderr.splitlines() if "broken" in line]
    assert len(warnings) == 1 and f"game 'broken' ({module}:GAME)" in warnings[0], result.stderr
    assert_one_error_line(invoke("bench", "broken"), module, ["RuntimeError"])


def test_the_built_in_and_test_games_keep_the_contract():
    for name in registry.game_names():
        game = registry.get_game(name)
        assert contract_problem(game) is None, name


def test_batch_problem_names_the_column():
    game = registry.get_game("coin")
    params = game.make_params({"players": 2})
    columns = game.play_batch(params, game.seat_policies([("fair", {})] * 2), np.arange(5, dtype=np.uint64), np.zeros(5, dtype=np.int8))
    assert batch_problem(game, columns, 5, 2) is None
    assert batch_problem(game, columns, 6, 2) == "play_batch column 'turns' has shape (5,), expected (6,) (6 games, 2 seats)"
    assert "no column 'check_violations'" in batch_problem(game, columns, 5, 2, check=True)

