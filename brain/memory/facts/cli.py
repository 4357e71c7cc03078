"""`brain fact`: record, supersede, invalidate, recall, history, journal, replay, sweep."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from brain.cli.common import JsonOption, VaultOption, complete_notes, emit_json, open_vault, progress_bars, read_input
from brain.errors import UsageError
from brain.lazy import lazy_module
from brain.memory.facts import recall as fact_recall
from brain.memory.facts import service, view
from brain.memory.facts.note import TIME_EXAMPLE, Tier, parse_value

if TYPE_CHECKING:
    from brain.memory.facts import journal as fact_journal
    from brain.memory.facts import sweep as retention
else:  # loaded by the commands that use them: the others never pay for their imports
    fact_journal = lazy_module("brain.memory.facts.journal")
    retention = lazy_module("brain.memory.facts.sweep")


app = typer.Typer(
    help="Immutable facts: supersession, point-in-time recall, a recall journal, retention.", no_args_is_help=True
)

TIME_HELP = f"ISO 8601 with a zone, e.g. {TIME_EXAMPLE}"
ValueArgument = Annotated[
    str | None, typer.Argument(help="The value as YAML or JSON (e.g. '{seconds: 900}'); or --file.")
]
FileOption = Annotated[
    str | None, typer.Option("--file", "-f", help="Read the value (YAML or JSON) from a file, '-' for stdin.")
]
NamespaceOption = Annotated[
    str | None,
    typer.Option(help="Namespace, e.g. user:alice, org:ledger, run:123 (default: [facts] default_namespace)."),
]
ReasonOption = Annotated[str | None, typer.Option(help="Why, kept on the closed fact.")]
AuthorityOption = Annotated[float | None, typer.Option(min=0.0, max=1.0, help="How much to trust the source, 0..1.")]
SourceOption = Annotated[
    str | None, typer.Option(help="The note the fact comes from.", autocompletion=complete_notes())
]


def _value(value: str | None, file: str | None) -> Any:
    if value is not None and file is not None:
        raise UsageError("give the value either as an argument or with --file, not both")
    if value is None and file is None:
        raise UsageError("the fact value is empty; give it as an argument or with --file")
    return parse_value(read_input(file) if file is not None else value or "")


def _echo(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


@app.command()
def record(
    kind: Annotated[str, typer.Argument(help="What sort of fact: preference, config, policy ...")],
    subject: Annotated[str, typer.Argument(help="What it is about, e.g. a user id or a setting name.")],
    value: ValueArgument = None,
    file: FileOption = None,
    namespace: NamespaceOption = None,
    tier: Annotated[
        Tier | None, typer.Option(help="How long it is meant to hold (default: from [facts.tiers], else long-term).")
    ] = None,
    source: SourceOption = None,
    authority: AuthorityOption = None,
    valid_from: Annotated[str | None, typer.Option(help=f"When it starts to hold (default now); {TIME_HELP}.")] = None,
    compliance_class: Annotated[str | None, typer.Option(help="pii, phi, financial, internal (default) ...")] = None,
    retention_days: Annotated[
        int | None, typer.Option(min=0, max=service.MAX_RETENTION_DAYS, help="Days to keep it once it is closed.")
    ] = None,
    legal_delete_at: Annotated[
        str | None, typer.Option(help=f"Delete it at this time whatever else holds; {TIME_HELP}.")
    ] = None,
    legal_hold: Annotated[bool, typer.Option(help="Never delete it while the hold stands.")] = False,
    supersede: Annotated[
        bool, typer.Option("--supersede", help="Supersede the subject's current value, if it has one.")
    ] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Record a new fact (a note in facts/); a subject with a current value needs --supersede."""
    corpus = open_vault(vault).corpus
    request = service.FactRequest(
        kind,
        subject,
        _value(value, file),
        namespace=namespace,
        tier=tier,
        source=source,
        authority=authority,
        valid_from=valid_from,
        compliance_class=compliance_class,
        retention_days=retention_days,
        legal_delete_at=legal_delete_at,
        legal_hold=legal_hold,
        supersede=supersede,
    )
    written = service.record(corpus, request)
    emit_json(view.written_dict(written)) if as_json else _echo(view.written_lines(written, "recorded"))


@app.command()
def supersede(
    fact: Annotated[
        str,
        typer.Argument(
            help="The fact to replace: its id (title, stem or path) or its subject.",
            autocompletion=complete_notes("fact"),
        ),
    ],
    value: ValueArgument = None,
    file: FileOption = None,
    namespace: NamespaceOption = None,
    reason: ReasonOption = None,
    valid_from: Annotated[
        str | None, typer.Option(help=f"When the new value starts (default now); {TIME_HELP}.")
    ] = None,
    authority: AuthorityOption = None,
    source: SourceOption = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a new value and close the old fact, in one step."""
    corpus = open_vault(vault).corpus
    written = service.supersede_fact(
        corpus,
        fact,
        _value(value, file),
        namespace=namespace,
        reason=reason,
        valid_from=valid_from,
        authority=authority,
        source=source,
    )
    emit_json(view.written_dict(written)) if as_json else _echo(view.written_lines(written, "recorded"))


@app.command()
def invalidate(
    fact: Annotated[
        str,
        typer.Argument(
            help="The fact that stops applying: its id (title, stem or path) or its subject.",
            autocompletion=complete_notes("fact"),
        ),
    ],
    namespace: NamespaceOption = None,
    reason: ReasonOption = None,
    at: Annotated[str | None, typer.Option(help=f"When it stops applying (default now); {TIME_HELP}.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Close a fact with no successor; it stays for audit."""
    corpus = open_vault(vault).corpus
    closed = service.invalidate_fact(corpus, fact, namespace=namespace, reason=reason, at=at)
    if as_json:
        emit_json(view.written_dict(closed))
        return
    typer.echo(view.invalidated_line(closed))


@app.command()
def hold(
    fact: Annotated[
        str, typer.Argument(help="The fact to keep from every deletion.", autocompletion=complete_notes("fact"))
    ],
    reason: ReasonOption = None,
    vault: VaultOption = None,
) -> None:
    """Put a legal hold on a fact: the sweeper never deletes it until `brain fact release`."""
    corpus = open_vault(vault).corpus
    written = service.set_hold(corpus, fact, hold=True, reason=reason)
    typer.echo(f"held {written.path}: legal hold on {written.fact.title}")


@app.command()
def release(
    fact: Annotated[str, typer.Argument(help="The held fact.", autocompletion=complete_notes("fact"))],
    reason: Annotated[str, typer.Option(help="Why the hold ends, kept in the hold register.")],
    vault: VaultOption = None,
) -> None:
    """Lift a legal hold (a person's command: no MCP tool does this); the reason goes to the hold register."""
    corpus = open_vault(vault).corpus
    written = service.set_hold(corpus, fact, hold=False, reason=reason)
    typer.echo(f"released {written.path}: no legal hold on {written.fact.title}")


@app.command()
def recall(
    query: Annotated[str | None, typer.Argument(help="Rank by similarity to this text (optional).")] = None,
    kind: Annotated[str | None, typer.Option(help="Only facts of this kind.")] = None,
    subject: Annotated[str | None, typer.Option(help="Only facts about this subject.")] = None,
    namespace: Annotated[
        list[str] | None,
        typer.Option(help="Namespace to search (repeat for several; default: [facts] default_namespace)."),
    ] = None,
    as_of: Annotated[str | None, typer.Option(help=f"Facts valid at this time (default now); {TIME_HELP}.")] = None,
    known_at: Annotated[str | None, typer.Option(help=f"As the vault knew them at this time; {TIME_HELP}.")] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=fact_recall.MAX_LIMIT, help="Most facts to return.")
    ] = fact_recall.DEFAULT_LIMIT,
    history: Annotated[bool, typer.Option("--history", help="Include closed facts, marked as such.")] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Facts valid now (or --as-of, --known-at), best first; every recall is journaled."""
    corpus = open_vault(vault).corpus
    found = fact_recall.recall_facts(
        corpus,
        query,
        kind=kind,
        subject=subject,
        namespaces=namespace,
        as_of=as_of,
        known_at=known_at,
        limit=limit,
        history=history,
    )
    emit_json(view.recall_dict(found)) if as_json else _echo(view.recall_lines(found))


@app.command("history")
def history_(
    subject: Annotated[str, typer.Argument(help="The subject whose values to list.")],
    namespace: NamespaceOption = None,
    kind: Annotated[str | None, typer.Option(help="Only facts of this kind.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Every value a subject has had, oldest first, with what superseded each and why."""
    corpus = open_vault(vault).corpus
    chain = fact_recall.history(corpus, subject, namespace=namespace, kind=kind)
    emit_json([view.fact_row(fact) for fact in chain]) if as_json else _echo(view.history_lines(chain))


@app.command()
def journal(
    since: Annotated[str | None, typer.Option(help=f"Only records at or after this time; {TIME_HELP}.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """The recall journal: who recalled what, when, and what came back."""
    vault_ = open_vault(vault).vault
    found = fact_journal.records(vault_, since)
    if as_json:
        emit_json(found)
        return
    _echo(view.journal_lines(found) or ["the journal is empty"])


@app.command()
def replay(
    record_: Annotated[
        str, typer.Argument(metavar="RECORD", help="A journal record: its seq number or a hash prefix.")
    ],
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """What a journaled recall returned, and what the same recall returns now."""
    corpus = open_vault(vault).corpus
    found = fact_recall.replay(corpus, record_)
    emit_json(view.replay_dict(found)) if as_json else _echo(view.replay_lines(found))


@app.command()
def sweep(
    dry_run: Annotated[
        bool | None,
        typer.Option(
            "--dry-run/--no-dry-run", help="List what would go and why, change nothing (the default on a terminal)."
        ),
    ] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Hard-delete the facts a retention policy makes due, everywhere, with an audit receipt."""
    corpus = open_vault(vault).corpus
    if dry_run is None:
        dry_run = sys.stdin.isatty() and sys.stdout.isatty()
    with progress_bars({"facts": "deleting", "relink": "relinking", "purge": "purging"}) as progress:
        report = retention.sweep(corpus, dry_run=dry_run, progress=progress)
    emit_json(view.sweep_dict(report)) if as_json else _echo(view.sweep_lines(report))
