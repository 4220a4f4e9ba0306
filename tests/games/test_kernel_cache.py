"""Where numba caches game kernels (issue 12, finding 1): never inside the package tree, in one
per-user folder keyed by the sources' content, so two installs of the same sources share it and
a changed sibling source can never load a stale kernel; and compile progress only when compiling
(finding 2). Each case runs a fresh interpreter on a copy of the package, compiling the small
kernels of rng.py; a numba upgrade that changes the private locator hook fails here."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from simulator.games import kernel_cache

REPO = Path(__file__).resolve().parents[2]

COMPILE_RNG = """
from simulator.games import rng
from simulator.games.kernel_cache import compile_progress
with compile_progress("rng"):
    rng.uniform(rng.new_state(1))
print("hits", sum(rng.uniform.stats.cache_hits.values()), "misses", sum(rng.uniform.stats.cache_misses.values()))
"""


def copy_package(target: Path) -> Path:
    shutil.copytree(REPO / "simulator", target / "simulator", ignore=shutil.ignore_patterns("__pycache__"))
    return target


def run_copy(root: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    environment.update(env, PYTHONPATH=str(root))
    result = subprocess.run([sys.executable, "-c", COMPILE_RNG], cwd=root, env=environment,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result


def kernel_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc")]


@pytest.mark.slow
def test_kernels_are_cached_per_user_and_never_in_the_package(tmp_path):
    root = copy_package(tmp_path / "install")
    result = run_copy(root, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert "misses 1" in result.stdout
    assert kernel_files(tmp_path / "xdg" / "zoosim" / "numba")
    assert not kernel_files(root / "simulator")


@pytest.mark.slow
def test_a_user_set_numba_cache_dir_is_respected(tmp_path):
    root = copy_package(tmp_path / "install")
    run_copy(root, NUMBA_CACHE_DIR=str(tmp_path / "mine"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    assert kernel_files(tmp_path / "mine" / "zoosim")
    assert not (tmp_path / "xdg").exists() and not kernel_files(root / "simulator")


@pytest.mark.slow
def test_same_sources_share_one_cache_and_a_changed_sibling_recompiles(tmp_path):
    """A regular and an editable install of the same sources (two paths) compile once; the
    first run reports each kernel it compiles, the warm one prints nothing. Editing a sibling
    that kernels may inline (the shared kernels of rng.py) selects a new cache folder for the
    games' kernels: no stale kernel; so does editing layouts.py, whose rule-array numbering kernels
    compile as constants; editing base.py, which defines no kernel, keeps the cache."""
    cache = str(tmp_path / "cache")
    first = run_copy(copy_package(tmp_path / "regular"), NUMBA_CACHE_DIR=cache)
    assert "misses 1" in first.stdout
    assert "compiling the rng engine" in first.stderr
    assert "compiling rng: kernel 1, 0 s so far (first compile here: no total known): rng.new_state" in first.stderr
    assert "rng engine compiled in" in first.stderr and "(5 kernels)" in first.stderr  # new_state, uniform, next_u64, mixed, unit
    second_root = copy_package(tmp_path / "editable")
    second = run_copy(second_root, NUMBA_CACHE_DIR=cache)
    assert "hits 1 misses 0" in second.stdout
    assert second.stderr == ""
    games = second_root / "simulator" / "games"
    with open(games / "base.py", "a") as source:
        source.write("\n# an edit\n")
    assert "hits 1 misses 0" in run_copy(second_root, NUMBA_CACHE_DIR=cache).stdout
    with open(games / "layouts.py", "a") as source:  # no numba, but kernels compile its numbers in
        source.write("\n# an edit\n")
    assert "hits 0 misses 1" in run_copy(second_root, NUMBA_CACHE_DIR=cache).stdout
    (games / "toolkit.py").write_text("from numba import njit\n")  # a new shared kernel module
    edited = run_copy(second_root, NUMBA_CACHE_DIR=cache)
    assert "hits 0 misses 1" in edited.stdout and "compiling the rng engine" in edited.stderr


def test_only_the_most_recently_used_versions_of_a_package_are_kept(tmp_path):
    root = tmp_path / "zoosim"
    idle = time.time() - kernel_cache.PRUNE_UNUSED_FOR - 100
    for index in range(6):
        folder = root / f"katz-{index:016d}"
        folder.mkdir(parents=True)
        (folder / kernel_cache.LAST_USED).touch()
        os.utime(folder / kernel_cache.LAST_USED, (idle + index, idle + index))
    (root / "nyz-0000000000000000").mkdir()
    kernel_cache._prune(root / "katz-0000000000000000")
    left = sorted(p.name for p in root.iterdir())
    expected_katz = [f"katz-{i:016d}" for i in (0, 3, 4, 5)]  # the one in use + the 3 newest others
    assert left == expected_katz + ["nyz-0000000000000000"]


def test_a_version_another_process_used_recently_is_never_pruned(tmp_path):
    """Six checkouts of different versions compiling at once: pruning a folder another process
    is writing into made numba's index write fail (FileNotFoundError on its .nbi.tmp)."""
    root = tmp_path / "zoosim"
    for index in range(6):
        folder = root / f"katz-{index:016d}"
        folder.mkdir(parents=True)
        (folder / kernel_cache.LAST_USED).touch()  # all in use now
    kernel_cache._prune(root / "katz-0000000000000000")
    assert len(list(root.iterdir())) == 6


def test_the_warm_marker_lies_in_the_games_cache_folder_and_names_numba_and_python():
    """Issue 11 (speed): the marker that lets a run's parent skip loading kernels follows the
    folder keyed by the sources; a module outside simulator/games/ (a plugin) has none."""
    import numba

    engine = REPO / "simulator" / "games" / "katz" / "moves.py"
    marker = kernel_cache.warm_marker(engine, "heuristic")
    assert marker.parent == kernel_cache.kernel_folder(engine)
    assert marker.parent.name.startswith("katz-")
    assert numba.__version__ in marker.name and f"py{sys.version_info[0]}.{sys.version_info[1]}" in marker.name
    assert kernel_cache.warm_marker(engine, "search") != marker  # the variants compile different kernels
    assert kernel_cache.warm_marker(REPO / "tests" / "conftest.py", "heuristic") is None


IMPORT_EVERY_GAME_MODULE = """
import importlib, pkgutil, sys
import simulator.games
assert "numba" not in sys.modules, "import simulator.games imported numba"
from numba.core.caching import FunctionCache
from numba.core.registry import CPUDispatcher
cached = wrong = 0
for info in pkgutil.walk_packages(simulator.games.__path__, "simulator.games."):
    module = importlib.import_module(info.name)
    for value in vars(module).values():
        if isinstance(value, CPUDispatcher) and isinstance(value._cache, FunctionCache):
            cached += 1
            locator = type(value._cache._impl.locator)
            if locator.__qualname__ != "GameKernelLocator":
                wrong += 1
                print(info.name, value.__name__, "uses", locator.__qualname__)
print("cached", cached, "wrong", wrong)
"""


def test_every_kernel_module_installs_the_cache_locator_before_its_kernels():
    """Importing the registry (config, report, validate) loads no numba, so the locator is no
    longer installed by `simulator/games/__init__.py`: every module of simulator/games/ that
    imports numba imports kernel_cache itself (whichever module a process imports first, its
    kernels are defined after the locator), and every cached kernel uses the locator."""
    games = REPO / "simulator" / "games"
    for source in sorted(games.rglob("*.py")):
        text = source.read_text(encoding="utf-8")
        if source != kernel_cache.THIS_FILE and kernel_cache.IMPORTS_NUMBA.search(text):
            assert "from simulator.games import kernel_cache" in text, f"{source} does not import kernel_cache"
    result = subprocess.run([sys.executable, "-c", IMPORT_EVERY_GAME_MODULE], cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    cached, wrong = result.stdout.split()[-3], result.stdout.split()[-1]
    assert int(cached) > 20 and wrong == "0", result.stdout


def test_an_unusable_cache_folder_is_said_in_one_warning_line_and_a_temporary_one_used(tmp_path, monkeypatch, capsys):
    """A cache root that is a file (or unwritable) cannot hold the kernels, and numba's own
    fallback would compile again in every process or write into the installed package: the
    kernels go to a per-user temporary folder instead, said once per game and process."""
    from simulator.games import kernel_cache

    blocked = tmp_path / "cache"
    blocked.write_text("not a folder")
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: blocked / "zoosim" / "numba")
    monkeypatch.setattr(kernel_cache.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    kernel_cache._package_folder.cache_clear()
    try:
        folders = [kernel_cache._package_folder(package) for package in (kernel_cache.GAMES_DIR / "katz",
                                                                         kernel_cache.GAMES_DIR)]
    finally:
        kernel_cache._package_folder.cache_clear()
        kernel_cache._fallback_root.cache_clear()
    fallback = tmp_path / "tmp" / f"zoosim-numba-{os.getuid()}"
    assert all(folder.parent == fallback and folder.is_dir() for folder in folders)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"zoosim: warning: cannot use the kernel cache folder {blocked}/zoosim/numba (Not a directory); "
                     f"the game engines are cached in {fallback} instead, which the system may clear: point "
                     f"XDG_CACHE_HOME or NUMBA_CACHE_DIR at a writable folder"]


def compile_event(function):
    """What numba's "numba:compile" event hands a listener, as far as the reporter reads it."""
    return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=function)})


def a_kernel():
    pass


def test_compile_status_takes_the_total_and_time_left_from_the_last_compile():
    last = ([0.0, 2.0, 4.0, 10.0], 20.0)  # four kernels started at these seconds, done at 20 s
    assert kernel_cache.compile_status("katz", 3, 4.0, last) == "compiling katz: kernel 3 of 4, about 16 s left"
    # twice as slow as last time to reach kernel 3: the rest takes twice as long too
    assert kernel_cache.compile_status("katz", 3, 8.0, last) == "compiling katz: kernel 3 of 4, about 32 s left"
    assert kernel_cache.compile_status("katz", 5, 21.0, last) == "compiling katz: kernel 5, 4 last time, 21 s so far"
    assert (kernel_cache.compile_status("katz", 2, 3.0, None)
            == "compiling katz: kernel 2, 3 s so far (first compile here: no total known)")


def test_a_complete_compile_is_recorded_and_the_next_one_shows_kernel_k_of_n(tmp_path, monkeypatch):
    """The first compile of a kernel set has no total; it records its kernels, and the next
    compile of the same set (another zoosim version's, after an edit) counts "of N" with the
    time left. Lines go to a log (not a terminal): every line ends in a newline."""
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: tmp_path)
    clock = iter([100.0, 101.0, 103.0, 106.0, 110.0,  # first compile: 4 kernels, done at 10 s
                  200.0, 201.0, 203.0, 206.0, 210.0])
    logs = []
    for _ in range(2):
        log = io.StringIO()
        reporter = kernel_cache._CompileReporter("katz", log, live=False, kernel_set="katz heuristic:greedy",
                                                 clock=lambda: next(clock))
        reporter.LOG_SECONDS = 0.0  # a line per kernel
        for _ in range(4):
            reporter.on_start(compile_event(a_kernel))
        reporter.summary()
        logs.append(log.getvalue())
    first, second = logs
    assert "compiling katz: kernel 2, 1 s so far (first compile here: no total known)" in first
    assert "compiling katz: kernel 1 of 4, about 10 s left: test_kernel_cache.a_kernel\n" in second
    assert "compiling katz: kernel 4 of 4, about 4 s left" in second
    assert second.endswith("katz engine compiled in 10 s (4 kernels)\n")
    assert all(line.endswith("\n") for text in logs for line in text.splitlines(keepends=True))
    assert kernel_cache.read_compile_record("katz heuristic:greedy") == ([0.0, 1.0, 3.0, 6.0], 10.0)
    assert kernel_cache.read_compile_record("katz search:strong") is None  # another set: its own record


def test_a_machine_that_never_compiled_a_shipped_kernel_set_counts_it_of_the_shipped_total(tmp_path, monkeypatch):
    """The quick start's first compile on a new machine (issue #41: "compile progress with a
    total"): its kernel sets have records shipped with zoosim, read when the machine has none; a
    machine's own record, once written, comes first."""
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: tmp_path)  # an empty cache
    shipped = sorted(kernel_cache.SHIPPED_COMPILE_RECORDS.glob("*.json"))
    assert shipped, "no compile records shipped"
    kernel_set = "chunk summary kernels"  # the chunk summaries' set, the same for every run
    assert kernel_cache.compile_record_path(kernel_set).name in {path.name for path in shipped}
    starts, seconds = kernel_cache.read_compile_record(kernel_set)
    assert len(starts) > 1 and seconds > 0
    assert kernel_cache.compile_status("chunk summary", 1, 0.0, (starts, seconds)).startswith(
        f"compiling chunk summary: kernel 1 of {len(starts)}, about ")
    kernel_cache.write_compile_record(kernel_set, [0.0, 1.0], 2.0)  # this machine's own compile
    assert kernel_cache.read_compile_record(kernel_set) == ([0.0, 1.0], 2.0)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_shared_terminal_each_line_erases_the_bar_and_the_status_goes_to_its_file(tmp_path, monkeypatch):
    """A compile process sharing the terminal with the run's progress bar starts each line by
    erasing the line under the cursor (the bar redraws itself below), so the two never run
    together; its status file holds the current status while it compiles, and goes at the end."""
    monkeypatch.setattr(kernel_cache, "cache_root", lambda: tmp_path)
    status_file = tmp_path / "nyz.status"
    terminal = Terminal()
    clock = iter([0.0, 2.0, 5.0])
    reporter = kernel_cache._CompileReporter("nyz", terminal, live=False, status_file=status_file,
                                             clock=lambda: next(clock))
    reporter.on_start(compile_event(a_kernel))
    reporter.on_start(compile_event(a_kernel))
    assert status_file.read_text() == "compiling nyz: kernel 2, 2 s so far (first compile here: no total known)"
    reporter.summary()
    assert not status_file.exists()
    text = terminal.getvalue()  # the start, kernel 1 (kernel 2 came within LOG_SECONDS), the summary
    assert text.endswith("\n") and [line[:4] for line in text.split("\n")[:-1]] == ["\r\033[K"] * 3, text
