"""Where numba caches game kernels (issue 12, finding 1): never inside the package tree, in one
per-user folder keyed by the sources' content, so two installs of the same sources share it and
a changed sibling source can never load a stale kernel; and compile progress only when compiling
(finding 2). Each case runs a fresh interpreter on a copy of the package, compiling the small
kernels of rng.py; a numba upgrade that changes the private locator hook fails here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

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
    assert "compiling the rng engine" in first.stderr and "rng: kernel 1 at 0 s: rng.new_state" in first.stderr
    assert "rng engine compiled in" in first.stderr and "(3 kernels)" in first.stderr
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
