"""Experiment loading and validation: good files load, bad input gives one clear line, exit 2."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import load_experiment
from simulator.errors import ZoosimError
from simulator.plan import build_plan

REPO = Path(__file__).resolve().parent.parent
GOOD = """
seed: 3
games: 100
studies:
  - game: coin
    rules: {players: 3}
"""


def test_a_valid_file_loads_and_takes_its_name_from_the_file(write_experiment):
    experiment, text = load_experiment(write_experiment(GOOD, "my_study.yaml"))
    assert experiment.name == "my_study"
    assert experiment.seed == 3 and experiment.games == 100
    assert "coin" in text


def test_command_line_overrides_games_and_seed(write_experiment):
    experiment, _ = load_experiment(write_experiment(GOOD), games=7, seed=11)
    assert (experiment.games, experiment.seed) == (7, 11)


BAD_INPUT = [
    # (file text, words the one-line message must contain)
    ("studies: [", ["invalid YAML", "line"]),
    ("- just\n- a list\n", ["must be a mapping"]),
    ("seed: 1\n", ["studies", "Field required"]),
    ("games: -5\nstudies: [{game: coin}]\n", ["games", "greater than or equal to 1"]),
    ("games: lots\nstudies: [{game: coin}]\n", ["games", "integer"]),
    ("gmaes: 10\nstudies: [{game: coin}]\n", ["unknown key 'gmaes'", "did you mean 'games'"]),
    ("studies: [{game: chess}]\n", ["studies[0].game", "unknown game 'chess'", "katz"]),
    ("studies: [{game: coin, rules: {playrs: 3}}]\n", ["studies[0].rules.playrs", "did you mean 'players'"]),
    ("studies: [{game: coin, rules: {players: 9}}]\n", ["studies[0].rules.players", "less than or equal to 5"]),
    ("studies: [{game: coin, seats: [cheater]}]\n", ["studies[0].seats", "unknown policy 'cheater'", "fair"]),
    ("studies: [{game: coin, rules: {players: 3}, seats: [fair, fair]}]\n", ["studies[0].seats", "2 seats listed", "3 players"]),
    ("studies: [{game: coin, seats: [{policy: lucky, params: {luk: 2}}]}]\n", ["unknown parameter 'luk'", "luck"]),
    ("studies: [{game: coin, sweep: {players: [2, 3]}, cases: [{players: 2}]}]\n", ["either 'sweep'", "not both"]),
    ("studies: [{game: coin, sweep: {players: []}}]\n", ["lists no values"]),
    ("studies: [{game: coin, sweep: {players: [2, 7]}}]\n", ["studies[0].sweep.players", "players=7"]),
    ("studies: []\n", ["studies", "at least 1"]),
    ("margin_points: 0\nstudies: [{game: coin}]\n", ["margin_points", "greater than or equal to 0.01"]),
]


@pytest.mark.parametrize("text, expected", BAD_INPUT, ids=[b[1][0] for b in BAD_INPUT])
def test_bad_experiment_gives_one_line_naming_file_and_key(write_experiment, text, expected):
    path = write_experiment(text, "bad.yaml")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"zoosim: error: {path}"), lines[0]
    for words in expected:
        assert words in lines[0], lines[0]


def test_missing_file_is_named(tmp_path):
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "nope.yaml: no such file" in result.stderr


def test_validate_describes_the_cells(write_experiment):
    path = write_experiment("games: 90\nstudies: [{game: coin, sweep: {players: [2, 3]}}]\n")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "2 cell(s), 180 games" in result.output
    assert "coin · players=2: 90 games" in result.output


def test_errors_are_project_errors_not_tracebacks(write_experiment):
    path = write_experiment("studies: [{game: coin, rules: {first_seat_bonus: high}}]\n")
    experiment, _ = load_experiment(path)
    with pytest.raises(ZoosimError, match=r"studies\[0\].rules.first_seat_bonus"):
        build_plan(experiment, file=str(path))


def test_validating_and_listing_rules_import_no_numba(tmp_path):
    """Issue 11 (speed): `zoosim validate` builds the whole plan (rule layouts, presets, every
    policy's parameters, search policies included) and `zoosim rules` lists every knob and policy
    without loading an engine, so a fresh interpreter running them never imports numba or llvmlite
    (numba's start-up alone costs about half a second) nor a game's kernel modules."""
    import subprocess
    import sys
    from pathlib import Path

    experiment = tmp_path / "both.yaml"
    experiment.write_text(
        "seed: 1\ngames: 40\nstudies:\n"
        "  - game: katz\n    rules: {players: 3, blocked_cell_rule: line_completion}\n"
        "    seats: [greedy, {policy: ismcts, params: {iterations: 5, rollout: random}}, expectimax]\n"
        "  - game: nyz\n    pool: [greedy, random, {policy: mcts, params: {heuristic: greedy_duel}}]\n"
        "    sweep: {players: [2, 3]}\n"
    )
    script = (
        "import sys; from click.testing import CliRunner; from simulator.cli import main\n"
        f"for args in (['validate', {str(experiment)!r}], ['rules', 'katz'], ['rules', 'nyz']):\n"
        "    result = CliRunner().invoke(main, args)\n"
        "    assert result.exit_code == 0, (args, result.output, result.exception)\n"
        "    assert ('valid experiment file.' if args[0] == 'validate' else 'ismcts' if args[1] == 'katz' else 'mcts') in result.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite') or m in (\n"
        "    'simulator.games.kernels', 'simulator.games.rng', 'simulator.games.search')\n"
        "    or m.endswith(('.moves', '.invariants', '.play', '.step_api', '.policies', '.render', '.rules', '.bits', '.search'))))\n"
    )
    repo = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_experiment_name_may_have_64_characters_and_not_65(write_experiment):
    """The name names the run folder: one path component of at most NAME_LENGTH characters; the
    tune name's shorter limit comes from the same rule (tests/tune/test_tune_config.py)."""
    experiment, _ = load_experiment(write_experiment(f"name: {'a' * 64}\n" + GOOD))
    assert experiment.name == "a" * 64
    with pytest.raises(ZoosimError, match="the experiment name must be 1-64 characters: letters"):
        load_experiment(write_experiment(f"name: {'a' * 65}\n" + GOOD))


SHIPPED_FILES = sorted([*(REPO / "experiments").glob("*.yaml"), *(REPO / "benchmarks").glob("*.yaml")])


@pytest.mark.parametrize("path", SHIPPED_FILES, ids=[path.name for path in SHIPPED_FILES])
def test_every_shipped_experiment_and_tune_file_validates_and_says_its_kind(path):
    """#21 finding 5: `zoosim validate` refused every tune file ("studies: Field required")."""
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    kind = "tune file" if "tune:" in path.read_text(encoding="utf-8") else "experiment file"
    assert result.output.startswith(f"{path}: valid {kind}."), result.output


@pytest.mark.parametrize("knob", ["players", "first_seat_bonus", "preset"])
def test_a_rule_knob_at_study_level_says_it_belongs_under_rules_or_sweep(write_experiment, knob):
    """#21 finding 6: `players: 3` beside `game:` suggested "did you mean 'ladder'?"."""
    path = write_experiment(f"studies: [{{game: coin, {knob}: 3}}]\n", "bad.yaml")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert f"studies[0].{knob}: '{knob}' is a rule knob of coin" in result.stderr
    assert "under 'rules:'" in result.stderr and "'sweep:'" in result.stderr and "did you mean" not in result.stderr


@pytest.mark.parametrize("knob", ["players", "first_seat_bonus"])
def test_a_rule_knob_at_the_top_level_says_it_belongs_in_a_study(write_experiment, knob):
    """#21 finding 6 at the experiment's top level: `players: 3` beside `seed:` was an unknown key
    with the experiment's keys listed, not a word on where a rule knob goes."""
    path = write_experiment(f"{knob}: 3\nstudies: [{{game: coin, seats: [random]}}]\n", "bad.yaml")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert f"{knob}: '{knob}' is a rule knob of coin, not an experiment key" in result.stderr
    assert "a study's 'rules:'" in result.stderr and "'sweep:'" in result.stderr
