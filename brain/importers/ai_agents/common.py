"""What the ai-agents importer, exporter and verifier share: names, strict equality, short text."""

from __future__ import annotations

import hashlib
from typing import Any

# Frontmatter key holding what the JSON said that the rest of the note cannot say exactly.
META_KEY = "ai_agents"
# Frontmatter key of the one note that holds graph-level data (version, array order, leftovers).
GRAPH_META_KEY = "ai_agents_graph"
GRAPH_NOTE_TITLE = "ai-agents causal graph"


def same(a: Any, b: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and true from 1, as a JSON reader would."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def short(value: Any, limit: int = 60) -> str:
    """A value for a one-line message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Every place where two JSON values differ, as 'path: expected X, got Y' lines."""
    label = where or "(top)"
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key in expected:
            path = f"{where}.{key}" if where else str(key)
            if key not in actual:
                found.append(f"{path}: missing from the notes (JSON has {short(expected[key])})")
            else:
                found += differences(expected[key], actual[key], path)
        for key in actual:
            if key not in expected:
                path = f"{where}.{key}" if where else str(key)
                found.append(f"{path}: not in the JSON (notes give {short(actual[key])})")
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{label}: JSON has {len(expected)} items, notes give {len(actual)}"]
        return [
            line
            for index, (x, y) in enumerate(zip(expected, actual, strict=False))
            for line in differences(x, y, f"{where}[{index}]")
        ]
    if same(expected, actual):
        return []
    return [f"{label}: JSON has {short(expected)}, notes give {short(actual)}"]


def corrections(raw: dict[str, Any], exported: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """What makes `exported` equal `raw`: fields to set verbatim, and keys to drop."""
    fields = {key: value for key, value in raw.items() if key not in exported or not same(value, exported[key])}
    return fields, [key for key in exported if key not in raw]


def content_id(kind: str, text: str) -> str:
    """The v2 id scheme: sha256('<type>:<label>')[:12] for nodes, sha256('pattern:<name>')[:12] for patterns."""
    return hashlib.sha256(f"{kind}:{text}".encode()).hexdigest()[:12]
