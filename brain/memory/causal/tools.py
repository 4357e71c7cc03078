"""Contexts and causal chains, named as in the causality-engine seed: save/load contexts, build a
causal chain, reconstruct the reasoning behind a note, causality stats."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.markdown.model import ActionType
from brain.mcp.common import ServerState, result, tool
from brain.memory.causal import chains, contexts, stats
from brain.memory.causal.view import chain_lines, context_lines, reasoning_lines, saved_text, stats_lines

GROUP = "causal"

NoteName = Annotated[
    str,
    Field(description="Any note (context, episode, decision, fact, run, tip...): title, file stem, permalink or path."),
]
MaxDepth = Annotated[int, Field(ge=1, le=chains.MAX_DEPTH, description="Most caused_by hops to follow from the note.")]


@tool(title="Save a context", read_only=False)
def save_context(
    state: ServerState,
    project: Annotated[str, Field(description="Project the context belongs to, e.g. 'refactor-auth'.")],
    content: Annotated[
        str, Field(description="What happened or was learned, in markdown; the first line becomes the title.")
    ],
    action_type: Annotated[ActionType, Field(description="What kind of work produced it.")],
    caused_by: Annotated[
        list[str] | None,
        Field(description="The note(s) that led to this one (any type); usually one. Each must exist."),
    ] = None,
    rationale: Annotated[str | None, Field(description="Why this context was created, in one sentence.")] = None,
    title: Annotated[str | None, Field(description="Title; default: the first line of the content.")] = None,
) -> CallToolResult:
    """Save a context note with its action type, the note(s) that caused it and why, so later sessions can trace
    how a decision came about (build_causal_chain, reconstruct_reasoning).

    Use it after a conversation, research, a decision, a file edit or a tool run that matters;
    name what caused it in caused_by (e.g. the research context behind a decision). Refused,
    with nothing written, when a cause names no note or the note would become its own ancestor.
    Returns the new note's path.
    """
    saved = contexts.save_context(
        state.corpus,
        content,
        project=project,
        action_type=action_type,
        caused_by=caused_by or [],
        rationale=rationale,
        title=title,
    )
    return result(saved_text(saved), {"saved": saved})


@tool(title="Load a project's contexts", read_only=True)
def load_context(
    state: ServerState,
    project: Annotated[str, Field(description="The project whose contexts to list.")],
    limit: Annotated[
        int, Field(ge=1, le=contexts.MAX_LIMIT, description="Most contexts to return.")
    ] = contexts.DEFAULT_LIMIT,
) -> CallToolResult:
    """A project's saved contexts, newest first: time, action type, title, cause(s), rationale and a summary.

    Use it when resuming work on a project; then build_causal_chain on the newest to see how
    you got there. Read a context in full with read_note.
    """
    entries = contexts.load_contexts(state.corpus, project, limit=limit)
    known = contexts.projects(state.corpus) if not entries else []
    return result("\n".join(context_lines(project, entries, known)), {"project": project, "contexts": entries})


@tool(title="Build a causal chain", read_only=True)
def build_causal_chain(
    state: ServerState,
    note: NoteName,
    forward: Annotated[
        bool, Field(description="What the note led to (its descendants) instead of its causes.")
    ] = False,
    max_depth: MaxDepth = chains.DEFAULT_DEPTH,
) -> CallToolResult:
    """Trace a note back through caused_by to its root causes, root first; or, with forward, everything it led to.

    Use it to see how a decision or change came about. Each step has its action type, time,
    summary and depth (hops from the note); a note with several causes gives its whole
    ancestry. Causes that name no note are shown as broken steps, cycles are named, and the
    walk stops at max_depth.
    """
    found = chains.build_chain(state.corpus, note, forward=forward, max_depth=max_depth)
    return result("\n".join(chain_lines(found)), {"chain": found})


@tool(title="Explain why a note exists", read_only=True)
def reconstruct_reasoning(
    state: ServerState, note: NoteName, max_depth: MaxDepth = chains.DEFAULT_DEPTH
) -> CallToolResult:
    """Explain why a note was created: action type, rationale, summary, the chain of causes behind it, the
    decisions of episodes on that chain (chosen option, rationale, outcome) and the facts they cite.

    Every statement is copied from a note and names that note, so you can open it with
    read_note. Nothing is inferred: a missing rationale is reported as missing.

    Use it before reversing or revisiting a decision, or when asked why something is the way it is.
    """
    answer = chains.reconstruct_reasoning(state.corpus, note, max_depth=max_depth)
    return result("\n".join(reasoning_lines(answer)), {"reasoning": answer})


@tool(title="Causality statistics", read_only=True)
def get_causality_stats(
    state: ServerState,
    project: Annotated[
        str | None, Field(description="Only the notes of this project (frontmatter project); default: every note.")
    ] = None,
) -> CallToolResult:
    """Exact figures over every note (not a sample): notes with causal links, action types, root causes, orphans
    (decisions and file edits naming no cause), average and longest chain, cycles and broken caused_by links.

    Use it to audit how well a project's work is traced.
    """
    found = stats.causality_stats(state.corpus, project)
    return result("\n".join(stats_lines(found)), {"stats": found})
