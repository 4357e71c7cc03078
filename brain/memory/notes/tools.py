"""Core tools: read, write and edit any note, search the vault, build a context around a note."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from brain.index.catalog.rows import DATE_KEYS
from brain.index.engine import open_index
from brain.markdown.edit import EditOperation
from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.causal import neighbourhood as context_builder
from brain.memory.notes import service
from brain.memory.notes.view import context_json, edited_line, note_json, written_line
from brain.memory.search import service as index_search
from brain.memory.search.view import pending_line, search_lines

GROUP = "core"
MAX_TITLE = 300  # characters: a file name holds at most 255 bytes, and a title is one line
MAX_QUERY = 2000  # characters: a question or keywords, not a document
# What since and until compare with: `note_date` in brain/index/catalog/rows.py.
NOTE_DATE = (
    f"A note's date is the first ISO date among its frontmatter keys {', '.join(DATE_KEYS)}; "
    "else the day its file last changed (UTC)."
)

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


@tool(title="Search the vault", read_only=True)
def search(
    state: ServerState,
    query: Annotated[
        str, Field(max_length=MAX_QUERY, description="What to look for, in words (a question or keywords).")
    ],
    mode: Annotated[
        index_search.SearchMode,
        Field(description="hybrid (default: keywords and meaning), text (exact words, BM25) or vector (meaning only)."),
    ] = "hybrid",
    limit: Annotated[int, Field(ge=1, le=50, description="Most hits to return.")] = 10,
    types: Annotated[
        list[str] | None, Field(description="Only notes of these types (episode, pattern, note, ...).")
    ] = None,
    folders: Annotated[
        list[str] | None, Field(description="Only notes under these folders (e.g. 'decisions').")
    ] = None,
    tags: Annotated[list[str] | None, Field(description="Only notes with all of these tags.")] = None,
    fields: Annotated[
        dict[str, str] | None,
        Field(description="Only notes whose frontmatter has these values (e.g. {'outcome': 'failure'})."),
    ] = None,
    since: Annotated[
        str | None,
        Field(description=f"Only notes dated on or after this day (YYYY-MM-DD, or YYYY-MM, YYYY). {NOTE_DATE}"),
    ] = None,
    until: Annotated[
        str | None,
        Field(description=f"Only notes dated on or before this day (YYYY-MM-DD, or YYYY-MM, YYYY). {NOTE_DATE}"),
    ] = None,
    min_score: Annotated[
        float | None,
        Field(
            ge=0.0,
            le=1.0,
            description="Leave out hits scoring under this relevance, 0-1 (default: the vault's floor; 0.15 in hybrid mode with the default model).",
        ),
    ] = None,
    rerank: Annotated[
        bool,
        Field(
            description="Re-order the top hits with the cross-encoder reranker (needs reranker_model in the vault's config)."
        ),
    ] = False,
    project: ProjectArgument = None,
    all_projects: AllProjectsArgument = False,
) -> CallToolResult:
    """Search every note in the vault and return the best matches, best first.

    Use it to find what the vault knows about a topic before answering or deciding. Each hit
    has the note's path, title, type, the matching section, a snippet and a score: its relevance
    from 0 to 1, the same for a note and a query whatever else is found. Hits under the vault's
    floor are left out; when none is left, `closest` names the nearest notes, which are not
    matches. Read a hit in full with read_note or gather its neighbourhood with build_context.
    """
    filters = index_search.SearchFilters(
        project=project_scope(state, project, all_projects).project,
        types=tuple(types or ()),
        folders=tuple(folders or ()),
        tags=tuple(tags or ()),
        fields=tuple(sorted((fields or {}).items())),
        since=since,
        until=until,
    )
    report = index_search.search_report(
        open_index(state.vault), query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score
    )
    hits = report.hits
    shown = query if len(query) <= 80 else query[:77] + "..."
    lines = [f"{len(hits)} hits for '{shown}' ({mode})"]
    if report.pending:
        lines.append(pending_line(report.pending, state.wordings))
    lines += search_lines(report, query, state.wordings)
    return result(
        "\n".join(lines),
        {
            "query": query,
            "mode": mode,
            "hits": hits,
            "pending": report.pending,
            "min_score": report.min_score,
            "closest": report.closest,
        },
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
