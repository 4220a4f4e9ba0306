#!/usr/bin/env bash
# Installs everything the tests need and runs them: the README's test command, and CI's (.ci/run).
#   - zoosim with its own dependencies in a virtual environment in .venv (all the kernel warm-ups
#     need), then, while the warm-ups run: Debian's chromium for the report's browser test
#     (apt-get, as root or through sudo), the test extras and the example game plugin
#     examples/zoosim-feeding-time;
#   - the kernel warm-ups in two chains at once, one per core, so that an empty kernel cache is
#     filled by both cores: one game of each engine variant of Katz (tests/warm_katz_kernels.yaml,
#     with the chunk summaries' kernels first), then a Katz game through the step API (`zoosim
#     play`, which many test modules drive); and, on the other core, a New York Zoo game through
#     the step API (first, so that the summaries' warm marker is written by then and their
#     kernels compile once), one game of each of its engine variants (tests/warm_nyz_kernels.yaml),
#     then the checked heuristic variants of both games (tests/warm_*_checked_kernels.yaml: the
#     engines compile their invariants only into checked batches). So split, the two chains took
#     about as long (2026-12-02, load 5-10, empty cache: Katz's variants 14.7 min and its step
#     API 0.3, New York Zoo's chain 12.9, Katz's checked variants 1.6). The one slow test per
#     game that plays a checked search compiles that variant itself, on its own worker, while the
#     other worker goes on testing;
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

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q -e .
# Versions of zoosim before 2026-11-30 let numba write its cache into site-packages/simulator/,
# which pip leaves behind when the editable install replaces a regular one; that folder, now
# without __init__.py, would shadow the editable install. Remove such a leftover.
SITE="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
if [ -d "$SITE/simulator" ] && [ ! -e "$SITE/simulator/__init__.py" ]; then
  rm -rf "$SITE/simulator"
fi

# The warm-ups, one chain per core (each a no-op that loads a few kernels when they are cached).
WARM="$(mktemp -d)"
warm_up() {  # NAME [--check]: one game of each study of tests/NAME.yaml, on one core
  .venv/bin/zoosim run "tests/$1.yaml" --out "$WARM/$1" --jobs 1 --no-report --quiet "${@:2}" >/dev/null
}
set -m  # each chain in a process group of its own, which the trap below can end as a whole
(warm_up warm_katz_kernels; .venv/bin/zoosim play katz --seed 1 >/dev/null) &
KATZ=$!
(.venv/bin/zoosim play nyz --seed 1 >/dev/null; warm_up warm_nyz_kernels
 warm_up warm_nyz_checked_kernels --check; warm_up warm_katz_checked_kernels --check) &
NYZ=$!
set +m
trap 'kill -- -"$KATZ" -"$NYZ" 2>/dev/null || true; rm -rf "$WARM"' EXIT  # a failed install ends the warm-ups

if ! command -v chromium >/dev/null 2>&1; then
  echo "run-all: installing Debian's chromium for the browser test" >&2
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# The test extras (their requirements, read from the installed metadata: `pip install -e
# '.[test]'` would reinstall zoosim itself under the running warm-ups) and the example game
# plugin, so the conformance test also runs on it as an installed package (one pip command:
# pip's start-up and dependency check once).
.venv/bin/python -c 'from importlib.metadata import requires
print("\n".join(r.split(";")[0] for r in requires("zoosim") if "extra == \"test\"" in r))' >"$WARM/test-extras.txt"
.venv/bin/python -m pip install -q -r "$WARM/test-extras.txt" -e examples/zoosim-feeding-time -e examples/zoosim-tictactoe

wait "$KATZ"
wait "$NYZ"
trap - EXIT
rm -rf "$WARM"
exec .venv/bin/python -m pytest -n auto --dist worksteal -m "$MARKERS" "$@"
