"""The public plugin API (simulator/plugin.py, docs/plugin-api.md; issue #40 item 1): every name
the page documents imports from every path it gives, the moved ones with a DeprecationWarning
naming their new path; the page and the module list the same names; importing the API loads no
numba; the guide and the example plugins import zoosim through the public surface only."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import simulator.plugin as plugin

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "plugin-api.md"


def table_rows(heading: str) -> list[tuple[str, str]]:
    """(first cell without its backticks, second cell) of each row of the table under `heading`."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (.*) \|$", section, flags=re.MULTILINE)
    assert rows, heading
    return rows


DOCUMENTED = [name for name, _ in table_rows("Names")]
OLD_PATHS = table_rows("Older import paths")


def test_the_page_documents_exactly_the_names_of_the_module():
    assert sorted(DOCUMENTED) == sorted(plugin.__all__)
    assert len(DOCUMENTED) == len(set(DOCUMENTED))


@pytest.mark.parametrize("name", DOCUMENTED)
def test_every_documented_name_imports_from_the_public_surface(name):
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(f"from simulator.plugin import {name}", namespace)
    assert namespace[name] is getattr(plugin, name)


@pytest.mark.parametrize("path, status", OLD_PATHS)
def test_every_older_path_imports_the_same_object_and_warns_only_when_it_moved(path, status):
    module_name, _, name = path.rpartition(".")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace: dict = {}
        exec(f"from {module_name} import {name}", namespace)
    found = namespace[name]
    deprecations = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if status == "works":
        assert deprecations == []
    else:
        new_path = re.fullmatch(r"deprecated: moved to `([\w.]+)`", status).group(1)
        assert len(deprecations) == 1 and new_path in deprecations[0] and path in deprecations[0]
        new_module, _, new_name = new_path.rpartition(".")
        assert found is getattr(importlib.import_module(new_module), new_name)
    if name in plugin.__all__:
        assert found is getattr(plugin, name)


def test_an_unknown_name_is_still_an_import_error():
    with pytest.raises(ImportError):
        exec("from simulator.games.base import NoSuchName", {})
    with pytest.raises(ImportError):
        exec("from simulator.plugin import NoSuchName", {})


def test_importing_the_plugin_api_and_a_game_record_loads_no_numba():
    code = ("import sys, simulator.plugin, zoosim_feeding\n"
            "from simulator.plugin import Game, StrictModel, knob, RuleLayout, LearnedWeights\n"
            "assert 'numba' not in sys.modules, 'numba imported'\n"
            "from simulator.plugin import kernel\n"
            "assert 'numba' in sys.modules\n")
    source = REPO / "examples" / "zoosim-feeding-time"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={"PYTHONPATH": f"{REPO}:{source}", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr


def zoosim_imports(text: str) -> list[str]:
    return re.findall(r"^\s*(?:from|import) (simulator[\w.]*)", text, flags=re.MULTILINE)


def test_the_guide_and_the_example_plugins_import_the_public_surface_only():
    guide = (REPO / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    blocks = "\n".join(re.findall(r"```python\n(.*?)```", guide, flags=re.DOTALL))
    assert set(zoosim_imports(blocks)) == {"simulator.plugin"}
    sources = sorted((REPO / "examples").rglob("*.py"))
    assert len(sources) >= 6
    for source in sources:
        assert set(zoosim_imports(source.read_text(encoding="utf-8"))) <= {"simulator.plugin"}, source


def backticked_first_cells(page: str, heading: str) -> set[str]:
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return {name for row in re.findall(r"^\| (.*?) \|", section, flags=re.MULTILINE)
            for name in re.findall(r"`([^`]+)`", row)}


def test_the_file_role_tables_list_every_file_of_a_game_folder():
    """docs/design.md lists every file of the built-in games' folders; docs/adding-a-game.md
    every role they share (issue #40 item 2: features.py and training.py included)."""
    design = backticked_first_cells("design.md", "### A game's folder")
    guide = backticked_first_cells("adding-a-game.md", "## A game's files")
    shared = None
    for folder in ("katz", "nyz"):
        files = {path.name + ("/" if path.is_dir() else "") for path in (REPO / "simulator" / "games" / folder).iterdir()
                 if path.suffix == ".py" or path.name == "weights"}
        assert files <= design, files - design
        shared = files if shared is None else shared & files
    assert {"features.py", "training.py", "weights/"} <= shared <= guide, shared - guide
