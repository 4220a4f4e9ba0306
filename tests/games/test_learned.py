"""The shared learned-evaluation layer (simulator/games/learned.py): the weights file and its
validation, the ridge fit, and a policy's weights packed into its parameter row."""

import json
import math

import numpy as np
import pytest

from simulator.errors import ZoosimError
from simulator.games.base import MAX_POLICY_PARAMS, PolicySpec
from simulator.games.learned import (
    CARD_KEYS, DEFAULT_WEIGHTS, LearnedWeights, card_path, fit_ridge, load_weights, save_weights,
)

FEATURES = ("empty", "pairs", "progress")
SETS = ("solo", "multi")


def card(**changes):
    base = {key: None for key in CARD_KEYS}
    base.update(format=1, game="toy", features=list(FEATURES), sets=list(SETS), rules={"players": 2},
                rules_hash="abc", seed=1, training_games=10, training_positions=100, command="test")
    base.update(changes)
    return base


def write(tmp_path, name="w", weights=None, intercept=None, **changes):
    path = tmp_path / f"{name}.npz"
    weights = np.arange(6, dtype=float).reshape(2, 3) if weights is None else weights
    intercept = np.array([0.5, -0.5]) if intercept is None else intercept
    save_weights(path, weights, intercept, card(**changes))
    return path


def test_round_trip_and_row_vector(tmp_path):
    path = write(tmp_path)
    loaded = load_weights(path, "toy", FEATURES, SETS, rules_hash="abc")
    assert loaded.card["training_games"] == 10
    assert loaded.vector().tolist() == [0.5, 0, 1, 2, -0.5, 3, 4, 5]
    assert len(loaded.sha256) == 64


@pytest.mark.parametrize("breakage, key", [
    (dict(game="katz"), "game"),
    (dict(features=["empty", "progress"]), "features"),
    (dict(sets=["all"]), "sets"),
    (dict(format=7), "format"),
])
def test_card_mismatches_are_one_line_errors_naming_the_key(tmp_path, breakage, key):
    path = write(tmp_path, **breakage)
    with pytest.raises(ZoosimError) as error:
        load_weights(path, "toy", FEATURES, SETS)
    assert error.value.key == key and error.value.file == str(card_path(path))
    assert "\n" not in str(error.value)


def test_another_rules_hash_is_refused_when_asked(tmp_path):
    path = write(tmp_path)
    with pytest.raises(ZoosimError, match="rules_hash: trained under rules 'abc'"):
        load_weights(path, "toy", FEATURES, SETS, rules_hash="other")


def test_missing_card_corrupted_npz_and_bad_values(tmp_path):
    path = write(tmp_path)
    card_path(path).unlink()
    with pytest.raises(ZoosimError, match="card is missing"):
        load_weights(path, "toy", FEATURES, SETS)
    path = write(tmp_path, "truncated")
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(ZoosimError, match="corrupted or truncated") as error:
        load_weights(path, "toy", FEATURES, SETS)
    assert error.value.file == str(path)
    path = write(tmp_path, "nan", weights=np.array([[1.0, math.nan, 0], [0, 0, 0]]))
    with pytest.raises(ZoosimError, match="weights: holds NaN or infinite"):
        load_weights(path, "toy", FEATURES, SETS)
    path = write(tmp_path, "inf", intercept=np.array([math.inf, 0]))
    with pytest.raises(ZoosimError, match="intercept: holds NaN"):
        load_weights(path, "toy", FEATURES, SETS)
    path = write(tmp_path, "shape", weights=np.zeros((2, 2)))
    with pytest.raises(ZoosimError, match=r"weights: has shape \(2, 2\), expected \(2, 3\)"):
        load_weights(path, "toy", FEATURES, SETS)
    broken = write(tmp_path, "card")
    card_path(broken).write_text("{not json")
    with pytest.raises(ZoosimError, match="not readable JSON"):
        load_weights(broken, "toy", FEATURES, SETS)
    with pytest.raises(ZoosimError, match="NAME.npz"):
        load_weights(tmp_path / "w.json", "toy", FEATURES, SETS)
    with pytest.raises(ZoosimError, match="cannot read"):
        load_weights(tmp_path / "absent.npz", "toy", FEATURES, SETS)


def test_card_without_a_key_is_refused(tmp_path):
    path = write(tmp_path)
    data = json.loads(card_path(path).read_text())
    del data["seed"]
    card_path(path).write_text(json.dumps(data))
    with pytest.raises(ZoosimError, match="the card has no 'seed'"):
        load_weights(path, "toy", FEATURES, SETS)


def test_ridge_recovers_a_linear_target_and_reports_its_holdout_quality():
    generator = np.random.default_rng(3)
    rows = generator.normal(size=(2000, 3)) * [1.0, 10.0, 0.1]
    targets = 2.0 + rows @ np.array([1.5, -0.2, 30.0]) + generator.normal(scale=0.1, size=2000)
    fit = fit_ridge(rows, targets, alpha=1e-6, holdout=0.25, seed=0)
    assert np.allclose(fit.coefficients, [1.5, -0.2, 30.0], rtol=0.02)
    assert abs(fit.intercept - 2.0) < 0.02
    assert fit.quality["holdout_rows"] == 500 and fit.quality["train_rows"] == 1500
    assert fit.quality["holdout_r2"] > 0.99 and fit.quality["holdout_rmse"] < 0.15
    assert fit_ridge(rows, targets, seed=0).coefficients.tolist() == fit_ridge(rows, targets, seed=0).coefficients.tolist()
    # a strong penalty shrinks towards the mean, and the fit says so
    assert fit_ridge(rows, targets, alpha=1e6).quality["holdout_r2"] < 0.5


def spec(default_file):
    source = LearnedWeights("toy", FEATURES, SETS, str(default_file))
    return PolicySpec("learned", 9, "toy learned", params={"temperature": 0.0, "weights": DEFAULT_WEIGHTS},
                      weights=source)


def test_policy_row_holds_the_weights_and_identity_follows_the_contents(tmp_path):
    shipped = write(tmp_path, "shipped")
    other = write(tmp_path, "other", weights=np.ones((2, 3)))
    policy = spec(shipped)
    row = policy.pack({"temperature": 0.5})
    assert row.shape == (MAX_POLICY_PARAMS,)
    assert row[:9].tolist() == [0.5, 0.5, 0, 1, 2, -0.5, 3, 4, 5]
    assert policy.pack({"weights": str(other)})[1:9].tolist() == [0.5, 1, 1, 1, -0.5, 1, 1, 1]
    first = policy.identity({})
    assert first["weights"].startswith("sha256:") and policy.identity({"weights": str(shipped)}) == first
    write(tmp_path, "shipped", weights=np.zeros((2, 3)))  # same path, new contents
    assert policy.identity({})["weights"] != first["weights"]
    assert "a toy weights file" in policy.describe_value("weights")


def test_policy_weights_errors_name_the_parameter(tmp_path):
    policy = spec(write(tmp_path, "shipped"))
    for given in (3.0, "", str(tmp_path / "missing.npz")):
        with pytest.raises(ZoosimError, match="parameter 'weights' of policy 'learned'"):
            policy.pack({"weights": given})
