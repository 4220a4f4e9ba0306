"""The command line: help texts, and a table of bad command lines that each give one line on
stderr naming the problem, exit status 2, and create nothing."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.errors import Terminated

COMMANDS = sorted(main.commands)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "Usage: zoosim " + command in result.output
    assert len(result.output.split("\n\n")[1].strip()) > 20  # a real description
    assert "%%" not in result.output  # click prints help texts as written: no printf escapes


GOOD = "seed: 1\ngames: 50\nstudies: [{game: coin, rules: {players: 2}}]\n"

# (command line with {exp} for a valid experiment file and {tmp} for a fresh folder, expected words)
BAD_COMMAND_LINES = [
    (["run", "{exp}", "--jobs", "0"], ["--jobs", "1 to 1,024"]),
    (["run", "{exp}", "--jobs", "600000", "--out", "{tmp}/d"], ["--jobs", "1 to 1,024"]),
    (["run", "{exp}", "--jobs", "99999999999999999999", "--out", "{tmp}/d"], ["--jobs", "1 to 1,024"]),
    (["tune", "{exp}", "--jobs", "5000", "--out", "{tmp}/d"], ["--jobs", "1 to 1,024"]),
    (["play", "katz", "--policy", ""], ["--policy", "names no policy"]),
    (["play", "katz", "--policy", " , "], ["--policy", "names no policy"]),
    (["run", "{exp}", "--games", "0"], ["--games", "x>=1"]),
    (["run", "{exp}", "--games", "-3"], ["--games"]),
    (["run", "{exp}", "--games", "many"], ["--games", "not a valid integer"]),
    (["run", "{exp}", "--seed", "-1"], ["--seed"]),
    (["run", "{exp}", "--backend", "spark"], ["--backend", "loky", "threading", "dask"]),
    (["run", "{exp}", "--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler is only used with --backend dask"]),
    (["run", "{exp}", "--backend", "dask"], ["needs --scheduler"]),
    (["run", "{exp}", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--out", "{tmp}/d"], ["cannot reach the dask scheduler"]),
    (["run", "{exp}", "--out", "{exp}"], ["--out", "is a file"]),
    (["compare", "{tmp}", "{tmp}", "--out", " "], ["--out", "empty"]),
    (["play", "katz", "--set", "players=["], ["--set players", "invalid YAML"]),
    (["run", "{tmp}/missing.yaml"], ["missing.yaml", "no such file"]),
    (["run", "{tmp}"], ["is a directory"]),
    (["run"], ["Missing argument 'EXPERIMENT'"]),
    (["run", "{exp}", "--bogus"], ["No such option '--bogus'", "zoosim run --help"]),
    (["report", "{tmp}"], ["not a zoosim run folder"]),
    (["compare", "{tmp}", "{tmp}"], ["not a zoosim run folder"]),
    (["play", "chess"], ["unknown game 'chess'", "katz", "nyz", "coin"]),
    (["play", "katz", "--players", "9"], ["players must be 2..5", "allow_nonstandard_players"]),
    (["play", "katz", "--set", "blocked_cell_rule=sometimes"], ["blocked_cell_rule", "line_completion"]),
    (["play", "katz", "--set", "nonsense=1"], ["unknown key 'nonsense'"]),
    (["play", "katz", "--set", "novalue"], ["--set takes knob=value"]),
    (["play", "katz", "--policy", "psychic"], ["unknown policy 'psychic'", "greedy"]),
    (["play", "katz", "--players", "3", "--policy", "greedy,random"], ["2 policies for 3 players"]),
    (["rules", "chess"], ["unknown game 'chess'", "katz, nyz"]),
    (["bench", "chess"], ["unknown game 'chess'", "katz, nyz"]),
    (["bench", "katz", "--policy", "psychic"], ["unknown policy 'psychic'"]),
    (["bogus"], ["No such command 'bogus'"]),
]


@pytest.mark.parametrize("argv, expected", BAD_COMMAND_LINES, ids=[" ".join(a) for a, _ in BAD_COMMAND_LINES])
def test_bad_command_line_gives_one_line_and_exit_2(tmp_path, argv, expected):
    experiment = tmp_path / "good.yaml"
    experiment.write_text(GOOD)
    folder = tmp_path / "work"
    folder.mkdir()
    argv = [part.replace("{exp}", str(experiment)).replace("{tmp}", str(folder)) for part in argv]
    before = sorted(os.listdir(folder))
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2, (result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for words in expected:
        assert words in lines[0], lines[0]
    assert sorted(os.listdir(folder)) == before  # nothing written
    assert not (tmp_path / "reports").exists()


def test_an_existing_run_of_another_experiment_is_refused(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(GOOD)
    second.write_text(GOOD.replace("seed: 1", "seed: 2"))
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["run", str(first), "--out", str(out), "--jobs", "1", "-q"]).exit_code == 0
    listing = sorted(p.name for p in out.rglob("*"))
    result = CliRunner().invoke(main, ["run", str(second), "--out", str(out), "--jobs", "1", "-q"])
    assert result.exit_code == 2 and "holds a different experiment" in result.stderr and "--force" in result.stderr
    assert sorted(p.name for p in out.rglob("*")) == listing


def test_default_output_folder_is_named_by_experiment_and_hash_and_resumes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "exp.yaml").write_text(GOOD)
    first = CliRunner().invoke(main, ["run", "exp.yaml", "--jobs", "1", "-q"])
    assert first.exit_code == 0, first.output
    [folder] = list((tmp_path / "reports").iterdir())
    assert folder.name.startswith("exp-") and (folder / "report.html").exists()
    again = CliRunner().invoke(main, ["run", "exp.yaml", "--jobs", "1", "-q"])
    assert again.exit_code == 0 and "report:" in again.output
    assert len(list((tmp_path / "reports").iterdir())) == 1


def test_rules_lists_knobs_with_rule_ids_and_policy_parameters():
    result = CliRunner().invoke(main, ["rules", "katz"])
    assert result.exit_code == 0
    assert 'blocked_cell_rule = "line_completion"   [K-' in result.output
    assert "greedy (default):" in result.output and "skip_cost = 3" in result.output
    # presets and what each sets (K-9.2); per-seat knobs say so
    assert "  spec: the defaults above" in result.output
    assert '  seed_summary: blocked_cell_rule="line_completion", line_completion_needs_no_fit=false' in result.output
    assert "seat_bonus_points = [0.0, 0.0, 0.0, 0.0, 0.0]   [K-4.5]" in result.output
    assert "(per seat: entry i is seat i in turn order)" in result.output


def test_rules_lists_each_preset_with_what_it_sets():
    result = CliRunner().invoke(main, ["rules", "nyz"])
    assert result.exit_code == 0
    assert "  bga: the defaults above" in result.output
    assert ('  seed_summary: single_animal_rule="when_pair_does_not_fit", allow_partial_pair=false'
            in result.output)
    assert "geometry.bonus_breeding_player_counts=[2, 3]" in result.output


def test_checked_mode_runs_both_games_through_the_command_line(tmp_path):
    """`--check` runs every rule invariant after every move; the engines' own test suites sweep
    200,000+ checked games per game, this drives the same path through `zoosim run`."""
    experiment = tmp_path / "checked.yaml"
    experiment.write_text(
        "games: 1500\nstudies:\n"
        "  - {game: katz, sweep: {players: [2, 3, 4, 5], blocked_cell_rule: [line_completion, dead_cell]}}\n"
        "  - {game: nyz, sweep: {players: [1, 2, 3, 4, 5]}}\n"
    )
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(tmp_path / "out"), "--check", "-q", "--jobs", "2"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "report:" in result.output


@pytest.mark.parametrize("game, players", [("katz", 3), ("nyz", 2)])
def test_play_prints_a_key_and_the_same_closing_lines_for_every_game(game, players):
    """Issue 12, finding 8: a key to the codes first, and both games close with the same
    score and winner lines, which agree with the game's record columns."""
    import re

    import numpy as np

    from simulator.games import get_game

    result = CliRunner().invoke(main, ["play", game, "--seed", "5", "--players", str(players)])
    assert result.exit_code == 0, result.output
    module = get_game(game)
    params = module.make_params({"players": players})
    assert result.stdout.startswith(module.legend(params) + "\n")
    record = module.play_batch(params, module.seat_policies([("greedy", {})] * players),
                               np.array([5], np.uint64), np.array([0], np.int8))
    *_, scores, winners = result.stdout.strip().splitlines()
    assert scores == "final scores: " + ", ".join(f"seat {s} {int(v)}" for s, v in enumerate(record["score"][0]))
    assert winners == "winners: " + ", ".join(f"seat {s} (greedy)" for s in np.flatnonzero(record["win"][0]))
    assert re.fullmatch(r"winners: seat \d \(greedy\)(, seat \d \(greedy\))*", winners)


def test_the_katz_key_explains_every_card_code_of_the_deck():
    result = CliRunner().invoke(main, ["play", "katz", "--seed", "2", "--players", "2",
                                       "--set", "deck.zoo_kinds=[giraffe, aardvark, elephant]"])
    assert result.exit_code == 0, result.output
    key, game = result.stdout.split("\n\n", 1)
    import re

    codes = set(re.findall(r"\b([A-Z][a-z]{1,2})\d+\b", game))
    assert codes == {"Gi", "Aa", "El", "Ca"}
    for code, kind in (("Gi", "giraffe"), ("Aa", "aardvark"), ("El", "elephant"), ("Ca", "cat")):
        assert f"{code} {kind}" in key
    assert all(word in key for word in ("##", "__", "ZK"))


def test_play_help_shows_every_games_key():
    result = CliRunner().invoke(main, ["play", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "katz: key: a card is its kind and value" in text and "Gi giraffe" in text
    assert "nyz: key: strip '11:C9x2'" in text and "X fox" in text and "|K|" in text


@pytest.mark.parametrize("game", ["katz", "nyz", "coin"])
def test_rules_says_in_words_what_every_knob_allows(game):
    """No Python type names (str, int, Optional, list, None) in `zoosim rules`; the preset knob
    lists the game's presets."""
    import re

    from simulator.games import get_game

    module = get_game(game)
    for knob in module.knobs():
        assert not re.search(r"\b(str|int|float|bool|Optional|None|typing)\b|^list$", knob.allowed), (knob.name, knob.allowed)
    allowed = {knob.name: knob.allowed for knob in module.knobs()}
    assert allowed["preset"] == ("one of " + ", ".join(f'"{p}"' for p in module.presets)
                                 if len(module.presets) > 1 else f'"{next(iter(module.presets))}"')
    assert allowed["players"].startswith("an integer from ")


def test_rules_texts_of_optional_and_list_knobs():
    from simulator.games import get_game

    nyz = {knob.name: knob.allowed for knob in get_game("nyz").knobs()}
    assert nyz["max_events_per_move"] == "an integer from 1 to 100, or null"
    assert nyz["geometry.boards.p2.seat1.barn_rows"] == "a list of integers"
    assert nyz["geometry.boards.p2.seat1.start_animals"].startswith('a list, each one of "meerkat", ')
    katz = {knob.name: knob.allowed for knob in get_game("katz").knobs()}
    assert katz["keepers"] == "an integer from 1 to 4095, or null"
    assert katz["blocked_cell_rule"] == 'one of "line_completion", "dead_cell", "either", "off"'
    assert katz["allow_pass"] == "true or false"


# ---- interruptions outside the games: start-up, the report, the exit ----

@pytest.mark.parametrize("stop, status, word", [(KeyboardInterrupt, 130, "interrupted"), (Terminated, 143, "terminated")])
def test_an_interruption_while_the_report_is_written_keeps_the_games_and_says_how_to_write_it(
        tmp_path, monkeypatch, stop, status, word):
    import simulator.report.build as build

    experiment = tmp_path / "good.yaml"
    experiment.write_text(GOOD)
    out = tmp_path / "out"
    real_build_report = build.build_report

    def interrupted(*args, **kwargs):
        raise stop()

    monkeypatch.setattr(build, "build_report", interrupted)
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(out), "--jobs", "1", "--quiet"])
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.stderr and word in result.stderr
    assert f"zoosim report {out}" in result.stderr
    monkeypatch.setattr(build, "build_report", real_build_report)
    assert CliRunner().invoke(main, ["report", str(out)]).exit_code == 0


def test_sigterm_before_anything_is_played_is_one_line_with_status_143(tmp_path, monkeypatch):
    import simulator.config

    experiment = tmp_path / "good.yaml"
    experiment.write_text(GOOD)

    def terminated(*args, **kwargs):
        raise Terminated()

    monkeypatch.setattr(simulator.config, "load_experiment", terminated)
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(tmp_path / "out")])
    assert result.exit_code == 143
    assert result.stderr.strip() == "zoosim: terminated"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_process_ends_changes_neither_its_status_nor_its_output(how):
    """Ctrl-C or SIGTERM while the finished command stops its workers ended in a traceback."""
    script = ("import os, signal, sys, time\nimport simulator.cli as cli, simulator.processes as processes\n"
              f"processes.stop_idle_workers = lambda: (os.kill(os.getpid(), {int(how)}), time.sleep(0.2))\n"
              "sys.argv = ['zoosim', 'rules']\ncli.console()\n")
    ended = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ended.returncode == 0 and ended.stderr == "", ended.stderr
    assert ended.stdout.startswith("games")


def test_sigterm_ends_any_command_like_ctrl_c_with_status_143():
    script = ("import os, signal, sys\nimport simulator.cli as cli\nimport simulator.games\n"
              "simulator.games.game_names = lambda: os.kill(os.getpid(), signal.SIGTERM)\n"
              "sys.argv = ['zoosim', 'rules', 'katz']\ncli.console()\n")
    ended = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert ended.returncode == 143 and ended.stderr.strip() == "zoosim: terminated", ended.stderr


@pytest.mark.parametrize("closed", ["1", "2"])
def test_a_command_with_a_closed_output_stream_ends_quietly_with_its_status(closed):
    """`zoosim rules >&-` (stdout closed, as under some schedulers) ended in an exit handler's
    traceback: Python has no sys.stdout then."""
    ended = subprocess.run(f"{sys.executable} -m simulator.cli rules {closed}>&-", shell=True, capture_output=False,
                           stdout=subprocess.PIPE if closed == "2" else None,
                           stderr=subprocess.PIPE if closed == "1" else None, text=True, timeout=60)
    assert ended.returncode == 0
    assert "Traceback" not in (ended.stderr or "") and "Exception ignored" not in (ended.stderr or "")


def test_ctrl_c_before_a_command_handles_it_ends_with_status_130_and_one_line(write_experiment, monkeypatch):
    """Ctrl-C while `zoosim run` still reads the file and builds the plan (its first fraction of
    a second, before the run can keep anything) says "interrupted" with the usual status 130,
    as Ctrl-C later in the run does, not click's "aborted" with status 1."""
    import simulator.plan

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(simulator.plan, "build_plan", interrupted)
    path = write_experiment("games: 10\nstudies: [{game: coin}]\n")
    result = CliRunner().invoke(main, ["run", str(path), "--quiet"])
    assert result.exit_code == 130
    assert result.output.strip() == "zoosim: interrupted"


def test_ctrl_c_while_the_console_script_imports_the_cli_ends_with_status_130_and_one_line(monkeypatch, capsys):
    """The console script's first tenth of a second is spent importing the command line's
    libraries; a Ctrl-C there ends as one later does, not with a traceback of the import."""
    import builtins

    import simulator

    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "simulator.cli":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    with pytest.raises(SystemExit) as stop:
        simulator.console()
    assert stop.value.code == 130
    assert capsys.readouterr().err.strip() == "zoosim: interrupted"


def test_the_run_line_gives_the_playing_speed_without_the_engines_compile_time(write_experiment, monkeypatch):
    """A first run compiles the engines (minutes); its games-per-second figure is the playing
    speed, and the compile time is said apart."""
    import simulator.runner
    from simulator.runner import RunSummary

    def compiled_then_played(plan, run_dir, text, **options):
        return RunSummary(Path(run_dir), 400_000, 400_000, 110.0, 0, compile_seconds=100.0)

    monkeypatch.setattr(simulator.runner, "run_experiment", compiled_then_played)
    path = write_experiment("games: 10\nstudies: [{game: coin}]\n")
    result = CliRunner().invoke(main, ["run", str(path), "--jobs", "2", "--quiet", "--no-report"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == ("played 400,000 games in 110.0 s, 100.0 s of it compiling the engines "
                                     "(20,000 games/s per core while playing, 2 jobs)")
    one = CliRunner().invoke(main, ["run", str(path), "--jobs", "1", "--quiet", "--no-report"])
    assert one.stderr.strip().endswith("(40,000 games/s per core while playing, 1 job)")  # not "1 jobs"
