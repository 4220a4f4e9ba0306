"""The optimiser's journal, `optuna.journal` in the tune folder: optuna's append-only file of JSON
records, one a line, which holds every trial of a tune. This module checks it before a tune
reads or writes it, and opens it for optuna.

Crash safety. optuna appends each group of records with one write that ends in a line break, so
a crash mid-write (SIGKILL, power loss, a full disk) leaves at most the last line cut short,
without its line break. Such a line is an incomplete record: it is dropped with a one-line
warning and cut off the file before anything is appended (optuna would otherwise glue its next
record to it, making a damaged line in the middle that no later resume can read). A last line
that is a whole record but lost its line break gets the line break back. Any other damage (a
line in the middle that is not a record, binary content, a folder or device in the journal's
place, an unreadable file) is refused in one line naming the file, the line and what to do, and
nothing is written.

Locking. The tune folder's `RunLock` already makes one process the journal's only writer, so
the journal is opened without optuna's own lock, a symlink made and removed around every write:
a killed tune left it behind (the next one waited out its grace period), and a SIGTERM arriving
while it was removed raised "No such file or directory" in place of the termination (issue #22,
finding 5).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

import optuna
from optuna.storages.journal import JournalFileBackend

from simulator.errors import ZoosimError
from simulator.rundir import warn

JOURNAL = "optuna.journal"
LINE_BREAK = b"\n"


@dataclass(frozen=True)
class JournalCheck:
    """What a journal holds: `intact` bytes of whole records; `records` of them; `cut_line`, the
    number of an incomplete last line to drop (None when there is none); `lost_break`, whether the
    last record lacks its line break."""

    intact: int
    records: int
    cut_line: int | None = None
    lost_break: bool = False


def check_journal(path: Path) -> JournalCheck | None:
    """Read the whole journal and say what it holds (None when there is none yet); a ZoosimError
    for any damage but a cut last line. Reads only."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _damaged(path, f"cannot be examined ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise _damaged(path, f"is {kind}, not the optimiser's journal; move it away and resume")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise _damaged(path, f"cannot be read ({error.strerror})") from None
    lines = data.split(LINE_BREAK)
    tail = lines.pop()  # what follows the last line break: b"" when the file ends with one
    offset = 0
    for number, line in enumerate(lines, start=1):
        problem = _record_problem(line)
        if problem is not None:
            raise _damaged(path, f"line {number} {problem}; {_keep_before(path, number)}")
        offset += len(line) + len(LINE_BREAK)
    if not tail:
        return JournalCheck(offset, len(lines))
    if _record_problem(tail) is None:
        return JournalCheck(len(data), len(lines) + 1, lost_break=True)
    return JournalCheck(offset, len(lines), cut_line=len(lines) + 1)


def _record_problem(line: bytes) -> str | None:
    """Why a line is not one of optuna's records (a JSON object with an op_code), or None."""
    try:
        record = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return "is binary, not a record"
    except (ValueError, RecursionError):
        return "is not a record (not JSON)"
    if not isinstance(record, dict) or not isinstance(record.get("op_code"), int):
        return "is not an optimiser record"
    return None


def _keep_before(path: Path, number: int) -> str:
    """What to do about a damaged line: keep the records before it, or start over."""
    if number == 1:
        return "pass --force to start the tune over"
    kept = f"{path}.kept"
    cut = f"head -n {number - 1} {shlex.quote(str(path))} > {shlex.quote(kept)} && mv {shlex.quote(kept)} {shlex.quote(str(path))}"
    return f"to keep the trials before it, cut the journal there ({cut}) and resume, or pass --force to start over"


def _damaged(path: Path, problem: str) -> ZoosimError:
    return ZoosimError(f"the optimiser's journal {problem}", file=str(path))


def repair_journal(path: Path) -> None:
    """Check the journal and, when its last write was cut short, drop that incomplete record (one
    warning) or give a whole last record its line break, before anything is appended."""
    found = check_journal(path)
    if found is None or (found.cut_line is None and not found.lost_break):
        return
    if found.cut_line is not None:
        warn(f"{path}: line {found.cut_line} is an incomplete record (a write was cut short); it is dropped "
             f"and the tune goes on from the {found.records} whole records before it")
        os.truncate(path, found.intact)
    else:
        with open(path, "ab") as handle:
            handle.write(LINE_BREAK)


class _HeldByRunLock:
    """A journal lock (optuna's `acquire`/`release` interface) that is no lock of its own: the
    tune folder's RunLock already excludes every other writer."""

    def acquire(self) -> bool:
        return True

    def release(self) -> None:
        pass


def journal_storage(out: Path) -> optuna.storages.JournalStorage:
    """The tune folder's journal as optuna's storage, repaired first (see the module docstring)."""
    path = out / JOURNAL
    repair_journal(path)
    return optuna.storages.JournalStorage(JournalFileBackend(str(path), lock_obj=_HeldByRunLock()))
