"""Strict pydantic models and their errors in one readable line: the schema machinery every
file zoosim reads stands on (experiment and tune files, a game's knobs, the run folder's
manifest).

`StrictModel` takes input as written. `explain_validation_error` turns pydantic's report into one
sentence (with the allowed values or a did-you-mean) and the key path as the user wrote it
(`key_path`: studies[0].rules); `validate_model` raises that as a `ZoosimError`. `allowed_text`
says in words what a field accepts, from its type and bounds (`zoosim rules` prints it).
A module of the lowest layers: config and the run folder use it without importing any game.
"""

from __future__ import annotations

import json
import types
import typing
from typing import Any, Mapping

import pydantic

from simulator.errors import ZoosimError


class StrictModel(pydantic.BaseModel):
    """A params or config model that takes input as written: unknown keys are errors (so typos
    are not silently defaults), no value changes type on the way in (`true` is not the number 1,
    `4.0` or `"4"` is not an int; an int is still a valid float), and every float is finite."""

    model_config = pydantic.ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


def validate_model(model: type[pydantic.BaseModel], data: Mapping[str, Any]) -> pydantic.BaseModel:
    """Build a params model, turning pydantic's report into one line naming the knob."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as error:
        message, path = explain_validation_error(model, error)
        raise ZoosimError(message, key=key_path(path)) from None


def explain_validation_error(
    model: type[pydantic.BaseModel], error: pydantic.ValidationError
) -> tuple[str, tuple[Any, ...]]:
    """The most relevant problem of a pydantic report: one readable sentence (with the allowed
    values or a did-you-mean) and the key path as the user wrote it. For a union, an error inside
    the member the user meant beats the errors that only say another member does not apply."""
    explained = [(err, *_input_path(model, err["loc"])) for err in error.errors()]
    meant = [item for item in explained if not (item[3] and item[0]["type"] in _WRONG_MEMBER_TYPES)]
    err, path, field, _ = next((item for item in meant if not item[3]), (meant or explained)[0])
    return describe_validation_error(model, err, path, field), path


# A union member's error of one of these types only says the input has another shape than that
# member; any other error at a member (e.g. a model validator's "empty range") is what was meant.
_WRONG_MEMBER_TYPES = {"int_type", "int_parsing", "float_type", "string_type", "bool_type", "model_type",
                       "model_attributes_type", "dict_type", "list_type", "literal_error"}


def key_path(path: tuple[Any, ...]) -> str | None:
    """A key path as the user wrote it: studies[0].rules, not studies.0.rules."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or None


def _input_path(model: type[pydantic.BaseModel], loc: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any, bool]:
    """An error location without the union members pydantic names in it ('int', "literal['auto']",
    'SeatSpec' are not keys of the input); the field the path ends at (None inside a list or
    mapping, or where the schema is open); and whether the location ends at a union member, i.e.
    the error only says that member does not apply."""
    path: list[Any] = []
    annotation: Any = model
    field = None
    member_level = False
    for part in loc:
        annotation = _unwrap(annotation)
        members = _union_members(annotation)
        member_level = bool(members)
        if members:  # this part names the member tried
            annotation = next((member for member in members if _is_member_named(member, part)), None)
            continue
        path.append(part)
        field = None
        if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
            field = annotation.model_fields.get(part) if isinstance(part, str) else None
            annotation = field.annotation if field is not None else None
        elif typing.get_origin(annotation) in (list, tuple, set) and isinstance(part, int):
            annotation = (typing.get_args(annotation) or (None,))[0]
        elif typing.get_origin(annotation) is dict:
            annotation = (typing.get_args(annotation) or (None, None))[1]
        else:
            annotation = None
    return tuple(path), field, member_level


def _unwrap(annotation: Any) -> Any:
    """Annotated[X, ...] -> X and Optional[X] -> X (pydantic names no member for None)."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    members = [arg for arg in _union_args(annotation) if arg is not type(None)]
    return _unwrap(members[0]) if len(members) == 1 else annotation


def _union_args(annotation: Any) -> tuple[Any, ...]:
    is_union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return typing.get_args(annotation) if is_union else ()


def _union_members(annotation: Any) -> list[Any]:
    return [_unwrap(arg) for arg in _union_args(annotation) if arg is not type(None)]


def _is_member_named(member: Any, label: Any) -> bool:
    origin = typing.get_origin(member)
    if origin is typing.Literal:
        return str(label).startswith("literal[")
    name = getattr(origin or member, "__name__", None)
    if name is None:
        return False
    return str(label) in (name, f"constrained-{name}") or str(label).startswith(f"{name}[")


def describe_validation_error(
    model: type[pydantic.BaseModel], err: Mapping[str, Any], path: tuple[Any, ...], field: Any = None
) -> str:
    """One readable sentence for a pydantic error, with the allowed values or a did-you-mean."""
    import difflib

    if err["type"] == "extra_forbidden":
        names = [str(part) for part in path if not isinstance(part, int)]
        siblings = sorted(_fields_at(model, names[:-1]))
        hint = difflib.get_close_matches(names[-1], siblings, n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        return f"unknown key '{names[-1]}'{suggestion} (allowed: {', '.join(siblings)})"
    message = str(err["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    given = err.get("input")
    if err["type"] != "missing" and not isinstance(given, (dict, list)):
        shown = repr(given)
        message += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
    extra = field.json_schema_extra if field is not None and isinstance(field.json_schema_extra, dict) else {}
    only_literals = typing.get_origin(_unwrap(field.annotation)) is typing.Literal if field is not None else False
    if "rule" in extra and err["type"] not in ("value_error", "missing") and not only_literals:
        message += f"; allowed: {extra.get('allowed') or allowed_text(field)}"  # a rule knob's own text
    return message


def _fields_at(model: type[pydantic.BaseModel], path: list[str]) -> list[str]:
    current: Any = model
    mapping_key_next = False  # the part after a dict-valued field is a key of the user's mapping
    for part in path:
        if mapping_key_next:
            mapping_key_next = False
            continue
        fields = getattr(current, "model_fields", {})
        if part not in fields:
            return []
        mapping_key_next = typing.get_origin(fields[part].annotation) is dict
        current = model_in(fields[part].annotation)
    return list(getattr(current, "model_fields", {}))


def model_in(annotation: Any) -> Any:
    """The BaseModel inside an annotation such as `Deck` or `Deck | None`."""
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = model_in(arg)
        if found is not None:
            return found
    return None


def allowed_text(info: Any) -> str:
    """What a knob accepts, in words, derived from its type and bounds: 'true or false',
    'an integer from 1 to 5', 'one of "a", "b"', 'a list of integers', '"auto", or an integer
    >= 1', 'an integer >= 1, or null'."""
    return _type_text(info.annotation, _bounds_text(info.metadata))


def _type_text(annotation: Any, bounds: str) -> str:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_text(args[0], _bounds_text(annotation.__metadata__) or bounds)
    if origin is typing.Literal:
        return one_of(args)
    if origin in (typing.Union, types.UnionType):
        nullable = type(None) in args
        members = [arg for arg in args if arg is not type(None)]
        literals = [value for arg in members for value in literal_values(arg)]
        parts = [one_of(tuple(literals))] if literals else []
        parts += [_type_text(arg, bounds) for arg in members if not literal_values(arg)]
        return ", or ".join(parts + ["null"] * nullable)
    if origin in (list, tuple, set, frozenset):
        element = args[0] if args else Any
        if typing.get_origin(element) is typing.Literal:
            return f"a list, each {one_of(typing.get_args(element))}"
        return "a list of " + _PLURALS.get(element, "values")
    if annotation is bool:
        return "true or false"
    if annotation in (int, float):
        return f"{_SINGULARS[annotation]} {bounds}".rstrip()
    return _SINGULARS.get(annotation, getattr(annotation, "__name__", str(annotation)))


_SINGULARS = {int: "an integer", float: "a number", str: "text"}


_PLURALS = {int: "integers", float: "numbers", str: "texts", bool: "true/false values"}


def _bounds_text(metadata: Any) -> str:
    """'from 1 to 5', '>= 1', '> 0 and < 0.5' from pydantic/annotated-types constraints."""
    found = {}
    for meta in metadata:
        for attr in ("ge", "gt", "le", "lt"):
            if getattr(meta, attr, None) is not None:
                found[attr] = getattr(meta, attr)
    if "ge" in found and "le" in found and len(found) == 2:
        return f"from {found['ge']} to {found['le']}"
    symbols = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    return " and ".join(f"{symbols[attr]} {value}" for attr, value in found.items())


def one_of(values: tuple[Any, ...]) -> str:
    texts = [json.dumps(value) for value in values]
    return texts[0] if len(texts) == 1 else "one of " + ", ".join(texts)


def literal_values(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    values: tuple[Any, ...] = ()
    for arg in typing.get_args(annotation):
        values += literal_values(arg)
    return values
