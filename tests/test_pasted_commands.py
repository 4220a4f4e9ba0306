"""Every command zoosim prints for the user to paste is shell-quoted (issue #22, finding 4): the
resume commands of run and tune, the report command, the `zoosim play` replay command and the
compare suggestion. Each is pasted into `bash -n` (it must parse) and split as a shell would (it
must give back exactly the paths it was made from), for paths with spaces, parentheses, quotes
and $."""

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.report.build import previous_run
from simulator.rundir import MANIFEST, read_manifest, report_command, resume_command
from simulator.runner import run_plan
from simulator.tune.command import resume_tune_command

AWKWARD = [
    "my runs/seat bias (v2).yaml",
    "it's \"quoted\".yaml",
    "$HOME and `ls` & more; |x|.yaml",
    "-leading-dash.yaml",
]


def assert_pastes(command: str, *expected_words: str) -> None:
    if shutil.which("bash"):
        checked = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
        assert checked.returncode == 0, (command, checked.stderr)
    words = shlex.split(command)
    for word in expected_words:
        assert word in words, (command, word)


@pytest.mark.parametrize("name", AWKWARD)
def test_run_resume_and_report_commands_paste_whole(tmp_path, name):
    out = tmp_path / name.replace(".yaml", " out")
    assert_pastes(resume_command(name, out), "zoosim", "run", name, str(out), "--resume")
    assert_pastes(report_command(out), "zoosim", "report", str(out))


@pytest.mark.parametrize("name", AWKWARD)
def test_tune_resume_command_pastes_whole(tmp_path, name):
    out = tmp_path / name.replace(".yaml", " tune")
    assert_pastes(resume_tune_command(Path(name), out), "tune", name, str(out), "--resume")


def test_replay_command_pastes_whole_with_json_settings():
    plan = build_plan(parse_experiment({
        "name": "replay", "seed": 1, "games": 10,
        "studies": [{"name": "s", "game": "katz", "rules": {"players": 3, "blocked_cell_rule": "dead_cell"}}],
    }))
    command = plan.cells[0].replay_command(12345, 1)
    assert_pastes(command, "play", "katz", "12345", "blocked_cell_rule=\"dead_cell\"")
    value = next(w for w in shlex.split(command) if w.startswith("blocked_cell_rule="))
    assert json.loads(value.partition("=")[2]) == "dead_cell"


@pytest.mark.parametrize("name", ["before (v1) $x", "it's one"])
def test_compare_suggestion_pastes_whole(tmp_path, name):
    parent = tmp_path / "runs with space"
    earlier, later = parent / name, parent / f"{name} later"
    for folder, first_seat_bonus, stamp in ((earlier, 0.1, 1_000_000), (later, 0.2, 2_000_000)):
        experiment = {"name": "same", "seed": 1, "games": 10,
                      "studies": [{"name": "s", "game": "coin", "rules": {"players": 2, "first_seat_bonus": first_seat_bonus}}]}
        run_plan(build_plan(parse_experiment(experiment)), folder, "name: same\n", progress=False, jobs=1)
        os.utime(folder / MANIFEST, (stamp, stamp))
    found = previous_run(later, read_manifest(later))
    assert found is not None, "the earlier run is found (the test's folders are wrong otherwise)"
    assert_pastes(found["command"], "compare", str(earlier), str(later))
