"""The search tool: hybrid search over every note, as `brain search` runs it."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.index.catalog.rows import DATE_KEYS
from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.search import service as index_search
from brain.memory.search.view import pending_line, search_lines

GROUP = "core"
MAX_QUERY = 2000  # characters: a question or keywords, not a document
# What since and until compare with: `note_date` in brain/index/catalog/rows.py.
NOTE_DATE = (
    f"A note's date is the first ISO date among its frontmatter keys {', '.join(DATE_KEYS)}; "
    "else the day its file last changed (UTC)."
)


@tool(title="Search the vault", read_only=True, concurrent=True)
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
        bool | None,
        Field(
            description="Re-order the top hits with the cross-encoder reranker (needs reranker_model in the vault's config; default: the vault's [search] rerank)."
        ),
    ] = None,
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
    # Concurrent: the index serves searches at once and beside a write; the corpus (one call's at a
    # time, see ServerState) is not used.
    index = state.corpus.open_index()
    scope = project_scope(state, project, all_projects, index=index)
    filters = index_search.SearchFilters(
        project=scope.project,
        types=tuple(types or ()),
        folders=tuple(folders or ()),
        tags=tuple(tags or ()),
        fields=tuple(sorted((fields or {}).items())),
        since=since,
        until=until,
    )
    report = index_search.search_report(
        index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score
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
