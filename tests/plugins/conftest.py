"""The example plugins (examples/) are registered from their source folders when not installed."""

import pytest

from tests_support import example_plugins_registered


@pytest.fixture(scope="module", autouse=True)
def examples_registered():
    with example_plugins_registered():
        yield
