"""Notes and contexts as JSON and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import Any

from brain.memory.causal.neighbourhood import BuiltContext
from brain.memory.notes.service import Written
from brain.notes.model import Note
from brain.views.plain import plain


def note_json(note: Note) -> dict[str, Any]:
    """The parsed form of a note: frontmatter, body, and what brain read from it."""
    return {
        "path": note.path,
        "title": note.title,
        "type": note.type,
        "tags": list(note.tags),
        "frontmatter": plain(note.frontmatter),
        "body": note.body,
        "links": sorted({link.target for link in note.links}),
        "observations": plain(note.observations),
        "relations": plain(note.relations),
        "causal_relations": plain(note.causal_relations),
        "problems": list(note.problems),
    }


def written_line(written: Written) -> str:
    return f"{'created' if written.created else 'updated'} {written.path}"


def edited_line(written: Written, operation: str) -> str:
    return f"edited {written.path} ({operation})"


def context_json(built: BuiltContext) -> dict[str, Any]:
    """A built context: what it started from, the budget it used, and each note packed into it."""
    return {
        "start": built.start,
        "depth": built.depth,
        "budget_tokens": built.budget_tokens,
        "used_tokens": built.used_tokens,
        "items": [
            {
                "path": item.path,
                "title": item.title,
                "type": item.type,
                "distance": item.distance,
                "via": item.via,
                "from": item.from_path,
                "truncated": item.truncated,
                "text": item.text,
            }
            for item in built.items
        ],
        "omitted": list(built.omitted),
        "missing": list(built.missing),
    }
