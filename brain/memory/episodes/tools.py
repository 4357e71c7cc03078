"""Episode tools, named as in the ai-agents episodic memory: store episodes, find them, read their decisions."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from brain.markdown.model import Outcome
from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.episodes import service as episode_service
from brain.memory.episodes.note import DECISION_TYPES
from brain.memory.episodes.view import decision_lines, episode_row, episode_summary, stored_episode_line, stored_verb

GROUP = "episodic"

EpisodeName = Annotated[
    str, Field(description="Episode title (EPISODE-...), ai-agents id, session id, file stem or path.")
]
DECISION_KEYS = (
    f"id (d001), timestamp, type ({'|'.join(DECISION_TYPES)}), context, options (list), "
    "chosen, rationale, outcome, effects (list of decision/event ids)"
)
EVENT_KEYS = "id (e001), timestamp, type, content, caused_by (list of ids), leads_to (list of ids)"


@tool(title="Store an episode", read_only=False, idempotent=True)
def store_episode(
    state: ServerState,
    task: Annotated[str, Field(description="What the session set out to do, in one line.")],
    outcome: Annotated[Outcome, Field(description="How the session went.")],
    session: Annotated[
        str | None, Field(description="Session id, e.g. '2026-03-02-session-01' (needed unless episode_id is given).")
    ] = None,
    episode_id: Annotated[
        str | None, Field(description="ai-agents episode id, e.g. 'episode-2026-03-02-session-01'.")
    ] = None,
    timestamp: Annotated[
        str | None, Field(description="When the session happened, ISO 8601 (e.g. 2026-03-02T09:00:00Z).")
    ] = None,
    decisions: Annotated[
        list[dict[str, Any]] | None,
        Field(description=f"Decisions made, in order. Each an object with: {DECISION_KEYS}."),
    ] = None,
    events: Annotated[
        list[dict[str, Any]] | None, Field(description=f"Events in time order. Each an object with: {EVENT_KEYS}.")
    ] = None,
    lessons: Annotated[list[str] | None, Field(description="Lessons learned, one sentence each.")] = None,
    metrics: Annotated[
        dict[str, Any] | None,
        Field(description="Counts such as tool_calls, errors, recoveries, commits, files_changed."),
    ] = None,
    duration_minutes: Annotated[float | None, Field(ge=0, description="How long the session took.")] = None,
) -> CallToolResult:
    """Record what happened in a work session as an episode note: task, outcome, decisions, events, lessons.

    Use it at the end of a session (or after a notable failure) so later sessions can learn
    from it. Storing the same session again updates only what is given: decisions and events
    by id, lessons and metrics added; arguments left out leave the stored parts alone, and any
    prose a person added stays. Returns the episode's path and any
    warnings about data that was read leniently.
    """
    data: dict[str, Any] = {"task": task, "outcome": outcome}
    optional = {
        "session": session,
        "id": episode_id,
        "timestamp": timestamp,
        "decisions": decisions,
        "events": events,
        "lessons": lessons,
        "metrics": metrics,
        "duration_minutes": duration_minutes,
    }
    data.update({key: value for key, value in optional.items() if value is not None})
    stored, warnings = episode_service.store_episode_data(state.corpus, data)
    text = "\n".join([stored_episode_line(stored), *(f"warning: {message}" for message in warnings)])
    return result(
        text, {"path": stored.path, "title": stored.title, "status": stored_verb(stored), "warnings": warnings}
    )


@tool(title="Find episodes", read_only=True)
def query_episodes(
    state: ServerState,
    outcome: Annotated[Outcome | None, Field(description="Only episodes with this outcome.")] = None,
    task: Annotated[str | None, Field(description="Only episodes whose task or title contains this text.")] = None,
    since: Annotated[
        str | None, Field(description="Only episodes on or after this date (ISO, e.g. 2026-03-01).")
    ] = None,
    until: Annotated[str | None, Field(description="Only episodes on or before this date.")] = None,
    limit: Annotated[int, Field(ge=1, le=episode_service.MAX_LIMIT, description="Most episodes to return.")] = (
        episode_service.DEFAULT_LIMIT
    ),
    project: ProjectArgument = None,
    all_projects: AllProjectsArgument = False,
) -> CallToolResult:
    """List past episodes (work sessions), newest first, filtered by outcome, task text and dates.

    Use it before starting similar work ("have we failed at this before?") or to review recent
    sessions. Returns one line per episode: date, outcome, title, task and number of decisions.
    Read one in full with read_note, or its decisions with get_decision_sequence.
    """
    scope = project_scope(state, project, all_projects)
    found = episode_service.list_episodes(
        state.corpus, outcome=outcome, task=task, since=since, until=until, limit=limit, project=scope.project
    )
    lines = [f"{len(found)} episodes", *(episode_row(episode) for episode in found)]
    return result("\n".join(lines), {"episodes": [episode_summary(episode) for episode in found]})


@tool(title="Get an episode's decisions", read_only=True)
def get_decision_sequence(state: ServerState, episode: EpisodeName) -> CallToolResult:
    """The decisions of one episode in time order: what was chosen among which options, why, and what it led to.

    Use it to understand how a past session reasoned, or to reuse a decision that worked.
    Returns one block per decision (id, type, time, chosen, options, rationale, outcome, effects).
    """
    sequence = episode_service.decision_sequence(state.corpus, episode)
    text = (
        "\n".join(line for decision in sequence for line in decision_lines(decision))
        or "this episode records no decisions"
    )
    return result(text, {"episode": episode, "decisions": sequence})
