"""Shared fixtures. Registers `coin`, a tiny pure-NumPy game with a known seat advantage, so the
runner, analysis and report can be tested against known truth without any engine."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import types
from pathlib import Path
from typing import Literal

import numpy as np
import pydantic
import pytest

from simulator.games import GAME_MODULES
from simulator.games.base import Game, PolicySpec
from simulator.schema import StrictModel
from tests_support import example_plugins_registered, trace_from_batch

REPO = Path(__file__).resolve().parent.parent


class CoinParams(StrictModel):
    preset: Literal["standard"] = "standard"
    players: int = pydantic.Field(3, ge=2, le=5, json_schema_extra={"rule": "C-1"})
    first_seat_bonus: float = pydantic.Field(
        0.0, ge=0, le=1, description="probability that seat 0 gets +5", json_schema_extra={"rule": "C-2"}
    )
    crash: bool = pydantic.Field(False, description="raise inside play_batch (tests error reporting)")
    broken_rule: bool = pydantic.Field(False, description="every 7th game breaks an invariant (checked mode)")


def _coin_play_batch(params, seat_policies, seeds, rotations, check=False):
    """Each slot draws a strength 0..9 from the deal; seat 0 may get a bonus; highest wins."""
    if params.crash:
        raise RuntimeError("the engine crashed")
    games, n = len(seeds), params.players
    score = np.empty((games, n), dtype=np.int16)
    turns = np.empty(games, dtype=np.int16)
    for g, (seed, rotation) in enumerate(zip(seeds, rotations)):
        deal = np.random.default_rng(int(seed))
        strength = deal.integers(0, 10, size=n)
        seat_strength = strength[(np.arange(n) - int(rotation)) % n]
        play = np.random.default_rng([int(seed), 1 + int(rotation)])  # differs from the deal stream
        bonus = 5 if play.random() < params.first_seat_bonus else 0
        score[g] = seat_strength
        score[g, 0] += bonus
        turns[g] = 5 + play.integers(0, 10)
    win = score == score.max(axis=1, keepdims=True)
    checked = {}
    if check:
        broken = (np.arange(games) % 7 == 3) & params.broken_rule
        checked = {"check_violations": broken.astype(np.int32), "first_violation": broken.astype(np.int8)}
    return {
        **checked,
        "turns": turns,
        "rounds": (turns // n).astype(np.int16),
        "end_reason": np.zeros(games, dtype=np.int8),
        "score": score,
        "win": win,
    }


COIN = Game(
    name="coin",
    title="Coin test game",
    rules_version=1,
    params_model=CoinParams,
    presets={"standard": {}},
    policies={"fair": PolicySpec("fair", 0, "the only policy"), "lucky": PolicySpec("lucky", 1, "same", {"luck": 1.0})},
    default_policy="fair",
    end_reasons=("done",),
    violation_names=("none", "score_out_of_range"),
    deal_travels_with_slot=True,
    players=lambda params: params.players,
    play_batch=_coin_play_batch,
    trace=trace_from_batch(_coin_play_batch),
    seat_columns=(),
    game_columns=(),
)

def register_test_game(game: Game) -> None:
    """Register a test game as an installed package would (`zoosim_test_NAME:GAME`)."""
    module = types.ModuleType(f"zoosim_test_{game.name}")
    module.GAME = game
    sys.modules[module.__name__] = module
    GAME_MODULES.setdefault(game.name, f"{module.__name__}:GAME")


register_test_game(COIN)

# `lever` (tests/analysis/explain_game.py), the explain study's game with known shares: registered
# here, so every test process sees the same registry whichever test modules it collected.
from tests.analysis.explain_game import LEVER  # noqa: E402

register_test_game(LEVER)

# `ascent` (tests/analysis/climb_game.py), players stronger with their budget, for ladder climbs.
from tests.analysis.climb_game import ASCENT  # noqa: E402

register_test_game(ASCENT)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """Headless system chromium driven by playwright (the `browser` tests); in CI (CI=true) a
    missing browser is a failure, not a skip."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run must install it (apt-get install chromium)")
        pytest.skip("system chromium not installed (tests/run-all.sh installs it)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def example_plugins():
    """The example plugins (examples/), registered from their source folders when they are not
    installed: a module of tests on them says `pytestmark = pytest.mark.usefixtures("example_plugins")`."""
    with example_plugins_registered():
        yield


@pytest.fixture
def write_experiment(tmp_path):
    """Write YAML text to a file in a fresh folder and return its path."""

    def write(text: str, name: str = "experiment.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


@pytest.fixture(autouse=True)
def signal_handlers_left_as_found():
    """A test that leaves Ctrl-C or SIGTERM ignored in its worker (a command's end run in-process
    ignores both, processes.run_console) would make every process a later test starts there
    ignore them too, and the interruption tests fail far from the cause (CI, 2026-12-02: five
    Ctrl-C tests of one worker ran to the end): such a test fails here, and every test starts
    with the handlers at their defaults."""
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    for number, default in defaults.items():  # left ignored by a fixture of an earlier test
        if signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, default)
    found = {number: signal.getsignal(number) for number in defaults}
    yield
    changed = [number for number, handler in found.items() if signal.getsignal(number) != handler]
    for number in changed:
        signal.signal(number, found[number])
    assert not changed, f"the test left {', '.join(signal.Signals(n).name for n in changed)} changed"
