"""Pattern tools, named as in the ai-agents episodic memory: record and find patterns, causal paths between them, antipatterns."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.markdown.model import Outcome
from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.causal import graph as causal
from brain.memory.patterns import service as pattern_service
from brain.memory.patterns.view import (
    causal_path_lines,
    no_path_line,
    pattern_row,
    pattern_summary,
    pattern_update_line,
)

GROUP = "episodic"


@tool(title="Record a pattern", read_only=False)
def add_pattern(
    state: ServerState,
    name: Annotated[
        str,
        Field(description="Pattern name or title; 'PATTERN-' is prefixed to a plain name (e.g. 'retry with backoff')."),
    ],
    outcome: Annotated[Outcome, Field(description="How this occurrence of the pattern went.")] = "success",
    trigger: Annotated[
        str | None, Field(description="When the pattern applies (required to create a new pattern).")
    ] = None,
    action: Annotated[
        str | None, Field(description="What to do when it applies (required to create a new pattern).")
    ] = None,
    episode: Annotated[
        str | None, Field(description="The episode this occurrence comes from, recorded as evidence.")
    ] = None,
) -> CallToolResult:
    """Create a pattern, or record one more occurrence of an existing one with its outcome.

    Use it when a way of working proved itself (or failed) in a session. The pattern's
    success_rate becomes the running average of outcomes (success 1, partial 0.5, failure 0)
    and occurrences grows by one; the episode is listed as evidence. Returns the new rate.
    """
    update = pattern_service.add_pattern(
        state.corpus, name, outcome=outcome, trigger=trigger, action=action, episode=episode
    )
    text = "\n".join([pattern_update_line(update), *(f"warning: {message}" for message in update.warnings)])
    return result(
        text,
        {
            **pattern_summary(update.pattern),
            "path": update.path,
            "created": update.created,
            "warnings": update.warnings,
        },
    )


@tool(title="Find patterns", read_only=True)
def query_patterns(
    state: ServerState,
    min_success_rate: Annotated[
        float, Field(ge=0, le=1, description="Only patterns at or above this success rate.")
    ] = 0.0,
    min_occurrences: Annotated[int, Field(ge=0, description="Only patterns seen at least this often.")] = 0,
    trigger: Annotated[
        str | None, Field(description="Only patterns whose trigger or title contains this text.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Most patterns to return.")] = 20,
) -> CallToolResult:
    """List learned patterns, most successful first, with success rate, occurrences and trigger.

    Use it before acting, to find a proven way to handle the situation at hand (filter by
    trigger text). Returns one line per pattern; read one in full with read_note.
    """
    found = pattern_service.list_patterns(
        state.corpus, min_success_rate=min_success_rate, min_occurrences=min_occurrences, trigger=trigger
    )
    shown = found[:limit]
    more = f" (showing {len(shown)})" if len(found) > len(shown) else ""
    lines = [f"{len(found)} patterns{more}", *(pattern_row(pattern) for pattern in shown)]
    return result("\n".join(lines), {"total": len(found), "patterns": [pattern_summary(pattern) for pattern in shown]})


@tool(title="Find a causal path", read_only=True)
def get_causal_path(
    state: ServerState,
    source: Annotated[str, Field(description="Start note (title, stem, permalink or path).")],
    target: Annotated[str, Field(description="End note.")],
    max_depth: Annotated[
        int, Field(ge=1, le=causal.MAX_DEPTH, description="Most hops to follow.")
    ] = causal.DEFAULT_DEPTH,
    weighted: Annotated[
        bool, Field(description="Most reliable path (edge weights and success rates) instead of the fewest hops.")
    ] = False,
) -> CallToolResult:
    """Find how one note leads to another through causal edges (causes, enables, prevents, correlates, caused_by).

    Use it to answer "how does X lead to Y?" or "why did this happen?". Returns the chain of
    notes with each hop's relation type and weight and the path's overall reliability, or
    says there is no path (and whether one exists the other way round).
    """
    found = causal.find_path(state.corpus, source, target, max_depth=max_depth, weighted=weighted)
    if found is None:
        reverse = causal.reverse_path_exists(state.corpus, source, target, max_depth)
        return result(no_path_line(source, target, max_depth, reverse), {"found": False, "reverse_exists": reverse})
    return result("\n".join(causal_path_lines(found)), {"found": True, "path": found})


@tool(title="Find antipatterns", read_only=True)
def get_antipatterns(
    state: ServerState,
    max_success_rate: Annotated[
        float | None, Field(ge=0, le=1, description="At most this success rate (default: the vault's config, 0.3).")
    ] = None,
    min_occurrences: Annotated[
        int | None, Field(ge=0, description="Seen at least this often (default: the vault's config, 2).")
    ] = None,
    project: ProjectArgument = None,
    all_projects: AllProjectsArgument = False,
) -> CallToolResult:
    """List patterns that keep failing (low success rate over enough occurrences), worst first.

    Use it at the start of a task, to learn what not to do. Returns one line per antipattern
    with its success rate, occurrences and trigger.
    """
    scope = project_scope(state, project, all_projects)
    found = pattern_service.antipatterns(
        state.corpus, max_success_rate=max_success_rate, min_occurrences=min_occurrences, project=scope.project
    )
    lines = [f"{len(found)} antipatterns", *(pattern_row(pattern) for pattern in found)]
    return result("\n".join(lines), {"antipatterns": [pattern_summary(pattern) for pattern in found]})
