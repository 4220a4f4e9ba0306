"""The one YAML reader for everything a user hands zoosim (experiment files and `--set` values).

It turns every way YAML can hurt into a one-line `ZoosimError` naming the source, before a value
is built: files are read only if they are regular files and at most `MAX_FILE_BYTES` long;
nesting deeper than `MAX_DEPTH` stops the parser (counting nesting reached through aliases too);
aliases may not expand to more than `MAX_ALIAS_VALUES` values (a "billion laughs" document) nor
contain themselves; explicit tags (`!!binary`, `!!python/...`, `!custom`) are refused; every
mapping key must be text and may appear only once. Dates are read as text (no experiment field is
a date, and a malformed one would otherwise crash the reader).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from simulator.errors import ZoosimError

MAX_FILE_BYTES = 256 * 1024
MAX_DEPTH = 50
MAX_ALIAS_VALUES = 100_000

_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def read_text_file(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes, or a ZoosimError naming it.

    The file is opened without blocking and checked with fstat before reading, so a named pipe,
    a device such as /dev/zero or a folder is refused instead of hanging or filling memory.
    """
    file = str(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ZoosimError("no such file", file=file) from None
    except OSError as error:
        raise ZoosimError(f"cannot read: {error.strerror or error}", file=file) from None
    mode = os.fstat(descriptor).st_mode  # before fdopen, which refuses a folder with a traceback
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        if stat.S_ISDIR(mode):
            raise ZoosimError("is a folder, not an experiment file", file=file)
        raise ZoosimError("is not a regular file (a device, pipe or socket); give a YAML file", file=file)
    with os.fdopen(descriptor, "rb") as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise ZoosimError(f"cannot read: {error.strerror or error}", file=file) from None
    if len(data) > limit:
        raise ZoosimError(f"is larger than {limit // 1024} KiB, the most an experiment file may be", file=file)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ZoosimError(f"is not UTF-8 text (byte {error.start + 1})", file=file) from None


def load_yaml(text: str, *, source: str | None = None, key: str | None = None) -> Any:
    """Parse YAML text within the limits above; `source` and `key` name it in error messages."""
    try:
        return _load(text, source, key)
    except yaml.YAMLError as error:
        raise ZoosimError(f"invalid YAML: {_describe_yaml_error(error)}", file=source, key=key) from None
    except ValueError as error:  # a scalar the resolver accepted but Python cannot build (4,301 digits)
        raise ZoosimError(f"invalid value: {error}", file=source, key=key) from None


def _load(text: str, source: str | None, key: str | None) -> Any:
    loader = _BoundedLoader(text, source, key)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node, source, key)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    return where + problem


def _line(node_or_event: Any) -> str:
    mark = node_or_event.start_mark
    return f"line {mark.line + 1}, column {mark.column + 1}"


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader whose composer refuses tags and stops at MAX_DEPTH (before Python's own
    recursion limit), and whose resolver reads dates as text."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def __init__(self, text: str, source: str | None, key: str | None):
        super().__init__(text)
        self._source, self._key, self._depth = source, key, 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()
        tag = getattr(event, "tag", None)
        if tag is not None:
            raise ZoosimError(
                f"{_line(event)}: YAML tags such as '{tag}' are not allowed; write plain values",
                file=self._source, key=self._key,
            )
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise ZoosimError(
                    f"{_line(event)}: nested deeper than {MAX_DEPTH} levels (at most {MAX_DEPTH} allowed)",
                    file=self._source, key=self._key,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _children(node: Node) -> list[Node]:
    """Items of a list, values of a mapping (its keys are plain text, see _check_keys)."""
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [value for _, value in node.value]
    return []


def _check_graph(root: Node, source: str | None, key: str | None) -> None:
    """Keys, duplicates, self-containing aliases, and the size and depth of the document as it
    would be expanded. Iterative and memoised per node, so a shared (aliased) node is measured
    once however often it is used: linear in the text, whatever the expansion."""

    def fail(message: str, path: str) -> ZoosimError:
        where = ".".join(part for part in (key, path) if part) or None
        return ZoosimError(message, file=source, key=where)

    measured: dict[int, tuple[int, int]] = {}  # id(node) -> (values when expanded, depth)
    open_nodes: set[int] = set()  # nodes whose children are being measured (the current path)
    stack: list[tuple[Node, str, bool]] = [(root, "", False)]
    while stack:
        node, path, children_measured = stack.pop()
        if children_measured:
            children = [measured[id(child)] for child in _children(node)]
            size = 1 + sum(values for values, _ in children)
            depth = 1 + max((levels for _, levels in children), default=0)
            if size > MAX_ALIAS_VALUES:
                raise fail(f"aliases expand to more than {MAX_ALIAS_VALUES:,} values (at most {MAX_ALIAS_VALUES:,} allowed)", path)
            if depth > MAX_DEPTH:
                raise fail(f"{_line(node)}: nested deeper than {MAX_DEPTH} levels through aliases (at most {MAX_DEPTH} allowed)", path)
            measured[id(node)] = (size, depth)
            open_nodes.discard(id(node))
            continue
        if id(node) in measured:
            continue
        if id(node) in open_nodes:
            raise fail(f"{_line(node)}: an alias refers to a mapping or list that contains itself", path)
        open_nodes.add(id(node))
        stack.append((node, path, True))
        if isinstance(node, MappingNode):
            _check_keys(node, path, fail)
            for key_node, value in node.value:
                stack.append((value, f"{path}.{key_node.value}" if path else str(key_node.value), False))
        elif isinstance(node, SequenceNode):
            stack.extend((item, f"{path}[{index}]", False) for index, item in enumerate(node.value))


def _check_keys(node: MappingNode, path: str, fail) -> None:
    """Every key is text (`<<` merges aside) and appears once in its mapping."""
    first_seen: dict[str, Node] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            continue
        if not isinstance(key_node, ScalarNode):
            raise fail(f"{_line(key_node)}: a key must be text, not a list or mapping", path)
        if key_node.tag != _STR_TAG:
            raise fail(
                f"{_line(key_node)}: key {key_node.value!r} is read as a number, true/false or null, "
                "not text; quote it",
                path,
            )
        name = key_node.value
        if name in first_seen:
            first = first_seen[name].start_mark.line + 1
            raise fail(
                f"duplicate key '{name}' at {_line(key_node)} (first at line {first}); "
                "each key may appear once per mapping",
                path,
            )
        first_seen[name] = key_node
