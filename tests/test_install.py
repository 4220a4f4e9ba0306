"""The README's two commands in order, as a new user runs them (issue 12, finding 1).

A fresh virtual environment gets a regular install (`pip install .`, the quick start), and the
installed `zoosim` console script runs; then the same environment gets the editable install
(`pip install -e .`; tests/run-all.sh adds the test extras, whose install the test command itself
exercises every time it runs, so installing them again here would only cost minutes) and `zoosim`
runs again.
A regular install once left numba's cache files in `site-packages/simulator/`; pip did not remove
them, and that folder then shadowed the editable install (`cannot import name '__version__'`).
Kernels are now cached per user outside the package (simulator/games/kernel_cache.py), keyed by
the sources' content, so the editable install also reuses the regular install's kernels.

Installs from a copy of the repository (so no build files land in the checkout) and uses pip's
download cache; the numba cache is a fresh folder, so the first `zoosim play` really compiles.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOT_SHIPPED = (".git", ".venv", "venv", "reports", "__pycache__", "*.egg-info", "build", "dist",
               ".pytest_cache", ".hypothesis", "*.parquet")


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.mark.slow
def test_regular_then_editable_install_both_run_the_installed_command(tmp_path):
    checkout = tmp_path / "zoosim"
    shutil.copytree(REPO, checkout, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python, zoosim = bindir / "python", bindir / "zoosim"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                    checkout, env).stdout.strip())
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]

    run(pip + ["."], checkout, env)
    assert "valid experiment file. 8 cell(s)" in run([str(zoosim), "validate", "experiments/seat_bias.yaml"], checkout, env).stdout
    first = run([str(zoosim), "play", "katz", "--seed", "1"], tmp_path, env)
    assert first.stdout.startswith("key: ") and "winners: seat" in first.stdout
    assert "compiling the katz engine" in first.stderr
    installed = {line.split(",")[0] for line in
                 next(site.glob("zoosim-*.dist-info")).joinpath("RECORD").read_text().splitlines()}
    written = {path.relative_to(site).as_posix() for path in (site / "simulator").rglob("*") if path.is_file()}
    assert written <= installed, f"files in the package that pip does not own: {sorted(written - installed)[:5]}"

    run(pip + ["-e", "."], checkout, env)
    assert not (site / "simulator").exists()
    again = run([str(zoosim), "play", "katz", "--seed", "1"], tmp_path, env)
    assert again.stdout == first.stdout
    assert "compiling" not in again.stderr  # the regular install's kernels are reused
    assert "valid experiment file." in run([str(zoosim), "validate", "experiments/seat_bias.yaml"], checkout, env).stdout
