"""Process, signal and exit plumbing shared by the command line (cli.py) and the runner: how a
zoosim process ends, how Ctrl-C and SIGTERM reach a command, and how worker processes follow
their parent. It knows nothing of experiments or games.

Ending a command (`run_console`): Python's exit handlers still run (joblib's process pool and
temporary folders are cleaned up by them); what the interpreter would do after them, freeing
every module (numba, pandas, matplotlib, pyarrow's thread pools), takes seconds and changes
nothing, so the process ends there (`end_process`). The idle workers of the process pool are
killed first (`stop_idle_workers`): letting each tear down its own interpreter would take as
long again. SIGTERM ends any command as Ctrl-C does (`Terminated`).

During a run: SIGTERM raises `Terminated` in the main thread (`terminate_on_sigterm`), a Ctrl-C
while numba compiles is held until it is done (`ctrl_c_deferred`), worker processes start with
SIGINT blocked (`workers_block_ctrl_c`) and die with their parent (`follow_parent`), and loky's
resource tracker keeps quiet about semaphores of stopped workers (`quiet_resource_tracker`).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from typing import Callable

from simulator.errors import Terminated

# ---- ending a command ----------------------------------------------------------------------------

_EXIT_STATUS: list[int] = []


def run_console(main: Callable[[], None]) -> None:
    """Run the command line's `main` as the whole process (see the module docstring)."""
    atexit.register(end_process)  # registered first, so it runs after every other exit handler
    signal.signal(signal.SIGTERM, raise_terminated)  # SIGTERM ends any command as Ctrl-C does
    threading.excepthook = quiet_pool_threads(threading.excepthook)
    try:
        main()
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            _EXIT_STATUS.append(stop.code or 0)
        raise
    finally:
        # The command is over and its status decided: a late Ctrl-C or SIGTERM must not turn
        # the end (stopping workers, exit handlers) into a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_idle_workers()


def raise_terminated(signum, frame) -> None:
    raise Terminated()


def quiet_pool_threads(print_exception):
    """`threading.excepthook` that prints nothing for the worker pool's own threads (joblib's and
    loky's): the pool hands every failure to the command as its error, which says it in one line,
    and when a command is interrupted those threads can trip over the work it cancels (loky's
    manager thread raised a KeyError traceback into the 'interrupted' message)."""

    def hook(args) -> None:
        if not type(args.thread).__module__.startswith("joblib."):
            print_exception(args)

    return hook


def stop_idle_workers() -> None:
    """Kill the workers joblib keeps for reuse, and any worker process still starting (every
    chunk is finished or abandoned by now). A worker that a Ctrl-C caught while it started, before
    the pool registered it, waits for its orders for good, and Python's exit handlers would wait
    for it just as long."""
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = getattr(reusable, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)
    for worker in multiprocessing.active_children():
        worker.join(timeout=2)  # one that is ending ends cleanly (a kill would leak its semaphores)
        if worker.is_alive():
            with contextlib.suppress(ProcessLookupError):  # loky's processes have no kill()
                os.kill(worker.pid, signal.SIGKILL)
            worker.join(timeout=10)  # reaped here, so none is left a zombie


def end_process() -> None:
    """The last exit handler: end the process with `run_console`'s exit status, skipping the
    interpreter's teardown (an unexpected error keeps Python's own ending)."""
    if _EXIT_STATUS:
        for stream in (sys.stdout, sys.stderr):  # None when the process was started with it closed
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):  # a full or closed output changes no status
                    stream.flush()
        os._exit(_EXIT_STATUS[0])


# ---- during a run -------------------------------------------------------------------------------

_PARENT_DEATH_SIGNAL_SET = False


def follow_parent(parent_pid: int | None) -> None:
    """In a worker process started by `parent_pid`: have the kernel kill it when the parent
    dies (Linux PR_SET_PDEATHSIG), and exit now if the parent is already gone. Threads of the
    parent itself and dask workers (parent_pid None) are left alone."""
    global _PARENT_DEATH_SIGNAL_SET
    if parent_pid is None or os.getpid() == parent_pid:
        return
    if not _PARENT_DEATH_SIGNAL_SET and sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _PARENT_DEATH_SIGNAL_SET = True
    if os.getppid() != parent_pid:
        os._exit(70)  # orphaned: nobody will use this chunk, and a new run may own the folder


# loky's resource tracker, a process of its own, counts the semaphores its workers register and,
# when it ends, warns about any a stopped worker left registered (and cleans it up itself): after
# a failed or interrupted run those lines followed the run's one-line message. The tracker reads
# its warning filters from the environment it is started with.
RESOURCE_TRACKER_QUIET = "ignore::UserWarning:joblib.externals.loky.backend.resource_tracker"


def quiet_resource_tracker() -> None:
    """Have the loky resource tracker (and workers) this process starts ignore that warning."""
    filters = os.environ.get("PYTHONWARNINGS", "")
    if RESOURCE_TRACKER_QUIET not in filters.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [filters, RESOURCE_TRACKER_QUIET]))


@contextlib.contextmanager
def signal_handled(signum: int, handler):
    """`handler` answers `signum` for the block, then the previous handler again. Only the main
    thread can set handlers; elsewhere the block runs with the handlers as they are."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)


@contextlib.contextmanager
def workers_block_ctrl_c(starts_processes: bool):
    """Start worker processes with SIGINT blocked: Ctrl-C reaches the whole terminal group, and
    only this process should answer it (it then stops the workers), not a worker still importing
    its modules, with a traceback. The signal mask is inherited through fork and exec and Python
    keeps it, so a worker holds a Ctrl-C pending for good. This process keeps its handler: a
    Ctrl-C meanwhile is taken by another of its threads or waits until the block ends, and is
    raised either way. (Ignoring SIGINT here, which workers inherit as well, lost such a Ctrl-C.)
    The standard library's resource tracker unblocks the signals of the thread that starts it,
    so it is started before."""
    if not starts_processes or threading.current_thread() is not threading.main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def ctrl_c_deferred():
    """Hold Ctrl-C until the block ends, then raise it: numba's compiler calls back into Python
    through ctypes, where a KeyboardInterrupt would be printed as ignored and lost."""
    received = []
    with signal_handled(signal.SIGINT, lambda signum, frame: received.append(signum)):
        yield
    if received:
        raise KeyboardInterrupt


def terminate_on_sigterm():
    """While a run plays, SIGTERM raises Terminated in the main thread, so joblib stops the
    workers and the run ends as after Ctrl-C."""

    def on_sigterm(signum, frame):
        raise Terminated()

    return signal_handled(signal.SIGTERM, on_sigterm)
