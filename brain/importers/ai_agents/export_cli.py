"""`brain export`: write the vault's memory in another tool's format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brain.cli.common import VaultOption, open_vault, warn
from brain.errors import UsageError
from brain.importers.ai_agents.export import EPISODES_DIR, export_ai_agents

app = typer.Typer(help="Export the vault's memory for other tools.", no_args_is_help=True)


@app.command("ai-agents")
def ai_agents(
    out: Annotated[
        Path,
        typer.Argument(
            help="Folder to write episodes/episode-*.json and causality/causal-graph.json into.", show_default=False
        ),
    ],
    vault: VaultOption = None,
) -> None:
    """Export episode, pattern and causal notes as ai-agents JSON (what the notes say now)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"'{out}' is a file; give a folder to export into")
    vault_ = open_vault(vault).vault
    result = export_ai_agents(vault_, out)
    for message in result.warnings:
        warn(message)
    total = result.episodes_written + result.episodes_unchanged
    typer.echo(
        f"{total} episode(s) in {out / EPISODES_DIR}: {result.episodes_written} written, {result.episodes_unchanged} unchanged"
    )
    if result.graph_path is None:
        typer.echo("no causal graph: the vault has no causal notes or patterns")
    else:
        verb = "wrote" if result.graph_written else "unchanged:"
        typer.echo(
            f"{verb} {result.graph_path} ({result.nodes} nodes, {result.edges} edges, {result.patterns} patterns)"
        )
