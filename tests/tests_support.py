"""Helpers shared by test modules."""

import hashlib


def log_digests(run_dir):
    """Chunk file name -> sha256 of its bytes: byte-identical logs give identical dicts."""
    logs = run_dir / "logs"
    return {
        str(path.relative_to(logs)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(logs.rglob("*.parquet"))
    }
