"""Tool profiles: a few tools from several groups, each with only the arguments its users need.

A coding agent's MCP client sends every tool's name, description and input schema with every
request to its model, so each tool served costs tokens in every session. The `agent` profile
(`brain mcp --tools agent`, what `brain hooks install` registers) serves what an agent uses while it
works: search, read and write notes, past episodes and failures, facts, guidelines. An argument a
profile leaves out takes its default; `--tools all` serves every tool with every argument.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

AGENT_PROFILE = "agent"

# tool -> the arguments it is served with (in its own order); its description is its own.
PROFILES: dict[str, Mapping[str, tuple[str, ...]]] = {
    AGENT_PROFILE: {
        "search": ("query", "limit", "types", "since"),
        "read_note": ("name",),
        "build_context": ("name", "depth"),
        "write_note": ("title", "content", "folder", "tags", "overwrite"),
        "query_episodes": ("outcome", "task", "since", "limit"),
        "get_antipatterns": (),
        "recall_facts": ("query", "subject", "namespaces", "limit"),
        "record_fact": ("kind", "subject", "value", "namespace", "supersede"),
        "supersede_fact": ("fact", "value", "namespace", "reason"),
        "get_guidelines": ("task",),
    },
}

# What the server tells a client at the start, when a profile alone is served: only its tools.
PROFILE_INSTRUCTIONS: dict[str, str] = {
    AGENT_PROFILE: """\
brain is the project's memory, a folder of markdown notes: episodes of earlier sessions (what was
tried, what failed, what fixed it), facts, patterns and tips. Before a non-trivial task, search it
and call get_guidelines; query_episodes and get_antipatterns say what failed before. Record a
durable value with record_fact (supersede_fact to change it) and what is worth keeping with
write_note. Notes are named by title, file stem or vault-relative path.""",
}


def without_tools(description: str, unserved: Iterable[str]) -> str:
    """A profile tool's description without the sentences that point to tools the server does not
    serve (an agent would call them in vain); each paragraph's lines joined into one."""
    names = [re.escape(name) for name in unserved]
    naming = re.compile(rf"\b(?:{'|'.join(names)})\b") if names else None
    paragraphs = []
    for paragraph in description.split("\n\n"):
        sentences = re.split(r"(?<=[.!?])\s+", " ".join(paragraph.split()))
        kept = [sentence for sentence in sentences if naming is None or not naming.search(sentence)]
        if kept:
            paragraphs.append(" ".join(kept))
    return "\n\n".join(paragraphs)


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A profile tool's input schema without what tells a model nothing: pydantic's titles (the
    argument's name again) and the `null` branch of an optional argument (leaving it out says the
    same); the server still accepts null, since its arguments are checked by their types, not this."""
    properties = {name: _compact_property(value) for name, value in schema.get("properties", {}).items()}
    compact = {key: value for key, value in schema.items() if key not in ("title", "properties")}
    return {"type": "object", **compact, "properties": properties}


def _compact_property(schema: dict[str, Any]) -> dict[str, Any]:
    found = {key: value for key, value in schema.items() if key != "title"}
    options = found.pop("anyOf", None)
    if isinstance(options, list):
        kept = [option for option in options if option != {"type": "null"}]
        found = {**kept[0], **found} if len(kept) == 1 else {"anyOf": kept, **found}
    if "default" in found and found["default"] is None:
        del found["default"]
    return found
