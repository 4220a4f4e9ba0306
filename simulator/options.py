"""The options of every command that plays games (`--jobs`, `--backend`, `--scheduler`, `--out`),
checked one way for the command line and the Python API (`simulator.run_experiment`): the same
bounds, the same one-line `ZoosimError`, before anything is written. A module of the base layer:
the command line checks its options with it without loading the runner.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from simulator.errors import ZoosimError

# More workers than this would not fit joblib's task queue (it refuses 2 x 500,000) nor the
# threads a process may start; no machine or cluster zoosim targets has more cores.
MAX_JOBS = 1024
BACKENDS = ("threading", "loky", "dask")
SCHEDULER_EXAMPLE = "tcp://10.0.0.5:8786"


def checked_jobs(jobs: Any, key: str = "--jobs") -> int | None:
    """`jobs` when it is a whole number from 1 to MAX_JOBS, or None (every core)."""
    if jobs is None:
        return None
    if type(jobs) is not int or not 1 <= jobs <= MAX_JOBS:
        raise ZoosimError(f"must be a whole number from 1 to {MAX_JOBS:,} (got {jobs!r})", key=key)
    return jobs


def jobs_or_every_core(jobs: int | None) -> int:
    return jobs or os.cpu_count() or 1


def checked_out(out: Any, key: str = "--out") -> Path | None:
    """An output folder or file as a Path, or None (the default place); an empty path (which would
    mean the current folder) is refused."""
    return None if out is None else checked_path(out, key)


def checked_path(path: Any, key: str, what: str = "a path") -> Path:
    """`path` (a str or os.PathLike naming `what`) as a Path; anything else, and an empty path
    (which would mean the current folder), is refused."""
    if not isinstance(path, (str, os.PathLike)):
        raise ZoosimError(f"must be {what} (got {path!r})", key=key)
    if not str(path).strip():
        raise ZoosimError(f"must name {what}; an empty one would mean the current folder", key=key)
    return Path(path)


def checked_flag(value: Any, key: str) -> bool:
    """A switch of the Python API (the command line's flags): True or False, nothing truthy."""
    if type(value) is not bool:
        raise ZoosimError(f"must be True or False (got {value!r})", key=key)
    return value


def check_backend(backend: Any, scheduler: Any, keys: tuple[str, str] = ("--backend", "--scheduler")) -> None:
    """A backend zoosim has, with a scheduler address exactly when it is dask, whose extra is
    installed; a refusal names the backend's or the scheduler's `keys` (the Python API's are its
    keywords). Reaching the scheduler is the runner's (`runner.backend_session`)."""
    if backend not in BACKENDS:
        raise ZoosimError(f"unknown backend {backend!r} (allowed: {', '.join(BACKENDS)})", key=keys[0])
    if scheduler is not None and not isinstance(scheduler, str):
        raise ZoosimError(f"must be a scheduler address such as {SCHEDULER_EXAMPLE} (got {scheduler!r})",
                          key=keys[1])
    if backend != "dask":
        if scheduler:
            raise ZoosimError("--scheduler is only used with --backend dask")
        return
    if importlib.util.find_spec("distributed") is None:
        raise ZoosimError("the dask backend needs the optional extra: pip install 'zoosim[dask]'")
    if not scheduler:
        raise ZoosimError(f"--backend dask needs --scheduler ADDRESS (e.g. {SCHEDULER_EXAMPLE})")
