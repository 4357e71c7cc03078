"""The session protocol's tool, named as in the seeds: bootstrap_context at the start of a task."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.mcp.common import AllProjectsArgument, ProjectArgument, ServerState, project_scope, result, tool
from brain.memory.sessions import protocol as session_service
from brain.memory.sessions.view import bootstrap_json

GROUP = "learning"


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
    project: ProjectArgument = None,
    all_projects: AllProjectsArgument = False,
) -> CallToolResult:
    """Start of a session: recent failures, antipattern warnings, facts valid now about what the task names,
    patterns and tips for the task, in one compact text.

    Use it once at the start of a session, before starting work. Returns markdown within the token budget.
    """
    scope = project_scope(state, project, all_projects)
    context = session_service.bootstrap(
        state.corpus, task, budget=budget, days=days, namespaces=namespaces, caller="mcp", project=scope.project
    )
    return result(context.text, bootstrap_json(context))
