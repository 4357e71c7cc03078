"""Where an ai-agents file departs from the schemas it claims (v1 or v2): warnings, never refusals.

Real files do not follow their schemas (null where a list is due, decisions as plain strings,
ids of both generations in one graph). The importer keeps every value anyway; these checks only
say, field by field, what was off. Each message starts with the field it is about.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from brain.markdown.model import CAUSAL_TYPES, OUTCOMES
from brain.memory.episodes.note import DECISION_TYPES, EVENT_TYPES

EPISODE_REQUIRED = ("id", "session", "timestamp", "outcome", "task", "decisions", "events", "metrics")
DECISION_REQUIRED = ("id", "timestamp", "type", "context", "chosen", "outcome")
EVENT_REQUIRED = ("id", "timestamp", "type", "content")
GRAPH_REQUIRED = ("version", "updated", "nodes", "edges", "patterns")
NODE_TYPES = {"decision", "event", "outcome", "pattern", "error", "artifact", "commit", "milestone", "test"}
# v2 allows null for these two metrics ("the source log has no usable timestamps").
NULLABLE_METRICS = ("duration_minutes", "tool_calls")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$", re.IGNORECASE)
_NAIVE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$")
_V1_NODE_ID, _V2_ID, _V1_PATTERN_ID = re.compile(r"^n\d{3,}$"), re.compile(r"^[0-9a-f]{12}$"), re.compile(r"^p\d{3,}$")


def check_episode(data: dict[str, Any]) -> list[str]:  # noqa: C901 (one flat check per schema field)
    """Deviations of an episode from both episode schemas.

    Null lists and plain-string decisions are left to `episode_from_data`, which reports them
    as it reads them; repeating them here would say everything twice.
    """
    found: list[str] = []
    for key in EPISODE_REQUIRED:
        if key not in data:
            found.append(f"{key}: missing (the schema requires it)")
    if isinstance(data.get("id"), str) and not data["id"].startswith("episode-"):
        found.append(f"id: '{data['id']}' does not start with 'episode-'")
    _timestamp(data, "timestamp", "timestamp", found)
    if isinstance(data.get("metrics"), dict):
        for key, value in data["metrics"].items():
            if value is None and key in NULLABLE_METRICS:
                continue
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                found.append(f"metrics.{key}: {value!r} is not a number")
    for index, item in enumerate(data.get("decisions") or []):
        if isinstance(item, dict):
            _item(item, f"decisions[{index}]", DECISION_REQUIRED, r"^d\d{3}$", DECISION_TYPES, found)
            if "outcome" in item and item["outcome"] not in OUTCOMES:
                found.append(f"decisions[{index}].outcome: {item['outcome']!r} is not success, partial or failure")
            for key in ("options", "effects"):
                if key in item and not isinstance(item[key], list):
                    found.append(f"decisions[{index}].{key}: {type(item[key]).__name__}, not a list")
    for index, item in enumerate(data.get("events") or []):
        if isinstance(item, dict):
            _item(item, f"events[{index}]", EVENT_REQUIRED, r"^e\d{3}$", EVENT_TYPES, found)
            for key in ("caused_by", "leads_to"):
                if key in item and not isinstance(item[key], list):
                    found.append(f"events[{index}].{key}: {type(item[key]).__name__}, not a list")
    return _grouped(found)


def _item(
    item: dict[str, Any],
    where: str,
    required: tuple[str, ...],
    id_pattern: str,
    types: tuple[str, ...],
    found: list[str],
) -> None:
    for key in required:
        if key not in item:
            found.append(f"{where}.{key}: missing (the schema requires it)")
    if isinstance(item.get("id"), str) and not re.match(id_pattern, item["id"]):
        found.append(f"{where}.id: {item['id']!r} is not of the form {id_pattern.strip('^$')}")
    if "type" in item and item["type"] not in types:
        found.append(f"{where}.type: {item['type']!r} is not one of {', '.join(types)}")
    _timestamp(item, "timestamp", f"{where}.timestamp", found)


def _timestamp(data: dict[str, Any], key: str, where: str, found: list[str]) -> None:
    value = data.get(key)
    if value is None or not isinstance(value, str):
        if key in data and value is not None:
            found.append(f"{where}: {type(value).__name__}, not a date-time string")
        return
    if _NAIVE.match(value):
        found.append(f"{where}: {value!r} has no time zone (read as UTC where brain needs an instant)")
    elif not _DATE_TIME.match(value):
        found.append(f"{where}: {value!r} is not an ISO date-time")


def check_graph(data: dict[str, Any]) -> list[str]:  # noqa: C901 (one flat check per schema field)
    """Deviations of a causal graph from both graph schemas."""
    found: list[str] = []
    for key in GRAPH_REQUIRED:
        if key not in data:
            found.append(f"{key}: missing (the schema requires it)")
        elif key in ("nodes", "edges", "patterns") and not isinstance(data[key], list):
            found.append(f"{key}: {type(data[key]).__name__}, not a list")
    nodes = [n for n in _list(data, "nodes") if isinstance(n, dict)]
    patterns = [p for p in _list(data, "patterns") if isinstance(p, dict)]
    _ids("nodes", nodes, _V1_NODE_ID, found)
    _ids("patterns", patterns, _V1_PATTERN_ID, found)
    for index, node in enumerate(_list(data, "nodes")):
        where = f"nodes[{index}]"
        if not isinstance(node, dict):
            found.append(f"{where}: {type(node).__name__}, not an object")
            continue
        for key in ("id", "type", "label"):
            if key not in node:
                found.append(f"{where}.{key}: missing (the schema requires it)")
        if "type" in node and node["type"] not in NODE_TYPES:
            found.append(f"{where}.type: {node['type']!r} is not a node type of either schema")
        _rate(node, "success_rate", where, found)
        _count(node, "frequency", 0, where, found)
    for index, edge in enumerate(_list(data, "edges")):
        where = f"edges[{index}]"
        if not isinstance(edge, dict):
            found.append(f"{where}: {type(edge).__name__}, not an object")
            continue
        for key in ("source", "target", "type"):
            if key not in edge:
                found.append(f"{where}.{key}: missing (the schema requires it)")
        if "type" in edge and edge["type"] not in CAUSAL_TYPES:
            found.append(f"{where}.type: {edge['type']!r} is not one of {', '.join(CAUSAL_TYPES)}")
        _rate(edge, "weight", where, found)
        _count(edge, "evidence_count", 1, where, found)
    for index, pattern in enumerate(_list(data, "patterns")):
        where = f"patterns[{index}]"
        if not isinstance(pattern, dict):
            found.append(f"{where}: {type(pattern).__name__}, not an object")
            continue
        for key in ("id", "name", "trigger", "action"):
            if key not in pattern:
                found.append(f"{where}.{key}: missing (the schema requires it)")
        _rate(pattern, "success_rate", where, found)
        _count(pattern, "occurrences", 1, where, found)
    return _grouped(found)


def _list(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _ids(what: str, items: list[dict[str, Any]], v1: re.Pattern[str], found: list[str]) -> None:
    ids = [item["id"] for item in items if isinstance(item.get("id"), str)]
    old = sum(1 for value in ids if v1.match(value))
    new = sum(1 for value in ids if _V2_ID.match(value))
    if old and new:
        found.append(f"{what}: ids of both schema generations in one file ({old} sequential, {new} content hashes)")
    for index, item in enumerate(items):
        value = item.get("id")
        if "id" in item and not (isinstance(value, str) and (v1.match(value) or _V2_ID.match(value))):
            found.append(f"{what}[{index}].id: {value!r} is neither a sequential nor a content-hash id")


def _rate(item: dict[str, Any], key: str, where: str, found: list[str]) -> None:
    value = item.get(key)
    if key in item and not (isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1):
        found.append(f"{where}.{key}: {value!r} is not a number between 0 and 1")


def _count(item: dict[str, Any], key: str, minimum: int, where: str, found: list[str]) -> None:
    value = item.get(key)
    if key in item and not (isinstance(value, int) and not isinstance(value, bool) and value >= minimum):
        found.append(f"{where}.{key}: {value!r} is not a whole number >= {minimum}")


def _grouped(found: list[str], shown: int = 3) -> list[str]:
    """One line per kind of deviation: `nodes[3].type, nodes[9].type (and 40 more): ...`."""
    by_message: dict[str, list[str]] = defaultdict(list)
    for line in found:
        field, _, message = line.partition(": ")
        generic = re.sub(r"\[\d+\]", "[]", field) + ": " + re.sub(r"'[^']*'", "'...'", message)
        by_message[generic].append(line)
    lines = []
    for generic, group in by_message.items():
        if len(group) == 1:
            lines.append(group[0])
            continue
        fields = ", ".join(line.partition(": ")[0] for line in group[:shown])
        more = f" (and {len(group) - shown} more)" if len(group) > shown else ""
        messages = {line.partition(": ")[2] for line in group}
        message = messages.pop() if len(messages) == 1 else generic.partition(": ")[2]
        lines.append(f"{fields}{more}: {message}")
    return lines
