"""A plugin written against the documented names keeps working (issue #40, goal 1): the example
plugin as it was before the public plugin API (tests/plugins/feeding_time_v0/, a verbatim copy
pinned at a6f861a, importing from `simulator.games.base` and `simulator.schema`) still loads,
passes the whole conformance kit and plays a run through the CLI. It is registered as
`feeding_v0` (its Game renamed only), beside the current example `feeding`."""

from __future__ import annotations

import sys
import types
import warnings
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import simulator.games as registry
from simulator import testing
from simulator.cli import main
from tests_support import log_digests

PINNED = Path(__file__).resolve().parent / "feeding_time_v0"


@pytest.fixture(scope="module")
def pinned():
    sys.path.insert(0, str(PINNED))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)  # it used no name that moved since
            import zoosim_feeding_v0
        module = types.ModuleType("zoosim_pinned_feeding_v0")
        module.GAME = replace(zoosim_feeding_v0.GAME, name="feeding_v0")
        sys.modules[module.__name__] = module
        registry.register_game("feeding_v0", f"{module.__name__}:GAME")
        yield "feeding_v0"
    finally:
        registry.unregister_game("feeding_v0")
        sys.path.remove(str(PINNED))


def test_the_pinned_plugin_passes_the_conformance_kit(pinned):
    assert testing.check_game(pinned) == {}


def test_the_pinned_plugin_plays_a_run_through_the_cli(pinned, write_experiment, tmp_path):
    experiment = write_experiment("name: pinned\nseed: 3\ngames: 40\nstudies:\n  - game: feeding_v0\n"
                                  "    rules: {players: 3, target: 8}\n    seats: [greedy, random, random]\n")
    result = CliRunner().invoke(main, ["run", str(experiment), "--out", str(tmp_path / "run"), "--jobs", "1",
                                       "--no-report", "--quiet", "--check"])
    assert result.exit_code == 0, result.output
    assert len(log_digests(tmp_path / "run")) >= 1
