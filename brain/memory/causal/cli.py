"""`brain causal`: chains of `caused_by` back to the root causes, "why?" from evidence, and stats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, complete_notes, emit_json, open_vault
from brain.lazy import lazy_module
from brain.memory.causal import chains as service
from brain.memory.causal.view import chain_lines, reasoning_lines, stats_lines

if TYPE_CHECKING:
    from brain.memory.causal import stats as causal_stats
else:  # loaded by the commands that use them: the others never pay for their imports
    causal_stats = lazy_module("brain.memory.causal.stats")


app = typer.Typer(help="Causal chains: why a note exists and what it led to.", no_args_is_help=True)

NoteArgument = Annotated[
    str,
    typer.Argument(
        metavar="NOTE", help="Any note: title, file stem, permalink or path.", autocompletion=complete_notes()
    ),
]
MaxDepthOption = Annotated[
    int, typer.Option(min=1, max=service.MAX_DEPTH, help="Most caused_by hops to follow from the note.")
]


@app.command()
def chain(
    name: NoteArgument,
    forward: Annotated[
        bool, typer.Option("--forward", help="What the note led to (its descendants) instead of its causes.")
    ] = False,
    max_depth: MaxDepthOption = service.DEFAULT_DEPTH,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """The chain of caused_by back to the root causes, root first (the whole ancestry when a note has several causes)."""
    corpus = open_vault(vault).corpus
    found = service.build_chain(corpus, name, forward=forward, max_depth=max_depth)
    if as_json:
        emit_json(found)
        return
    typer.echo("\n".join(chain_lines(found)))


@app.command()
def why(
    name: NoteArgument,
    max_depth: MaxDepthOption = service.DEFAULT_DEPTH,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Why a note exists: action type, rationale, summary, its causes, and the decisions and facts behind them."""
    corpus = open_vault(vault).corpus
    answer = service.reconstruct_reasoning(corpus, name, max_depth=max_depth)
    if as_json:
        emit_json(answer)
        return
    typer.echo("\n".join(reasoning_lines(answer)))


@app.command()
def stats(
    project: Annotated[
        str | None, typer.Argument(help="Only the notes whose frontmatter project is this (default: every note).")
    ] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Exact figures over every note: causal links, action types, roots, orphans, chain lengths, cycles, broken links."""
    corpus = open_vault(vault).corpus
    found = causal_stats.causality_stats(corpus, project)
    if as_json:
        emit_json(found)
        return
    typer.echo("\n".join(stats_lines(found)))
