"""`brain context`: gather what the vault knows around a note, within a token budget."""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, emit_json, open_vault
from brain.memory import context_builder as service
from brain.views.notes import context_json

app = typer.Typer(help="Compact contexts built from the vault for agents.", no_args_is_help=True)


@app.command()
def build(
    name: Annotated[str, typer.Argument(help="Start note: title, file stem, permalink or path.")],
    depth: Annotated[int, typer.Option(help=f"Hops of links, relations and causal edges to follow (0-{service.MAX_DEPTH}).")] = (
        service.DEFAULT_DEPTH
    ),
    budget: Annotated[int, typer.Option(help=f"Most tokens the context may use ({service.MIN_BUDGET}-{service.MAX_BUDGET}).")] = (
        service.DEFAULT_BUDGET
    ),
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summaries of a note and its neighbourhood, nearest first, packed to a token budget."""
    _, corpus = open_vault(vault)
    built = service.build_context(corpus, name, depth=depth, budget=budget)
    if as_json:
        emit_json(context_json(built))
        return
    typer.echo(built.text, nl=False)
