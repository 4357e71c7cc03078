"""`brain graph`: draw the causal graph."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from brain.cli.common import VaultOption, open_vault, write_output
from brain.memory.causal.graph import GraphFormat, export_graph

app = typer.Typer(help="The causal graph as a picture or data.", no_args_is_help=True)


@app.command()
def export(
    fmt: Annotated[
        GraphFormat, typer.Option("--format", help="mermaid (renders in Obsidian), graphml or json.")
    ] = "mermaid",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    vault: VaultOption = None,
) -> None:
    """Export the causal graph (notes joined by causal relationships and caused_by)."""

    corpus = open_vault(vault).corpus
    text = export_graph(corpus, fmt)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_output(output, text)
        typer.echo(f"wrote {output}")
