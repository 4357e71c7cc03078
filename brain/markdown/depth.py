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


def pruned(root: Any, limit: int = MAX_DEPTH) -> Any:
    """A value parsed from JSON (no part shared), itself when it nests `limit` levels or fewer, else
    a copy whose lists and objects deeper than that are None: what a reader keeps of a record that
    holds a value nested too deep (the rest of the record is still read). No recursion.

    Cheap when nothing is too deep: only lists and objects are visited."""
    if not _json_deeper_than(root, limit):
        return root
    top: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(root, top, 0, 0)]
    while stack:
        value, holder, key, depth = stack.pop()
        if isinstance(value, dict):
            copy: Any = None if depth >= limit else dict.fromkeys(value)
            stack += [] if copy is None else [(item, copy, name, depth + 1) for name, item in value.items()]
        elif isinstance(value, list):
            copy = None if depth >= limit else [None] * len(value)
            stack += [] if copy is None else [(item, copy, number, depth + 1) for number, item in enumerate(value)]
        else:
            copy = value
        holder[key] = copy
    return top[0]


def _json_deeper_than(root: Any, limit: int) -> bool:
    """`deeper_than` for a value parsed from JSON: a tree, so no level needs its parts counted once."""
    stack = [(root, 0)]
    while stack:
        value, depth = stack.pop()
        for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
            if isinstance(item, (dict, list)):
                if depth + 1 >= limit and item:
                    return True
                stack.append((item, depth + 1))
    return False


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
