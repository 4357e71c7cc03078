"""The session protocol as MCP prompts: `start_task` hands the agent what the vault knows for a task,
`end_session` tells it what to record before the session ends, and with which tools.

A prompt names only the tools the server serves (its `--tools` groups): a step no served tool
takes is left out, and `end_session` is not offered when no served tool records anything.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Annotated, get_args

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import Field

from brain.markdown.model import Outcome
from brain.mcp.common import ServerState, serving
from brain.memory.sessions import protocol
from brain.vault.history import acting_as

OUTCOMES = get_args(Outcome)


def serve_prompts(server: MCPServer, state: ServerState, served: Collection[str]) -> None:
    """Offer the prompts, worded for the tools in `served`."""
    server.add_prompt(
        Prompt.from_function(
            _start_task(state, served),
            name="start_task",
            title="Start a task with the vault's context",
            description=(
                "Start a task with what the vault knows about it: recent failures, antipattern warnings, "
                "facts valid now about what the task names, patterns and tips for it, and how to look further."
            ),
        )
    )
    if record_steps(served, None, None):
        server.add_prompt(
            Prompt.from_function(
                _end_session(served),
                name="end_session",
                title="End a session: record what it taught",
                description=(
                    "What to record before the session ends, and the tools to call: the episode (decisions, "
                    "events, lessons), the decisions later work builds on, patterns, facts and tips."
                ),
            )
        )


def _refusal(message: str) -> MCPError:
    return MCPError(INVALID_PARAMS, message)


def _start_task(state: ServerState, served: Collection[str]) -> Callable[[str], str]:
    def start_task(
        task: Annotated[str, Field(description="The task the session is about to start, in a sentence.")],
    ) -> str:
        with serving(state, _refusal), acting_as("mcp", "start_task"):
            context = protocol.bootstrap(state.corpus, task, caller="mcp")
        return start_text(task, context.text if context.sections else None, served)

    return start_task


def start_text(task: str, context: str | None, served: Collection[str]) -> str:
    """The start of a task: the bootstrap context (None when the vault knows nothing for it), then how to look further."""
    lines = [f"I am starting a task: {task}", ""]
    if context is None:
        lines += [
            "The vault holds nothing yet that bears on it: no recent failure, antipattern, fact, pattern or tip matched.",
        ]
    else:
        lines += ["What the vault (the memory of earlier sessions) knows that bears on it:", "", context.rstrip()]
    further = [
        ("search", "search the vault for the task's topics, and read_note the notes that matter"),
        ("build_context", "build_context gathers what surrounds a note (its links, relations and causes)"),
        ("recall_facts", "recall_facts before acting on a preference, setting or policy"),
        ("get_antipatterns", "get_antipatterns lists the ways of working that keep failing"),
        ("reconstruct_reasoning", "reconstruct_reasoning says why a note exists before you reverse a decision"),
    ]
    shown = [f"- {text}" for tool, text in further if tool in served]
    if shown:
        lines += ["", "Before acting on it:", *shown]
    if record_steps(served, None, None):
        lines += ["", "When the session ends, record what it taught (the end_session prompt says how)."]
    return "\n".join(lines)


def _end_session(served: Collection[str]) -> Callable[[str | None, str | None], str]:
    def end_session(
        task: Annotated[str | None, Field(description="What the session set out to do, in one line.")] = None,
        outcome: Annotated[str | None, Field(description="How it went: success, partial or failure.")] = None,
    ) -> str:
        if outcome is not None and outcome not in OUTCOMES:
            raise _refusal(f"outcome '{outcome}' is not one of {', '.join(OUTCOMES)}")
        return end_text(task, outcome, served)

    return end_session


def end_text(task: str | None, outcome: str | None, served: Collection[str]) -> str:
    about = f" (task: {task.strip()})" if task and task.strip() else ""
    lines = [
        f"The session is ending{about}. Record what it taught, so that the next session starts from it.",
        "Record only what a later session would want to know; leave out what the notes already say.",
        "",
        *record_steps(served, task, outcome),
    ]
    return "\n".join(lines)


def record_steps(served: Collection[str], task: str | None, outcome: str | None) -> list[str]:
    """The steps of the end of a session that the served tools can take, as lines."""
    how = f"'{outcome}'" if outcome else "success, partial or failure"
    steps = []
    if "store_episode" in served:
        steps.append(
            f"- The episode, once: store_episode with the task{f' ({task.strip()!r})' if task and task.strip() else ''}, "
            f"the outcome ({how}), the decisions made, in order (each with its context, the options weighed, "
            "the one chosen, the rationale and how it turned out), the events that mattered, and the lessons, "
            "one sentence each. Storing the same session again updates it."
        )
    if "save_context" in served:
        steps.append(
            "- Each decision later work will build on: save_context with action_type 'decision', the rationale, "
            "and in caused_by the note that led to it, so build_causal_chain can trace it."
        )
    elif "write_note" in served:
        steps.append(
            "- Each decision later work will build on: a note of its own with write_note (why, and what else was weighed)."
        )
    if "add_pattern" in served:
        steps.append(
            "- A way of working that proved itself or failed: add_pattern with its trigger and action, the outcome, "
            "and the episode as evidence (its success rate is the running average of its outcomes)."
        )
    if {"recall_facts", "record_fact", "supersede_fact"} <= set(served):
        steps.append(
            "- A preference, setting or policy learned: recall_facts first; when a fact about it holds, "
            "supersede_fact it by its id (FACT-...), else record_fact."
        )
    if "save_trajectory" in served:
        steps.append("- Tips for the next task: save_trajectory with the episode, once it is stored.")
    return steps
