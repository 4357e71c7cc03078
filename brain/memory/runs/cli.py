"""`brain run`: record agent runs, recall them by query within a tenant, explain them, export training data."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, complete_notes, emit_json, open_vault, progress_bars, read_input
from brain.errors import UsageError
from brain.lazy import lazy_module
from brain.memory.runs import service, view
from brain.memory.runs import validation as run_input
from brain.memory.runs.note import DEFAULT_PROJECTION, Projection

if TYPE_CHECKING:
    from brain.memory.runs import export as run_export
else:  # loaded by the commands that use them: the others never pay for their imports
    run_export = lazy_module("brain.memory.runs.export")


app = typer.Typer(help="Recorded agent runs: what was decided and why, recalled per tenant.", no_args_is_help=True)

# Choices are checked by the library, so a wrong one gets brain's one-line error.
RunArgument = Annotated[
    str, typer.Argument(help="Run id (title), file stem or path.", autocompletion=complete_notes("run"))
]
TenantOption = Annotated[str | None, typer.Option("--tenant", help="Only runs of this tenant.", show_default=False)]


def _echo(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


@app.command()
def record(
    file: Annotated[
        str,
        typer.Option("--file", "-f", help="SnapshotEntry JSON file (or the wrapped form, see README), or - for stdin."),
    ],
    tenant: Annotated[
        str | None, typer.Option(help="Tenant the run belongs to (required unless the file's identity gives it).")
    ] = None,
    principal: Annotated[str | None, typer.Option(help="User or agent the run worked for.")] = None,
    conversation: Annotated[str | None, typer.Option(help="Conversation id.")] = None,
    accepted: Annotated[
        bool | None,
        typer.Option("--accepted/--not-accepted", help="Whether the answer was accepted.", show_default=False),
    ] = None,
    overridden: Annotated[bool, typer.Option("--overridden", help="A person overrode the answer.")] = False,
    escalated: Annotated[bool, typer.Option("--escalated", help="The run was escalated to a person.")] = False,
    score: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="An eval score between 0 and 1.", show_default=False)
    ] = None,
    ttl: Annotated[
        str | None, typer.Option(help="Forget the run after this long (30d, 12h, 2w) or at this ISO date.")
    ] = None,
    run_id: Annotated[
        str | None, typer.Option("--id", help="Run id; re-recording the id of a run in flight completes it.")
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Record an agent run from its SnapshotEntry JSON as a note in runs/<tenant>/."""
    data = run_input.parse_json(read_input(file), "stdin" if file == "-" else file)
    given = run_input.recording_from_data(data)
    labels = run_input.labels_from(
        accepted if accepted is not None else given.labels.accepted,
        True if overridden else given.labels.overridden,
        True if escalated else given.labels.escalated,
        score if score is not None else given.labels.score,
    )
    if not (tenant or given.tenant):
        raise UsageError("a tenant is required (--tenant); runs are kept and recalled per tenant")
    corpus = open_vault(vault).corpus
    stored = service.record_run(
        corpus,
        given.snapshot,
        tenant=tenant or given.tenant,
        principal=principal or given.principal,
        conversation=conversation or given.conversation,
        labels=labels,
        ttl=ttl or given.ttl,
        run_id=run_id or given.run_id,
    )
    _echo(view.recorded_lines(stored))


@app.command()
def show(
    name: RunArgument, tenant: TenantOption = None, vault: VaultOption = None, as_json: JsonOption = False
) -> None:
    """Show a run; --json gives back the snapshot exactly as recorded, with identity and labels."""
    corpus = open_vault(vault).corpus
    run = service.get_run(corpus, name, tenant)
    if as_json:
        emit_json(view.run_record(run))
        return
    _echo(view.show_lines(run))


@app.command("list")
def list_(
    tenant: Annotated[str, typer.Option("--tenant", help="The tenant whose runs to list (required).")],
    limit: Annotated[
        int, typer.Option(min=1, max=service.MAX_LIMIT, help="At most this many.")
    ] = service.DEFAULT_LIMIT,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List a tenant's runs, newest first (expired ones are left out)."""
    corpus = open_vault(vault).corpus
    found = service.list_runs(corpus, tenant, limit=limit)
    if as_json:
        emit_json([view.run_row(run) for run in found])
        return
    _echo(view.list_lines(found, tenant))


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="The new question, matched against the queries of past runs.")],
    tenant: Annotated[
        str | None, typer.Option("--tenant", help="The tenant to recall from (required).", show_default=False)
    ] = None,
    top_k: Annotated[
        int, typer.Option("--top-k", min=1, max=service.MAX_TOP_K, help="At most this many runs.")
    ] = service.DEFAULT_TOP_K,
    threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Strict: runs less similar than this are never returned.")
    ] = service.DEFAULT_THRESHOLD,
    projection: Annotated[Projection, typer.Option(help="What of each run to show.")] = DEFAULT_PROJECTION,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Recall a tenant's past runs whose query is most like QUERY, each in a compact projection."""
    if tenant is None:
        raise UsageError("recall needs --tenant; runs are never recalled across tenants")
    corpus = open_vault(vault).corpus
    with progress_bars({"runs": "run queries"}) as progress:  # only when many runs wait for their vectors
        found = service.recall_runs(
            corpus,
            query,
            tenant=tenant,
            top_k=top_k,
            threshold=threshold,
            projection=projection,
            progress=progress,
        )
    if as_json:
        emit_json(view.recall_dict(found))
        return
    _echo(view.recall_lines(found))


@app.command()
def explain(
    name: RunArgument,
    question: Annotated[str | None, typer.Argument(help="What to explain, e.g. 'why rejected?'.")] = None,
    tenant: TenantOption = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Why a run chose what it chose, from its own recorded decisions and tool calls."""
    corpus = open_vault(vault).corpus
    found = service.explain_run(corpus, name, question, tenant=tenant)
    if as_json:
        emit_json(view.explain_dict(found))
        return
    _echo(view.explain_lines(found))


@app.command("export")
def export_(
    out: Annotated[Path, typer.Argument(help="The .jsonl file to write.")],
    format: Annotated[str, typer.Option("--format", help=f"Training format: {', '.join(run_export.FORMATS)}.")],
    tenant: TenantOption = None,
    since: Annotated[str | None, typer.Option(help="Only runs recorded on or after this date.")] = None,
    min_score: Annotated[
        float | None,
        typer.Option("--min-score", min=0.0, max=1.0, help="Leave out runs whose eval score is below this."),
    ] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write training data (sft, dpo, dpo-openai, kto, process) from labelled runs, one JSON object a line."""
    corpus = open_vault(vault).corpus
    summary = run_export.export_runs(corpus, format, out, tenant=tenant, since=since, min_score=min_score)
    if as_json:
        emit_json(summary)
        return
    _echo(view.export_lines(summary))
