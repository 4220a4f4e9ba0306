"""Bad input found by trying zoosim as a user would (issue 11, items 3 and 8): every case gives one
line on stderr naming the file, the key and what is allowed, exit status 2, and writes nothing.

Each command runs in a fresh working folder, so "nothing written" covers the default `reports/`
folder and any path a hostile experiment name could reach.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pydantic
import pytest
from click.testing import CliRunner

from simulator.cli import main
from simulator.config import MAX_CELLS, MAX_CHUNKS, load_experiment
from simulator.errors import ZoosimError
from simulator.games import get_game
from simulator.schema import StrictModel
from simulator.safe_yaml import MAX_ALIAS_VALUES, MAX_DEPTH, MAX_FILE_BYTES, load_yaml


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def refused(tmp_path: Path, monkeypatch, argv: list[str], *words: str) -> str:
    """Run argv in tmp_path/work; assert exit 2, one stderr line containing words, nothing written."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    monkeypatch.chdir(work)
    before, outside = listing(work), listing(tmp_path)
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 2, (result.output, result.stderr, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("zoosim: error: "), lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    assert listing(work) == before and listing(tmp_path) == outside  # nothing written anywhere
    return lines[0]


def experiment_file(tmp_path: Path, text: str, name: str = "bad.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


STUDY = "studies: [{game: coin, rules: {players: 2}}]\n"

# --- Item 3: the experiment name becomes the run folder's name --------------------------------

BAD_NAMES = ["../../x", "/tmp/zoosim-absolute", "nested/folders", "x" * 300, "a\0b", ".hidden", "", "-rf"]


@pytest.mark.parametrize("name", BAD_NAMES, ids=["dots", "absolute", "slash", "long", "nul", "dot", "empty", "dash"])
def test_an_unsafe_experiment_name_is_refused_before_anything_is_written(tmp_path, monkeypatch, name):
    quoted = '"' + name.replace("\0", "\\0") + '"'
    path = experiment_file(tmp_path, f"name: {quoted}\ngames: 10\n{STUDY}")
    line = refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, "name", "letters", "64")
    assert not Path("/tmp/zoosim-absolute").exists(), line


def test_a_safe_name_is_kept_and_a_file_name_becomes_a_safe_folder_name(tmp_path):
    named, _ = load_experiment(experiment_file(tmp_path, f"name: katz_v2.1-b\n{STUDY}"))
    assert named.name == "katz_v2.1-b"
    unnamed, _ = load_experiment(experiment_file(tmp_path, STUDY, name="my study (v2).yaml"))
    assert unnamed.name == "my_study_v2"
    odd, _ = load_experiment(experiment_file(tmp_path, STUDY, name="...yaml"))
    assert odd.name == "experiment"


# --- Item 8: tracebacks from `--set` and deep files -------------------------------------------


@pytest.mark.parametrize(
    "setting, words",
    [
        ("players=[", ["--set players", "invalid YAML"]),
        ("players=!!python/object:os.system x", ["--set players", "tags"]),
        ("players=!!binary aGVsbG8=", ["--set players", "tags"]),
        ("players=true", ["players", "integer"]),
        ("players=4.0", ["players", "integer"]),
        ("players={a: 1, a: 2}", ["--set players", "duplicate key 'a'"]),
        (" =3", ["--set takes knob=value"]),
        ("preset={a: 1}", ["preset", "unknown preset", "seed_summary"]),
    ],
)
def test_bad_set_values_give_one_line(tmp_path, monkeypatch, setting, words):
    refused(tmp_path, monkeypatch, ["play", "katz", "--set", setting], *words)


def test_a_file_nested_a_thousand_levels_deep_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "studies: " + "[" * 1000 + "]" * 1000 + "\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, "nested deeper than", str(MAX_DEPTH))


def test_nesting_through_aliases_is_bounded_too(tmp_path, monkeypatch):
    levels = ["a0: &a0 [1]"] + [f"a{i}: &a{i} " + "[" * 30 + f"*a{i - 1}" + "]" * 30 for i in range(1, 6)]
    path = experiment_file(tmp_path, "\n".join(levels) + "\n" + STUDY)
    refused(tmp_path, monkeypatch, ["validate", path], path, "nested deeper than")


# --- Item 8: silently accepted input ----------------------------------------------------------


def test_a_duplicate_key_is_refused_naming_the_key_and_line(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "games: 10\nstudies: [{game: coin}]\nstudies: [{game: katz}]\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, "studies", "duplicate key", "line 3", "line 2")


def test_a_nested_duplicate_key_is_named_with_its_path(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "studies:\n  - game: coin\n    rules: {players: 2, players: 3}\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, "studies[0].rules", "duplicate key 'players'", "line 3")


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "1.0e999"])
def test_non_finite_policy_parameters_are_refused(tmp_path, monkeypatch, value):
    path = experiment_file(
        tmp_path, f"studies: [{{game: coin, seats: [{{policy: lucky, params: {{luck: {value}}}}}]}}]\n"
    )
    refused(tmp_path, monkeypatch, ["validate", path], path, "luck", "finite")


def test_a_choice_parameter_takes_one_of_its_names_and_refuses_others(tmp_path, monkeypatch):
    """ismcts's rollout is documented as `random` or `greedy`: YAML must accept those names."""
    def seat(value: str) -> str:
        return experiment_file(tmp_path, f"studies: [{{game: katz, seats: [{{policy: ismcts, params: {{rollout: {value}}}}}]}}]\n")

    result = CliRunner().invoke(main, ["validate", seat("random")])
    assert result.exit_code == 0 and "rollout=random" in result.output, result.stderr
    refused(tmp_path, monkeypatch, ["validate", seat("psychic")], "rollout", "one of random, greedy", "psychic")
    refused(tmp_path, monkeypatch, ["validate", seat("[greedy]")], "rollout", "one of random, greedy")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e9"])
def test_bench_refuses_a_measuring_time_that_is_not_a_sensible_number(tmp_path, monkeypatch, value):
    refused(tmp_path, monkeypatch, ["bench", "katz", "--seconds", value], "--seconds")


@pytest.mark.parametrize("value", [".nan", ".inf"])
def test_non_finite_experiment_numbers_are_refused(tmp_path, monkeypatch, value):
    path = experiment_file(tmp_path, f"margin_points: {value}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "margin_points")
    path = experiment_file(tmp_path, f"games: {{until: {{halfwidth: {value}}}, max: 1000}}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "games.until.halfwidth")


@pytest.mark.parametrize("value", ["-1", "some", "1.5", "1000000"])
def test_a_trajectory_sample_is_a_number_of_deals_or_auto(tmp_path, monkeypatch, value):
    path = experiment_file(tmp_path, f"trajectory_deals: {value}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "trajectory_deals")


def test_every_float_of_every_model_must_be_finite_and_no_bool_passes_as_a_number():
    class Knobs(StrictModel):
        weight: float = 1.0
        count: int = 1
        values: list[int] = []

    for bad in ({"weight": math.nan}, {"weight": math.inf}, {"weight": True}, {"count": True},
                {"count": 2.0}, {"count": "2"}, {"values": [1, False]}):
        with pytest.raises(pydantic.ValidationError):
            Knobs.model_validate(bad)
    assert Knobs.model_validate({"weight": 2, "count": 3}).weight == 2.0  # an int is a fine float


@pytest.mark.parametrize(
    "text, key",
    [
        ("studies: [{game: coin, rules: {players: true}}]\n", "studies[0].rules.players"),
        ("studies: [{game: coin, sweep: {players: [2, true]}}]\n", "studies[0].sweep.players"),
        ("games: true\n" + STUDY, "games"),
        ("seed: false\n" + STUDY, "seed"),
        ("chunk_games: true\n" + STUDY, "chunk_games"),
        ("rotate_seats: 1\n" + STUDY, "rotate_seats"),
        ("trajectory_deals: true\n" + STUDY, "trajectory_deals"),
        ("studies: [{game: coin, games: true}]\n", "studies[0].games"),
        ("studies: [{game: coin, seats: [{policy: lucky, params: {luck: true}}]}]\n", "luck"),
        ("studies: [{game: katz, rules: {hand_size: true}}]\n", "studies[0].rules.hand_size"),
        ("studies: [{game: katz, rules: {deck: {values: [1, 2, true]}}}]\n", "studies[0].rules.deck.values"),
        ("studies: [{game: nyz, rules: {solo_laps: true}}]\n", "studies[0].rules.solo_laps"),
    ],
)
def test_a_bool_never_passes_as_a_number(tmp_path, monkeypatch, text, key):
    path = experiment_file(tmp_path, text)
    refused(tmp_path, monkeypatch, ["validate", path], path, key)


def test_play_refuses_a_bool_player_count(tmp_path, monkeypatch):
    refused(tmp_path, monkeypatch, ["play", "nyz", "--set", "players=yes"], "players", "integer")


@pytest.mark.parametrize(
    "study, words",
    [
        ("{game: coin, sweep: {players: [2, 3, 2]}}", ["studies[0].sweep.players", "2", "twice"]),
        ("{game: coin, sweep: {first_seat_bonus: [0, 0.0]}}", ["studies[0]", "the same games"]),
        ("{game: coin, cases: [{players: 2}, {players: 3}, {players: 2}]}", ["studies[0].cases[2]", "cases[0]"]),
        ("{game: coin, cases: [{players: 3}, {preset: standard}]}", ["studies[0]", "the same games"]),
        ("{game: coin, rules: {players: 2}, pool: [fair, lucky, fair]}", ["studies[0].pool", "fair", "twice"]),
        # issue #22, finding 7: the same player once its parameters' defaults are filled in
        ("{game: coin, rules: {players: 2}, pool: [fair, lucky, {policy: lucky, params: {luck: 1.0}}]}",
         ["studies[0].pool", "is the same player as lucky"]),
        ("{game: katz, rules: {players: 2}, ladder: [{policy: greedy, params: {skip_cost: 3}}, greedy]}",
         ["studies[0].ladder", "the policy greedy is the same player as", "skip_cost"]),
    ],
)
def test_repeated_cells_are_refused_naming_the_key_and_value(tmp_path, monkeypatch, study, words):
    path = experiment_file(tmp_path, f"studies: [{study}]\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, *words)


@pytest.mark.parametrize("study", ["{game: coin, cases: []}", "{game: coin, seats: []}"])
def test_an_empty_seats_or_cases_list_is_refused(tmp_path, monkeypatch, study):
    """`cases: []` would play no cell at all (and `run` wrote an empty report); `seats: []` is
    neither one policy per seat nor one for all."""
    path = experiment_file(tmp_path, f"studies: [{study}]\n")
    key = study.split(",")[1].split(":")[0].strip()
    refused(tmp_path, monkeypatch, ["run", path], path, f"studies[0].{key}", "at least 1")


def test_an_empty_seats_list_of_a_tune_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "tune: {game: coin, seats: [], players: [2], search: {first_seat_bonus: [0, 1]}, "
                                     "budget: {trials: 2, games: {start: 10, max: 10}}, confirm: {games: 10}}\n")
    refused(tmp_path, monkeypatch, ["tune", path], path, "tune.seats", "at least 1")


def test_an_empty_out_folder_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, f"games: 10\n{STUDY}")
    refused(tmp_path, monkeypatch, ["run", path, "--out", "", "-q", "--jobs", "1"], "--out", "current folder")
    # every command that writes a folder refuses it the same way (tune checks --out first)
    refused(tmp_path, monkeypatch, ["tune", path, "--out", "", "-q", "--jobs", "1"], "--out", "current folder")


# --- Item 8: resource blow-ups ----------------------------------------------------------------


def test_the_chunk_count_is_checked_arithmetically(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, f"games: 10000000000\nchunk_games: 1\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "chunk_games", f"{MAX_CHUNKS:,}", "5,000,000,000 chunk files")


def test_a_precision_cap_counts_its_chunks_too(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, f"games: {{until: {{halfwidth: 0.01}}, max: 10000000000}}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "chunk_games", f"{MAX_CHUNKS:,}")


def test_validate_reports_a_large_but_allowed_plan_without_listing_chunks(tmp_path):
    path = experiment_file(tmp_path, f"games: 10000000000\nchunk_games: 10000000\n{STUDY}")
    result = CliRunner().invoke(main, ["validate", path])
    assert result.exit_code == 0, result.stderr
    assert "1,000 chunks" in result.output


def big_sweep(extra: str = "") -> str:
    """About ten million cells: 4,000 player counts times 2,500 bonuses."""
    players = ", ".join(str(n) for n in range(2, 4002))
    bonuses = ", ".join(str(i / 2500) for i in range(2500))
    return f"studies: [{{game: coin, sweep: {{players: [{players}], first_seat_bonus: [{bonuses}]{extra}}}}}]\n"


def test_a_ten_million_cell_sweep_is_refused_before_it_is_expanded(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, big_sweep())
    refused(tmp_path, monkeypatch, ["validate", path], path, "studies[0].sweep", "10,000,000 cells", f"{MAX_CELLS:,}")


def test_a_typo_in_a_huge_sweep_is_reported_before_its_size(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, big_sweep(", playrs: [1]"))
    refused(tmp_path, monkeypatch, ["validate", path], path, "studies[0].sweep.playrs", "did you mean 'players'")


def test_a_pool_tournament_counts_its_seatings_before_listing_them(tmp_path, monkeypatch):
    pool = ", ".join(f"{{policy: lucky, params: {{luck: {i}}}}}" for i in range(60))
    path = experiment_file(tmp_path, f"studies: [{{game: coin, rules: {{players: 5}}, pool: [{pool}], pool_format: permutations}}]\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, "studies[0].pool", f"{MAX_CELLS:,}")


BILLION_LAUGHS = "a0: &a0 [lol]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)
)


def test_an_alias_bomb_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, BILLION_LAUGHS + STUDY)
    refused(tmp_path, monkeypatch, ["validate", path], path, "aliases", f"{MAX_ALIAS_VALUES:,}")


def test_a_recursive_alias_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "loop: &loop [1, *loop]\n" + STUDY)
    refused(tmp_path, monkeypatch, ["validate", path], path, "contains itself")


def test_modest_anchors_and_aliases_still_work(tmp_path):
    path = experiment_file(tmp_path, "studies:\n  - {game: coin, rules: &r {players: 2}}\n  - {game: coin, rules: *r, seats: [lucky]}\n")
    experiment, _ = load_experiment(path)
    assert experiment.studies[1].rules == {"players": 2}


def test_an_oversized_file_is_refused(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, STUDY + "#" * MAX_FILE_BYTES + "\n")
    refused(tmp_path, monkeypatch, ["validate", path], path, "larger than", "KiB")


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null"])
def test_a_device_is_not_an_experiment_file(tmp_path, monkeypatch, special):
    if not os.path.exists(special):
        pytest.skip(f"{special} does not exist on this system")
    refused(tmp_path, monkeypatch, ["validate", special], special, "not a regular file")


def test_a_named_pipe_is_refused_without_blocking(tmp_path, monkeypatch):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    refused(tmp_path, monkeypatch, ["validate", str(pipe)], str(pipe), "not a regular file")


def test_text_that_is_not_utf8_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: gr\xf6\xdfe\n".encode("latin-1") + STUDY.encode())
    refused(tmp_path, monkeypatch, ["validate", str(path)], str(path), "UTF-8")


# --- The safe loader itself -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("a: !!set {x}", ["tags"]),
        ("a: !custom 1", ["tags"]),
        ("1: one", ["key '1'", "text"]),
        ("on: 1", ["key 'on'", "quote it"]),
        ("? [a, b]\n: 1", ["text"]),
        ("a: 1\nb:\n  c: 1\n  c: 2\n", ["b", "duplicate key 'c'", "line 4", "line 3"]),
        ("a: [1, 2", ["invalid YAML", "line"]),
        ("a: \x07", ["invalid YAML"]),
    ],
)
def test_the_safe_loader_refuses_with_a_project_error(text, words):
    with pytest.raises(ZoosimError) as caught:
        load_yaml(text, source="t.yaml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("t.yaml")
    for word in words:
        assert word in message, message


def test_the_safe_loader_reads_dates_as_text_and_merges_keys():
    assert load_yaml("name: 2024-01-01\n", source="t") == {"name": "2024-01-01"}
    assert load_yaml("base: &b {x: 1, y: 2}\nthis: {<<: *b, y: 3}\n", source="t")["this"] == {"x": 1, "y": 3}


def test_an_error_message_is_one_line_whatever_the_input():
    error = ZoosimError("unknown policy 'a\nb'", file="x\ny.yaml", key="k\r")
    assert "\n" not in str(error) and "\r" not in str(error) and "a\\nb" in str(error)


# --- Every game's knobs -----------------------------------------------------------------------


def int_knobs(game_name: str) -> list[str]:
    return [knob.name for knob in get_game(game_name).knobs()
            if re.search(r"\binteger\b", knob.allowed) and "list" not in knob.allowed]


@pytest.mark.parametrize("game_name", ["katz", "nyz"])
def test_every_int_knob_refuses_bools_and_values_beyond_the_kernels_int32_arrays(game_name):
    game = get_game(game_name)
    knobs = int_knobs(game_name)
    assert "players" in knobs and len(knobs) >= 5
    for name in knobs:
        for value in (True, 2**31, -(2**31), 2.5):
            with pytest.raises(ZoosimError):
                game.make_params({name: value})


@pytest.mark.parametrize("command", [["report"], ["compare", "RUN", "RUN"]])
def test_a_broken_manifest_is_named_without_suggesting_a_flag_the_command_lacks(tmp_path, monkeypatch, command):
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text("{", encoding="utf-8")
    argv = [str(run) if part == "RUN" else part for part in command] + ([str(run)] if command == ["report"] else [])
    line = refused(tmp_path, monkeypatch, argv, "manifest.json", "unreadable manifest", "new folder")
    assert "--force" not in line


# --- Issue #45: every entry point, every backend ----------------------------------------------


def test_a_precision_target_too_narrow_to_play_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """`halfwidth: 1.0e-300` overflowed the projection after the pilot had written 11 files."""
    from simulator.config import MIN_HALFWIDTH

    path = experiment_file(tmp_path, f"games: {{until: {{halfwidth: 1.0e-300}}, max: 1000, start: 100}}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["run", path, "-q", "--jobs", "1"], path, "games.until.halfwidth", str(MIN_HALFWIDTH))


@pytest.mark.parametrize("value", ["1.0e-300", "0.001"])
def test_the_equivalence_margin_has_a_floor(tmp_path, monkeypatch, value):
    path = experiment_file(tmp_path, f"margin_points: {value}\n{STUDY}")
    refused(tmp_path, monkeypatch, ["validate", path], path, "margin_points", "0.01")


def test_run_of_a_tune_file_names_zoosim_tune(tmp_path, monkeypatch):
    path = experiment_file(tmp_path, "tune: {game: coin, players: [2], search: {first_seat_bonus: [0, 1]}, "
                                     "budget: {trials: 2, games: {start: 10, max: 10}}, confirm: {games: 10}}\n")
    refused(tmp_path, monkeypatch, ["run", path, "-q"], path, "is a tune file", f"zoosim tune {path}")


@pytest.mark.parametrize("jobs", ["0", "1025", "-3"])
def test_jobs_out_of_range_are_refused_by_every_command_that_plays(tmp_path, monkeypatch, jobs):
    path = experiment_file(tmp_path, f"games: 10\n{STUDY}")
    for command in (["run", path], ["tune", path], ["train", "katz"]):
        refused(tmp_path, monkeypatch, [*command, "--jobs", jobs, "-q"], "--jobs", "1 to 1,024", jobs)


class Listener:
    """A TCP listener on localhost that accepts and then either says nothing, or sends `reply`
    at once (an HTTP server's error page: what a dashboard port says to dask's handshake)."""

    def __init__(self, reply: bytes | None = None):
        import socket
        import threading

        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.server.getsockname()[1]}"
        self.reply, self.connections = reply, []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.connections.append(connection)
            if self.reply is not None:
                connection.sendall(self.reply)

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.server.close()


DASK_COMMANDS = {
    "run": lambda path: ["run", path, "-q", "--jobs", "1"],
    "tune": lambda path: ["tune", path, "-q", "--jobs", "1"],
    "train": lambda path: ["train", "katz", "--rounds", "0", "--strength-games", "0", "-q", "--jobs", "1"],
}
TUNE_FILE = ("tune: {game: coin, players: [2], search: {first_seat_bonus: [0, 1]}, "
             "budget: {trials: 2, games: {start: 10, max: 10}}, confirm: {games: 10}}\n")


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"],
                         ids=["silent", "dashboard"])
@pytest.mark.parametrize("command", list(DASK_COMMANDS))
def test_a_dask_scheduler_that_does_not_answer_is_refused_in_bounded_time_writing_nothing(
        tmp_path, monkeypatch, reply, command):
    """A listener that never answers made zoosim wait without a word; a dashboard port's HTTP
    reply, read as dask's frame lengths, asked for 3 EiB; tune and train wrote 4 and 14 files
    before the refusal."""
    pytest.importorskip("distributed")
    import time

    from simulator import runner

    monkeypatch.setattr(runner, "SCHEDULER_WAIT_SECONDS", 2)
    listener = Listener(reply)
    path = experiment_file(tmp_path, TUNE_FILE if command == "tune" else f"games: 10\n{STUDY}")
    started = time.monotonic()
    try:
        argv = [*DASK_COMMANDS[command](path), "--backend", "dask", "--scheduler", listener.address,
                "--out", "out"]
        line = refused(tmp_path, monkeypatch, argv, "--scheduler", listener.address)
    finally:
        listener.close()
    assert time.monotonic() - started < 20
    assert ("did not answer within 2 s" in line) if reply is None else ("not as a dask scheduler" in line
                                                                         or "did not answer" in line), line


def test_a_damaged_training_file_is_named_in_one_line(tmp_path, monkeypatch):
    """`train --resume` of a folder whose train.json is not JSON: a 38-line traceback."""
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    (out / "train.json").write_text("{'settings': 1}", encoding="utf-8")
    refused(tmp_path, monkeypatch, ["train", "katz", "--out", "out", "--resume", "-q"], "train.json", "damaged")


@pytest.mark.parametrize("source", ["--set", "--rules"])
def test_a_training_rule_problem_names_where_the_rules_came_from(tmp_path, monkeypatch, source):
    """"deck of 56 cards cannot deal 2 hands of 99 ..." named neither --set nor the rules file."""
    rules = experiment_file(tmp_path, "hand_size: 99\n", name="rules.yaml")
    argv = ["--set", "hand_size=99"] if source == "--set" else ["--rules", rules]
    refused(tmp_path, monkeypatch, ["train", "katz", *argv, "-q"], rules if source == "--rules" else "--set",
            "deck of", "2 players")
