"""Digests of JSON data: the one definition of the hashes that name a run (its run hash), seed a
cell, name a rule setting (params hash) and vouch for a chunk's summary in its sidecar.

A digest is the sha256 of the data as canonical JSON (keys sorted, json's default separators,
values JSON cannot write given as their str(), as `rundir.write_json_atomic` writes them). The
run hash and the cell seeds depend on these exact bytes: changing the encoding changes every run
folder's name and every game played.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

SHORT = 16  # hex digits of the short digests that name runs, cells' seed entropy and rule settings


def json_digest(data: Any, length: int = 64) -> str:
    """The first `length` hex digits of the sha256 of `data` as canonical JSON."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:length]
