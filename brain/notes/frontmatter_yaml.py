"""Frontmatter: locate it exactly, load it without surprises, dump single keys.

YAML's implicit timestamps would turn `date: 2026-01-21T10:30:00.2927538-08:00` into a
datetime and drop the seventh fractional digit, so the loader keeps them as strings:
what the user typed is what comes back.

Loading and dumping use libyaml's C parser and emitter (PyYAML's `CSafeLoader`/`CSafeDumper`,
about 7x faster per note than the pure-Python classes, which dominated indexing and import),
and fall back to the pure-Python classes where PyYAML was built without libyaml. Both sides
share PyYAML's resolver and representer, so values are the same either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

_DELIMITER = re.compile(r"^---[ \t]*\r?$")
_CLOSING = re.compile(r"^(---|\.\.\.)[ \t]*\r?$")


_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C class exists only with libyaml
_SafeDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _NoTimestampLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """A safe loader that reads dates and timestamps as the strings they were written as."""


_NoTimestampLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _BrainYAMLHandler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=_NoTimestampLoader)  # noqa: S506 - a SafeLoader subclass


_HANDLER = _BrainYAMLHandler()


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
        data = _HANDLER.load(yaml_text)
    except yaml.YAMLError as error:
        reason = str(error).replace("\n", " ")
        return {}, f"malformed frontmatter: {reason}"
    except Exception as error:  # noqa: BLE001 - YAML can fail in odd ways on hostile input
        return {}, f"malformed frontmatter: {type(error).__name__}: {error}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"frontmatter is a {type(data).__name__}, not a mapping of keys to values"
    return {str(key): _plain(value) for key, value in data.items()}, None


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
    return yaml.dump(
        mapping,
        Dumper=_SafeDumper,
        sort_keys=False,
        allow_unicode=not _has_line_breaker(mapping),
        default_flow_style=False,
        width=1_000_000,
    )
