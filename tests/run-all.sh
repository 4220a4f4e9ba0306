#!/usr/bin/env bash
# Installs everything the tests need and runs them: the README's test command, and CI's (.ci/run).
#   - Debian's chromium for the report's browser test (apt-get, as root or through sudo);
#   - a virtual environment in .venv with zoosim and its test extras, and the example game
#     plugin examples/zoosim-feeding-time;
#   - one game of each engine variant of both games (tests/warm_kernels.yaml), so that an empty
#     kernel cache is filled by both cores at once, then of their checked heuristic variants
#     (tests/warm_checked_kernels.yaml) and a game of each through the step API (`zoosim play`),
#     which many test modules play;
#   - the pytest suite on every core (pytest-xdist, -n auto; extra arguments are passed to
#     pytest, `-n 0` runs it in one process) but for the heavier checks marked `slow` (large
#     random-game sweeps, fresh installs, killed processes: about half the suite's CPU time);
#     `--with-slow` as the first argument runs them too, as CI does (.ci/run). It also builds the documentation site strictly
#     (mkdocs.yml) and executes the example notebook (tests/test_docs.py). worksteal hands each
#     worker a contiguous half of the tests (so a module's fixtures mostly run once) and lets an
#     idle worker take the other's remaining tests.
set -euo pipefail
cd "$(dirname "$0")/.."

MARKERS="not slow"
if [ "${1:-}" = "--with-slow" ]; then
  MARKERS="slow or not slow"
  shift
fi

if ! command -v chromium >/dev/null 2>&1; then
  echo "run-all: installing Debian's chromium for the browser test" >&2
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# with the example game plugin, so the conformance test also runs on it as an installed package
# (one pip command: pip's start-up and dependency check once)
.venv/bin/python -m pip install -q -e '.[test]' -e examples/zoosim-feeding-time
# Versions of zoosim before 2026-11-30 let numba write its cache into site-packages/simulator/,
# which pip leaves behind when the editable install replaces a regular one; that folder, now
# without __init__.py, would shadow the editable install. Remove such a leftover.
SITE="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
if [ -d "$SITE/simulator" ] && [ ! -e "$SITE/simulator/__init__.py" ]; then
  rm -rf "$SITE/simulator"
fi
# Compile both games' kernels at once, one per core (a no-op when they are cached already).
WARM="$(mktemp -d)"
.venv/bin/zoosim run tests/warm_kernels.yaml --out "$WARM/run" --jobs 2 --no-report --quiet >/dev/null
# ... then, at the same time, the checked heuristic variants (the engines compile their invariants
# only into checked batches) and the step API's kernels (`zoosim play`, which many test modules
# drive), so that the test workers do not each compile them. The one slow test per game that
# plays a checked search compiles that variant itself, on its own worker, while the other worker
# goes on testing.
.venv/bin/zoosim run tests/warm_checked_kernels.yaml --out "$WARM/checked" --jobs 2 --no-report --quiet --check >/dev/null &
CHECKED=$!
.venv/bin/zoosim play nyz --seed 1 >/dev/null
.venv/bin/zoosim play katz --seed 1 >/dev/null
wait "$CHECKED"
rm -rf "$WARM"
exec .venv/bin/python -m pytest -n auto --dist worksteal -m "$MARKERS" "$@"
