"""MkDocs hook (mkdocs.yml `hooks:`): writes the experiment file reference page at build time,
from the schemas zoosim validates files with, so the page cannot drift from the code.

- the experiment file: `simulator.config.Experiment` and the models it nests (Study, SeatSpec,
  PrecisionGames, ...);
- the tune file: `simulator.tune.config.TuneExperiment` and its models;
- every built-in game's rule knobs, presets and policies, from its `Game` object (the same
  rows `zoosim rules GAME` prints).

The page is `REFERENCE_PAGE`, a generated file: it exists only in the built site.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any

import annotated_types
import pydantic
from mkdocs.structure.files import File

REFERENCE_PAGE = "reference/experiment-file.md"


def on_files(files, config):
    """Add the generated page to the site's files (before the nav is built, so the nav may
    name it)."""
    files.append(File.generated(config, REFERENCE_PAGE, content=reference_page()))
    return files


def reference_page() -> str:
    from simulator.config import Experiment
    from simulator.games import GAME_MODULES
    from simulator.tune.config import TuneExperiment

    lines = [
        "# Experiment file reference",
        "",
        "<!-- generated at build time by docs/hooks/reference.py from the pydantic schemas -->",
        "",
        "This page is generated from the schemas that `zoosim run`, `zoosim validate` and `zoosim tune` "
        "check files against (`simulator/config.py`, `simulator/tune/config.py`) and from each game's "
        "knob declarations, so it says exactly what the code accepts. Unknown keys are errors; "
        "values keep the type they are written in (`true` is not a number, `4.0` is not a whole "
        "number). For how to use these keys see [Experiment files](../experiments.md) and "
        "[Tuning](../tuning.md).",
        "",
        "## Experiment files",
        "",
    ]
    lines += models_section(Experiment, "experiment")
    lines += ["## Tune files", "", "A tune file has a `tune:` section instead of `studies:`.", ""]
    lines += models_section(TuneExperiment, "tune")
    lines += ["## Rule knobs, presets and policies of each game", "",
              "Set knobs under a study's `rules:` (dotted names for nested knobs, e.g. `grid.rows`), "
              "sweep them under `sweep:` or `cases:`, seat policies by name under `seats:`, `pool:` or "
              "`ladder:`. `zoosim rules GAME` prints the same table.", ""]
    for name in GAME_MODULES:
        lines += game_section(name)
    return "\n".join(lines) + "\n"


# ---- pydantic models -------------------------------------------------------------------------

def models_section(root: type[pydantic.BaseModel], prefix: str) -> list[str]:
    """A table per model, the root first, then each nested model once, in the order met."""
    order = nested_models(root)
    anchors = {model: f"{prefix}-{model.__name__.lower()}" for model in order}
    lines: list[str] = []
    for model in order:
        title = "the file" if model is root else f"`{model.__name__}`"
        lines += [f"### Keys of {title} {{#{anchors[model]}}}", ""]
        doc = (model.__doc__ or "").strip()
        if doc and not doc.startswith(("Usage docs", "A base class")):
            lines += [" ".join(doc.split()), ""]
        lines += ["| key | type | default | allowed | description |", "|---|---|---|---|---|"]
        for name, field in model.model_fields.items():
            lines.append("| " + " | ".join([
                f"`{field.alias or name}`", cell(type_text(field.annotation, anchors)), cell(default_text(field)),
                cell(constraint_text(field)), cell(" ".join((field.description or "").split())),
            ]) + " |")
        lines.append("")
    return lines


def nested_models(root: type[pydantic.BaseModel]) -> list[type[pydantic.BaseModel]]:
    found: list[type[pydantic.BaseModel]] = []

    def visit(annotation: Any) -> None:
        if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
            if annotation not in found:
                found.append(annotation)
                for field in annotation.model_fields.values():
                    visit(field.annotation)
            return
        for argument in typing.get_args(annotation):
            visit(argument)

    visit(root)
    return found


def type_text(annotation: Any, anchors: dict[type, str]) -> str:
    """A type annotation as a reader would write it: `int`, `list of str or SeatSpec`, ..."""
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is type(None):
        return "null"
    if origin is typing.Annotated:
        return type_text(arguments[0], anchors)
    if origin is typing.Literal:
        return " or ".join(f"`{json.dumps(value)}`" for value in arguments)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(type_text(argument, anchors) for argument in arguments)
    if origin is list:
        return f"list of {type_text(arguments[0], anchors)}" if arguments else "list"
    if origin is dict:
        return f"mapping {type_text(arguments[0], anchors)} → {type_text(arguments[1], anchors)}" if arguments else "mapping"
    if annotation is typing.Any:
        return "any"
    if isinstance(annotation, type) and annotation in anchors:
        return f"[{annotation.__name__}](#{anchors[annotation]})"
    return getattr(annotation, "__name__", str(annotation))


def default_text(field: pydantic.fields.FieldInfo) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        value = field.default_factory()
        return f"`{json.dumps(value.model_dump(mode='json') if isinstance(value, pydantic.BaseModel) else value)}`"
    return f"`{json.dumps(field.default)}`"


CONSTRAINT_WORDS = {
    annotated_types.Ge: ("≥", "ge"), annotated_types.Gt: (">", "gt"),
    annotated_types.Le: ("≤", "le"), annotated_types.Lt: ("<", "lt"),
    annotated_types.MinLen: ("length ≥", "min_length"),
    annotated_types.MaxLen: ("length ≤", "max_length"),
}


def constraint_text(field: pydantic.fields.FieldInfo) -> str:
    """The field's bounds (its own, and those of an Annotated type inside it)."""
    metadata = list(field.metadata)
    for argument in typing.get_args(field.annotation):
        if typing.get_origin(argument) is typing.Annotated:
            metadata += [item for info in typing.get_args(argument)[1:] for item in getattr(info, "metadata", [info])]
    words = []
    for item in metadata:
        for kind, (word, attribute) in CONSTRAINT_WORDS.items():
            if isinstance(item, kind):
                bound = getattr(item, attribute)
                bound = "2^63" if bound == 2**63 else f"{bound:,}" if isinstance(bound, int) else bound
                words.append(f"{word} {bound}")
    return ", ".join(dict.fromkeys(words))


def cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


# ---- games -----------------------------------------------------------------------------------

def game_section(name: str) -> list[str]:
    from simulator.games import get_game
    from simulator.games.base import flatten_dotted

    game = get_game(name)
    lines = [f"### {game.title} (`{name}`) {{#game-{name}}}", "",
             f"Rules version {game.rules_version}.", "",
             "| knob | default | allowed | rule | description |", "|---|---|---|---|---|"]
    for knob in game.knobs():
        per_seat = " (per seat: entry i is seat i in turn order)" if knob.per_seat else ""
        lines.append(f"| `{knob.name}` | `{cell(knob.default)}` | {cell(knob.allowed)}{per_seat} | {knob.rule} | "
                     f"{cell(' '.join(knob.description.split()))} |")
    lines += ["", f"Presets of `{name}` (`preset: NAME` under `rules:`; the first is the default):", ""]
    for preset, settings in game.presets.items():
        sets = ", ".join(f"`{knob}={json.dumps(value)}`" for knob, value in flatten_dotted(settings).items())
        lines.append(f"- `{preset}`: {sets or 'the defaults above'}")
    lines += ["", f"Policies of `{name}` (seat them by name, or `{{policy: NAME, params: {{...}}}}`):", "",
              "| policy | description | parameters |", "|---|---|---|"]
    for policy, spec in game.policies.items():
        default = " (default)" if policy == game.default_policy else ""
        parameters = "<br>".join(f"`{parameter}` = {cell(spec.describe_value(parameter))}"
                                 + (f": {cell(spec.param_help[parameter])}" if spec.param_help.get(parameter) else "")
                                 for parameter in spec.params)
        lines.append(f"| `{policy}`{default} | {cell(' '.join(spec.description.split()))} | {parameters} |")
    lines.append("")
    return lines
