"""Core tools: read, write and edit any note, build a context around a note."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from brain.markdown.edit import EditOperation
from brain.mcp.common import ServerState, result, tool
from brain.memory.causal import neighbourhood as context_builder
from brain.memory.notes import service
from brain.memory.notes.view import context_json, edited_line, note_json, written_line

GROUP = "core"
MAX_TITLE = 300  # characters: a file name holds at most 255 bytes, and a title is one line

NoteName = Annotated[
    str,
    Field(
        description="The note's title, file stem, permalink or vault-relative path (e.g. 'ADR-001' or 'decisions/ADR-001.md')."
    ),
]


@tool(title="Write a note", read_only=False, destructive=False)
def write_note(
    state: ServerState,
    title: Annotated[
        str, Field(max_length=MAX_TITLE, description="Title of the new note; its file name is made from it.")
    ],
    content: Annotated[
        str, Field(description="Markdown body of the note (no frontmatter; use the other arguments for that).")
    ] = "",
    folder: Annotated[
        str | None,
        Field(description="Folder inside the vault. Default: the type's folder (episodes/, patterns/, ...) or notes/."),
    ] = None,
    note_type: Annotated[
        str | None, Field(description="Frontmatter `type`: note, episode, pattern, context, fact, run, tip.")
    ] = None,
    tags: Annotated[list[str] | None, Field(description="Tags for the frontmatter.")] = None,
    fields: Annotated[
        dict[str, Any] | None,
        Field(description="Further frontmatter keys and values (not title, type, tags or permalink)."),
    ] = None,
    overwrite: Annotated[
        bool, Field(description="If a note with this title exists, replace its body (frontmatter is kept and merged).")
    ] = False,
) -> CallToolResult:
    """Create a markdown note in the vault (or, with overwrite, replace the body of an existing one).

    Use it to save knowledge worth keeping: a decision, a finding, a summary. Link other notes
    with [[Title]] and add typed links under a '## Relations' section ('- relates_to [[Other]]').
    To change part of an existing note, use edit_note instead. Returns the note's path.
    """
    written = service.write_note(
        state.corpus,
        title,
        content,
        folder=folder,
        note_type=note_type,
        tags=tuple(tags or ()),
        fields=fields,
        overwrite=overwrite,
    )
    return result(written_line(written), {"path": written.path, "title": written.title, "created": written.created})


@tool(title="Read a note", read_only=True)
def read_note(state: ServerState, name: NoteName) -> CallToolResult:
    """Read one note: its full markdown text, frontmatter included.

    Use it when you know which note you want (from search, build_context or a [[link]]).
    Returns the file as it is on disk; structured content adds its parsed frontmatter,
    outgoing links, relations and causal relations.
    """
    note = service.read_note(state.corpus, name)
    return result(f"path: {note.path}\n\n{note.text}", note_json(note))


@tool(title="Edit a note", read_only=False, destructive=True)
def edit_note(
    state: ServerState,
    name: NoteName,
    operation: Annotated[
        EditOperation,
        Field(
            description="append: add content at the end (of `section` if given). prepend: add content at the start of the body. "
            "replace_section: replace the content under the `section` heading (created if missing). "
            "find_replace: replace the text `find` with `content`. set_frontmatter: merge `frontmatter` keys into the frontmatter."
        ),
    ],
    content: Annotated[
        str, Field(description="The text to add, the new section content, or the replacement for `find`.")
    ] = "",
    section: Annotated[
        str | None,
        Field(description="Heading text of a level-2 section, without '## ' (for append and replace_section)."),
    ] = None,
    find: Annotated[str | None, Field(description="Exact text to find (find_replace).")] = None,
    expected_count: Annotated[
        int | None,
        Field(
            description="find_replace only: replace all N occurrences, refused unless `find` occurs exactly N times. "
            "Without it (or replace_all), `find` must occur once."
        ),
    ] = None,
    replace_all: Annotated[bool, Field(description="find_replace only: replace every occurrence of `find`.")] = False,
    frontmatter: Annotated[
        dict[str, Any] | None,
        Field(description="Keys and values to set in the frontmatter (set_frontmatter); other keys stay as they are."),
    ] = None,
) -> CallToolResult:
    """Change one part of an existing note; everything else stays byte for byte.

    Use it to add an observation, rewrite one section, fix a sentence or update frontmatter
    keys such as status. If the note changed on disk since it was read, nothing is written
    and an error says so. Returns the path of the edited note.
    """
    written = service.edit_note(
        state.corpus,
        name,
        operation,
        content=content,
        section=section,
        find=find,
        expected_count=expected_count,
        frontmatter=frontmatter,
        replace_all=replace_all,
    )
    return result(
        edited_line(written, operation), {"path": written.path, "title": written.title, "operation": operation}
    )


@tool(title="Build a context around a note", read_only=True)
def build_context(
    state: ServerState,
    name: NoteName,
    depth: Annotated[
        int,
        Field(
            ge=0,
            le=context_builder.MAX_DEPTH,
            description="How many hops of links, relations and causal edges to follow.",
        ),
    ] = context_builder.DEFAULT_DEPTH,
    budget: Annotated[
        int,
        Field(
            ge=context_builder.MIN_BUDGET,
            le=context_builder.MAX_BUDGET,
            description="Most tokens the returned context may use (about 4 characters a token).",
        ),
    ] = context_builder.DEFAULT_BUDGET,
) -> CallToolResult:
    """Gather what the vault knows around one note, compactly, within a token budget.

    Use it at the start of a task or before a decision: from the note it follows wikilinks,
    relations, causal edges and backlinks to `depth` hops and returns summaries (type, key
    frontmatter, the telling sections) nearest first, until `budget` tokens are used. Notes
    that did not fit are listed by path so you can read_note them if needed.
    """
    built = context_builder.build_context(state.corpus, name, depth=depth, budget=budget)
    return result(built.text, context_json(built))
