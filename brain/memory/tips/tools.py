"""Tip tools, named as in the seeds: save_trajectory (learn tips from a trajectory) and get_guidelines."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, SamplingMessage, TextContent
from pydantic import Field

from brain.errors import InvalidInput
from brain.markdown.model import Outcome
from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.episodes.service import get_episode, store_episode
from brain.memory.sessions.redact import redactor_for
from brain.memory.tips import service as tip_service
from brain.memory.tips.language_model import ModelUnusable, model_drafter
from brain.memory.tips.trajectory import trajectory_episode
from brain.memory.tips.view import guideline_lines, guidelines_json, learn_json, learn_lines

GROUP = "learning"

STEP_KEYS = "thought (why), action (what was done), result (what came back; errors are recognised)"


def _sampling_ask(ctx: Context) -> Any:
    """Ask the client's model (MCP sampling) from the tool's worker thread."""

    def ask(system: str, prompt: str) -> str:
        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            raise ModelUnusable("the client does not offer sampling")
        call = functools.partial(
            ctx.session.create_message,
            [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
            max_tokens=2000,
            system_prompt=system,
        )
        reply = anyio.from_thread.run(call)
        content = reply.content
        if not isinstance(content, TextContent):
            raise ModelUnusable("the client's model did not answer with text")
        return content.text

    return ask


@tool(title="Learn tips from a trajectory", read_only=False)
def save_trajectory(
    state: ServerState,
    ctx: Context,
    episode: Annotated[
        str | None, Field(description="An episode already in the vault to learn from (title, id or path).")
    ] = None,
    steps: Annotated[
        list[dict[str, Any]] | None,
        Field(description=f"A raw trajectory instead of an episode: a list of steps, each with {STEP_KEYS}."),
    ] = None,
    task: Annotated[str | None, Field(description="What the trajectory set out to do (needed with steps).")] = None,
    outcome: Annotated[
        Outcome | None, Field(description="How it went (with steps; default: failure if the last step failed).")
    ] = None,
    session: Annotated[
        str | None, Field(description="A session id to name the episode note written for the steps.")
    ] = None,
    use_model: Annotated[
        bool, Field(description="Ask your model (MCP sampling) to segment and word the tips; rules otherwise.")
    ] = False,
) -> CallToolResult:
    """After a task: turn what happened into tips (strategy, recovery, optimization) for next time.

    Give an episode name, or the raw steps of the trajectory (then an episode note is written
    for them first). A failure followed by its recovery becomes a tip note at once; any other
    lesson waits until a second session shows the same, and one a tip already says adds support
    to that tip. Learning the same episode again adds nothing. Returns the tips written, supported
    and held.

    Use it at the end of a task (after store_episode), so the next agent starts with what you learned.
    """
    if (episode is None) == (steps is None):
        raise InvalidInput("give either an episode or the steps of a trajectory, not both")
    if steps is not None:
        if not task or not task.strip():
            raise InvalidInput("a trajectory needs its task")
        now = datetime.now(UTC)
        name = session or f"{now:%Y-%m-%d}-trajectory-{now:%H%M%S}"
        made = trajectory_episode(f"EPISODE-{name}", task.strip(), steps, outcome, now.isoformat(timespec="seconds"))
        # an agent's steps are a transcript in small: secrets in them are redacted like a transcript's
        made = redactor_for(state.vault.brain_dir).value(made)
        stored = store_episode(state.corpus, made)
        learned_from = get_episode(state.corpus, stored.path)
    else:
        assert episode is not None  # exactly one of episode and steps, checked above
        learned_from = get_episode(state.corpus, episode)
    drafter = model_drafter(_sampling_ask(ctx)) if use_model else None
    learned = tip_service.learn_episode(state.corpus, learned_from, drafter=drafter)
    lines = learn_lines(learned) + [f"warning: {message}" for message in learned.warnings]
    return result("\n".join(lines), learn_json(learned))


@tool(title="Get guidelines for a task", read_only=True)
def get_guidelines(
    state: ServerState,
    task: Annotated[str, Field(description="The task about to start, in a sentence.")],
    top_k: Annotated[
        int, Field(ge=1, le=tip_service.MAX_TOP_K, description="At most this many matching tips.")
    ] = tip_service.DEFAULT_TOP_K,
    threshold: Annotated[
        float,
        Field(ge=-1, le=1, description="Least similarity of the task to a tip; loose matches are worse than none."),
    ] = (tip_service.DEFAULT_THRESHOLD),
    project: ProjectArgument = None,
    all_projects: AllProjectsArgument = False,
) -> CallToolResult:
    """Before a task: the tips learned from past work that apply to it (always-on core plus close matches).

    Each tip says what to do, its steps and what to avoid. Follow them, and report with
    feedback whether they helped. Returns nothing when no tip is close enough.

    Use it before starting a task, to follow what worked and avoid what failed before.
    """
    scope = project_scope(state, project, all_projects)
    found = tip_service.guidelines(state.corpus, task, top_k=top_k, threshold=threshold, project=scope.project)
    return result("\n".join(guideline_lines(found)), guidelines_json(found))
