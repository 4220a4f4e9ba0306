"""Real processes: loky workers, a dask LocalCluster on loopback, and a run killed with SIGKILL
then resumed. Each must give game-for-game the same logs as a plain one-job run."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from simulator.config import parse_experiment
from simulator.plan import build_plan
from simulator.runner import run_plan
from tests_support import log_digests

pytestmark = pytest.mark.slow

DOCUMENT = {
    "name": "processes",
    "seed": 12,
    "games": 6000,
    "chunk_games": 1000,
    "studies": [{"game": "katz", "seats": ["greedy", "random"], "rules": {"players": 2}},
                {"game": "katz", "rules": {"players": 4}}],
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same experiment played in this process, one job."""
    out = tmp_path_factory.mktemp("reference")
    run_plan(build_plan(parse_experiment(DOCUMENT)), out, "", jobs=1, progress=False)
    return log_digests(out)


def test_loky_processes_match_one_job(tmp_path, reference):
    run_plan(build_plan(parse_experiment(DOCUMENT)), tmp_path, "", jobs=2, backend="loky", progress=False)
    assert log_digests(tmp_path) == reference


def test_dask_local_cluster_matches_one_job(tmp_path, reference):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster:
        run_plan(build_plan(parse_experiment(DOCUMENT)), tmp_path, "", jobs=2, backend="dask",
                 scheduler=cluster.scheduler_address, progress=False)
    assert log_digests(tmp_path) == reference


def start_run_and_wait_for_chunks(tmp_path, chunks):
    """Start `zoosim run` in its own process group; return (process, command, out) once `chunks`
    chunk files exist."""
    import yaml

    experiment = tmp_path / "processes.yaml"
    experiment.write_text(yaml.safe_dump(DOCUMENT))
    out = tmp_path / "run"
    command = [sys.executable, "-m", "simulator.cli", "run", str(experiment), "--out", str(out),
               "--jobs", "2", "--quiet", "--no-report"]
    process = subprocess.Popen(command, start_new_session=True, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(out.glob("logs/*/chunk-*.parquet"))) < chunks:
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "no chunk was written in time"
        time.sleep(0.05)
    return process, command, out


def resume_and_compare(command, out, reference):
    resumed = subprocess.run(command + ["--resume"], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert log_digests(out) == reference


def test_a_run_killed_with_sigkill_resumes_to_identical_logs(tmp_path, reference):
    process, command, out = start_run_and_wait_for_chunks(tmp_path, 3)
    os.killpg(process.pid, signal.SIGKILL)  # the CLI and its workers, mid-run
    process.wait()
    assert 3 <= len(list(out.glob("logs/*/chunk-*.parquet"))) < 12
    resume_and_compare(command, out, reference)


def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path, reference):
    process, command, out = start_run_and_wait_for_chunks(tmp_path, 2)
    os.killpg(process.pid, signal.SIGINT)  # what a terminal sends to the foreground group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; finished chunks are kept" in stderr and "--resume" in stderr
    assert "Traceback" not in stderr and "Warning" not in stderr  # e.g. joblib's unread results
    resume_and_compare(command, out, reference)


def test_a_finished_run_ends_at_once_with_its_status_and_leaves_no_worker(tmp_path, reference):
    """Issue 11 (speed): the `zoosim` process ends right after its exit handlers (console()):
    the same logs, exit status 0, no worker of its process group left alive and no complaint
    about leaked resources; a user error still ends with status 2."""
    import yaml

    experiment = tmp_path / "processes.yaml"
    experiment.write_text(yaml.safe_dump(DOCUMENT))
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "simulator.cli", "run", str(experiment), "--out", str(out),
                                "--jobs", "2", "--quiet", "--no-report", "--backend", "loky"],
                               start_new_session=True, stderr=subprocess.PIPE, text=True)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert "warning" not in stderr.lower() and "Traceback" not in stderr
    deadline = time.monotonic() + 10  # loky's resource tracker ends by itself once it reads its pipe's end
    with pytest.raises(ProcessLookupError):
        while time.monotonic() < deadline:
            os.killpg(process.pid, 0)  # raises once nobody is left in the run's process group
            time.sleep(0.1)
    assert log_digests(out) == reference
    refused = subprocess.run([sys.executable, "-m", "simulator.cli", "run", str(tmp_path / "missing.yaml")],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.startswith("zoosim: error:")


WORKER_STARTED_WHILE_CTRL_C = """
import os, signal, subprocess, sys, time
from simulator.processes import workers_block_ctrl_c
worker = None
try:
    with workers_block_ctrl_c(starts_processes=True):
        worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the workers start
        time.sleep(0.2)
    print("lost")
except KeyboardInterrupt:
    print("interrupted")
print(worker.pid)
"""


def holds_ctrl_c(pid: int) -> bool:
    """Whether process `pid` has SIGINT blocked; nothing in a worker unblocks it, so it has held
    it since it started."""
    with open(f"/proc/{pid}/status") as status:
        blocked = next(line for line in status if line.startswith("SigBlk:"))
    return bool(int(blocked.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def test_a_ctrl_c_while_workers_start_interrupts_the_run_and_not_the_workers():
    """A worker process started in the window holds SIGINT blocked (no traceback from a worker
    still importing), while the run still gets the Ctrl-C: it was lost when the window ignored
    SIGINT (the run then played to its end)."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-c", WORKER_STARTED_WHILE_CTRL_C], capture_output=True, text=True,
                            timeout=60, cwd=repo)
    assert result.returncode == 0, result.stderr
    said, worker = result.stdout.split()
    try:
        assert said == "interrupted" and holds_ctrl_c(int(worker))
    finally:
        os.kill(int(worker), signal.SIGKILL)


@pytest.mark.parametrize("delay", [0.0, 0.01, 0.03, 0.1])
def test_ctrl_c_while_the_workers_start_ends_the_run_cleanly(tmp_path, delay):
    """Ctrl-C right when the run starts its worker processes (after its first line, which comes
    just before the pool starts): exit status 130, the resume command, no traceback from the
    run or a worker, and no process of the run left."""
    import yaml

    experiment = tmp_path / "processes.yaml"
    experiment.write_text(yaml.safe_dump(DOCUMENT))
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "-m", "simulator.cli", "run", str(experiment), "--out", str(out),
                                "--jobs", "2", "--no-report", "--backend", "loky"],
                               start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first_line = process.stderr.readline()
    assert first_line.startswith("processes: 2 cell(s)"), first_line
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stdout, stdout  # a loky worker prints its failure there
    assert "interrupted; finished chunks are kept" in stderr and "--resume" in stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    deadline = time.monotonic() + 10
    with pytest.raises(ProcessLookupError):
        while time.monotonic() < deadline:
            os.killpg(process.pid, 0)
            time.sleep(0.1)


def _wait_for_orders_forever() -> None:
    time.sleep(3600)


def test_the_end_of_a_command_stops_a_worker_process_the_pool_never_took_on():
    """A Ctrl-C while loky starts its workers can leave one started but never registered with
    the pool, waiting for its orders for good; Python's exit handlers joined it for good, so the
    interrupted run hung instead of ending. The command's end kills every child process left."""
    import multiprocessing

    from simulator.processes import stop_idle_workers

    stranded = multiprocessing.get_context("spawn").Process(target=_wait_for_orders_forever)
    stranded.start()
    started = time.monotonic()
    stop_idle_workers()
    assert not stranded.is_alive() and time.monotonic() - started < 10
    assert multiprocessing.active_children() == []


def test_an_exception_in_a_thread_of_the_worker_pool_is_not_printed(capsys):
    """loky's manager thread can trip over the work an interrupted run cancels (a KeyError): the
    run says it was interrupted in one line, and the pool's threads print no traceback into it.
    Any other thread's exception is still printed."""
    import threading
    import types

    from simulator.processes import quiet_pool_threads

    printed = []
    hook = quiet_pool_threads(printed.append)
    pool_thread = type("_ExecutorManagerThread", (threading.Thread,), {"__module__": "joblib.externals.loky.process_executor"})()
    own_thread = threading.Thread()
    for thread in (pool_thread, own_thread):
        hook(types.SimpleNamespace(exc_type=KeyError, exc_value=KeyError(1), exc_traceback=None, thread=thread))
    assert [args.thread for args in printed] == [own_thread]


def test_the_loky_resource_tracker_says_nothing_of_semaphores_it_cleans_up_itself(monkeypatch):
    """After a failed or interrupted run with worker processes, loky's resource tracker warned
    about a semaphore a stopped worker left registered, after the run's one-line message. The
    run starts the tracker with that warning filtered out (and only that one)."""
    from simulator import processes

    monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    processes.quiet_resource_tracker()
    processes.quiet_resource_tracker()  # once is enough
    assert os.environ["PYTHONWARNINGS"] == processes.RESOURCE_TRACKER_QUIET
    warn = ("import warnings; warnings.warn_explicit('leaked semlock', UserWarning, 'resource_tracker.py', 1, "
            "module='{}')")
    for module, printed in (("joblib.externals.loky.backend.resource_tracker", ""), ("simulator.runner", "leaked")):
        result = subprocess.run([sys.executable, "-c", warn.format(module)], capture_output=True, text=True)
        assert (printed in result.stderr) if printed else result.stderr == "", (module, result.stderr)


# A process that plays a loky pool's work and ends its workers as a command does.
LOKY_POOL_ENDED = """
from joblib import Parallel, delayed
from simulator.processes import stop_idle_workers
assert Parallel(n_jobs=2, backend="loky")(delayed(abs)(n) for n in range(-2, 2)) == [2, 1, 0, 1]
stop_idle_workers()
"""


def test_ending_the_loky_workers_with_an_empty_path_prints_nothing():
    """Issue #45: with PATH empty, a run under --backend loky ended with a 21-line warning.
    Without psutil, loky kills a worker's process tree through `pgrep`, which an empty PATH (or
    a system without procps) lacks: it warned with the traceback (and its fallback, the
    worker's kill(), fails on loky's processes). zoosim requires psutil, which loky then uses."""
    from importlib.metadata import requires

    assert any(re.match(r"psutil\b", requirement) for requirement in requires("zoosim"))
    ended = subprocess.run([sys.executable, "-c", LOKY_POOL_ENDED], capture_output=True, text=True,
                           timeout=120, env={**os.environ, "PATH": ""})
    assert ended.returncode == 0 and ended.stderr == "", ended.stderr


def test_the_warm_up_processes_start_holding_ctrl_c(tmp_path):
    """CI caught a Ctrl-C reaching a warm-up process (the chunk summaries' kernels compile in one
    of their own) while it still imported joblib: its traceback preceded the run's 'interrupted'
    line. Those processes start with SIGINT blocked, as the run's workers do."""
    from simulator.runner import _warm_up_in_processes

    warm = _warm_up_in_processes([], progress=False, jobs=2, sample_cells=[], summaries=tmp_path / "warm-summaries")
    try:
        started = list(warm.pool._processes)
        assert started and all(holds_ctrl_c(pid) for pid in started)
        warm.wait(all_games=True)
        assert (tmp_path / "warm-summaries").exists()
    finally:
        warm.stop()
