"""Property tests: any document fed to the config loader, any file fed to `zoosim validate` and
any `--set` fed to `zoosim play` is accepted or refused with the project's own one-line error,
never a traceback."""

import dataclasses
import string
from pathlib import Path
from unittest import mock

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulator.games
from simulator.cli import main
from simulator.config import parse_experiment
from simulator.errors import ZoosimError
from simulator.plan import build_plan

KEYS = ["name", "seed", "games", "chunk_games", "rotate_seats", "margin_points", "studies", "game",
        "rules", "seats", "sweep", "cases", "pool", "pool_format", "policy", "params", "players",
        "first_seat_bonus", "until", "halfwidth", "max", "start", "luck"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10**12), st.floats(allow_nan=True),
    st.text(string.printable, max_size=12), st.sampled_from(["coin", "katz", "fair", "lucky", "round_robin"]),
)
documents = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children, max_size=5),
    ),
    max_leaves=25,
)
plausible = st.fixed_dictionaries(
    {"studies": st.lists(st.fixed_dictionaries({"game": st.just("coin")}, optional={
        "rules": st.dictionaries(st.sampled_from(["players", "first_seat_bonus", "preset", "nonsense"]), scalars, max_size=2),
        "seats": st.lists(st.one_of(st.sampled_from(["fair", "lucky", "bogus"]), documents), max_size=4),
        "sweep": st.dictionaries(st.sampled_from(["players", "first_seat_bonus"]), st.lists(scalars, max_size=3), max_size=2),
        "pool": st.lists(st.sampled_from(["fair", "lucky"]), max_size=3),
    }), max_size=2)},
    optional={"games": documents, "seed": scalars, "margin_points": scalars},
)


def load(document):
    try:
        experiment = parse_experiment(document, file="fuzz.yaml") if isinstance(document, dict) else None
        if experiment is not None:
            build_plan(experiment, file="fuzz.yaml")
    except ZoosimError as error:
        assert "\n" not in str(error) and str(error).startswith("fuzz.yaml")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_random_documents_never_raise_anything_else(document):
    load(document)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plausible)
def test_nearly_valid_documents_never_raise_anything_else(document):
    load(document)


# --- Through the command line: random and mutated files for `validate`, random `--set` for `play`.
# Whatever the input: exit status 0 or 2, never a traceback, one line on stderr on error, and
# nothing written (the working folder holds only the experiment file afterwards).

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "experiments").glob("*.yaml"))
SHIPPED_TEXTS = [path.read_text(encoding="utf-8") for path in SHIPPED]
# Fragments that change YAML structure or meaning, and values that stress the schema.
FRAGMENTS = [
    "[", "]", "{", "}", ":", ": ", "- ", ",", "\n", "\n  ", "  ", "#", "'", '"', "?", "|", ">",
    "&a ", "*a", "<<: *a\n", "!!binary ", "!!python/object:os.system ", "!x ", "%YAML 1.1\n", "---\n",
    ".nan", ".inf", "-.inf", "true", "yes", "null", "~", "0", "-1", "1e400", "1.0e400", "2.0",
    "10000000000", "0x10", "2024-13-45", "\\0", "\0", "\t", "é", "../..", "/", "players", "games",
    "chunk_games", "seats", "sweep", "cases", "pool", "params", "studies", "name", "game",
]


@st.composite
def mutated_experiments(draw) -> str:
    text = draw(st.sampled_from(SHIPPED_TEXTS))
    for _ in range(draw(st.integers(1, 6))):
        position = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "duplicate_line"]))
        if edit == "insert":
            text = text[:position] + draw(st.sampled_from(FRAGMENTS)) + text[position:]
        elif edit == "delete":
            text = text[:position] + text[position + draw(st.integers(1, 40)):]
        else:
            lines = text.split("\n")
            line = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: line + 1] + [lines[line]] + lines[line + 1 :])
    return text


def assert_clean_refusal_or_success(result, folder: Path, expected: list[str]) -> None:
    assert result.exit_code in (0, 2), (result.exit_code, result.exception, result.stderr[-2000:])
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("zoosim: error: "), result.stderr
    assert sorted(path.name for path in folder.iterdir()) == expected  # nothing written


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.one_of(mutated_experiments(), documents.map(lambda d: yaml.safe_dump(d, allow_unicode=True)),
                 st.text(max_size=200)))
def test_validate_of_any_file_is_clean(workdir, text):
    (workdir / "fuzz.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    result = CliRunner().invoke(main, ["validate", "fuzz.yaml"])
    assert_clean_refusal_or_success(result, workdir, ["fuzz.yaml"])
    if result.exit_code == 2:
        assert result.stderr.startswith("zoosim: error: fuzz.yaml"), result.stderr


KNOB_NAMES = ["players", "preset", "hand_size", "grid.rows", "deck.values", "keepers", "tie_break",
              "solo_laps", "geometry.movement_range.p2", "max_events_per_move", "physical_animals.fox"]
settings_strings = st.builds(
    lambda name, value: f"{name}={value}",
    st.one_of(st.sampled_from(KNOB_NAMES), st.text(max_size=8)),
    st.one_of(st.text(max_size=20), st.lists(st.sampled_from(FRAGMENTS), max_size=5).map("".join)),
) | st.text(max_size=20)


@FUZZ
@given(st.sampled_from(["katz", "nyz"]), st.lists(settings_strings, max_size=3))
def test_play_with_any_settings_is_clean(workdir, game, settings_list):
    """The game's trace is replaced by a stub: this checks input handling, not the engines."""
    real_get_game = simulator.games.get_game
    stubbed = lambda name: dataclasses.replace(real_get_game(name), trace=lambda *args: "traced")  # noqa: E731
    argv = ["play", game] + [part for setting in settings_list for part in ("--set", setting)]
    with mock.patch.object(simulator.games, "get_game", stubbed):
        result = CliRunner().invoke(main, argv)
    assert_clean_refusal_or_success(result, workdir, [])
