"""The test command's terminal (tests/run-all.sh, issue #41 item 4): it names each phase on
stderr, prints a heartbeat naming what it still waits for (the warm-up chains' step or kernel,
from their logs) at least every HEARTBEAT_SECONDS, never glues lines together (the warm-ups'
own progress, rewritten in place with carriage returns, stays in their logs), and shows a failed
warm-up's log. The script runs for real, in a folder whose .venv holds stand-ins for python and
zoosim that answer at once or after a pause."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/usr/bin/env bash
case "$1 $2" in
  "-m pip") echo "pip: installed $*" >&2; sleep 0.3 ;;
  "-m pytest") echo "pytest ran: ${*:3}" ;;
  -c*) case "$2" in *sysconfig*) echo "$(dirname "$0")/../site" ;; *) echo "pytest" ;; esac ;;
esac
"""

# A warm-up that compiles for a while, rewriting its status line in place as zoosim does on a
# terminal (no newline until it is done); FAIL_GAME names a game whose warm-up fails.
FAKE_ZOOSIM = """#!/usr/bin/env bash
game="$2"; case "$2" in tests/warm_nyz*) game=nyz ;; tests/warm_katz*) game=katz ;; esac
if [ "$game" = "${FAIL_GAME:-}" ]; then echo "zoosim: error: the $game engine broke" >&2; exit 3; fi
for k in 1 2 3; do printf '\\r\\033[Kcompiling %s: kernel %d of 3, about 1 s left: rules.apply' "$game" "$k" >&2; sleep "${PAUSE:-0.7}"; done
printf '\\r\\033[K%s engine compiled in 2 s (3 kernels)\\n' "$game" >&2
echo "played 6 games in 2.0 s"
"""


def fake_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "run-all.sh").write_text((REPO / "tests" / "run-all.sh").read_text())
    (root / ".venv" / "bin").mkdir(parents=True)
    for name, text in (("python", FAKE_PYTHON), ("zoosim", FAKE_ZOOSIM)):
        path = root / ".venv" / "bin" / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "bin").mkdir()
    chromium = tmp_path / "bin" / "chromium"  # the script installs chromium only when missing
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    return root


def run_all(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    root = fake_checkout(tmp_path)
    return subprocess.run(["bash", str(root / "tests" / "run-all.sh"), "-x"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
                                           "HEARTBEAT_SECONDS": "1", **env})


def test_every_phase_is_named_in_order_with_a_heartbeat_and_no_glued_lines(tmp_path):
    result = run_all(tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "pytest ran: -n auto --dist worksteal -m not slow -x\n"
    lines = result.stderr.splitlines()
    phases = [line for line in lines if line.startswith("run-all: ") and not line.startswith("run-all: still ")]
    assert [phase.split(" (")[0] for phase in phases] == [
        "run-all: installing zoosim into .venv",
        "run-all: compiling the game kernels in two chains, one per core",
        "run-all: installing the test extras and the example game plugins into .venv",
        "run-all: waiting for the kernel warm-ups",
        "run-all: running pytest on every core"]
    heartbeats = [line for line in lines if line.startswith("run-all: still ")]
    assert heartbeats, result.stderr
    # the heartbeat names the phase under way and the kernel each chain compiles, as its log says
    assert any("katz warm-ups: compiling katz: kernel" in line and " of 3" in line for line in heartbeats)
    assert any("nyz warm-ups: " in line for line in heartbeats)
    assert "\r" not in result.stderr and "\033" not in result.stderr  # nothing rewritten in place
    # every line is the script's own or pip's, whole: the warm-ups' output stays in their logs
    assert all(line.startswith(("run-all: ", "pip: installed")) for line in lines), result.stderr


def test_a_failed_warm_up_ends_the_script_with_its_log(tmp_path):
    result = run_all(tmp_path, FAIL_GAME="nyz", PAUSE="0.1")
    assert result.returncode == 3
    assert "pytest ran" not in result.stdout
    assert "run-all: the nyz warm-ups failed (exit status 3); their log:" in result.stderr
    assert "zoosim: error: the nyz engine broke" in result.stderr
