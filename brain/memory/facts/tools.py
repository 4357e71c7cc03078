"""Fact tools: record, supersede, invalidate, recall. None can delete: only `brain fact sweep` hard-deletes."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from brain.mcp.common import ServerState, result, tool
from brain.memory.facts import recall as fact_recall
from brain.memory.facts import service, view
from brain.memory.facts.note import TIME_EXAMPLE, Tier

GROUP = "facts"
CALLER = "mcp"

FactName = Annotated[
    str,
    Field(
        description="The fact's id (FACT-<subject>-<8 hex>, as record_fact and recall_facts return it), file stem "
        "or path, or its subject (the subject's current fact in `namespace`)."
    ),
]
SubjectNamespace = Annotated[
    str | None,
    Field(description="The namespace of a fact named by its subject (default: the vault's default)."),
]
Value = Annotated[
    dict[str, Any] | list[Any] | str | int | float | bool,
    Field(description="The value: any JSON value (object, list, text, number, boolean)."),
]
Time = f"ISO 8601 with a zone, e.g. {TIME_EXAMPLE}"


@tool(title="Record a fact", read_only=False)
def record_fact(
    state: ServerState,
    kind: Annotated[str, Field(description="What sort of fact: preference, config, policy, profile ...")],
    subject: Annotated[str, Field(description="What the fact is about: a user id, a setting name, an entity.")],
    value: Value,
    namespace: Annotated[
        str | None,
        Field(description="Namespace such as user:alice, org:ledger, run:123 (default: the vault's default)."),
    ] = None,
    tier: Annotated[Tier | None, Field(description="long-term or ephemeral (default: the namespace's tier).")] = None,
    source: Annotated[str | None, Field(description="The note the fact comes from (title).")] = None,
    authority: Annotated[
        float | None, Field(ge=0, le=1, description="How much the source is trusted, 0..1 (default 0.5).")
    ] = None,
    valid_from: Annotated[str | None, Field(description=f"When the fact starts to hold (default now); {Time}.")] = None,
    compliance_class: Annotated[str | None, Field(description="pii, phi, financial, internal (default) ...")] = None,
    retention_days: Annotated[
        int | None, Field(ge=0, description="Days to keep the fact once it is superseded.")
    ] = None,
    supersede: Annotated[
        bool,
        Field(
            description="When the subject already has a current value: supersede it with this one (default: refuse)."
        ),
    ] = False,
) -> CallToolResult:
    """Record a durable fact (a preference, a setting, a policy) as a new immutable note.

    Use it when you learn something that should hold until it changes. A subject has one
    current value per namespace: recording a subject that already has one is refused (the error
    names the current fact) unless supersede is true, which closes the old fact and records the
    new value in one step. Returns the new fact's id and path.
    """
    request = service.FactRequest(
        kind,
        subject,
        value,
        namespace=namespace,
        tier=tier,
        source=source,
        authority=authority,
        valid_from=valid_from,
        compliance_class=compliance_class,
        retention_days=retention_days,
        supersede=supersede,
    )
    written = service.record(state.corpus, request, caller=CALLER)
    return result("\n".join(view.written_lines(written, "recorded")), view.written_dict(written))


@tool(title="Supersede a fact", read_only=False)
def supersede_fact(
    state: ServerState,
    fact: FactName,
    value: Value,
    namespace: SubjectNamespace = None,
    reason: Annotated[str | None, Field(description="Why the value changed; kept on the old fact.")] = None,
    valid_from: Annotated[str | None, Field(description=f"When the new value starts (default now); {Time}.")] = None,
    authority: Annotated[
        float | None, Field(ge=0, le=1, description="Trust in the new value's source (default: the old fact's).")
    ] = None,
) -> CallToolResult:
    """Replace a fact's value: writes the new fact and closes the old one (valid_until, superseded_by) in one call.

    Name the fact by its id (FACT-..., from recall_facts or record_fact) or by its subject
    (with namespace when it is not the default one). The new fact keeps the old one's kind, subject and namespace. The old fact stays for audit
    and stops appearing in current recall. Only a current (open) fact can be superseded.
    Returns the new fact and the closed one.

    Use it when a preference, setting or policy changes: never edit a fact's note instead.
    """
    written = service.supersede_fact(
        state.corpus,
        fact,
        value,
        namespace=namespace,
        reason=reason,
        valid_from=valid_from,
        authority=authority,
        caller=CALLER,
    )
    return result("\n".join(view.written_lines(written, "recorded")), view.written_dict(written))


@tool(title="Invalidate a fact", read_only=False)
def invalidate_fact(
    state: ServerState,
    fact: FactName,
    namespace: SubjectNamespace = None,
    reason: Annotated[str | None, Field(description="Why the fact no longer holds.")] = None,
    at: Annotated[str | None, Field(description=f"When it stops holding (default now); {Time}.")] = None,
) -> CallToolResult:
    """Close a fact that no longer holds and has no replacement. It stays for audit; nothing is deleted.

    Use it when a fact stops being true with nothing in its place (a setting removed, a policy
    withdrawn); use supersede_fact when it has a new value."""
    closed = service.invalidate_fact(state.corpus, fact, namespace=namespace, reason=reason, at=at, caller=CALLER)
    return result(view.invalidated_line(closed), view.written_dict(closed))


@tool(title="Recall facts", read_only=False, idempotent=False)
def recall_facts(
    state: ServerState,
    query: Annotated[str | None, Field(description="Rank by similarity to this text (optional).")] = None,
    kind: Annotated[str | None, Field(description="Only facts of this kind.")] = None,
    subject: Annotated[str | None, Field(description="Only facts about this subject.")] = None,
    namespaces: Annotated[
        list[str] | None,
        Field(
            description="Namespaces to search, by name (default: the vault's default). Recall never crosses into others."
        ),
    ] = None,
    as_of: Annotated[str | None, Field(description=f"Facts valid at this time instead of now; {Time}.")] = None,
    known_at: Annotated[
        str | None,
        Field(description=f"As the vault knew them at this time (what was known when a decision was made); {Time}."),
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=fact_recall.MAX_LIMIT, description="Most facts to return.")
    ] = fact_recall.DEFAULT_LIMIT,
    history: Annotated[bool, Field(description="Include closed facts, marked as such.")] = False,
) -> CallToolResult:
    """The facts valid now (or at as_of, as known at known_at), best first, each with its score's parts.

    Use it before acting on a preference, setting or policy. Closed facts are left out unless
    history is true. Every recall is written to the vault's recall journal.
    """
    found = fact_recall.recall_facts(
        state.corpus,
        query,
        kind=kind,
        subject=subject,
        namespaces=namespaces,
        as_of=as_of,
        known_at=known_at,
        limit=limit,
        history=history,
        caller=CALLER,
    )
    return result("\n".join(view.recall_lines(found)), view.recall_dict(found))
