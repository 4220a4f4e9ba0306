"""The layer contract of simulator/ (docs/design.md, "Layers"), checked from the source: every
import of every module, at the top or inside a function, goes to a module of its own group or of
a lower layer, and no group of modules imports itself back in a circle.

A small AST reader instead of import-linter: the contract is ~20 lines of data, and reading the
imports takes the standard library only. `Deferred("module:attribute")` strings (a game's engine,
loaded when first played) are data, not imports; `importlib.import_module` of a plugin named by
its entry point neither.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "simulator"

# Top to bottom. A layer is a tuple of groups; groups of one layer are independent (neither
# imports the other). A group is a module or a package prefix (dotted, without "simulator.").
LAYERS: tuple[tuple[str, ...], ...] = (
    ("testing",),                        # the conformance kit a plugin's own tests call
    ("__init__",),                       # the package root: the console entry point
    ("api", "cli"),                      # the Python API; the command line
    ("tune", "train", "studio"),         # zoosim tune; zoosim train; zoosim studio (the live page)
    ("report", "runner", "bench"),       # the report; running a plan; zoosim bench
    ("samples", "progress", "climb", "trajectories"),  # the sample game of a report; the progress bar; ladder climbs; trajectory samples
    ("analysis",),                       # statistics of a run's records
    ("rundir",),                         # the run folder: layout, manifest, sidecars, locks
    ("plan",),                           # an experiment as cells and chunks with their seeds
    ("config",),                         # the experiment file's schema
    ("plugin",),                         # the public plugin API: the games' names a game package uses
    ("games",),                          # the game registry, the contract and the engines
    ("logs", "digest", "safe_yaml", "schema", "processes", "worker_memory", "version", "options", "manifest_cell"),  # base: no zoosim state
    ("errors",),                         # ZoosimError and the exit statuses everything raises
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The simulator modules `name` imports anywhere in its source. `from X import y` is an import
    of the module X.y when that is a module, else of X (y is an attribute)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {target for target in found if target in modules and target != name}


def group_of(name: str) -> tuple[int, str]:
    """(layer index, group) of a module; the root package is group "__init__"."""
    relative = name.partition(".")[2] or "__init__"
    for index, layer in enumerate(LAYERS):
        for group in layer:
            if relative == group or relative.startswith(group + "."):
                return index, group
    raise AssertionError(f"simulator module {name} is in no layer of tests/test_layers.py")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_module_belongs_to_a_layer(graph):
    for name in graph:
        group_of(name)


def test_each_layer_imports_only_its_own_group_and_the_layers_below(graph):
    wrong = []
    for name, targets in sorted(graph.items()):
        layer, group = group_of(name)
        for target in sorted(targets):
            target_layer, target_group = group_of(target)
            if target_group != group and target_layer <= layer:
                wrong.append(f"{name} ({group}) imports {target} ({target_group})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


# Sharper than the order (docs/design.md, "Layers"): the run folder takes the plan's seeds and the
# experiment's schema as arguments; the experiment schema asks the game registry only for a game's
# knob names, to say that a knob written at study level belongs under rules: or sweep:.
BELOW_ONLY = {"rundir": "logs", "config": "games"}  # may import only this layer and those below


def test_the_run_folder_and_the_experiment_schema_stand_on_the_base_layers_only(graph):
    wrong = []
    for name, targets in sorted(graph.items()):
        _, group = group_of(name)
        if group in BELOW_ONLY:
            floor = group_of("simulator." + BELOW_ONLY[group])[0]
            wrong += [f"{name} imports {target}" for target in sorted(targets) if group_of(target)[0] < floor]
    assert not wrong, "\n".join(wrong)


def test_the_report_neither_builds_a_plan_nor_loads_a_game():
    """The report reads the run folder; its sample games come from samples.py."""
    wrong = []
    for path in sorted((PACKAGE / "report").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {alias.name for alias in node.names}
                if node.module.startswith("simulator.games") or "build_plan" in names:
                    wrong.append(f"{path.name}: from {node.module} import {', '.join(sorted(names))}")
    assert not wrong, "\n".join(wrong)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back(graph):
    assert cycles(graph) == []


def test_the_checker_sees_lazy_imports_circles_and_upward_imports(tmp_path):
    """The checks above can fail: a lazy import inside a function is an edge, a circle is found,
    and a module of a low layer importing a higher one is reported."""
    source = "def f():\n    from simulator.cli import main\n"
    modules = {"simulator.rundir": tmp_path / "rundir.py", "simulator.cli": tmp_path / "cli.py"}
    modules["simulator.rundir"].write_text(source)
    assert imports_of("simulator.rundir", modules["simulator.rundir"], modules) == {"simulator.cli"}
    assert group_of("simulator.rundir")[0] > group_of("simulator.cli")[0]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
