"""Top-level commands about the vault itself: init, doctor, redact."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, emit_json, open_vault
from brain.memory.doctor.service import (
    check_conflicts,
    check_facts,
    check_history,
    check_index,
    check_journal,
    check_notes,
    fix_history,
)
from brain.memory.facts.health import check_fact_safety, fix_fact_safety
from brain.memory.notes.history import history_usage
from brain.memory.notes.view import finished_move_line, usage_json, usage_line
from brain.plain import counted
from brain.vault.init import Initialized, initialize
from brain.vault.note_files import BRAIN_DIR, templates_folder


def init(
    path: Annotated[Path, typer.Argument(help="Folder for the vault (created if missing).")] = Path("."),
    templates: Annotated[
        bool,
        typer.Option(
            "--templates",
            help="In an Obsidian vault, copy brain's templates to the folder of Obsidian's Templates plugin "
            "(else templates/); a file already there stays.",
        ),
    ] = False,
) -> None:
    """Create a vault, or add what an existing folder lacks (to an Obsidian vault, only .brain/)."""
    done = initialize(path, templates=templates)
    if done.created:
        typer.echo(f"vault ready at {done.vault.root}; created: {', '.join(done.created)}")
    else:
        typer.echo(f"vault at {done.vault.root} already has everything; nothing changed")
    if done.kept:
        typer.echo(f"kept your own: {', '.join(done.kept)} (brain's templates of those names were not copied)")
    if done.obsidian:
        typer.echo(_obsidian_line(done))


def _obsidian_line(done: Initialized) -> str:
    """What `brain init` left alone in an Obsidian vault, and where the templates are."""
    plugin = templates_folder(done.vault.root)
    where = (
        f"{plugin}/, the folder of Obsidian's Templates plugin"
        if plugin
        else "templates/ (choose it as the Templates plugin's folder in Obsidian)"
    )
    if done.templates.startswith(BRAIN_DIR + "/"):
        templates = f"the templates wait in {done.templates}/ ('brain init --templates' copies them to {where})"
    else:
        templates = f"the templates are in {where}"
    return f"an Obsidian vault: brain adds a folder of its own only with a note for it (episodes/ with the first episode); {templates}"


def doctor(
    vault: VaultOption = None,
    as_json: JsonOption = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="First finish an interrupted sweep or move, close an interrupted supersede, anchor the journal, "
            "drop torn lines of history logs.",
        ),
    ] = False,
) -> None:
    """List malformed notes, broken and ambiguous links, causal cycles, skipped files and a stale index, each with its fix."""
    from brain.index.status import vector_segments
    from brain.index.view import segment_lines, segments_json

    memory = open_vault(vault)
    corpus = memory.corpus
    fixed = [finished_move_line(memory.finished_move)] if memory.finished_move else []
    fixed += (fix_history(memory.vault) + fix_fact_safety(corpus)) if fix else []
    index_findings = check_index(
        memory.vault, memory.existing_index()
    )  # before reading the notes, which brings the catalog up to date
    findings = (
        check_history(memory.vault)
        + check_notes(corpus)
        + check_conflicts(memory.existing_index())
        + check_facts(corpus)
        + check_fact_safety(corpus)
        + check_journal(memory.vault)
        + index_findings
    )
    usage = history_usage(memory.vault)
    found_segments = vector_segments(memory.existing_index())
    if as_json:
        emit_json(
            {
                **({"fixed": fixed} if fixed or fix else {}),
                "findings": findings,
                "history": usage_json(usage),
                "vectors": segments_json(found_segments),
            }
        )
        return
    for line in fixed:
        typer.echo(f"fixed: {line}")
    for finding in findings:
        typer.echo(f"{finding.kind:15} {finding.path}: {finding.message}\n{'':15} fix: {finding.fix}")
    found = counted(len(findings), "finding") if findings else "no problems found"
    typer.echo(f"{found} in {counted(len(corpus.notes()), 'note')}")
    typer.echo(usage_line(usage))
    for line in segment_lines(found_segments):
        typer.echo(line)


def redact(
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run/--apply",
            help="List where secrets are and change nothing (the default), or replace them everywhere (with a receipt).",
        ),
    ] = True,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find secrets in the notes, their history, the index, the summaries cache and the hooks log, and replace them.

    A dry run by default: each secret's place and kind is printed, never the secret, and no file
    changes. With --apply each is replaced by the marker the extractor writes ([REDACTED:<kind>]),
    recalled fact values holding one are purged from the recall journal, and a receipt in
    .brain/journal/redactions/ names where each was, never what.
    """
    from brain.memory.sessions.scrub import redact_vault
    from brain.memory.sessions.view import redaction_json, redaction_lines

    memory = open_vault(vault)
    found = redact_vault(memory.vault, memory.existing_index(), apply=not dry_run)
    if as_json:
        emit_json(redaction_json(found))
        return
    typer.echo("\n".join(redaction_lines(found)))
    if found.places and not found.applied:
        typer.echo("run `brain redact --apply` to replace them (a receipt names where, never what)")
