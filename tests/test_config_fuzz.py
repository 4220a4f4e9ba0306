"""Property test: any document fed to the config loader is accepted or refused with the project's
own one-line error, never a traceback."""

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
