"""Keeps numba's on-disk kernel cache honest.

numba invalidates a cached kernel only when the kernel's own source file changes, but game
kernels inline functions from their sibling modules and from `rng.py`. A game package calls
`drop_stale_kernels(__file__)` on import: when any of those sources changed since the cache was
written, the package's cached kernels are deleted and recompiled, so a stale compiled rule can
never run.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SHARED_SOURCES = ("rng.py",)


def drop_stale_kernels(package_init: str) -> None:
    package = Path(package_init).parent
    sources = sorted(package.glob("*.py")) + [package.parent / name for name in SHARED_SOURCES]
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()
    cache = package / "__pycache__"
    stamp = cache / "kernels.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for path in cache.glob("*.nb[ic]"):
            path.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba cannot cache there either
        pass
