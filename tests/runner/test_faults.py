"""Fault injection with real processes (issue #11): kills at random moments then resume, two
runs of one folder at once, a full disk (a small tmpfs), and no orphan workers after the parent
dies. Every case ends with logs and report numbers identical to an undisturbed run."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
import yaml

from simulator.analysis.tables import analyze_run
from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.rundir import read_manifest, sidecar_path
from simulator.runner import run_plan
from tests_support import lock_holder, log_digests

pytestmark = pytest.mark.slow

DOCUMENT = {
    "name": "faults",
    "seed": 31,
    "games": 6000,
    "chunk_games": 1000,
    "studies": [{"game": "katz", "seats": ["greedy", "random"], "rules": {"players": 2}},
                {"game": "katz", "rules": {"players": 4}, "seats": ["random"]}],
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    run_plan(build_plan(parse_experiment(DOCUMENT)), out, "", jobs=1, progress=False)
    return log_digests(out), seat_numbers(out)


def seat_numbers(out):
    return analyze_run(out, read_manifest(out)).seats.to_dict("list")


@pytest.fixture
def command(tmp_path):
    experiment = tmp_path / "faults.yaml"
    experiment.write_text(yaml.safe_dump(DOCUMENT))
    return [sys.executable, "-m", "simulator.cli", "run", str(experiment), "--out", str(tmp_path / "run"),
            "--jobs", "2", "--quiet", "--no-report", "--backend", "loky"]  # worker processes: the harder case


def start(command):
    return subprocess.Popen(command, start_new_session=True, stderr=subprocess.PIPE, text=True)


def wait_for(condition, process=None, seconds=120):
    deadline = time.monotonic() + seconds
    while not condition():
        assert process is None or process.poll() is None, "the run ended too early"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def chunks(out):
    return len(list(out.glob("logs/*/_chunk-*.json")))


def descendants(pid):
    """Pids of every live (non-zombie) process below `pid`."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents.setdefault(int(fields[1]), []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        children = parents.get(stack.pop(), [])
        found += children
        stack += children
    return found


def alive(pids):
    living = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] != "Z":
                    living.append(pid)
        except OSError:
            pass
    return living


def resume_and_compare(command, out, reference):
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert (log_digests(out), seat_numbers(out)) == reference
    assert not [p for p in out.rglob("*") if p.name.endswith((".tmp", ".progress"))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_killed_at_a_random_moment_then_resumed_gives_identical_logs_and_report(tmp_path, command, reference, seed):
    moment = random.Random(seed)
    out = tmp_path / "run"
    for round_ in range(2):
        process = start(command + (["--resume"] if round_ else []))
        wait_for(lambda: lock_holder(out) == process.pid, process)  # the run has begun (Python has started)
        time.sleep(moment.uniform(0.0, 2.5))
        if process.poll() is None:
            os.killpg(process.pid, moment.choice([signal.SIGKILL, signal.SIGINT]))
        _, stderr = process.communicate(timeout=60)
        assert "Traceback" not in stderr, stderr
    resume_and_compare(command, out, reference)


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_threaded_run_interrupted_resumes_to_identical_logs(tmp_path, command, reference, how):
    """The default backend plays in threads of the main process: Ctrl-C and SIGTERM end it as
    they end a run of worker processes."""
    threaded = command[:-1] + ["threading"]
    process = start(threaded)
    wait_for(lambda: chunks(tmp_path / "run") >= 1, process)
    os.killpg(process.pid, how)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == (130 if how == signal.SIGINT else 143), stderr
    assert "--resume" in stderr and "Traceback" not in stderr
    resume_and_compare(threaded, tmp_path / "run", reference)


def test_ctrl_c_ends_a_threaded_run_at_once(tmp_path):
    """Ctrl-C ends a threaded run at once (its chunks here are 100,000 greedy games each),
    leaving neither a half-played chunk nor its notes (test_runner.py checks that the threads
    themselves stop before the run lets go of the folder)."""
    experiment = tmp_path / "long.yaml"
    experiment.write_text(yaml.safe_dump({"name": "long", "seed": 5, "games": 200000, "chunk_games": 100000,
                                          "studies": [{"game": "katz", "rules": {"players": 2}, "seats": ["greedy"]}]}))
    out = tmp_path / "run"
    process = start([sys.executable, "-m", "simulator.cli", "run", str(experiment), "--out", str(out), "--jobs", "2",
                     "--quiet", "--no-report", "--backend", "threading"])
    wait_for(lambda: len(list(out.glob("logs/*/.*.progress"))) == 2, process)  # both chunks in play
    os.killpg(process.pid, signal.SIGINT)
    interrupted = time.monotonic()
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert time.monotonic() - interrupted < 4, "the threads played their chunks to the end"
    assert not list(out.glob("logs/*/*chunk-*")) and not list(out.glob("logs/*/.*"))


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_workers_end_when_the_main_process_is_killed(tmp_path, command, reference, how):
    out = tmp_path / "run"
    process = start(command)
    wait_for(lambda: chunks(out) >= 1 and len(descendants(process.pid)) >= 2, process)
    workers = descendants(process.pid)
    os.kill(process.pid, how)  # the main process only, as `kill PID` or the OOM killer would
    _, stderr = process.communicate(timeout=60)
    wait_for(lambda: not alive(workers), seconds=10)
    settled = log_digests(out)
    time.sleep(1.5)
    assert log_digests(out) == settled  # nobody writes chunks any more
    if how == signal.SIGTERM:
        assert process.returncode == 143 and "terminated; finished chunks are kept" in stderr
        assert "--resume" in stderr and "Traceback" not in stderr
    resume_and_compare(command, out, reference)


def test_a_second_run_of_the_same_folder_is_refused_and_the_first_is_unharmed(tmp_path, command, reference):
    out = tmp_path / "run"
    first = start(command)
    wait_for(lambda: lock_holder(out) == first.pid, first)
    second = subprocess.run(command + ["--resume"], capture_output=True, text=True, timeout=120)
    assert second.returncode == 2
    line = second.stderr.strip()
    assert "\n" not in line and f"{out}: is in use by another zoosim run (pid {first.pid} on " in line
    _, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert (log_digests(out), seat_numbers(out)) == reference
    sessions = json.loads((out / "run.json").read_text())["sessions"]
    assert [s["games_played"] for s in sessions] == [12000]


def mounted_tmpfs(tmp_path, size):
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (the patched-write test in test_run_folder.py covers a full disk)")
    return mount


@pytest.fixture
def small_disk(tmp_path):
    mount = mounted_tmpfs(tmp_path, "160k")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_every_command_on_a_read_only_folder_ends_in_one_line_and_changes_nothing(tmp_path, command):
    """Reports, comparisons, tunes and runs whose folder the system refuses to write: one line
    naming the file, exit 2, no traceback, nothing changed."""
    disk = mounted_tmpfs(tmp_path, "20m")
    try:
        out = disk / "run"
        ran = subprocess.run([part if not part.endswith("/run") else str(out) for part in command] + ["--games", "1000"],
                             capture_output=True, text=True, timeout=300)
        assert ran.returncode == 0, ran.stderr
        tune = tmp_path / "tune.yaml"
        tune.write_text("tune: {game: katz, players: [2], search: {hand_size: [6, 7]}, budget: {trials: 2, games: {start: 100, max: 100}}, confirm: {games: 100}}\n")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        before = sorted((str(p), p.stat().st_size) for p in disk.rglob("*"))
        cli = [sys.executable, "-m", "simulator.cli"]
        for argv, named in [
            (["report", str(out)], out / "report.html"),
            (["compare", str(out), str(out)], out / "compare.html"),
            (["tune", str(tune), "--out", str(disk / "tune")], disk / "tune"),
            (["run", command[4], "--out", str(disk / "other"), "--quiet"], disk / "other"),
        ]:
            result = subprocess.run(cli + argv, capture_output=True, text=True, timeout=300)
            assert result.returncode == 2, (argv, result.stderr)
            assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
            assert result.stderr.startswith(f"zoosim: error: {named}"), result.stderr
        assert sorted((str(p), p.stat().st_size) for p in disk.rglob("*")) == before
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_ends_in_one_line_keeps_finished_chunks_and_resumes(small_disk, command, reference):
    out = small_disk / "run"
    command = [part if not part.endswith("/run") else str(out) for part in command]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith(f"zoosim: error: {out}: No space left on device")
    assert f"--out {out} --resume" in line
    assert 0 < chunks(out) < 12
    assert not [p for p in out.rglob("*") if p.name.endswith((".tmp", ".progress"))]
    assert all(sidecar_path(p).exists() for p in out.glob("logs/*/chunk-*.parquet"))
    subprocess.run(["mount", "-o", "remount,size=20m", str(small_disk)], check=True)
    resume_and_compare(command, out, reference)
