"""Notes as MCP resources: `memory://notes/<vault-relative path>`, listed a page at a time, read as
the note's markdown.

The URI is the note's path, percent-encoded (`memory://notes/decisions/ADR-001%20Cache.md`); the
listing names every note so. Reading resolves the part after `memory://notes/` as read_note does,
so a title, file stem or permalink reads the note too (`memory://notes/ADR-001%20Cache`).
"""

from __future__ import annotations

from bisect import bisect_right
from urllib.parse import quote

from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, Resource

from brain.markdown.model import Note
from brain.markdown.summary import note_summary
from brain.mcp.common import BrainServer, ServerState, serving
from brain.memory.notes import service

NOTES_PREFIX = "memory://notes/"
NOTE_TEMPLATE = NOTES_PREFIX + "{+name}"
PAGE_SIZE = 100  # notes per resources/list page: a vault of 100,000 notes is a thousand pages, never one answer
MARKDOWN = "text/markdown"


def note_uri(path: str) -> str:
    """The URI of the note at a vault-relative path (`?`, `#`, `%` and spaces encoded)."""
    return NOTES_PREFIX + quote(path, safe="/")


def serve_notes(server: BrainServer, state: ServerState) -> None:
    """Serve every note as a resource: the template reads one, the listing pages through them all."""

    def read(name: str) -> str:
        with serving(state, lambda message: MCPError(INVALID_PARAMS, message, {"uri": note_uri(name)})):
            return service.read_note(state.corpus, name).text

    server.resource(
        NOTE_TEMPLATE,
        name="note",
        title="A note of the vault",
        description=(
            "A note's markdown, frontmatter included, as the file is on disk. The listing gives each "
            "note by its vault-relative path; a title, file stem or permalink reads the note too."
        ),
        mime_type=MARKDOWN,
    )(read)

    def page(cursor: str | None) -> tuple[list[Resource], str | None]:
        with serving(state, lambda message: MCPError(INVALID_PARAMS, message)):
            return note_page(state.corpus.notes(), cursor)

    server.resource_pages = page


def note_page(notes: list[Note], cursor: str | None, size: int = PAGE_SIZE) -> tuple[list[Resource], str | None]:
    """A page of `notes` (sorted by path, as the corpus gives them): those after `cursor` (the last
    path of the page before; None: from the first), and the cursor of the next page (None on the
    last). A cursor is a path, so a note added or removed meanwhile neither repeats nor skips another."""
    start = 0 if cursor is None else bisect_right(notes, cursor, key=lambda note: note.path or "")
    shown = notes[start : start + size]
    following = (shown[-1].path or "") if start + size < len(notes) else None
    return [_resource(note) for note in shown], following


def _resource(note: Note) -> Resource:
    path = note.path or ""
    return Resource(
        uri=note_uri(path),
        name=path,
        title=note.title,
        description=f"{note.type or 'note'}: {note_summary(note)}",
        mime_type=MARKDOWN,
        size=len(note.text.encode("utf-8")),
    )
