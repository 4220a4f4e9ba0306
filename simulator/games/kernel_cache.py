"""Where numba caches the compiled game kernels, why a stale kernel can never run, and the
progress shown while kernels compile.

Location. numba's default writes its cache into `__pycache__` beside the source. Inside an
installed package that leaves files pip does not own: they survive `pip uninstall` and turn
`site-packages/simulator/` into a namespace package that shadows any later install. The kernels
of every module under `simulator/games/` (and the chunk summary's, `simulator/analysis/`, keyed
like a game package) are therefore cached per user, outside the package:
in `$NUMBA_CACHE_DIR/zoosim/` when the user set NUMBA_CACHE_DIR, else in
`$XDG_CACHE_HOME/zoosim/numba/` (default `~/.cache/zoosim/numba/`). When that folder cannot be
used (a file in its way, no permission), the kernels go to `zoosim-numba-<uid>/` in the system's
temporary folder, with one warning line: numba's own fallback would write into the installed
package, or compile again in every process.

Keyed by content, not by path. numba's own locators name a file's cache folder after a hash of
the source folder's path, so a regular and an editable install of the same sources would each
compile. Here the folder is `<package>-<digest>`, and the digest covers every source that the
package's kernels may inline: the package's own `*.py` and the shared modules directly in
`simulator/games/` that import numba (`rng.py`, ...; not `base.py`, nor this module, which
defines no kernel), plus `layouts.py`, whose rule-array numbering kernels compile as constants
(`COMPILED_IN`). Identical sources share one cache wherever they are
installed (one compile per machine and version), and a change to any of those sources selects a
new folder. That matters because numba checks only a kernel's own file: a kernel that inlined an
old version of a sibling module would otherwise be loaded stale. Folders of other versions are
pruned, keeping the `KEEP_VERSIONS` most recently used per package (several checkouts of
different versions on one machine do not evict each other), and never one used in the last
`PRUNE_UNUSED_FOR` seconds: another process may be compiling into it (deleting it under that
process made numba's write of its index fail).

Warm marker. A process that only loads kernels from the cache still pays numba's start-up (its
target context, then every kernel's object code: about a second of CPU). The runner's parent
process compiles a game's kernels before its workers start only when no earlier warm-up left them
in this cache folder: `warm_marker` names a file written after a complete warm-up, keyed by the
kernels' specialisation (a seating with or without a search policy compiles different play
kernels, base.Game.kernel_variant) and the numba and Python versions (the folder itself is
keyed by the sources). The chunk summaries' kernels, the same for every game, have one marker
of their own in their folder (variant "summaries"), written by their own warm-up, so that no
game's warm-up compiles them. When a marker exists the parent
skips that warm-up and the workers load the kernels themselves, in parallel. A marker that lies
(a cache file deleted by hand) costs speed, never correctness: numba then compiles in the workers.

Progress. `compile_progress` reports each kernel that numba really compiles (numba's
"numba:compile" event); loading a kernel from the cache fires no event, so a warm run prints
nothing. How many kernels a set compiles (a game's warm-up of some kernel variants, the step
API, the chunk summaries) cannot be read from the sources: numba compiles a kernel once per
argument types, inlines others, and a variant compiles only what it calls. So each complete
compile is recorded in the cache root's `compile-records/` (the second at which each kernel
started, and the total), outside the version folders: the next compile of the same set on this
machine, usually of another zoosim version after an edit, shows "kernel 12 of 45, about 30 s
left" from it, scaled by how fast it reached the same kernel. The very first compile on a
machine takes the record zoosim ships for the same set (the quick start's: SHIPPED_COMPILE_RECORDS),
and a set with neither says it has no total.

Installed first. Importing this module installs the locator. Every module of `simulator/games/`
that imports numba also imports this module (`from simulator.games import kernel_cache`) before
it defines a kernel, so no game kernel is ever defined with numba's own locators, whichever module
is imported first; `import simulator.games` itself (the registry, `base.py`) imports no numba.
tests/games/test_kernel_cache.py checks both for every module.

The hook into numba (a cache locator put first in `CacheImpl._locator_classes`) is private numba
API; tests/games/test_kernel_cache.py fails loudly if a numba upgrade changes it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, TextIO

import numba
from numba.core import caching, config, event

THIS_FILE = Path(__file__).resolve()
GAMES_DIR = THIS_FILE.parent
# the chunk summary's kernels (analysis/summary_kernels.py) are cached here too, as a package
ANALYSIS_DIR = GAMES_DIR.parent / "analysis"
IMPORTS_NUMBA = re.compile(r"^(from|import) numba\b", re.MULTILINE)
COMPILED_IN = ("layouts.py",)  # shared modules without numba whose numbers kernels compile in
KEEP_VERSIONS = 4
PRUNE_UNUSED_FOR = 24 * 3600  # seconds since a folder's last use before it may be pruned
LAST_USED = "last_used"  # a file in each cache folder; its mtime says when a process last used it
COMPILE_RECORDS = "compile-records"  # a folder in the cache root: each kernel set's last complete compile
# The quick start's first compile on a new machine has no record of its own: zoosim ships the
# records of its kernel sets (simulator/games/compile_records/, from a fresh clone's first run of
# experiments/seat_bias.yaml on a 2-core machine), so that compile too shows "kernel k of N" and
# the time left. Their counts and seconds are those of the sources they were recorded with: after
# an engine change they are estimates until the machine's own record replaces them.
# tests/runner/test_runner.py checks that every kernel set the quick start compiles has one.
SHIPPED_COMPILE_RECORDS = GAMES_DIR / "compile_records"
MIN_PACE_SECONDS = 1.0  # below this, a compile's pace against the last one is noise: taken as equal


def cache_root() -> Path:
    """The folder holding zoosim's kernel caches (see the module docstring)."""
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / "zoosim"
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no home folder can be determined
            base = tempfile.gettempdir()
    return Path(base) / "zoosim" / "numba"


def kernel_folder(source_file: str | os.PathLike) -> Path | None:
    """The cache folder of the kernels defined in `source_file`, or None when that file is not a
    module of `simulator/games/` or `simulator/analysis/` (numba's own locators then apply)."""
    package = Path(source_file).resolve().parent
    if package != GAMES_DIR and package.parent != GAMES_DIR and package != ANALYSIS_DIR:
        return None
    return _package_folder(package)


@functools.lru_cache(maxsize=None)
def _package_folder(package: Path) -> Path:
    shared = [path for path in sorted(GAMES_DIR.glob("*.py")) if path != THIS_FILE and (
        path.name in COMPILED_IN or IMPORTS_NUMBA.search(path.read_text(encoding="utf-8")))]
    sources = shared if package == GAMES_DIR else sorted(package.glob("*.py")) + shared
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    name = f"{package.name}-{digest.hexdigest()[:16]}"
    root = cache_root()
    try:
        _use(root / name)
        return root / name
    except OSError as error:
        fallback = _fallback_root(root, error.strerror or str(error)) / name
        with contextlib.suppress(OSError):  # unwritable too: numba's locator check decides what happens
            _use(fallback)
        return fallback


@functools.lru_cache(maxsize=None)
def _fallback_root(root: Path, reason: str) -> Path:
    """The temporary cache root used instead of an unusable `root`, said once per process."""
    fallback = Path(tempfile.gettempdir()) / f"zoosim-numba-{os.getuid()}"
    print(f"zoosim: warning: cannot use the kernel cache folder {root} ({reason}); the game engines are "
          f"cached in {fallback} instead, which the system may clear: point XDG_CACHE_HOME or "
          f"NUMBA_CACHE_DIR at a writable folder", file=sys.stderr)
    return fallback


def warm_marker(source_file: str | os.PathLike, variant: str) -> Path | None:
    """The file that says a complete warm-up left the kernels of `source_file`'s game package,
    in specialisation `variant` (base.Game.kernel_variant), in its cache folder (see the module
    docstring); None for a module outside `simulator/games/` and `simulator/analysis/`."""
    folder = kernel_folder(source_file)
    if folder is None:
        return None
    return folder / f"warm-{variant}-numba{numba.__version__}-py{sys.version_info[0]}.{sys.version_info[1]}"


def _use(folder: Path) -> None:
    """Create a cache folder if needed and note its use (pruning other versions)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LAST_USED).touch()
    _prune(folder)


def _prune(keep: Path) -> None:
    """Delete the folders of other versions of `keep`'s package beyond the most recently used,
    if no process has used them for PRUNE_UNUSED_FOR seconds."""

    def last_used(folder: Path) -> float:
        try:
            return (folder / LAST_USED).stat().st_mtime
        except OSError:
            return 0.0

    package = keep.name.rsplit("-", 1)[0]
    others = [f for f in keep.parent.glob(f"{package}-*") if f != keep and f.is_dir()]
    idle_since = time.time() - PRUNE_UNUSED_FOR
    for folder in sorted(others, key=last_used, reverse=True)[KEEP_VERSIONS - 1 :]:
        if last_used(folder) < idle_since:
            shutil.rmtree(folder, ignore_errors=True)


class GameKernelLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """numba cache locator for the modules of `simulator/games/` (see the module docstring)."""

    def __init__(self, py_func, py_file: str, folder: Path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(folder)

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        folder = kernel_folder(py_file) if os.path.exists(py_file) else None
        if folder is None:
            return None
        locator = cls(py_func, py_file, folder)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


def use_game_kernel_cache() -> None:
    """Make numba cache game kernels where this module says. Must run before any game module
    defines a cached kernel: importing this module calls it (see "Installed first")."""
    cache_impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.6x
    locators = cache_impl._locator_classes
    if GameKernelLocator not in locators:
        locators.insert(0, GameKernelLocator)


use_game_kernel_cache()


def compile_record_path(kernel_set: str) -> Path:
    """The file holding the last complete compile of `kernel_set` on this machine (see
    "Progress"): in the cache root, outside the version folders, so it outlives a version."""
    readable = re.sub(r"[^A-Za-z0-9_.+-]+", "_", kernel_set)[:60]
    return cache_root() / COMPILE_RECORDS / f"{readable}-{hashlib.sha256(kernel_set.encode()).hexdigest()[:12]}.json"


def read_compile_record(kernel_set: str) -> tuple[list[float], float] | None:
    """The last complete compile of `kernel_set`: the second at which each kernel started
    compiling, and the seconds it took in all. On a machine that has compiled it no time, the
    record shipped with zoosim for it (SHIPPED_COMPILE_RECORDS: the quick start's kernel sets);
    None if neither is there (or readable)."""
    path = compile_record_path(kernel_set)
    return _compile_record(path) or _compile_record(SHIPPED_COMPILE_RECORDS / path.name)


def _compile_record(path: Path) -> tuple[list[float], float] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        starts, seconds = [float(start) for start in record["starts"]], float(record["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (starts, seconds) if starts else None


def write_compile_record(kernel_set: str, starts: list[float], seconds: float) -> None:
    path = compile_record_path(kernel_set)
    with contextlib.suppress(OSError):  # an unwritable cache only costs the next compile its total
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps({"starts": [round(start, 2) for start in starts],
                                         "seconds": round(seconds, 2)}), encoding="utf-8")
        os.replace(temporary, path)


def compile_status(name: str, kernel: int, elapsed: float, previous: tuple[list[float], float] | None) -> str:
    """The progress of compiling `name`'s kernels as one line: kernel `kernel` (1-based) started
    at `elapsed` seconds; with the `previous` complete compile of the same kernels (its kernel
    start times and total seconds), its total and the time left, scaled by how much faster or
    slower this compile reached the same kernel."""
    if previous is None:
        return f"compiling {name}: kernel {kernel}, {elapsed:.0f} s so far (first compile here: no total known)"
    starts, seconds = previous
    if kernel > len(starts):
        return f"compiling {name}: kernel {kernel}, {len(starts)} last time, {elapsed:.0f} s so far"
    reached = starts[kernel - 1]
    pace = elapsed / reached if reached >= MIN_PACE_SECONDS and elapsed >= MIN_PACE_SECONDS else 1.0
    left = max(0.0, (seconds - reached) * pace)
    return f"compiling {name}: kernel {kernel} of {len(starts)}, about {left:.0f} s left"


class _CompileReporter(event.Listener):
    """Reports the kernels numba compiles: on a terminal one status line rewritten in place,
    elsewhere (logs, CI, a terminal shared with other processes) a line at most every
    `LOG_SECONDS`; then a summary line. On a shared terminal each line first erases the line
    under the cursor (another process's progress bar, which redraws itself below), so the two
    never run together. The total and time left come from the last complete compile of the same
    `kernel_set` (compile_status), which the summary records. With a `status_file`, the current
    status is also written there (for another process to show) and removed at the end."""

    LOG_SECONDS = 10.0

    def __init__(self, name: str, stream: TextIO, live: bool, noun: str = "engine", kernel_set: str | None = None,
                 clock=time.perf_counter, status_file: Path | None = None):
        self.name = name
        self.noun = noun
        self.stream = stream
        self.live = live
        self.erase = "\r\033[K" if live or stream.isatty() else ""
        self.status_file = status_file
        self.kernel_set = kernel_set or f"{name} {noun}"
        self.previous = read_compile_record(self.kernel_set)
        self.clock = clock
        self.started: float | None = None
        self.last_line = 0.0
        self.starts: list[float] = []

    @property
    def kernels(self) -> int:
        return len(self.starts)

    def on_start(self, ev: event.Event) -> None:
        function = ev.data["dispatcher"].py_func
        if function.__module__.split(".")[0] == "numba":
            return  # numba's own helpers (np.empty, ...) compile with the kernels that use them
        now = self.clock()
        if self.started is None:
            self.started = now
            self._write(f"{self.erase}compiling the {self.name} {self.noun} (once per machine and zoosim version; "
                        "later runs load the compiled code from the cache)\n")
        self.starts.append(now - self.started)
        progress = compile_status(self.name, self.kernels, now - self.started, self.previous)
        status = f"{progress}: {function.__module__.rsplit('.', 1)[-1]}.{function.__qualname__}"
        if self.status_file is not None:
            with contextlib.suppress(OSError):  # only what another process shows
                self.status_file.write_text(progress, encoding="utf-8")
        if self.live:
            self._write(self.erase + status)
        elif now - self.last_line >= self.LOG_SECONDS or self.kernels == 1:
            self.last_line = now
            self._write(self.erase + status + "\n")

    def on_end(self, ev: event.Event) -> None:
        pass

    def summary(self) -> None:
        """The compile is complete: say so, and record it for the next compile's total."""
        if self.started is not None:
            seconds = self.clock() - self.started
            self._write(f"{self.erase}{self.name} {self.noun} compiled in {seconds:.0f} s ({self.kernels} kernels)\n")
            write_compile_record(self.kernel_set, self.starts, seconds)
        if self.status_file is not None:
            with contextlib.suppress(OSError):
                self.status_file.unlink(missing_ok=True)

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


@contextlib.contextmanager
def compile_progress(name: str, enabled: bool = True, shared_terminal: bool = False,
                     noun: str = "engine", kernel_set: str | None = None,
                     status_file: Path | None = None) -> Iterator[None]:
    """While the block runs, report on stderr the kernels numba compiles for game `name` (its
    `noun`, "the katz engine"; "the chunk summary kernels"), then a summary; print nothing when
    every kernel comes from the cache. `kernel_set` names what the block compiles (default: name
    and noun; a game's warm-up names its kernel variants), under which the compile is recorded
    for the next one's total. With `shared_terminal` (several processes compiling at once) the
    lines are never rewritten in place; `status_file` receives the current status line (the
    runner's progress bar shows it while this game compiles in a process of its own)."""
    if not enabled:
        yield
        return
    reporter = _CompileReporter(name, sys.stderr, live=sys.stderr.isatty() and not shared_terminal, noun=noun,
                                kernel_set=kernel_set, status_file=status_file)
    with event.install_listener("numba:compile", reporter):
        yield
    reporter.summary()
