"""Episodic and causal memory tools, named as in ADR-018: episodes, decisions, patterns, causal paths."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from brain.mcp.common import ServerState, brain_tool, result
from brain.memory.causal import graph as causal
from brain.memory.episodes import service as episode_service
from brain.memory.patterns import service as pattern_service
from brain.notes.episode import DECISION_TYPES
from brain.notes.model import Outcome
from brain.views.episodes import (
    causal_path_lines,
    decision_lines,
    episode_row,
    episode_summary,
    no_path_line,
    pattern_row,
    pattern_summary,
    pattern_update_line,
    stored_episode_line,
    stored_verb,
)

GROUP = "episodic"

EpisodeName = Annotated[str, Field(description="Episode title (EPISODE-...), ai-agents id, session id, file stem or path.")]
DECISION_KEYS = (
    f"id (d001), timestamp, type ({'|'.join(DECISION_TYPES)}), context, options (list), "
    "chosen, rationale, outcome, effects (list of decision/event ids)"
)
EVENT_KEYS = "id (e001), timestamp, type, content, caused_by (list of ids), leads_to (list of ids)"


def register(server: MCPServer, state: ServerState) -> None:
    vault, corpus = state.vault, state.corpus

    @brain_tool(server, state, title="Store an episode", read_only=False, idempotent=True)
    def store_episode(
        task: Annotated[str, Field(description="What the session set out to do, in one line.")],
        outcome: Annotated[Outcome, Field(description="How the session went.")],
        session: Annotated[
            str | None, Field(description="Session id, e.g. '2026-03-02-session-01' (needed unless episode_id is given).")
        ] = None,
        episode_id: Annotated[str | None, Field(description="ai-agents episode id, e.g. 'episode-2026-03-02-session-01'.")] = None,
        timestamp: Annotated[str | None, Field(description="When the session happened, ISO 8601 (e.g. 2026-03-02T09:00:00Z).")] = None,
        decisions: Annotated[
            list[dict[str, Any]] | None, Field(description=f"Decisions made, in order. Each an object with: {DECISION_KEYS}.")
        ] = None,
        events: Annotated[
            list[dict[str, Any]] | None, Field(description=f"Events in time order. Each an object with: {EVENT_KEYS}.")
        ] = None,
        lessons: Annotated[list[str] | None, Field(description="Lessons learned, one sentence each.")] = None,
        metrics: Annotated[
            dict[str, Any] | None, Field(description="Counts such as tool_calls, errors, recoveries, commits, files_changed.")
        ] = None,
        duration_minutes: Annotated[float | None, Field(ge=0, description="How long the session took.")] = None,
    ) -> CallToolResult:
        """Record what happened in a work session as an episode note: task, outcome, decisions, events, lessons.

        Use it at the end of a session (or after a notable failure) so later sessions can learn
        from it. Storing the same session again updates the episode's decisions, events, lessons
        and metrics and keeps any prose a person added. Returns the episode's path and any
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
        episode, warnings = episode_service.episode_from_data(data)
        stored = episode_service.store_episode(vault, corpus, episode)
        text = "\n".join([stored_episode_line(stored), *(f"warning: {message}" for message in warnings)])
        return result(text, {"path": stored.path, "title": stored.title, "status": stored_verb(stored), "warnings": warnings})

    @brain_tool(server, state, title="Find episodes", read_only=True)
    def query_episodes(
        outcome: Annotated[Outcome | None, Field(description="Only episodes with this outcome.")] = None,
        task: Annotated[str | None, Field(description="Only episodes whose task or title contains this text.")] = None,
        since: Annotated[str | None, Field(description="Only episodes on or after this date (ISO, e.g. 2026-03-01).")] = None,
        until: Annotated[str | None, Field(description="Only episodes on or before this date.")] = None,
        limit: Annotated[int, Field(ge=1, le=episode_service.MAX_LIMIT, description="Most episodes to return.")] = (
            episode_service.DEFAULT_LIMIT
        ),
    ) -> CallToolResult:
        """List past episodes (work sessions), newest first, filtered by outcome, task text and dates.

        Use it before starting similar work ("have we failed at this before?") or to review recent
        sessions. Returns one line per episode: date, outcome, title, task and number of decisions.
        Read one in full with read_note, or its decisions with get_decision_sequence.
        """
        found = episode_service.list_episodes(corpus, outcome=outcome, task=task, since=since, until=until, limit=limit)
        lines = [f"{len(found)} episodes", *(episode_row(episode) for episode in found)]
        return result("\n".join(lines), {"episodes": [episode_summary(episode) for episode in found]})

    @brain_tool(server, state, title="Get an episode's decisions", read_only=True)
    def get_decision_sequence(episode: EpisodeName) -> CallToolResult:
        """The decisions of one episode in time order: what was chosen among which options, why, and what it led to.

        Use it to understand how a past session reasoned, or to reuse a decision that worked.
        Returns one block per decision (id, type, time, chosen, options, rationale, outcome, effects).
        """
        sequence = episode_service.decision_sequence(corpus, episode)
        text = "\n".join(line for decision in sequence for line in decision_lines(decision)) or "this episode records no decisions"
        return result(text, {"episode": episode, "decisions": sequence})

    @brain_tool(server, state, title="Record a pattern", read_only=False)
    def add_pattern(
        name: Annotated[
            str, Field(description="Pattern name or title; 'PATTERN-' is prefixed to a plain name (e.g. 'retry with backoff').")
        ],
        outcome: Annotated[Outcome, Field(description="How this occurrence of the pattern went.")] = "success",
        trigger: Annotated[str | None, Field(description="When the pattern applies (required to create a new pattern).")] = None,
        action: Annotated[str | None, Field(description="What to do when it applies (required to create a new pattern).")] = None,
        episode: Annotated[str | None, Field(description="The episode this occurrence comes from, recorded as evidence.")] = None,
    ) -> CallToolResult:
        """Create a pattern, or record one more occurrence of an existing one with its outcome.

        Use it when a way of working proved itself (or failed) in a session. The pattern's
        success_rate becomes the running average of outcomes (success 1, partial 0.5, failure 0)
        and occurrences grows by one; the episode is listed as evidence. Returns the new rate.
        """
        update = pattern_service.add_pattern(vault, corpus, name, outcome=outcome, trigger=trigger, action=action, episode=episode)
        text = "\n".join([pattern_update_line(update), *(f"warning: {message}" for message in update.warnings)])
        return result(text, {**pattern_summary(update.pattern), "path": update.path, "created": update.created, "warnings": update.warnings})

    @brain_tool(server, state, title="Find patterns", read_only=True)
    def query_patterns(
        min_success_rate: Annotated[float, Field(ge=0, le=1, description="Only patterns at or above this success rate.")] = 0.0,
        min_occurrences: Annotated[int, Field(ge=0, description="Only patterns seen at least this often.")] = 0,
        trigger: Annotated[str | None, Field(description="Only patterns whose trigger or title contains this text.")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="Most patterns to return.")] = 20,
    ) -> CallToolResult:
        """List learned patterns, most successful first, with success rate, occurrences and trigger.

        Use it before acting, to find a proven way to handle the situation at hand (filter by
        trigger text). Returns one line per pattern; read one in full with read_note.
        """
        found = pattern_service.list_patterns(corpus, min_success_rate=min_success_rate, min_occurrences=min_occurrences, trigger=trigger)
        shown = found[:limit]
        more = f" (showing {len(shown)})" if len(found) > len(shown) else ""
        lines = [f"{len(found)} patterns{more}", *(pattern_row(pattern) for pattern in shown)]
        return result("\n".join(lines), {"total": len(found), "patterns": [pattern_summary(pattern) for pattern in shown]})

    @brain_tool(server, state, title="Find a causal path", read_only=True)
    def get_causal_path(
        source: Annotated[str, Field(description="Start note (title, stem, permalink or path).")],
        target: Annotated[str, Field(description="End note.")],
        max_depth: Annotated[int, Field(ge=1, le=causal.MAX_DEPTH, description="Most hops to follow.")] = causal.DEFAULT_DEPTH,
        weighted: Annotated[
            bool, Field(description="Most reliable path (edge weights and success rates) instead of the fewest hops.")
        ] = False,
    ) -> CallToolResult:
        """Find how one note leads to another through causal edges (causes, enables, prevents, correlates, caused_by).

        Use it to answer "how does X lead to Y?" or "why did this happen?". Returns the chain of
        notes with each hop's relation type and weight and the path's overall reliability, or
        says there is no path (and whether one exists the other way round).
        """
        found = causal.find_path(corpus, source, target, max_depth=max_depth, weighted=weighted)
        if found is None:
            reverse = causal.reverse_path_exists(corpus, source, target, max_depth)
            return result(no_path_line(source, target, max_depth, reverse), {"found": False, "reverse_exists": reverse})
        return result("\n".join(causal_path_lines(found)), {"found": True, "path": found})

    @brain_tool(server, state, title="Find antipatterns", read_only=True)
    def get_antipatterns(
        max_success_rate: Annotated[
            float | None, Field(ge=0, le=1, description="At most this success rate (default: the vault's config, 0.3).")
        ] = None,
        min_occurrences: Annotated[int | None, Field(ge=0, description="Seen at least this often (default: the vault's config, 2).")] = None,
    ) -> CallToolResult:
        """List patterns that keep failing (low success rate over enough occurrences), worst first.

        Use it at the start of a task, to learn what not to do. Returns one line per antipattern
        with its success rate, occurrences and trigger.
        """
        found = pattern_service.antipatterns(corpus, max_success_rate=max_success_rate, min_occurrences=min_occurrences)
        lines = [f"{len(found)} antipatterns", *(pattern_row(pattern) for pattern in found)]
        return result("\n".join(lines), {"antipatterns": [pattern_summary(pattern) for pattern in found]})
