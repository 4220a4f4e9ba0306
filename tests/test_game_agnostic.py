"""Nothing above the games knows a game by name (issue #40 item 2): every module and template of
a layer above `simulator/games/` (tests/test_layers.py's LAYERS: the CLI, `zoosim train`, the
runner, the report, ...) must reach a game through the registry and its `Game` record only, so
that an installed plugin game is served exactly as the built-in ones are. The registered names
are grepped for as whole words, comments and docstrings included."""

from __future__ import annotations

import re
from pathlib import Path

from test_layers import PACKAGE, group_of

import simulator.games as registry

TEXT_SUFFIXES = (".py", ".html", ".j2", ".js", ".css", ".txt", ".md", ".yaml", ".json")


def installed_game_names() -> list[str]:
    """Built-in and installed (or registered) games, without the test suite's own test games
    (tests/conftest.py registers `coin`, `lever`, `ascent`: ordinary words, not plugins)."""
    return [name for name, target in registry.registered_games().items() if not target.startswith("zoosim_test_")]


def files_above_the_games() -> list[Path]:
    games_layer, _ = group_of("simulator.games")
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "__pycache__" in path.parts:
            continue
        top = path.relative_to(PACKAGE).parts[0]
        # a data file beside the package's modules belongs to the package root (above the games)
        at_root = top == "__init__.py" or (len(path.relative_to(PACKAGE).parts) == 1 and path.suffix != ".py")
        module = "simulator" if at_root else f"simulator.{Path(top).stem}"
        if group_of(module)[0] < games_layer:
            found.append(path)
    return found


def naming(paths: list[Path], names: list[str]) -> list[str]:
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    hits = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    return hits


def test_no_layer_above_the_games_names_a_registered_game():
    names = installed_game_names()
    assert {"katz", "nyz", "feeding"} <= set(names)
    paths = files_above_the_games()
    covered = {path.relative_to(PACKAGE).as_posix() for path in paths}
    assert {"cli.py", "train/settings.py", "train/loop.py", "runner.py", "plan.py"} <= covered
    hits = naming(paths, names)
    assert not hits, "game names above the games layer:\n" + "\n".join(hits)


def test_the_grep_finds_a_name_where_one_is():
    """The check above can fail: the games' own modules name themselves."""
    katz = PACKAGE / "games" / "katz" / "__init__.py"
    assert naming([katz], installed_game_names())
