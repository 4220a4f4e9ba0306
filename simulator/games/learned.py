"""Learned evaluations, the same for every game: the weights file, the ridge fit that makes one,
and how a policy's weights reach the kernels (docs/players.md, "Learned players").

Weights file. `NAME.npz` holds the fitted arrays, `NAME.json` beside it (the card) says what
they are:
- npz: `weights` float64 (sets, features) and `intercept` float64 (sets,): one linear
  evaluation per *set* (a game may fit one for solo and one for 2-5 players; the card names
  them), value = intercept[s] + weights[s] . features;
- card: `format` (WEIGHTS_FORMAT), `game`, `features` (names, in row order), `sets` (names, in
  row order), `rules` (the full rules the training positions were played under) and
  `rules_hash`, `seed`, `training_games`, `training_positions`, `command` (what made the file),
  `fit` (fit_ridge's quality per set) and `strength` (measured later; null until then).
`load_weights` validates both and raises the project's one-line ZoosimError naming the file, the
key and what is allowed for: a missing card, another game's file, another feature or set list,
another rules hash (when the caller gives one), a corrupted or truncated npz, missing arrays,
wrong shapes and NaN/inf values.

Fitting. `fit_ridge` is ridge regression (numpy only) of per-seat targets on feature rows, with
a deterministic held-out split; it returns the coefficients and the fit's quality (R^2 and
RMSE on the training and held-out rows), which the card records. `fit_visit_logits` fits move
values to a search's visit counts instead (multinomial logistic regression, scipy): the move
priors of expert iteration (a game's training.fit uses it where its recorded games searched).

Reaching the kernels (`LearnedWeights`, the `weights` of a base.PolicySpec). A learned policy
has a parameter `weights` (last in its parameter row): "default" (the game's shipped file) or
the path of a weights file. PolicySpec.pack resolves it into the row: the scalar parameters
first, then from the weights parameter's slot on `intercept[0], weights[0, :], intercept[1],
weights[1, :], ...` (`vector`), so the kernels read the evaluation from `st.policy_params[seat]`
as they read every other parameter (row width base.MAX_POLICY_PARAMS). The plan hashes
`identity`, which names the file's sha256, into the cell key: a changed file changes the cell's
seeds and the run hash, so a run is determined by the weights' contents, not their path. An
evaluation with more weights than a row holds (`KeyedWeights`) puts the file's key in the row
instead and registers the vector under it in the process that packs the row (`registered`).

Climbing (`NextTrainingRound`): a ladder's learned rung at temperature 0 climbs to the next kept
round of its training (`zoosim train`'s DIR/round-NN.npz, each card saying whether it was kept).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from simulator.errors import ZoosimError

WEIGHTS_FORMAT = 1
DEFAULT_WEIGHTS = "default"  # the `weights` parameter's value naming the game's shipped file
CARD_KEYS = ("format", "game", "features", "sets", "rules", "rules_hash", "seed", "training_games",
             "training_positions", "command", "fit", "strength")


@dataclass(frozen=True)
class Weights:
    """A validated weights file: weights (sets, features), intercept (sets,), its card and the
    sha256 of the npz bytes."""

    weights: np.ndarray
    intercept: np.ndarray
    card: dict[str, Any]
    sha256: str

    def vector(self) -> np.ndarray:
        """The row the kernels read: intercept and weights of set 0, then of set 1, ..."""
        return np.concatenate([self.intercept[:, None], self.weights], axis=1).ravel()


def card_path(path: str | os.PathLike[str]) -> Path:
    return Path(path).with_suffix(".json")


def load_weights(path: str | os.PathLike[str], game: str, feature_names: Sequence[str],
                 set_names: Sequence[str] = ("all",), rules_hash: str | None = None) -> Weights:
    """The weights file at `path` (NAME.npz with its NAME.json card), validated against the
    game, the feature and set names the caller's kernels compute and, when given, a rules hash."""
    path = Path(path)
    shown = str(path)
    if path.suffix != ".npz":
        raise ZoosimError("a weights file is NAME.npz (with its card NAME.json beside it)", file=shown)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ZoosimError(f"cannot read the weights file ({error.strerror or error})", file=shown) from None
    card = _read_card(card_path(path))
    _check_card(card, str(card_path(path)), game, list(feature_names), list(set_names), rules_hash)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            loaded = {name: np.array(arrays[name], dtype=np.float64) for name in arrays.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as error:
        raise ZoosimError(f"not a readable .npz (corrupted or truncated: {error})", file=shown) from None
    expected = {"weights": (len(set_names), len(feature_names)), "intercept": (len(set_names),)}
    for name, shape in expected.items():
        if name not in loaded:
            raise ZoosimError(f"has no array '{name}' (a weights file has weights and intercept)",
                              file=shown, key=name)
        if loaded[name].shape != shape:
            raise ZoosimError(f"has shape {loaded[name].shape}, expected {shape} (sets x features "
                              "of the card)", file=shown, key=name)
        if not np.all(np.isfinite(loaded[name])):
            raise ZoosimError("holds NaN or infinite values; weights must be finite numbers",
                              file=shown, key=name)
    return Weights(loaded["weights"], loaded["intercept"], card, hashlib.sha256(data).hexdigest())


def _read_card(path: Path) -> dict[str, Any]:
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ZoosimError("the weights file's card is missing (NAME.json beside NAME.npz)",
                          file=str(path)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ZoosimError(f"the card is not readable JSON ({error})", file=str(path)) from None
    if not isinstance(card, dict):
        raise ZoosimError("the card must be a JSON object", file=str(path))
    return card


def _check_card(card: dict[str, Any], shown: str, game: str, features: list[str],
                sets: list[str], rules_hash: str | None) -> None:
    missing = [key for key in CARD_KEYS if key not in card]
    if missing:
        raise ZoosimError(f"the card has no '{missing[0]}' (a card has {', '.join(CARD_KEYS)})",
                          file=shown, key=missing[0])
    if card["format"] != WEIGHTS_FORMAT:
        raise ZoosimError(f"format {card['format']!r} is not supported (allowed: {WEIGHTS_FORMAT})",
                          file=shown, key="format")
    if card["game"] != game:
        raise ZoosimError(f"weights of game {card['game']!r}, not of {game!r} (use a {game} weights file)",
                          file=shown, key="game")
    for key, names in (("features", features), ("sets", sets)):
        if card[key] != names:
            raise ZoosimError(f"{key} {card[key]!r} differ from the {key} this version computes "
                              f"({', '.join(names)}); retrain the weights", file=shown, key=key)
    if rules_hash is not None and card["rules_hash"] != rules_hash:
        raise ZoosimError(f"trained under rules {card['rules_hash']!r}, not {rules_hash!r}",
                          file=shown, key="rules_hash")


def save_weights(path: str | os.PathLike[str], weights: np.ndarray, intercept: np.ndarray,
                 card: dict[str, Any]) -> None:
    """Write NAME.npz and its card NAME.json, each atomically (a temporary file renamed)."""
    path = Path(path)
    missing = [key for key in CARD_KEYS if key not in card]
    if missing:
        raise ValueError(f"the card needs {', '.join(missing)}")
    buffer = io.BytesIO()
    np.savez(buffer, weights=np.asarray(weights, dtype=np.float64),
             intercept=np.asarray(intercept, dtype=np.float64))
    _write_atomic(path, buffer.getvalue())
    _write_atomic(card_path(path), (json.dumps(card, indent=2, sort_keys=True) + "\n").encode())


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


@dataclass(frozen=True)
class Fit:
    """A ridge fit: value = intercept + coefficients . row, and its quality."""

    coefficients: np.ndarray
    intercept: float
    quality: dict[str, float]  # train/holdout R^2 and RMSE, row counts, alpha


def fit_ridge(rows: np.ndarray, targets: np.ndarray, alpha: float = 1.0,
              holdout: float = 0.2, seed: int = 0) -> Fit:
    """Ridge regression of `targets` (n,) on feature `rows` (n, features), the intercept not
    penalised; a `holdout` share of the rows (chosen by `seed`) is kept out of the fit to measure
    it. Columns are standardised for the penalty; the coefficients are for the raw rows."""
    rows = np.asarray(rows, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64)
    order = np.random.default_rng(seed).permutation(len(rows))
    held = order[: int(round(holdout * len(rows)))]
    train = order[len(held):]
    x, y = rows[train], targets[train]
    mean, spread = x.mean(axis=0), x.std(axis=0)
    spread[spread == 0] = 1.0
    z = (x - mean) / spread
    scaled = np.linalg.solve(z.T @ z + alpha * np.eye(z.shape[1]), z.T @ (y - y.mean()))
    coefficients = scaled / spread
    intercept = float(y.mean() - mean @ coefficients)
    quality = {"alpha": float(alpha), "train_rows": int(len(train)), "holdout_rows": int(len(held))}
    for name, part in (("train", train), ("holdout", held)):
        if len(part):
            predicted = rows[part] @ coefficients + intercept
            residual = targets[part] - predicted
            variance = float(np.var(targets[part]))
            quality[f"{name}_rmse"] = float(math.sqrt(np.mean(residual ** 2)))
            quality[f"{name}_r2"] = float(1.0 - np.mean(residual ** 2) / variance) if variance > 0 else 0.0
    return Fit(coefficients, intercept, quality)


def fit_visit_logits(rows: np.ndarray, shares: np.ndarray, starts: np.ndarray, scale: float,
                     alpha: float = 1.0, holdout: float = 0.2, seed: int = 0) -> Fit:
    """Move values (points) whose softmax over each decision's moves divided by `scale` points
    is the search's visit distribution there: multinomial logistic regression (cross-entropy
    against the visit shares, an L2 penalty `alpha` on the standardised columns, scipy's L-BFGS)
    of the decisions' move `rows` (n, features), one row per legal move, `shares` (n,) the share
    of the root's visits each move received, `starts` (n,) true at each decision's first row.
    A `holdout` share of the decisions (chosen by `seed`) is kept out of the fit to measure it:
    the quality gives the cross-entropy per decision and how often the move the values rank
    first is the search's most visited move. The intercept is 0 (a constant cancels in every
    decision's softmax), as is every column constant within each decision."""
    from scipy.optimize import minimize

    rows = np.asarray(rows, dtype=np.float64)
    shares = np.asarray(shares, dtype=np.float64)
    decision = np.cumsum(np.asarray(starts, dtype=bool)) - 1
    decisions = int(decision[-1]) + 1 if len(decision) else 0
    if decisions == 0:
        raise ValueError("fit_visit_logits: no decisions")
    order = np.random.default_rng(seed).permutation(decisions)
    held_decisions = np.zeros(decisions, dtype=bool)
    held_decisions[order[: int(round(holdout * decisions))]] = True
    held = held_decisions[decision]
    spread = rows[~held].std(axis=0)
    spread[spread == 0] = 1.0
    z = rows / spread

    def split(mask):
        kept = decision[mask]
        first = np.flatnonzero(np.r_[True, kept[1:] != kept[:-1]])
        return z[mask], shares[mask], first

    def cross_entropy(x, targets, first, scaled):
        logits = x @ scaled / scale
        top = np.maximum.reduceat(logits, first)
        widths = np.diff(np.r_[first, len(logits)])
        shifted = logits - np.repeat(top, widths)
        exp = np.exp(shifted)
        log_total = np.log(np.add.reduceat(exp, first))
        probabilities = exp / np.repeat(np.exp(log_total), widths)
        loss = -float(np.sum(targets * (shifted - np.repeat(log_total, widths))))
        return loss, probabilities, logits

    x, targets, first = split(~held)

    def objective(scaled):
        loss, probabilities, _ = cross_entropy(x, targets, first, scaled)
        gradient = x.T @ (probabilities - targets) / scale
        return loss + 0.5 * alpha * scaled @ scaled, gradient + alpha * scaled

    result = minimize(objective, np.zeros(rows.shape[1]), jac=True, method="L-BFGS-B")
    coefficients = result.x / spread
    quality = {"alpha": float(alpha), "scale": float(scale), "train_decisions": int(decisions - held_decisions.sum()),
               "holdout_decisions": int(held_decisions.sum())}
    for name, mask in (("train", ~held), ("holdout", held)):
        if mask.any():
            part_x, part_targets, part_first = split(mask)
            loss, _, logits = cross_entropy(part_x, part_targets, part_first, result.x)
            widths = np.diff(np.r_[part_first, len(logits)])
            agree = [np.argmax(logits[o:o + w]) == np.argmax(part_targets[o:o + w]) for o, w in zip(part_first, widths)]
            quality[f"{name}_cross_entropy"] = loss / len(part_first)
            quality[f"{name}_top_move_agreement"] = float(np.mean(agree))
    return Fit(coefficients, 0.0, quality)


@dataclass(frozen=True)
class LearnedWeights:
    """The `weights` parameter of a learned policy (base.PolicySpec.weights): which game's
    features its file must have and where the shipped file is. A path is taken relative to the
    current directory; DEFAULT_WEIGHTS names `default_file`."""

    game: str
    feature_names: tuple[str, ...]
    set_names: tuple[str, ...]
    default_file: str  # absolute path of the shipped NAME.npz

    @property
    def width(self) -> int:
        """Slots the weights take in the parameter row."""
        return len(self.set_names) * (len(self.feature_names) + 1)

    def resolve(self, given: Any) -> Weights:
        if not isinstance(given, str) or not given:
            raise ZoosimError(f"parameter 'weights' must be {DEFAULT_WEIGHTS!r} or the path of a "
                              f"{self.game} weights file (NAME.npz), got {given!r}", key="weights")
        return _cached_load(self, self.default_file if given == DEFAULT_WEIGHTS else given)

    def vector(self, given: Any) -> np.ndarray:
        return self.resolve(given).vector()

    def identity(self, given: Any) -> str:
        """What the plan hashes for this parameter: the file's contents, not its name."""
        return f"sha256:{self.resolve(given).sha256}"

    def describe(self) -> str:
        return (f"{DEFAULT_WEIGHTS} (the shipped file) or a {self.game} weights file NAME.npz with its "
                f"card NAME.json, of features {', '.join(self.feature_names)}")


@dataclass(frozen=True)
class KeyedWeights(LearnedWeights):
    """The `weights` parameter of a learned policy whose evaluation has more weights than the
    parameter row holds (base.MAX_POLICY_PARAMS). The row carries one number, the file's key
    (weights_key: the first 52 bits of its sha256, exact in a float64), and packing the row
    registers the file's vector (Weights.vector) under that key in this process (registered);
    the game's play code finds the vector by the key in the row. Every process that plays a
    seating packs its rows itself (base.Game.seat_policies, in the runner's workers too), so a
    row's weights are always registered where the row is played."""

    @property
    def width(self) -> int:
        return 1

    def vector(self, given: Any) -> np.ndarray:
        loaded = self.resolve(given)
        key = weights_key(loaded.sha256)
        _REGISTERED[key] = loaded.vector()
        return np.array([key])


_REGISTERED: dict[float, np.ndarray] = {}


def weights_key(sha256: str) -> float:
    """A weights file's key in a parameter row (KeyedWeights): the first 52 bits of its sha256."""
    return float(int(sha256[:13], 16))


def registered(key: float) -> np.ndarray:
    """The weights vector packed under `key` in this process (KeyedWeights.vector)."""
    if key not in _REGISTERED:
        raise ZoosimError(f"no weights file with key {key:.0f} was packed in this process: seat the "
                          "policy through Game.seat_policies, which loads its weights file", key="weights")
    return _REGISTERED[key]


_LOADED: dict[tuple[Any, ...], Weights] = {}


def _cached_load(source: LearnedWeights, path: str) -> Weights:
    """load_weights, once per file version (path, size, modification time): packing a seating's
    rows happens for every batch of a run."""
    try:
        status = os.stat(path)
        key: tuple[Any, ...] = (source, os.path.abspath(path), status.st_size, status.st_mtime_ns)
    except OSError:
        key = (source, path, None, None)  # load_weights says what is wrong
    if key not in _LOADED:
        if len(_LOADED) > 64:
            _LOADED.clear()
        _LOADED[key] = load_weights(path, source.game, source.feature_names, source.set_names)
    return _LOADED[key]


# zoosim train's round files (train/loop.py round_path): DIR/round-NN.npz with its card round-NN.json
TRAINING_ROUND = re.compile(r"round-(\d+)\.npz")


@dataclass(frozen=True)
class NextTrainingRound:
    """A learned player's climb by its training (games/base.py Climb's `then`): its weights file,
    when it is round NN of a `zoosim train` folder, replaced by the first later round there whose
    card says it was kept (gated stronger than the best before it)."""

    doing: str = "the next kept training round"

    def step(self, spec, overrides) -> tuple[dict[str, Any] | None, str]:
        given = overrides.get("weights", spec.params["weights"])
        path = Path(str(given))
        match = TRAINING_ROUND.fullmatch(path.name)
        if given == DEFAULT_WEIGHTS or match is None:
            return None, (f"at temperature 0 it climbs to the next round of its training, but its weights "
                          f"{given} are no round of a `zoosim train` folder (round-NN.npz)")
        for later in sorted(path.parent.glob("round-*.npz")):
            number = TRAINING_ROUND.fullmatch(later.name)
            if number is None or int(number.group(1)) <= int(match.group(1)):
                continue
            try:
                kept = json.loads(later.with_suffix(".json").read_text(encoding="utf-8")).get("kept")
            except (OSError, ValueError):
                continue  # an unreadable card: not a round to climb to
            if kept is True:
                return {**overrides, "weights": str(later)}, f"weights {path.name} -> {later.name} ({self.doing})"
        return None, f"no later round of {path.parent} was kept after {path.name}"

