"""`brain import`: bring another tool's memory into the vault."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import VaultOption, open_vault, progress_bars, warn

if TYPE_CHECKING:
    from brain.importers.ai_agents.importer import ImportResult

app = typer.Typer(help="Import memory from other tools into the vault.", no_args_is_help=True)


@app.command("ai-agents")
def ai_agents(
    path: Annotated[
        Path,
        typer.Argument(
            help="A folder holding episode-*.json and/or causal-graph.json (searched recursively), or one such file.",
            show_default=False,
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the notes that would be created or updated; write nothing.")
    ] = False,
    verify: Annotated[
        bool,
        typer.Option(
            "--verify",
            help="Then compute the causal graph from the notes, compare it (and the episodes) with the JSON, and print every difference.",
        ),
    ] = False,
    vault: VaultOption = None,
) -> None:
    """Import ai-agents episodes and causal graph as episode, pattern and causal notes.

    Re-importing the same files changes nothing; a newer version updates the notes and keeps
    what a person wrote in them. Exit code 1 when a file was skipped or --verify found a difference.
    """
    from brain.importers.ai_agents.importer import import_ai_agents  # only this command needs the importer
    from brain.importers.ai_agents.verify import verify_ai_agents

    vault_ = open_vault(vault).vault  # the importer batches its writes: the index takes them in one update
    with progress_bars() as progress:
        result = import_ai_agents(vault_, path, dry_run=dry_run, progress=progress)
    for message in result.warnings:
        warn(message)
    for skipped in result.skipped:
        typer.echo(f"skipped {skipped.path}: {skipped.reason}", err=True)
    if dry_run:
        for planned in result.writes:
            typer.echo(f"would {planned.action} {planned.path}")
    typer.echo(_summary(result))
    failed = bool(result.skipped)
    if verify:
        found = verify_ai_agents(vault_, result.sources)
        for line in found:
            typer.echo(f"difference: {line}")
        checked = f"{result.counts['episodes']} episode(s), {result.counts['graphs']} graph(s)"
        typer.echo(
            f"verify: {len(found)} difference(s) in {checked}" if found else f"verify: no differences in {checked}"
        )
        failed = failed or bool(found)
    if failed:
        raise typer.Exit(1)


def _summary(result: ImportResult) -> str:
    counts = result.counts
    created = sum(1 for planned in result.writes if planned.action == "create")
    updated = len(result.writes) - created
    what = f"{counts['episodes']} episode(s) and {counts['graphs']} graph(s)"
    if counts["graphs"]:
        what += f" ({counts['nodes']} nodes, {counts['edges']} edges, {counts['patterns']} patterns)"
    skipped = f"; {len(result.skipped)} file(s) skipped" if result.skipped else ""
    if result.dry_run:
        changes = f"{created} new note(s), {updated} updated, {result.unchanged} unchanged"
        return f"dry run, nothing written: {what} would give {changes}{skipped}"
    return f"imported {what}: {created} note(s) created, {updated} updated, {result.unchanged} unchanged{skipped}"
