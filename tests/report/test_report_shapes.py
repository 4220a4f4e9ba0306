"""No traceback after the games, whatever shape the experiment has (#21 finding 1).

Hypothesis draws experiments on the `coin` test game (tests/conftest.py) out of every study shape
a user can write: plain rules, sweeps over one or two knobs, cases that set different knobs
(including the baseline `{}`), mixed seatings, tournament pools, strength ladders and explain
studies (a mechanism switched off on the same deals), several
studies in one file. Each is run with a handful of games, rendered as a report (through the
command line, as a user would), and compared with another drawn experiment: the report must name
every cell, and compare must either pair cells or refuse in one line that the runs share none.
"""

import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from simulator.cli import main
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.plan import build_plan
from simulator.runner import run_plan

PLAYERS = st.integers(2, 4)
BONUS = st.sampled_from([0.0, 0.1, 0.5])
KNOBS = {"players": PLAYERS, "first_seat_bonus": BONUS}
# coin's policies: "fair", and "lucky" with a parameter (both play the same games)
POLICIES = ["fair", "lucky", {"policy": "lucky", "params": {"luck": 0.5}}]


@st.composite
def studies(draw, index: int) -> dict:
    shape = draw(st.sampled_from(["rules", "sweep", "cases", "seats", "pool", "ladder", "explain"]))
    study = {"name": f"s{index}", "game": "coin"}
    if shape == "rules":
        study["rules"] = {"players": draw(PLAYERS), "first_seat_bonus": draw(BONUS)}
    elif shape == "sweep":
        knobs = draw(st.lists(st.sampled_from(sorted(KNOBS)), min_size=1, max_size=2, unique=True))
        study["sweep"] = {knob: draw(st.lists(KNOBS[knob], min_size=1, max_size=3, unique=True)) for knob in knobs}
    elif shape == "cases":
        cases = draw(st.lists(st.fixed_dictionaries({}, optional=KNOBS), min_size=1, max_size=4))
        study["cases"] = [dict(case) for case in {repr(sorted(case.items())): case for case in cases}.values()]
    elif shape == "seats":
        study["rules"] = {"players": 3}
        study["seats"] = draw(st.lists(st.sampled_from(POLICIES), min_size=3, max_size=3))
    elif shape == "pool":
        study["rules"] = {"players": 2}
        study["pool"] = POLICIES[:draw(st.integers(2, 3))]
        study["pool_format"] = draw(st.sampled_from(["round_robin", "permutations"]))
    elif shape == "explain":
        study["rules"] = {"first_seat_bonus": draw(st.sampled_from([0.1, 0.5]))}
        study["sweep"] = {"players": draw(st.lists(PLAYERS, min_size=1, max_size=2, unique=True))}
        study["explain"] = {"method": draw(st.sampled_from(["shapley", "one_at_a_time"])),
                            "mechanisms": [{"name": "first-seat bonus", "knobs": {"first_seat_bonus": 0.0}}]}
    else:
        study["ladder"] = POLICIES[:draw(st.integers(2, 3))]
        study["sweep"] = {"players": draw(st.lists(PLAYERS, min_size=1, max_size=2, unique=True))}
    return study


@st.composite
def experiments(draw) -> dict:
    count = draw(st.integers(1, 3))
    return {"seed": draw(st.integers(0, 3)), "games": draw(st.sampled_from([40, 90])), "chunk_games": 30,
            "studies": [draw(studies(index)) for index in range(count)]}


def _run(document: dict, run_dir):
    """Plays a drawn experiment and returns its plan; None when the plan refuses it (e.g. two
    cells that would play the same games), which is validation's business, not the report's."""
    try:
        plan = build_plan(parse_experiment(document))
    except ZoosimError:
        return None
    run_plan(plan, run_dir, "drawn experiment\n", jobs=1, progress=False)
    return plan


def _check_shapes(tmp_path_factory, first: dict, second: dict) -> None:
    folder = tmp_path_factory.mktemp("shape")
    plans = [_run(document, folder / name) for document, name in ((first, "a"), (second, "b"))]
    for plan, name in zip(plans, "ab"):
        if plan is None:
            continue
        result = CliRunner().invoke(main, ["report", str(folder / name)])
        assert result.exit_code == 0, (result.output, result.exception)
        page = (folder / name / "report.html").read_text()
        shown = re.sub(r"<svg.*?</svg>", "", page, flags=re.S)
        for cell in plan.cells:
            assert cell.label.replace("'", "&#39;") in page
        assert not re.search(r">\s*nan\s*<", shown, flags=re.I)
    if None in plans:
        return
    result = CliRunner().invoke(main, ["compare", str(folder / "a"), str(folder / "b")])
    assert result.exit_code in (0, 2), (result.output, result.exception)
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1 and "share no cell" in result.stderr
    else:
        assert "comparison: " in result.output and (folder / "b" / "compare.html").is_file()


# An explain study over two player counts, both methods, against a plain one: always tried.
EXPLAIN_SHAPE = {"seed": 1, "games": 90, "chunk_games": 30, "studies": [
    {"name": "e0", "game": "coin", "rules": {"first_seat_bonus": 0.5}, "sweep": {"players": [2, 4]},
     "explain": {"mechanisms": [{"name": "first-seat bonus", "knobs": {"first_seat_bonus": 0.0}}]}},
    {"name": "e1", "game": "coin", "rules": {"players": 3, "first_seat_bonus": 0.1},
     "explain": {"method": "one_at_a_time", "mechanisms": [{"name": "bonus", "knobs": {"first_seat_bonus": 0.0}}]}},
]}


@pytest.mark.filterwarnings("error::UserWarning")  # e.g. a chart whose axes collapsed to nothing
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(experiments(), experiments())
@example(EXPLAIN_SHAPE, {"seed": 0, "games": 40, "chunk_games": 30, "studies": [{"name": "e0", "game": "coin"}]})
def test_every_experiment_shape_reports_and_compares_without_a_traceback(tmp_path_factory, first, second):
    _check_shapes(tmp_path_factory, first, second)


@pytest.mark.slow
@pytest.mark.filterwarnings("error::UserWarning")  # e.g. a chart whose axes collapsed to nothing
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(experiments(), experiments())
def test_many_experiment_shapes_report_and_compare_without_a_traceback(tmp_path_factory, first, second):
    _check_shapes(tmp_path_factory, first, second)
