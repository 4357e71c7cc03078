"""The session protocol's tool, named as in the seeds: bootstrap_context at the start of a task."""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, SamplingMessage, TextContent
from pydantic import Field

from brain.mcp.common import ServerState, result, tool
from brain.memory.sessions import protocol as session_service
from brain.memory.tips.language_model import ModelUnusable
from brain.views.sessions import bootstrap_json

GROUP = "learning"
Outcome = Literal["success", "partial", "failure"]
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


@tool(title="Bootstrap a session's context", read_only=True)
def bootstrap_context(
    state: ServerState,
    task: Annotated[str, Field(description="The task the session is about to start.")],
    budget: Annotated[
        int, Field(ge=100, le=100_000, description="Most tokens the context may use.")
    ] = session_service.DEFAULT_BUDGET,
    days: Annotated[
        int, Field(ge=0, description="Recent failures: episodes of the last this many days.")
    ] = session_service.DEFAULT_DAYS,
    namespaces: Annotated[
        list[str] | None, Field(description="Facts: the namespaces to read (default: the vault's default namespace).")
    ] = None,
) -> CallToolResult:
    """Start of a session: recent failures, antipattern warnings, facts valid now about what the task names,
    patterns and tips for the task, in one compact text.

    Call it once before starting work. Returns markdown within the token budget.
    """
    context = session_service.bootstrap(
        state.corpus, task, budget=budget, days=days, namespaces=namespaces, caller="mcp"
    )
    return result(context.text, bootstrap_json(context))
