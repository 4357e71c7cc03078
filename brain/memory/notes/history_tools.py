"""Core tools basic-memory users expect: move, delete, list and recent notes, and a note's history.

A delete moves the note to the history (restorable with restore_note); no MCP tool purges.
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.mcp.common import ServerState, result, tool
from brain.memory.notes import history, listing, service
from brain.memory.notes.view import (
    history_json,
    history_lines,
    listed_json,
    listed_lines,
    moved_json,
    moved_line,
    restored_json,
    restored_line,
)

GROUP = "core"

NoteName = Annotated[
    str,
    Field(
        max_length=1000,
        description="The note's title, file stem, permalink or vault-relative path (e.g. 'ADR-001' or 'decisions/ADR-001.md').",
    ),
]


@tool(title="Move or rename a note", read_only=False, destructive=False)
def move_note(
    state: ServerState,
    name: NoteName,
    destination: Annotated[
        str, Field(max_length=1000, description="A folder to move into, or a new vault-relative path ending in .md.")
    ],
    update_links: Annotated[
        bool, Field(description="Rewrite the [[links]] to the note in every other note so they still reach it.")
    ] = True,
) -> CallToolResult:
    """Move a note to another folder or rename it; links to it in other notes are rewritten to follow.

    Use it to reorganise the vault or give a note a better name without breaking links. The
    title follows a new file name unless the note's title was set to something else. Returns
    the new path and how many links in how many notes were rewritten (each rewrite is kept in
    the history).
    """
    moved = service.move_note(state.corpus, name, destination, update_links=update_links)
    return result(moved_line(moved), moved_json(moved))


@tool(title="Delete a note (restorable)", read_only=False, destructive=True)
def delete_note(state: ServerState, name: NoteName) -> CallToolResult:
    """Delete a note from the vault; it stays in the history, where restore_note brings it back.

    Use it for a note that is wrong or no longer wanted. Facts cannot be deleted (use
    invalidate_fact). Nothing is deleted for good through MCP.
    """
    deleted = service.delete_note(state.corpus, name)
    return result(
        f"deleted {deleted.path} (kept in the history; restore_note brings it back)",
        {"path": deleted.path, "title": deleted.title, "restorable": True},
    )


@tool(title="List notes", read_only=True)
def list_notes(
    state: ServerState,
    folder: Annotated[str | None, Field(max_length=1000, description="Only notes under this folder.")] = None,
    note_type: Annotated[
        str | None, Field(max_length=100, description="Only notes of this type (note, episode, pattern, fact, ...).")
    ] = None,
    tag: Annotated[str | None, Field(max_length=200, description="Only notes with this tag.")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Most notes to return (by path).")] = 200,
) -> CallToolResult:
    """List the notes in the vault by path, with title, type, tags and when each last changed.

    Use it to see what a folder holds or which notes have a type or tag, when you are not
    searching for a topic (use search for that).
    """
    found = listing.list_notes(state.corpus, folder=folder, note_type=note_type, tag=tag)
    shown = found[:limit]
    head = f"{len(found)} notes" + (f" (first {limit} shown)" if len(found) > limit else "")
    return result(
        "\n".join([head, *listed_lines(shown)]),
        {"count": len(found), "notes": [listed_json(item) for item in shown]},
    )


@tool(title="Recently changed notes", read_only=True)
def recent_activity(
    state: ServerState,
    since: Annotated[
        str, Field(max_length=40, description="A span (30m, 12h, 1d, 2w) or an ISO date such as 2026-01-21.")
    ] = listing.DEFAULT_RECENT,
    note_type: Annotated[str | None, Field(max_length=100, description="Only notes of this type.")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Most notes to return, newest first.")] = 50,
) -> CallToolResult:
    """The notes changed since a moment, newest first.

    Use it at the start of a session to catch up on what changed in the vault (by people or
    other agents) since you last worked in it.
    """
    start, found = listing.recent(state.corpus, since=since, note_type=note_type)
    shown = found[:limit]
    since_text = start.isoformat().replace("+00:00", "Z")
    return result(
        "\n".join([f"{len(found)} notes changed since {since_text}", *listed_lines(shown)]),
        {"since": since_text, "count": len(found), "notes": [listed_json(item) for item in shown]},
    )


@tool(title="A note's history", read_only=True)
def note_history(
    state: ServerState,
    name: NoteName,
    version: Annotated[
        int | None, Field(ge=1, description="Return this version's full text (numbers from the listing).")
    ] = None,
) -> CallToolResult:
    """List a note's earlier versions, newest first (who wrote each, when, with which command), or
    return one version's text.

    Use it before overwriting a note someone else may have changed, to see what a person or
    another agent wrote, or to find the version to give restore_note. Works for deleted notes too.
    """
    if version is not None:
        found, entry, data = history.version(state.corpus, name, version)
        row = next(row for row in history_json(found)["versions"] if row["version"] == entry.v)
        text = data.decode("utf-8", "replace")
        return result(f"{found.path} version {entry.v}:\n\n{text}", {"path": found.path, **row, "text": text})
    found = history.note_history(state.corpus, name)
    return result("\n".join(history_lines(found)), history_json(found))


@tool(title="Restore a note's version", read_only=False, destructive=True)
def restore_note(
    state: ServerState,
    name: NoteName,
    version: Annotated[
        int | None,
        Field(ge=1, description="The version to put back (from note_history); omit to bring back a deleted note."),
    ] = None,
) -> CallToolResult:
    """Put an earlier version of a note back, byte for byte, or bring back a deleted note.

    Use it to undo an edit (yours or anyone's) or a delete. The current text is kept in the
    history first, so a restore can itself be undone. A version that would reopen a closed fact
    (or bring back a value recorded over) is refused: use supersede_fact.
    """
    restored = history.restore_note(state.corpus, name, version)
    return result(restored_line(restored), restored_json(restored))
