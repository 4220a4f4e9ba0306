"""What every tab of one studio sees: the live run, the pinned results and their comparison with
the current one, and the saved experiments. One `Studio` per server; its methods are called from
the server's request threads, under one lock, and `state()` is what the page's event stream sends.

Writes go only inside the output folder, under names the studio makes (`studio-NNN.yaml` and its
run folder); nothing the page sends is used as a path. A policy's weights file is read only when
the experiment the studio started from names it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from simulator.analysis.anytime import LIVE_CONFIDENCE
from simulator.config import DEFAULT_CHUNK_GAMES, load_experiment
from simulator.errors import ZoosimError
from simulator.games.base import WEIGHTS_PARAM, changed_knobs, flatten_dotted
from simulator.plan import build_plan, policy_label
from simulator.report.compare import change_sentence, seat_rank
from simulator.rundir import write_text_atomic
from simulator.runner import run_experiment
from simulator.studio.form import checked_cell, experiment_document, game_form, yaml_text
from simulator.studio.live import LiveRun, LiveState, warm_up

SAVED_PREFIX = "studio"
MAX_PINS = 6
# What a saved file says about the intervals its report shows.
SAVED_DESCRIPTION = (
    "Saved from zoosim studio: {games:,} games, where the live run stopped ({status}, live verdict {verdict} at "
    "±{margin:g} points by {level:.0%} anytime-valid confidence sequences on the deal, docs/statistics.md). "
    "This report's intervals are the fixed-sample ones (Wilson on effective games); they do not allow for a "
    "stop chosen by watching, the studio's sequences do."
)


class Studio:
    """One studio: `out` is the only folder it writes in, `jobs` the threads a live run plays
    on, `start` the settings the page opens with (from the experiment given on the command line,
    or the first game's defaults)."""

    def __init__(self, out: Path, jobs: int, start: dict[str, Any], seed: int = 0,
                 chunk_games: int = DEFAULT_CHUNK_GAMES, weights: frozenset[str] = frozenset()):
        self.out, self.jobs, self.start, self.seed, self.chunk_games = Path(out), jobs, start, seed, chunk_games
        self.weights = weights | {"default"}
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self._run: LiveRun | None = None
        self._run_settings: dict[str, Any] | None = None
        self._run_label = ""
        self._pins: list[dict[str, Any]] = []
        self._saved: list[dict[str, str]] = []
        self._message = ""
        self._saving = threading.Lock()
        self._closed = False

    # --- the form -------------------------------------------------------------------------
    def form(self, game: str, preset: str | None, players: int | None) -> dict[str, Any]:
        return game_form(game, preset, players)

    def check(self, settings: dict[str, Any]):
        """(document, cell) of the page's settings, or a ZoosimError with the CLI's one line."""
        self._refuse_unknown_weights(settings)
        document = experiment_document(settings, seed=self.seed, chunk_games=self.chunk_games)
        _, cell = checked_cell(document)
        return document, cell

    def _refuse_unknown_weights(self, settings: dict[str, Any]) -> None:
        if not isinstance(settings, dict) or not isinstance(settings.get("seats") or [], list):
            raise ZoosimError("the settings must be a mapping with a list of seats")
        for index, seat in enumerate(settings.get("seats") or []):
            params = seat.get("params") if isinstance(seat, dict) else None
            value = (params or {}).get(WEIGHTS_PARAM) if isinstance(params, dict) else None
            if value is not None and value not in self.weights:
                raise ZoosimError(f"the studio reads only the weights files its experiment names "
                                  f"({', '.join(sorted(self.weights))}); start it with an experiment that names "
                                  f"{value!r}", key=f"studies[0].seats[{index}].params.{WEIGHTS_PARAM}")

    def warm(self, settings: dict[str, Any]) -> None:
        """Load the kernels of the settings' game and players (in the caller's thread)."""
        _, cell = self.check(settings)
        warm_up(cell.game, cell)

    # --- the live run ---------------------------------------------------------------------
    def play(self, settings: dict[str, Any]) -> None:
        _, cell = self.check(settings)  # before the running one stops: a bad setting changes nothing
        margin = float(settings.get("margin_points", 1.0)) / 100.0
        with self._lock:
            self._stop_run()
            self._run_settings, self._run_label = settings, _setting_label(cell)
            self._run = LiveRun(cell, margin, self.jobs).start()
            self._message = ""
            self._touch()

    def stop(self) -> None:
        with self._lock:
            self._stop_run()
            self._touch()

    def _stop_run(self) -> None:
        if self._run is not None and self._run.running:
            self._run.stop()

    # --- pins -----------------------------------------------------------------------------
    def pin(self) -> None:
        with self._lock:
            state = self._current()
            if state is None:
                raise ZoosimError("nothing to pin yet: press Play first")
            if len(self._pins) >= MAX_PINS:
                raise ZoosimError(f"at most {MAX_PINS} pins: unpin one first")
            self._pins.append({"label": self._run_label, "settings": self._run_settings, "state": state,
                               "cell": self._run.cell})
            self._touch()

    def unpin(self, index: int) -> None:
        with self._lock:
            if not 0 <= index < len(self._pins):
                raise ZoosimError(f"no pin {index}")
            del self._pins[index]
            self._touch()

    def _current(self) -> LiveState | None:
        if self._run is None:
            return None
        state = self._run.snapshot()
        return state if state.deals else None

    # --- saving ---------------------------------------------------------------------------
    def save(self) -> dict[str, str]:
        """Write the current setting with the games played as an experiment file, and play it
        with the ordinary runner into a run folder beside it (the same games: live.py)."""
        with self._saving:
            with self._lock:
                self._stop_run()
                state, settings = self._current(), self._run_settings
            if state is None:
                raise ZoosimError("nothing to save yet: press Play first")
            self.out.mkdir(parents=True, exist_ok=True)
            name = self._free_name()
            description = SAVED_DESCRIPTION.format(games=state.games, status=state.status, verdict=state.verdict,
                                                   margin=float(settings.get("margin_points", 1.0)),
                                                   level=LIVE_CONFIDENCE)
            document = experiment_document(settings, games=state.games, seed=self.seed, chunk_games=self.chunk_games,
                                           name=name, description=description)
            path = self.out / f"{name}.yaml"
            write_text_atomic(path, yaml_text(document))
            model, text = load_experiment(path)
            plan = build_plan(model, file=str(path))
            run_dir = self.out / f"{name}-{plan.run_hash[:8]}"
            run_experiment(plan, run_dir, text, source=str(path), jobs=self.jobs, progress=False)
            saved = {"experiment": str(path), "run_dir": str(run_dir), "games": str(state.games)}
            with self._lock:
                self._saved.append(saved)
                self._touch()
            return saved

    def _free_name(self) -> str:
        number = 1
        while (self.out / f"{SAVED_PREFIX}-{number:03d}.yaml").exists():
            number += 1
        return f"{SAVED_PREFIX}-{number:03d}"

    # --- what the page shows --------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        with self._lock:
            current = self._run.snapshot() if self._run is not None else None
            run = None
            if current is not None:
                run = {**current.to_json(), "label": self._run_label, "settings": self._run_settings,
                       "margin_points": self._run.margin * 100, "players": self._run.cell.players}
            pins = []
            for pin in self._pins:
                shown = {"label": pin["label"], "state": pin["state"].to_json(), "settings": pin["settings"]}
                if current is not None and current.deals and self._run.cell.players == pin["cell"].players:
                    shown["comparison"] = comparison(pin, current, self._run.cell, self._run.margin * 100,
                                                     self._run_label)
                pins.append(shown)
            return {"version": self._version, "run": run, "pins": pins, "saved": list(self._saved),
                    "message": self._message, "level": LIVE_CONFIDENCE}

    def wait_for_change(self, version: int, timeout: float) -> None:
        """Block until the state's version passes `version`, or `timeout` seconds (a live run
        changes its numbers without a new version: the event stream polls it)."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != version or self._closed, timeout)

    def _touch(self) -> None:
        self._version += 1
        self._changed.notify_all()

    def close(self) -> None:
        """Stop the live run and wait for a save in progress (its files are whole either way)."""
        with self._lock:
            self._closed = True
            self._stop_run()
            self._touch()
        with self._saving:
            pass


def _setting_label(cell) -> str:
    seats = [policy_label(name, overrides) for name, overrides in cell.seats]
    shown = seats[0] if len(set(seats)) == 1 else " / ".join(seats)
    changed = ", ".join(f"{key}={value}" for key, value in _changed_rules(cell).items())
    return f"{cell.game}, {cell.players} players, {shown}" + (f"; {changed}" if changed else "")


def _changed_rules(cell) -> dict[str, Any]:
    return {key: value for key, value in flatten_dotted(changed_knobs(cell.params)).items() if key != "players"}


def comparison(pin: dict[str, Any], current: LiveState, cell, margin_points: float, label: str) -> dict[str, Any]:
    """compare's one-sentence answer (report/compare.change_sentence) and the seat changes of a
    pinned result A and the current one B, on their confidence sequences at PAIRED_CONFIDENCE: a
    seat's change B - A lies in [low_B - high_A, high_B - low_A], and all of them together with
    the largest deviation's change hold at LIVE_CONFIDENCE, at any moment either run stopped."""
    a, b = pin["state"], current
    fair = 1.0 / cell.players
    rate_a, rate_b = np.asarray(a.shares, dtype=float), np.asarray(b.shares, dtype=float)
    low_a, high_a = np.asarray(a.paired_lows), np.asarray(a.paired_highs)
    low_b, high_b = np.asarray(b.paired_lows), np.asarray(b.paired_highs)
    change = (rate_b - rate_a) * 100
    change_low, change_high = (low_b - high_a) * 100, (high_b - low_a) * 100
    dev_a, dev_b = (rate_a - fair) * 100, (rate_b - fair) * 100
    moved = int(np.argmax(np.abs(change)))
    seat_a, seat_b = int(np.argmax(np.abs(dev_a))), int(np.argmax(np.abs(dev_b)))
    size_a, size_b = _largest_deviation_range(low_a, high_a, fair), _largest_deviation_range(low_b, high_b, fair)
    row = {
        "verdict_a": a.verdict, "verdict_b": b.verdict, "players_a": pin["label"], "players_b": label,
        "deviation_a": float(dev_a[seat_a]), "deviation_b": float(dev_b[seat_b]), "seat_a": seat_a, "seat_b": seat_b,
        "moved_seat": moved, "moved_points": float(change[moved]), "moved_low": float(change_low[moved]),
        "moved_high": float(change_high[moved]), "moved_from": float(dev_a[moved]), "moved_to": float(dev_b[moved]),
        "moved_rank": seat_rank(float(dev_b[moved]), dev_b, margin_points), "margin": margin_points,
        "size_change": float(abs(dev_b[seat_b]) - abs(dev_a[seat_a])),
        "size_change_low": (size_b[0] - size_a[1]) * 100, "size_change_high": (size_b[1] - size_a[0]) * 100,
        "same_games": pin["cell"].seed_entropy == cell.seed_entropy and a.deals == b.deals,
        "games_to_tell_change": None, "games_to_decide_b": float("nan"),
    }
    seats = [{"seat": seat, "share_a": float(rate_a[seat]), "share_b": float(rate_b[seat]),
              "change": float(change[seat]), "low": float(change_low[seat]), "high": float(change_high[seat])}
             for seat in range(cell.players)]
    return {"sentence": change_sentence(row), "seats": seats}


def _largest_deviation_range(low: np.ndarray, high: np.ndarray, fair: float) -> tuple[float, float]:
    """The range of max over seats of |share - fair| when each share lies in [low, high]."""
    nearest = np.where((low <= fair) & (fair <= high), 0.0, np.minimum(np.abs(low - fair), np.abs(high - fair)))
    farthest = np.maximum(np.abs(low - fair), np.abs(high - fair))
    return float(nearest.max()), float(farthest.max())
