"""How deeply a value nests, measured without recursion.

A few hundred bytes of `[[[[...]]]]` in frontmatter, a run's snapshot or a tool argument nest
deeper than Python's recursion limit: every recursive walk over the value (constructing it,
copying it, encoding it as JSON, comparing it) then fails with a RecursionError, in whatever
command touches the note. Parsers refuse such a value here, at the door, with a reason a user
can act on; nothing real nests anywhere near `MAX_DEPTH`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

MAX_DEPTH = 64


def deeper_than(root: Any, limit: int = MAX_DEPTH, children: Callable[[Any], Iterable[Any]] | None = None) -> bool:
    """Whether `root` nests more than `limit` levels (a value that contains itself does).

    Level by level, each object counted once per level, so a value whose parts are shared (YAML
    aliases) costs its number of distinct parts times the depth, never more.
    """
    expand = children or _children
    level = [root]
    for _ in range(limit):
        seen: dict[int, Any] = {}
        for item in level:
            for child in expand(item):
                seen.setdefault(id(child), child)
        if not seen:
            return False
        level = list(seen.values())
    return any(True for item in level for _ in expand(item))


def _children(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        return [*value.keys(), *value.values()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return value
    return ()


def too_deep_message(what: str, limit: int = MAX_DEPTH) -> str:
    return f"{what} nests more than {limit} levels deep; brain does not read values nested that deeply"


class TooDeep(ValueError):
    """A value nested deeper than `MAX_DEPTH`."""


def check_depth(value: Any, what: str) -> Any:
    """`value`, or TooDeep when it nests more than `MAX_DEPTH` levels."""
    if deeper_than(value):
        raise TooDeep(too_deep_message(what))
    return value


def load_json(text: str, what: str) -> Any:
    """`json.loads(text)`, refusing (TooDeep) a value nested more than `MAX_DEPTH` levels.

    Malformed JSON raises `json.JSONDecodeError` as `json.loads` does."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(too_deep_message(what)) from None
    return check_depth(value, what)
