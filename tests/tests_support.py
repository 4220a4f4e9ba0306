"""Helpers shared by test modules."""

import hashlib
import json


def log_digests(run_dir):
    """Chunk file name -> sha256 of its bytes: byte-identical logs give identical dicts."""
    logs = run_dir / "logs"
    return {
        str(path.relative_to(logs)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(logs.rglob("*.parquet"))
    }


def lock_holder(run_dir):
    """The pid recorded in a run folder's lock file, or None."""
    try:
        return json.loads((run_dir / "zoosim.lock").read_text())["pid"]
    except (OSError, ValueError):
        return None
