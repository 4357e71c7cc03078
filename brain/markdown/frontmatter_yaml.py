"""Frontmatter: locate it exactly, load it without surprises, dump single keys.

YAML's implicit timestamps would turn `date: 2026-01-21T10:30:00.2927538-08:00` into a
datetime and drop the seventh fractional digit, so the loader keeps them as strings:
what the user typed is what comes back.

Loading and dumping use libyaml's C parser and emitter (PyYAML's `CSafeLoader`/`CSafeDumper`,
much faster than the pure-Python classes, which dominated indexing and import),
and fall back to the pure-Python classes where PyYAML was built without libyaml. Both sides
share PyYAML's resolver and representer, so values are the same either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from brain.lazy import lazy_module
from brain.markdown.depth import TooDeep, deeper_than, too_deep_message

if TYPE_CHECKING:
    import yaml
else:  # PyYAML loads at the first frontmatter read or written: a read the catalog answers never needs it
    yaml = lazy_module("yaml")

_DELIMITER = re.compile(r"^---[ \t]*\r?$")
_CLOSING = re.compile(r"^(---|\.\.\.)[ \t]*\r?$")


@cache
def _yaml_classes() -> tuple[type, type]:
    """(loader, dumper): libyaml's C classes where PyYAML has them, else the pure-Python ones."""
    safe_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    safe_dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    # PyYAML ships no types, and the base is chosen at run time (libyaml's loader or the pure-Python one)
    class NoTimestampLoader(safe_loader):  # type: ignore[misc, valid-type]
        """A safe loader that reads dates and timestamps as the strings they were written as.

        It also notes duplicate keys (YAML keeps the last one silently), for `brain doctor`.
        """

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    if key_node.value in seen:
                        self.duplicates = [*getattr(self, "duplicates", []), key_node.value]
                    seen.add(key_node.value)
            mapping: dict[Any, Any] = super().construct_mapping(node, deep)  # YAML keys may be any scalar
            return mapping

    NoTimestampLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return NoTimestampLoader, safe_dumper


def _load(fm: str, what: str = "the frontmatter") -> tuple[Any, list[str]]:
    """The YAML value and the keys that appeared twice in one mapping."""
    loader = _yaml_classes()[0](fm)
    try:
        node = loader.get_single_node()  # libyaml composes without Python recursion; constructing recurses
        if node is None:
            return None, []
        if deeper_than(node, children=_node_children):
            raise TooDeep(too_deep_message(what))
        return loader.construct_document(node), getattr(loader, "duplicates", [])
    finally:
        loader.dispose()


def _node_children(node: Any) -> list[Any]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


# Aliases (`*name`) let a few hundred bytes stand for billions of values (a "billion laughs"
# bomb); frontmatter that expands to more values than this is refused.
MAX_EXPANDED_VALUES = 10_000


@dataclass(frozen=True)
class FrontmatterBlock:
    """Where the frontmatter sits: lines [1, end) hold the YAML, line `end` is the closing fence."""

    yaml_text: str
    end: int  # index of the closing delimiter line


def locate(lines: list[str]) -> FrontmatterBlock | None:
    """Find a frontmatter block at the top of the text (lines keep their endings)."""
    if not lines:
        return None
    first = lines[0].lstrip("\ufeff")
    if not _DELIMITER.match(first.rstrip("\n")):
        return None
    for index in range(1, len(lines)):
        if _CLOSING.match(lines[index].rstrip("\n")):
            return FrontmatterBlock("".join(lines[1:index]), index)
    return None


def load(yaml_text: str) -> tuple[dict[str, Any], str | None]:
    """Load YAML into a dict; on any failure return ({}, reason)."""
    try:
        data, duplicates = _load(yaml_text)
    except yaml.YAMLError as error:
        reason = str(error).replace("\n", " ")
        return {}, f"malformed frontmatter: {reason}"
    except TooDeep as error:
        return {}, f"frontmatter not read: {error}"
    except Exception as error:
        return {}, f"malformed frontmatter: {type(error).__name__}: {error}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"frontmatter is a {type(data).__name__}, not a mapping of keys to values"
    if "*" in yaml_text and _expanded_size(data) > MAX_EXPANDED_VALUES:
        return (
            {},
            f"frontmatter not read: its YAML aliases expand to more than {MAX_EXPANDED_VALUES:,} values (an alias bomb?)",
        )
    problem = f"duplicate key '{duplicates[0]}' in the frontmatter; the last one is used" if duplicates else None
    return {str(key): _plain(value) for key, value in data.items()}, problem


def _expanded_size(value: Any) -> int:
    """How many values `value` stands for once every alias is expanded (a cycle counts as too many)."""
    sizes: dict[int, int] = {}
    too_many = MAX_EXPANDED_VALUES + 1

    def size(item: Any) -> int:
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple, set)):
            children = item
        else:
            return 1
        if id(item) in sizes:
            return sizes[id(item)]
        sizes[id(item)] = too_many  # while it is being counted: reaching it again is a cycle
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_EXPANDED_VALUES:
                break
        sizes[id(item)] = total
        return total

    try:
        return size(value)
    except RecursionError:
        return too_many


def _plain(value: Any) -> Any:
    """Make YAML values JSON-safe (keys as strings, sets and bytes as lists and text)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(item) for item in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


_LINE_BREAKERS = ("\x85", "\u2028", "\u2029")


def _has_line_breaker(value: Any) -> bool:
    if isinstance(value, str):
        return any(char in value for char in _LINE_BREAKERS)
    if isinstance(value, dict):
        return any(_has_line_breaker(key) or _has_line_breaker(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(_has_line_breaker(item) for item in value)
    return False


def dump_key(key: str, value: Any) -> str:
    """YAML text for one top-level key, ending in a newline, strings quoted when needed.

    Non-ASCII text is written as it is, except where a value holds a Unicode line breaker
    (NEL, U+2028, U+2029): PyYAML would write it raw and read it back as a line break, so
    such a key is written with escapes instead.
    """
    return _dump({key: value})


def dump(data: dict[str, Any]) -> str:
    """YAML text for a whole frontmatter mapping, in the given key order."""
    if not data:
        return ""
    return _dump(data) if not _has_line_breaker(data) else "".join(dump_key(key, value) for key, value in data.items())


def _dump(mapping: dict[str, Any]) -> str:
    text: str = yaml.dump(
        mapping,
        Dumper=_yaml_classes()[1],
        sort_keys=False,
        allow_unicode=not _has_line_breaker(mapping),
        default_flow_style=False,
        width=1_000_000,
    )
    return text
