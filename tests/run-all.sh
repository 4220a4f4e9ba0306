#!/usr/bin/env bash
# Installs everything the tests need and runs them: the README's test command, and CI's (.ci/run).
#   - zoosim with its own dependencies in a virtual environment in .venv (all the kernel warm-ups
#     need), then, while the warm-ups run: Debian's chromium for the report's browser test
#     (apt-get, as root or through sudo), the test extras and the example game plugins
#     examples/zoosim-feeding-time and examples/zoosim-tictactoe;
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
#   - all along, a line on stderr naming each phase as it starts ("run-all: installing zoosim
#     into .venv", ..., "run-all: running pytest on every core") and, every HEARTBEAT_SECONDS
#     while it waits, a heartbeat naming the phase still under way and what each warm-up chain
#     does (its step, or the kernel it compiles: "compiling katz: kernel 12 of 45, about 30 s
#     left"); the chains write their own output to logs, shown only if they fail;
#   - the pytest suite on every core (pytest-xdist, -n auto; extra arguments are passed to
#     pytest, `-n 0` runs it in one process) but for the heavier checks marked `slow` (large
#     random-game sweeps, fresh installs, killed processes: about half the suite's CPU time);
#     `--with-slow` as the first argument runs them too, as CI does (.ci/run). It also builds the documentation site strictly
#     (mkdocs.yml) and executes the example notebook (tests/test_docs.py). worksteal hands each
#     worker a contiguous half of the tests (so a module's fixtures mostly run once) and lets an
#     idle worker take the other's remaining tests.
set -euo pipefail

HEARTBEAT_SECONDS="${HEARTBEAT_SECONDS:-20}"  # the longest the script is silent while it waits (a phase line every 30 s at most)
HEART="" KATZ="" NYZ=""  # the process groups of the heartbeat and of the two warm-up chains
STATUS=""  # a folder of this run: the current phase (file `phase`), each warm-up chain's log (`CHAIN.log`)

phase() {  # TEXT: what the script does now, one line on stderr, and in $STATUS/phase for the heartbeat
  echo "run-all: $*" >&2
  if [ -n "$STATUS" ]; then echo "$*" >"$STATUS/phase"; fi
}

chain_status() {  # CHAIN: what that warm-up chain does now: the last step or compile line of its log
  local line  # (a status line rewritten in place ends in a carriage return and may start with an erase-line code)
  line="$(tr '\r' '\n' <"$STATUS/$1.log" 2>/dev/null | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' \
          | grep -E '^(step: |compiling |.* compiled in )' | tail -n 1 || true)"
  line="${line#step: }"
  echo "${line%% (once per machine*}"
}

heartbeat() {  # every HEARTBEAT_SECONDS: the phase still under way and what each warm-up chain does
  local chain report
  while sleep "$HEARTBEAT_SECONDS"; do
    report="still $(cat "$STATUS/phase" 2>/dev/null || true)"
    for chain in katz nyz; do
      if [ -e "$STATUS/$chain.done" ]; then
        report+="; $chain warm-ups done"
      elif [ -e "$STATUS/$chain.log" ]; then
        report+="; $chain warm-ups: $(chain_status "$chain")"
      fi
    done
    echo "run-all: $report" >&2
  done
}

step() {  # CHAIN TEXT: a warm-up chain starts a step (its log, read by the heartbeat)
  echo "step: $2" >>"$STATUS/$1.log"
}

warm_up() {  # CHAIN NAME [--check]: one game of each study of tests/NAME.yaml, on one core
  step "$1" "playing one game of each study of tests/$2.yaml"
  .venv/bin/zoosim run "tests/$2.yaml" --out "$STATUS/$2" --jobs 1 --no-report "${@:3}" >/dev/null 2>>"$STATUS/$1.log"
}

play_one() {  # CHAIN GAME: one game through the step API (`zoosim play`), which many test modules drive
  step "$1" "playing one $2 game through the step API (zoosim play)"
  .venv/bin/zoosim play "$2" --seed 1 >/dev/null 2>>"$STATUS/$1.log"
}

end_chain() {  # CHAIN STATUS: the chain is over; its log on stderr if it failed
  if [ "$2" -ne 0 ]; then
    phase "the $1 warm-ups failed (exit status $2); their log:"
    tr '\r' '\n' <"$STATUS/$1.log" >&2
    exit "$2"
  fi
  touch "$STATUS/$1.done"
}

main() {
  cd "$(dirname "$0")/.."
  local markers="not slow"
  if [ "${1:-}" = "--with-slow" ]; then
    markers="slow or not slow"
    shift
  fi
  STATUS="$(mktemp -d)"
  set -m  # the heartbeat and each warm-up chain in a process group of its own, which the trap can end as a whole
  heartbeat &
  HEART=$!
  set +m
  trap 'kill -- -"$HEART" ${KATZ:+-"$KATZ"} ${NYZ:+-"$NYZ"} 2>/dev/null || true; rm -rf "$STATUS"' EXIT

  phase "installing zoosim into .venv"
  if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
  fi
  .venv/bin/python -m pip install -q -e .
  # Versions of zoosim before 2026-11-30 let numba write its cache into site-packages/simulator/,
  # which pip leaves behind when the editable install replaces a regular one; that folder, now
  # without __init__.py, would shadow the editable install. Remove such a leftover.
  local site
  site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
  if [ -d "$site/simulator" ] && [ ! -e "$site/simulator/__init__.py" ]; then
    rm -rf "$site/simulator"
  fi

  # The warm-ups, one chain per core (each a no-op that loads a few kernels when they are
  # cached). Their progress goes to their logs (never a terminal: two processes rewriting one
  # status line in place ran into each other and into pip's output); the heartbeat reports it.
  phase "compiling the game kernels in two chains, one per core (progress every ${HEARTBEAT_SECONDS} s)"
  set -m
  (warm_up katz warm_katz_kernels && play_one katz katz) &
  KATZ=$!
  (play_one nyz nyz && warm_up nyz warm_nyz_kernels && warm_up nyz warm_nyz_checked_kernels --check \
   && warm_up nyz warm_katz_checked_kernels --check) &
  NYZ=$!
  set +m

  if ! command -v chromium >/dev/null 2>&1; then
    phase "installing Debian's chromium for the browser test"
    local sudo="sudo"
    if [ "$(id -u)" -eq 0 ]; then sudo=""; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
  fi
  # The test extras (their requirements, read from the installed metadata: `pip install -e
  # '.[test]'` would reinstall zoosim itself under the running warm-ups) and the example game
  # plugin, so the conformance test also runs on it as an installed package (one pip command:
  # pip's start-up and dependency check once).
  phase "installing the test extras and the example game plugins into .venv"
  .venv/bin/python -c 'from importlib.metadata import requires
print("\n".join(r.split(";")[0] for r in requires("zoosim") if "extra == \"test\"" in r))' >"$STATUS/test-extras.txt"
  .venv/bin/python -m pip install -q -r "$STATUS/test-extras.txt" -e examples/zoosim-feeding-time -e examples/zoosim-tictactoe

  phase "waiting for the kernel warm-ups"
  local code=0
  wait "$KATZ" || code=$?
  end_chain katz "$code"
  wait "$NYZ" || code=$?  # (katz's was 0, or the script has ended)
  end_chain nyz "$code"
  phase "running pytest on every core"
  kill -- -"$HEART" 2>/dev/null || true
  trap - EXIT
  rm -rf "$STATUS"
  exec .venv/bin/python -m pytest -n auto --dist worksteal -m "$markers" "$@"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then  # run, not sourced (tests/test_run_all.py sources the functions)
  main "$@"
fi
