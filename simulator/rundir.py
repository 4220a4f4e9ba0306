"""The run folder: its layout and every file zoosim reads or writes in it.

    RUN_DIR/manifest.json                         experiment, run hash, cells, climbs (`write_manifest`)
    RUN_DIR/experiment.yaml                       the experiment file as given
    RUN_DIR/run.json                              one entry per session (`record_session`)
    RUN_DIR/samples.json                          the report's sample games, drawn by a worker (samples.py)
    RUN_DIR/zoosim.lock                           held with flock by the run playing into the folder
    RUN_DIR/logs/cell=0003/chunk-000012.parquet   one row per game (schema: logs.py)
    RUN_DIR/logs/cell=0003/_chunk-000012.json     its sidecar: identity, rows, bytes, sha256, summary
                                                  (and the summary's own sha256)
    RUN_DIR/logs/cell=0003/.chunk-000012.*.tmp    temporaries of a write in progress
    RUN_DIR/logs/cell=0003/.chunk-000012.progress games played so far of a chunk in play
    RUN_DIR/rejected/cell=0003/...                chunks that failed verification, set aside
    RUN_DIR/trajectories/cell=0003.parquet        per-round scores of a sample of deals (`write_trajectories`)
    RUN_DIR/report.html, compare.html

`logs/` is a Parquet dataset that standard tools read as it is (`pd.read_parquet(RUN_DIR / "logs")`,
pyarrow's dataset discovery): the folders `cell=0003` are hive partitions (column `cell`), and
every other file zoosim keeps there (sidecars, temporaries, progress notes) has a name starting
with `_` or `.`, which dataset discovery skips. A folder written before sidecars were named so
(`chunk-000012.json`, `SIDECAR_BEFORE_DISCOVERY`) is refused in one line (`_refuse_earlier_layout`).

A chunk is *finished* when its sidecar exists and verifies: the sidecar is written (atomically)
only after the Parquet file is in place, and names the chunk's identity (cell, chunk, first game,
games, a digest of its deal seeds), its row count, size and sha256. `verified_chunks` checks that
against the manifest; a chunk that fails is never used: a run (which holds the lock) moves it to
`rejected/` and plays it again, a report leaves it out. Either way one warning line names the
file and the reason. What is checked depends on what will be used: a run (resume) checks
everything, the deal seeds' digest included; whoever reads the Parquet files (`--from-logs`,
`iter_chunk_tables`) checks their sha256; a report from the summaries uses only the sidecars, so
it checks each sidecar (identity, rows, the summary's own sha256) and that its Parquet file is
there with the recorded size, without reading it (hashing every log would cost a 10 M-game
report about half a second). A Parquet file changed in place at the same size is therefore left
out by a resume or `--from-logs`, while a summary report, which never reads it, still counts the
games its intact sidecar describes.

The lock (`RunLock`) is an flock on `zoosim.lock`, so it is released when its holder dies however
it dies; the file records the holder's pid, host and start time for the refusal message.
`--force` deletes only the files listed above, and only in a folder that holds a zoosim run.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import fcntl
import hashlib
import json
import os
import platform
import shlex
import shutil
import stat
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pydantic

from simulator.digest import json_digest
from simulator.errors import ZoosimError
from simulator.manifest_cell import ManifestCell
from simulator.schema import explain_validation_error, key_path
from simulator.version import __version__

MANIFEST = "manifest.json"
RUN_INFO = "run.json"
EXPERIMENT_COPY = "experiment.yaml"
LOCK = "zoosim.lock"
LOGS_DIR = "logs"
REJECTED_DIR = "rejected"
REPORT = "report.html"
COMPARISON = "compare.html"
SAMPLES = "samples.json"
OWN_FILES = (MANIFEST, RUN_INFO, EXPERIMENT_COPY, SAMPLES, REPORT, COMPARISON)
SIDECAR_FORMAT = 1
# A sidecar's name starts with "_" so that Parquet dataset discovery skips it; before, it was the
# chunk's name with ".json", which made `pd.read_parquet(RUN_DIR / "logs")` fail.
SIDECAR_PREFIX = "_"
SIDECAR_BEFORE_DISCOVERY = "chunk-*.json"

# What the analysis and the runner need of every cell in a manifest (Cell.describe()).
SIDECAR_KEYS = ("format", "identity", "rows", "bytes", "sha256", "summary", "summary_sha256")


_SAID: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("zoosim_warnings_said", default=None)


def warn(message: str) -> None:
    """One warning line on stderr; inside `each_warning_once`, a message already said is not
    repeated (a damaged log read by two parts of one analysis)."""
    said = _SAID.get()
    if said is not None:
        if message in said:
            return
        said.add(message)
    print(f"zoosim: warning: {message}", file=sys.stderr)


@contextlib.contextmanager
def each_warning_once() -> Iterator[None]:
    """Within the block, `warn` says each distinct message once."""
    token = _SAID.set(set())
    try:
        yield
    finally:
        _SAID.reset(token)


# ---- layout -----------------------------------------------------------------------------------

DEFAULT_REPORTS_DIR = Path("reports")  # where runs and tunes go without --out


def default_run_dir(name: str, run_hash: str) -> Path:
    """A run's folder without --out (`zoosim run`, `simulator.run_experiment`): a changed
    experiment gets a new folder, the same experiment resumes its own."""
    return DEFAULT_REPORTS_DIR / f"{name}-{run_hash[:8]}"


def cell_dir(run_dir: Path, cell_index: int) -> Path:
    return Path(run_dir) / LOGS_DIR / f"cell={cell_index:04d}"


def chunk_path(run_dir: Path, cell_index: int, chunk_index: int) -> Path:
    return cell_dir(run_dir, cell_index) / f"chunk-{chunk_index:06d}.parquet"


def sidecar_path(chunk_file: Path) -> Path:
    return chunk_file.with_name(f"{SIDECAR_PREFIX}{chunk_file.stem}.json")


def progress_path(chunk_file: Path) -> Path:
    return chunk_file.with_name(f".{chunk_file.stem}.progress")


def chunk_index_of(path: Path) -> int | None:
    """The chunk index in a file name `chunk-000012.parquet` or `_chunk-000012.json` (its
    sidecar), or None for another name."""
    stem = path.name.split(".")[0].removeprefix(SIDECAR_PREFIX)
    number = stem[len("chunk-"):]
    return int(number) if stem.startswith("chunk-") and number.isdigit() else None


def real_path(path: Path) -> Path:
    """The absolute path with symlinks resolved; a symlink loop is left as it is (to fail with an
    OSError where it is used) instead of raising pathlib's RuntimeError."""
    return Path(os.path.realpath(path))


def resume_command(source: str | None, run_dir: Path) -> str:
    """The command that resumes a run, quoted for a shell (every command zoosim prints for the
    user to paste is `shlex.join`ed: paths may hold spaces, quotes, parentheses or $)."""
    return shlex.join(["zoosim", "run", source or "EXPERIMENT.yaml", "--out", str(run_dir), "--resume"])


def no_games_error(run_dir: Path, manifest: dict[str, Any], kept: str = "") -> ZoosimError:
    """What a reader of a run folder says when no cell has a verified chunk (the logs were
    removed, or every chunk failed verification, which the readers' warnings named): one line
    naming the logs folder and the command that plays the games again; `kept` (", report.html is
    kept as it was") goes after the folder."""
    return ZoosimError(f"no finished game in {Path(run_dir) / LOGS_DIR}{kept}. Resume the run to play its games: "
                       f"{resume_command(manifest.get('experiment_file'), run_dir)}", file=str(run_dir))


def report_command(run_dir: Path) -> str:
    """The command that writes a run's report again, quoted for a shell."""
    return shlex.join(["zoosim", "report", str(run_dir)])


# ---- small atomic writes ----------------------------------------------------------------------

def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write a file so that it exists whole or not at all; a failed write leaves no temporary.
    Only a file (or a symlink, which is replaced) is ever replaced: the new file is renamed over
    the old path, which would turn a device such as `--out /dev/null`, a pipe or a folder into a
    regular file."""
    with contextlib.suppress(OSError):  # a path that cannot be examined fails in the write below
        if not stat.S_ISREG(mode := path.lstat().st_mode) and not stat.S_ISLNK(mode):
            raise ZoosimError("exists and is not a regular file (a folder, device or pipe); "
                              "zoosim only replaces files", file=str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{id(data):x}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):  # on a read-only file system even this fails
            temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):  # named by the file the caller asked for, not the temporary
            raise OSError(error.errno, error.strerror, str(path)) from None
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    write_bytes_atomic(path, json.dumps(data, indent=2, sort_keys=True, default=str).encode())


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def remove_temporaries(run_dir: Path) -> None:
    """Delete half-written files and progress notes left by a killed run."""
    run_dir = Path(run_dir)
    for pattern in (".*.tmp", f"{LOGS_DIR}/cell=*/.*.tmp", f"{LOGS_DIR}/cell=*/.*.progress", f"{TRAJECTORIES_DIR}/.*.tmp"):
        for path in run_dir.glob(pattern):
            path.unlink(missing_ok=True)


def remove_unfinished_chunks(run_dir: Path) -> None:
    """Delete every Parquet chunk without its sidecar: after the run's own workers were stopped
    (a worker killed between writing a chunk and its sidecar leaves one), while holding the lock."""
    for path in Path(run_dir).glob(f"{LOGS_DIR}/cell=*/chunk-*.parquet"):
        if not sidecar_path(path).exists():
            path.unlink(missing_ok=True)


# ---- manifest and run record ------------------------------------------------------------------

def read_manifest(run_dir: Path, experiment_schema: type = dict) -> dict[str, Any]:
    """The manifest of a run folder to read (report, compare, tune). Its experiment is checked
    against `experiment_schema` (the experiment files' own schema, `config.Experiment`, for a
    reader that relies on it), else only as a mapping."""
    manifest = _read_manifest_file(Path(run_dir) / MANIFEST, experiment_schema,
                                   remedy="run the experiment again into a new folder")
    if manifest is None:
        raise ZoosimError("not a zoosim run folder (no manifest.json)", file=str(run_dir))
    return manifest


def read_json(path: Path) -> Any:
    """A JSON file of a run folder, parsed; a ValueError naming the reason when it cannot be read
    or parsed, however it is damaged (unreadable, not UTF-8, malformed, nested too deeply for the
    parser)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:
        raise ValueError(getattr(error, "strerror", None) or str(error) or type(error).__name__) from None


def _manifest_model(experiment_schema: type):
    """The manifest's schema; its experiment is checked by `experiment_schema`."""

    class Manifest(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(strict=True, extra="allow")

        run_hash: str
        experiment: experiment_schema  # type: ignore[valid-type]
        experiment_file: str | None = None
        cells: list[ManifestCell] = pydantic.Field(min_length=1)  # every experiment has a cell

        @pydantic.model_validator(mode="after")
        def _numbered_once(self) -> "Manifest":  # a cell's index names its logs folder
            seen: set[int] = set()
            for position, cell in enumerate(self.cells):
                if cell.index in seen:
                    raise ValueError(f"cells[{position}] repeats index {cell.index}")
                seen.add(cell.index)
            return self

    return Manifest


def _read_manifest_file(path: Path, experiment_schema: type,
                        remedy: str = "pass --force to start over") -> dict[str, Any] | None:
    """The manifest, checked against its schema (`ManifestCell`, `_manifest_model`), its cells
    typed (ManifestCell); None when there is none. `remedy` ends the message of a broken one."""
    if not path.exists():
        return None
    try:
        manifest = read_json(path)
    except ValueError as error:
        raise ZoosimError(f"unreadable manifest ({error}); {remedy}", file=str(path)) from None
    model = _manifest_model(experiment_schema)
    try:
        cells = model.model_validate(manifest).cells
    except pydantic.ValidationError as error:
        message, where = explain_validation_error(model, error)
        if message == "Field required":
            problem = f", lacks {key_path(where)}"
        else:
            problem = f", {key_path(where)}: {message}" if where else f": {message}"
        raise ZoosimError(
            f"damaged manifest{problem} (written by another zoosim version, or edited); {remedy}",
            file=str(path),
        ) from None
    _refuse_earlier_layout(path.parent, remedy)
    manifest["cells"] = cells
    return manifest


def _refuse_earlier_layout(run_dir: Path, remedy: str) -> None:
    """A run folder whose sidecars sit beside the logs under the chunk's own name (zoosim before
    SIDECAR_PREFIX) is not read: its chunks would all look unfinished."""
    earlier = next(Path(run_dir).glob(f"{LOGS_DIR}/cell=*/{SIDECAR_BEFORE_DISCOVERY}"), None)
    if earlier is not None:
        raise ZoosimError(f"was written by an earlier zoosim (sidecars named like {earlier.name}, now "
                          f"{SIDECAR_PREFIX}{earlier.name}); {remedy}", file=str(run_dir))


def _missing_keys(data: Any, keys: tuple[str, ...]) -> list[str]:
    return list(keys) if not isinstance(data, dict) else [key for key in keys if key not in data]


def write_manifest(run_dir: Path, plan, experiment_text: str, source: str | None) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = {
        "zoosim_version": __version__,
        "run_hash": plan.run_hash,
        "experiment": plan.experiment.model_dump(mode="json"),
        "experiment_file": source,
        "cells": [cell.describe().to_json() for cell in plan.cells],
        # a climbing ladder's records (simulator/climb.py), absent without one
        **({"climbs": plan.climbs} if plan.climbs else {}),
    }
    write_json_atomic(run_dir / MANIFEST, manifest)
    write_bytes_atomic(run_dir / EXPERIMENT_COPY, experiment_text.encode("utf-8"))


def read_experiment_text(run_dir: Path) -> str:
    """The experiment file as given (shown in the report only: bytes that are not UTF-8 are
    shown as replacement characters)."""
    path = Path(run_dir) / EXPERIMENT_COPY
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return ""


class _Session(pydantic.BaseModel):
    """One entry of run.json, as `record_session` writes it."""

    model_config = pydantic.ConfigDict(strict=True, extra="allow", allow_inf_nan=False)

    started: str
    seconds: float = pydantic.Field(ge=0)  # playing, without compile_seconds
    compile_seconds: float = pydantic.Field(0.0, ge=0)  # compiling kernels before playing
    games_played: int = pydantic.Field(ge=0)
    jobs: int = pydantic.Field(ge=1)
    backend: str
    machine: str


def read_run_info(run_dir: Path) -> dict[str, Any]:
    """The run record; it is informative only, so a damaged one (or a damaged session in it)
    starts anew, with one warning, instead of stopping a report or a run."""
    path = Path(run_dir) / RUN_INFO
    if not path.exists():
        return {"sessions": []}
    try:
        info = read_json(path)
    except ValueError as error:
        info = {"damaged": str(error)}
    sessions = info.get("sessions") if isinstance(info, dict) else None
    try:
        pydantic.TypeAdapter(list[_Session]).validate_python(sessions)
    except pydantic.ValidationError:
        warn(f"{path}: damaged ({info.get('damaged', 'not a list of sessions') if isinstance(info, dict) else 'not a record'}); "
             "the record of earlier sessions starts anew")
        return {"sessions": []}
    return {**info, "sessions": sessions}


def record_session(run_dir: Path, started_at: str, seconds: float, games: int, jobs: int, backend: str,
                   compile_seconds: float = 0.0) -> None:
    """Append a session to the run record: `seconds` of playing, after `compile_seconds` of
    compiling the kernels (the run's time does not depend on a cold compile cache)."""
    info = read_run_info(run_dir)
    info["sessions"].append(
        {
            "started": started_at,
            "seconds": round(seconds, 3),
            "compile_seconds": round(compile_seconds, 3),
            "games_played": games,
            "jobs": jobs,
            "backend": backend,
            "machine": machine_description(),
        }
    )
    write_json_atomic(Path(run_dir) / RUN_INFO, info)


def machine_description() -> str:
    return f"{platform.node()} · {platform.system()} {platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}"


# ---- preparing a folder -----------------------------------------------------------------------

def prepare_run_dir(run_dir: Path, plan, *, resume: bool, force: bool) -> int:
    """Check, before writing anything, that the folder may hold this run; returns chunks done
    (finished according to their sidecars; `verified_chunks` checks them later)."""
    run_dir = Path(run_dir)
    if run_dir.exists() and not run_dir.is_dir():
        raise ZoosimError("output path exists and is not a folder", file=str(run_dir))
    schema = type(plan.experiment)
    existing = _read_manifest_file(run_dir / MANIFEST, schema) if not force else _manifest_or_none(run_dir, schema)
    done = 0
    if existing is None and _holds_foreign_files(run_dir):
        raise ZoosimError(
            "is not empty and holds no zoosim run (--force only replaces zoosim runs); choose another --out",
            file=str(run_dir),
        )
    if existing is not None and not force:
        if existing.get("run_hash") != plan.run_hash:
            raise ZoosimError(
                f"holds a different experiment (hash {existing.get('run_hash')}, this one is "
                f"{plan.run_hash}); choose another --out or pass --force to replace it",
                file=str(run_dir),
            )
        done = sum(len(list(cell_dir(run_dir, cell.index).glob(f"{SIDECAR_PREFIX}chunk-*.json"))) for cell in plan.cells)
        if not resume:
            raise ZoosimError(
                f"already holds this experiment ({done} of {len(plan.chunks())} chunks done); "
                "pass --resume to continue it or --force to start over",
                file=str(run_dir),
            )
    _check_writable(run_dir)
    return 0 if force else done


def _manifest_or_none(run_dir: Path, experiment_schema: type) -> dict[str, Any] | None:
    """With --force a broken manifest still marks a zoosim run (which is replaced)."""
    try:
        return _read_manifest_file(run_dir / MANIFEST, experiment_schema)
    except ZoosimError:
        return {}


def _holds_foreign_files(run_dir: Path) -> bool:
    return run_dir.is_dir() and any(entry.name != LOCK for entry in run_dir.iterdir())


def _check_writable(run_dir: Path) -> None:
    probe = run_dir
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise ZoosimError(f"cannot write here ({probe} is not a writable folder)", file=str(run_dir))


def clear_run(run_dir: Path) -> None:
    """--force: delete zoosim's own files (never the lock, which the caller holds, and nothing a
    user put there: unknown files, and folders that still hold something, stay)."""
    run_dir = Path(run_dir)
    for name in OWN_FILES:
        (run_dir / name).unlink(missing_ok=True)
    for top in (LOGS_DIR, REJECTED_DIR):
        for folder in sorted((run_dir / top).glob("cell=*")):
            for path in folder.iterdir():
                if chunk_index_of(path) is not None or path.name.startswith(".chunk-"):
                    path.unlink()
            _remove_if_empty(folder)
        _remove_if_empty(run_dir / top)
    for path in (run_dir / TRAJECTORIES_DIR).glob("cell=*.parquet"):
        path.unlink()
    _remove_if_empty(run_dir / TRAJECTORIES_DIR)


def _remove_if_empty(folder: Path) -> None:
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


# ---- the lock ---------------------------------------------------------------------------------

class RunLock:
    """Exclusive use of a run folder by one process: `with RunLock(run_dir): ...`.

    Re-entrant within a process (precision mode plays several rounds under one lock)."""

    _held: dict[Path, tuple[int, int]] = {}  # folder -> (file descriptor, depth)

    def __init__(self, run_dir: Path):
        self.path = real_path(run_dir) / LOCK

    def __enter__(self) -> "RunLock":
        if self.path in self._held:
            descriptor, depth = self._held[self.path]
            self._held[self.path] = (descriptor, depth + 1)
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(descriptor)
            if error.errno not in (errno.EWOULDBLOCK, errno.EACCES):
                raise
            raise ZoosimError(f"is in use by {self._holder()}; wait for it to finish or stop it",
                              file=str(self.path.parent)) from None
        holder = {"pid": os.getpid(), "host": platform.node(),
                  "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(descriptor, 0)
        os.write(descriptor, json.dumps(holder).encode())
        self._held[self.path] = (descriptor, 1)
        return self

    def __exit__(self, *exc_info) -> None:
        descriptor, depth = self._held[self.path]
        if depth > 1:
            self._held[self.path] = (descriptor, depth - 1)
            return
        del self._held[self.path]
        os.close(descriptor)  # releases the flock; the file stays (deleting it would race)

    def _holder(self) -> str:
        try:
            holder = read_json(self.path)
            return f"another zoosim run (pid {holder['pid']} on {holder['host']}, started {holder['started']})"
        except (ValueError, KeyError, TypeError):
            return "another zoosim run"


# ---- chunks -----------------------------------------------------------------------------------

def deal_seeds_digest(seeds: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(seeds, dtype="<u8").tobytes()).hexdigest()[:16]


def chunk_identity(cell: ManifestCell, chunk_index: int, seeds: np.ndarray | None = None,
                   deal_seeds: Callable[[Any, int, int], np.ndarray] | None = None) -> dict[str, Any]:
    """What a chunk of a manifest cell must be: cell, chunk, first game, games, the cell's seed
    entropy and a digest of the chunk's deal seeds: of `seeds` when the caller has them (the
    worker that played them), else generated again by `deal_seeds(seed_entropy, chunk_index,
    deals)` (the plan's `deal_seeds`); without either, no digest."""
    games_per_deal = cell.games_per_deal
    first_deal = chunk_index * cell.chunk_deals
    deals = min(cell.chunk_deals, cell.deals - first_deal)
    identity = {
        "cell": cell.index,
        "chunk": chunk_index,
        "first_game": first_deal * games_per_deal,
        "games": deals * games_per_deal,
        "seed_entropy": list(cell.seed_entropy),
    }
    if seeds is None and deal_seeds is not None:
        seeds = deal_seeds(cell.seed_entropy, chunk_index, deals)
    if seeds is not None:
        identity["seeds"] = deal_seeds_digest(seeds)
    return identity


def parquet_options(schema) -> dict[str, Any]:
    """pyarrow.parquet.write_table's options for a chunk with this Arrow schema.

    Game records are small integers with few distinct values: delta bit-packing shrinks them
    before zstd sees them, which halves the write's CPU time against dictionary encoding for
    smaller files. Nothing filters on min/max, so no statistics."""
    import pyarrow as pa

    integers = [field.name for field in schema if pa.types.is_integer(field.type)]
    return {"compression": "zstd", "use_dictionary": False, "write_statistics": False,
            "column_encoding": dict.fromkeys(integers, "DELTA_BINARY_PACKED")}


def write_chunk(run_dir: Path, identity: dict[str, Any], table, summary: dict[str, Any]) -> None:
    """Write a chunk's Parquet file, then its sidecar: the chunk counts once both are in place."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **parquet_options(table.schema))
    data = sink.getvalue().to_pybytes()
    path = chunk_path(run_dir, identity["cell"], identity["chunk"])
    sidecar_path(path).unlink(missing_ok=True)  # an old sidecar never vouches for a new file
    write_bytes_atomic(path, data)
    try:
        write_json_atomic(sidecar_path(path), {
            "format": SIDECAR_FORMAT, "identity": identity, "rows": table.num_rows, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(), "summary": summary,
            "summary_sha256": json_digest(summary),
        })
    except BaseException:
        path.unlink(missing_ok=True)  # no sidecar, no chunk: never leave a Parquet file unvouched for
        raise


def verified_chunks(run_dir: Path, cell: ManifestCell, *, set_aside: bool, read_logs: bool = True,
                    deal_seeds: Callable[[Any, int, int], np.ndarray] | None = None) -> dict[int, dict[str, Any]]:
    """Chunk index -> sidecar of every finished chunk of a manifest cell that verifies.

    A chunk that fails gets one warning. With `set_aside` (a run, which holds the lock) it is
    moved to `rejected/`, to be played again. With `deal_seeds` (a run: the plan's `deal_seeds`,
    see `chunk_identity`) its deal seeds are generated again to check their digest; a report
    checks everything else (the seeds follow from the cell's seed entropy, which it checks, and
    generating them would cost more than the whole report).
    `read_logs` says the caller reads the Parquet files, which are then hashed; without it only
    their size is checked (the module docstring says why). A Parquet file without a sidecar is
    a chunk still being written (a report leaves it alone) or one whose run was killed (a run
    sets it aside). Files are hashed in parallel threads.
    """
    from concurrent.futures import ThreadPoolExecutor

    folder = cell_dir(run_dir, cell.index)
    # A chunk past the cell's count is left alone, neither used nor set aside: it belongs to a
    # larger plan of the same cell (a racing round or a precision growth that had finished when a
    # resume replays an earlier, smaller round), and is checked when the cell grows to it.
    indices = sorted(index for index in {chunk_index_of(path) for path in _folder_entries(run_dir, folder)} - {None}
                     if index < cell.chunks)

    def check(index: int) -> tuple[str | None, dict[str, Any] | None]:
        return _chunk_problem(run_dir, cell, index, deal_seeds, read_logs or set_aside)

    if len(indices) < 2:  # starting threads for one chunk costs more than checking it (10,000-cell runs)
        checked = [check(index) for index in indices]
    else:
        with ThreadPoolExecutor(max_workers=min(len(indices), os.cpu_count() or 1)) as pool:
            checked = list(pool.map(check, indices))
    good: dict[int, dict[str, Any]] = {}
    for index, (problem, sidecar) in zip(indices, checked):
        path = chunk_path(run_dir, cell.index, index)
        if problem is None:
            good[index] = sidecar
        elif set_aside:
            set_chunk_aside(run_dir, cell.index, index, problem)
        elif sidecar_path(path).exists():
            warn(f"{path}: {problem}; its games are left out (resume the run to play it again)")
    return good


def _folder_entries(run_dir: Path, folder: Path) -> list[Path]:
    """What a cell's folder holds; nothing when it does not exist yet (no chunk finished). A
    folder that cannot be read (`logs` a file, a symlink loop, no permission) is one line naming
    it, never taken for a run without games (a report would replace a good one with an empty one)."""
    try:
        return list(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError as error:
        logs = Path(run_dir) / LOGS_DIR
        try:
            os.listdir(logs)
            unreadable = folder
        except OSError as logs_error:
            unreadable, error = logs, logs_error
        raise ZoosimError(f"cannot be read as the run's game logs ({error.strerror or error}); nothing is written: "
                          "make it a readable folder again, or move it away to play the games again",
                          file=str(unreadable)) from None


def _chunk_problem(run_dir: Path, cell: ManifestCell, index: int,
                   deal_seeds: Callable[[Any, int, int], np.ndarray] | None,
                   with_content: bool) -> tuple[str | None, dict[str, Any] | None]:
    """(why the chunk cannot be used, or None; its sidecar). `with_content`: hash the file too."""
    path = chunk_path(run_dir, cell.index, index)
    if not sidecar_path(path).exists():
        return "unfinished (no sidecar)", None
    try:
        sidecar = read_json(sidecar_path(path))
    except ValueError:
        return "unreadable sidecar", None
    if _missing_keys(sidecar, SIDECAR_KEYS) or sidecar["format"] != SIDECAR_FORMAT or not isinstance(sidecar["identity"], dict):
        return "sidecar of another format", None
    expected = chunk_identity(cell, index, deal_seeds=deal_seeds)
    if {key: sidecar["identity"].get(key) for key in expected} != expected:
        return f"its sidecar describes another chunk ({_identity_text(sidecar['identity'])})", None
    if sidecar["rows"] != expected["games"]:
        return f"holds {sidecar['rows']} games, the chunk has {expected['games']}", None
    if json_digest(sidecar["summary"]) != sidecar["summary_sha256"]:
        return "its sidecar's summary was changed", None
    try:
        data = path.read_bytes() if with_content else None
        size = len(data) if with_content else path.stat().st_size
    except FileNotFoundError:
        return "missing (only its sidecar exists)", None
    except OSError as error:
        return f"unreadable ({error.strerror})", None
    if size != sidecar["bytes"]:
        return f"truncated or replaced ({size} bytes, its sidecar says {sidecar['bytes']})", None
    if with_content and hashlib.sha256(data).hexdigest() != sidecar["sha256"]:
        return "changed since it was written (sha256 differs from its sidecar)", None
    return None, sidecar


def _identity_text(identity: dict[str, Any]) -> str:
    return (f"cell {identity.get('cell')} chunk {identity.get('chunk')}, games from {identity.get('first_game')}, "
            f"seed entropy {identity.get('seed_entropy')}")


def set_chunk_aside(run_dir: Path, cell_index: int, chunk_index: int, why: str) -> None:
    """Move a chunk of a run (its Parquet file and sidecar, as far as they exist) to `rejected/`
    with one warning saying why; the run plays it again."""
    path = chunk_path(run_dir, cell_index, chunk_index)
    if path.exists() or sidecar_path(path).exists():
        warn(f"{path}: {why}; set aside in {REJECTED_DIR}/ and played again")
        _set_aside(run_dir, path)


def _set_aside(run_dir: Path, path: Path) -> None:
    target_dir = Path(run_dir) / REJECTED_DIR / path.parent.name
    target_dir.mkdir(parents=True, exist_ok=True)
    sources = (path, sidecar_path(path))
    attempt = 0
    while any((target_dir / f"{source.stem}.{attempt}{source.suffix}").exists() for source in sources):
        attempt += 1
    for source in sources:
        if source.exists():
            shutil.move(source, target_dir / f"{source.stem}.{attempt}{source.suffix}")


def iter_chunk_tables(run_dir: Path, cell: ManifestCell, columns: list[str] | None = None,
                      filters: Any = None) -> Iterator:
    """A cell's verified chunk tables in chunk order, one at a time (memory stays flat): only
    `columns` (None: all), only the rows of the pyarrow expression `filters` (None: all)."""
    import pyarrow.parquet as pq

    for index in verified_chunks(run_dir, cell, set_aside=False):
        yield pq.read_table(chunk_path(run_dir, cell.index, index), columns=columns, filters=filters)


# ---- trajectories: per-round scores of a sample of deals (issue #43) ---------------------------
#
#     RUN_DIR/trajectories/cell=0003.parquet   one row per (sampled game, round): deal, rotation,
#                                              round, score_<seat>, win_<seat>; its identity in
#                                              the file's metadata (`trajectory_identity`)
#
# A cell's file is written whole (atomically) once its sample is replayed (simulator/trajectories.py)
# and used only when its identity matches the manifest cell; a resume replays a cell whose file is
# missing or does not match, and nothing else.

TRAJECTORIES_DIR = "trajectories"
TRAJECTORY_FORMAT = 1
TRAJECTORY_IDENTITY_KEY = b"zoosim_trajectory_identity"


def trajectory_path(run_dir: Path, cell_index: int) -> Path:
    return Path(run_dir) / TRAJECTORIES_DIR / f"cell={cell_index:04d}.parquet"


def trajectory_sample_deals(cell: ManifestCell) -> int:
    """The deals of a manifest cell whose games are replayed round by round: its first
    `trajectory_deals` (0 for a manifest written before the setting existed)."""
    return min(cell.trajectory_deals, cell.deals)


def trajectory_identity(cell: ManifestCell) -> dict[str, Any]:
    """What a cell's trajectory file must be: the games of the cell's first sampled deals (its
    seed entropy, rotation, seats and rules) and the sample's size."""
    return {"format": TRAJECTORY_FORMAT, "cell": cell.index, "seed_entropy": list(cell.seed_entropy),
            "rotate": cell.rotate, "seats": list(cell.seats), "params_hash": cell.params_hash,
            "players": cell.players, "deals": trajectory_sample_deals(cell)}


def write_trajectories(run_dir: Path, cell: ManifestCell, table) -> None:
    """Write a cell's trajectory table, its identity in the file's metadata, whole or not at all."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    identity = json.dumps(trajectory_identity(cell), sort_keys=True).encode()
    table = table.replace_schema_metadata({TRAJECTORY_IDENTITY_KEY: identity})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **parquet_options(table.schema))
    write_bytes_atomic(trajectory_path(run_dir, cell.index), sink.getvalue().to_pybytes())


def trajectories_kept(run_dir: Path, cell: ManifestCell) -> bool:
    """Whether the cell's trajectory file is kept for its sample: asked for, written, readable and
    of this sample (its identity, read from the file's footer alone, matches the cell's)."""
    import pyarrow.parquet as pq

    path = trajectory_path(run_dir, cell.index)
    if trajectory_sample_deals(cell) == 0 or not path.is_file():
        return False
    try:
        kept = json.loads((pq.read_schema(path).metadata or {}).get(TRAJECTORY_IDENTITY_KEY, b"null"))
    except (OSError, ValueError):
        return False
    return kept == trajectory_identity(cell)


def read_trajectories(run_dir: Path, cell: ManifestCell):
    """A cell's trajectory table (pyarrow), or None: no sample asked, none written yet, or a file
    that is unreadable or belongs to another sample (a changed `trajectory_deals`)."""
    import pyarrow.parquet as pq

    if not trajectories_kept(run_dir, cell):
        return None
    try:
        return pq.read_table(trajectory_path(run_dir, cell.index))
    except (OSError, ValueError):
        return None
