"""The project's own exceptions: problems a user can fix (one line, exit status 2), and SIGTERM."""


class ZoosimError(Exception):
    """A user-fixable problem. `str(error)` is the whole one-line message the CLI prints: line
    breaks and other control characters from the input (a key, a file name) are escaped."""

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.file = file
        self.key = key
        self.detail = message
        where = ": ".join(part for part in (file, key) if part)
        super().__init__(_one_line(f"{where}: {message}" if where else message))


class WriteFailed(ZoosimError):
    """The system refused a write of a run, a training or a tune (a full disk, a read-only folder,
    a quota): what is finished is kept and the message names the folder and the command that
    resumes; `reason` is the system's word."""

    def __init__(self, reason: str, run_dir: str, resume: str, *, what: str = "the run",
                 kept: str = "every finished chunk"):
        self.reason = reason
        super().__init__(f"{reason} while writing {what}; {kept} is kept. Resume with: {resume}", file=run_dir)


def _one_line(text: str) -> str:
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class Terminated(KeyboardInterrupt):
    """SIGTERM: ends a command as Ctrl-C does (a run keeps its finished chunks, workers stop),
    with exit status 143 instead of 130."""
