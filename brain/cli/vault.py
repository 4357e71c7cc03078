"""Top-level commands about the vault itself: init, doctor."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, emit_json, open_vault
from brain.memory.facts.health import check_fact_safety, fix_fact_safety
from brain.memory.health import check_facts, check_index, check_journal, check_notes
from brain.memory.notes.history import history_usage
from brain.vault_init import init_vault
from brain.views.notes import usage_json, usage_line


def init(path: Annotated[Path, typer.Argument(help="Folder for the vault (created if missing).")] = Path(".")) -> None:
    """Create a vault, or add the folders, templates and config an existing folder lacks."""
    vault, created = init_vault(path)
    if created:
        typer.echo(f"vault ready at {vault.root}; created: {', '.join(created)}")
    else:
        typer.echo(f"vault at {vault.root} already has everything; nothing changed")


def doctor(
    vault: VaultOption = None,
    as_json: JsonOption = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="First finish an interrupted sweep, close an interrupted supersede, anchor the journal.",
        ),
    ] = False,
) -> None:
    """List malformed notes, broken and ambiguous links, causal cycles, skipped files and a stale index, each with its fix."""
    memory = open_vault(vault)
    corpus = memory.corpus
    fixed = fix_fact_safety(corpus) if fix else []
    index_findings = check_index(memory.vault)  # before reading the notes, which brings the catalog up to date
    findings = (
        check_notes(corpus)
        + check_facts(corpus)
        + check_fact_safety(corpus)
        + check_journal(memory.vault)
        + index_findings
    )
    usage = history_usage(memory.vault)
    if as_json:
        emit_json({**({"fixed": fixed} if fix else {}), "findings": findings, "history": usage_json(usage)})
        return
    for line in fixed:
        typer.echo(f"fixed: {line}")
    for finding in findings:
        typer.echo(f"{finding.kind:15} {finding.path}: {finding.message}\n{'':15} fix: {finding.fix}")
    counted = f"{len(findings)} findings" if findings else "no problems found"
    typer.echo(f"{counted} in {len(corpus.notes())} notes")
    typer.echo(usage_line(usage))
