"""Recorded-run tools, named as in the causal memory seed: record_run, recall_runs, explain_run.

Every tool takes the tenant: a run of another tenant is never returned, counted or explained.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from brain.mcp.common import ServerState, result, tool
from brain.memory.runs import service, view
from brain.memory.runs import validation as run_input
from brain.memory.runs.note import DEFAULT_PROJECTION, Projection

GROUP = "runs"

Tenant = Annotated[str, Field(description="The tenant the runs belong to; runs are kept and recalled per tenant.")]
SNAPSHOT_KEYS = (
    "query (text, required), finalContent (text, required; null while the run is in flight), iterations, "
    "decisions [{stageId, chosen, rule, evidence (object)}], toolCalls [{name, args, resultPreview, errored}], "
    "narrative, durationMs, tokenUsage {input, output}"
)


@tool(title="Record an agent run", read_only=False)
def record_run(
    state: ServerState,
    snapshot: Annotated[dict[str, Any], Field(description=f"The run's SnapshotEntry: {SNAPSHOT_KEYS}.")],
    tenant: Tenant,
    principal: Annotated[str | None, Field(description="User or agent the run worked for.")] = None,
    conversation_id: Annotated[str | None, Field(description="Conversation id.")] = None,
    accepted: Annotated[bool | None, Field(description="Whether the answer was accepted.")] = None,
    overridden: Annotated[bool | None, Field(description="Whether a person overrode the answer.")] = None,
    escalated: Annotated[bool | None, Field(description="Whether the run was escalated to a person.")] = None,
    score: Annotated[float | None, Field(ge=0, le=1, description="An eval score between 0 and 1.")] = None,
    ttl: Annotated[
        str | None, Field(description="Forget the run after this long (30d, 12h, 2w) or at an ISO date.")
    ] = None,
    run_id: Annotated[
        str | None, Field(description="Run id; recording the id of a run in flight again completes it.")
    ] = None,
) -> CallToolResult:
    """Record what an agent run decided and why (its snapshot) as a run note of the tenant.

    Use it at the end of a run, so later runs can recall its decisions ("why was X
    rejected?") and its record can become training data. Tool result previews longer than
    500 characters are truncated. Returns the run's id and path.
    """
    labels = run_input.labels_from(accepted, overridden, escalated, score)
    stored = service.record_run(
        state.corpus,
        snapshot,
        tenant=tenant,
        principal=principal,
        conversation=conversation_id,
        labels=labels,
        ttl=ttl,
        run_id=run_id,
    )
    return result("\n".join(view.recorded_lines(stored)), view.recorded_dict(stored))


@tool(title="Recall past runs", read_only=True)
def recall_runs(
    state: ServerState,
    query: Annotated[
        str, Field(description="The new question, matched against the queries of the tenant's past runs.")
    ],
    tenant: Tenant,
    top_k: Annotated[
        int, Field(ge=1, le=service.MAX_TOP_K, description="At most this many runs.")
    ] = service.DEFAULT_TOP_K,
    threshold: Annotated[float, Field(ge=0, le=1, description="Strict: less similar runs are never returned.")] = (
        service.DEFAULT_THRESHOLD
    ),
    projection: Annotated[
        Projection,
        Field(
            description=(
                "decisions: each stage -> chosen (rule) [evidence], the cheapest answer to 'why'; commits: stage: chose X; "
                "narrative: the recorded narrative; full: the whole snapshot as JSON."
            )
        ),
    ] = DEFAULT_PROJECTION,
) -> CallToolResult:
    """Find the tenant's past runs whose query is most like this one and return what they decided.

    Use it before answering a follow-up such as "why was application #42 rejected?": the
    answer comes from the recorded evidence, not from a guess. When no run reaches the
    threshold nothing is returned (weak matches are worse than none). Each hit comes in the
    chosen projection with its similarity and token count.
    """
    found = service.recall_runs(
        state.corpus, query, tenant=tenant, top_k=top_k, threshold=threshold, projection=projection
    )
    return result("\n".join(view.recall_lines(found)), view.recall_dict(found))


@tool(title="Explain a run", read_only=True)
def explain_run(
    state: ServerState,
    run: Annotated[str, Field(description="The run's id (as record_run or recall_runs gave it).")],
    tenant: Tenant,
    question: Annotated[
        str | None, Field(description="What to explain, e.g. 'why rejected?'; picks the decisions it names.")
    ] = None,
) -> CallToolResult:
    """Explain why a finished run chose what it chose, from its own recorded decisions and tool calls.

    Cites each stage id, the rule that matched and the evidence values; with a question,
    the decisions it is about come first. A run still in flight is refused.

    Use it when someone asks why a past run of the tenant answered as it did, or before
    reusing a recalled run's answer, to check its reasons still hold.
    """
    found = service.explain_run(state.corpus, run, question, tenant=tenant)
    return result("\n".join(view.explain_lines(found)), view.explain_dict(found))
