"""`brain context`: gather what the vault knows around a note, within a token budget."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import (
    AllProjectsOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    complete_notes,
    emit_json,
    open_vault,
    project_scope,
    read_input,
)
from brain.errors import UsageError
from brain.lazy import lazy_module
from brain.markdown.model import ActionType
from brain.memory.causal import neighbourhood as service
from brain.memory.causal.view import context_lines, saved_text
from brain.memory.notes.view import context_json

if TYPE_CHECKING:
    from brain.memory.causal import contexts
else:  # loaded by the commands that use them: the others never pay for their imports
    contexts = lazy_module("brain.memory.causal.contexts")


app = typer.Typer(help="Compact contexts built from the vault for agents.", no_args_is_help=True)


@app.command()
def build(
    name: Annotated[
        str, typer.Argument(help="Start note: title, file stem, permalink or path.", autocompletion=complete_notes())
    ],
    depth: Annotated[
        int,
        typer.Option(min=0, max=service.MAX_DEPTH, help="Hops of links, relations and causal edges to follow."),
    ] = service.DEFAULT_DEPTH,
    budget: Annotated[
        int,
        typer.Option(min=service.MIN_BUDGET, max=service.MAX_BUDGET, help="Most tokens the context may use."),
    ] = service.DEFAULT_BUDGET,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Summaries of a note and its neighbourhood, nearest first, packed to a token budget."""
    corpus = open_vault(vault).corpus
    built = service.build_context(corpus, name, depth=depth, budget=budget)
    if as_json:
        emit_json(context_json(built))
        return
    typer.echo(built.text, nl=False)


# ---------------------------------------------------------------- saved contexts (issue 11)


@app.command()
def save(
    content: Annotated[str | None, typer.Argument(help="The context's text (or use --file).")] = None,
    project: Annotated[
        str, typer.Option(metavar="PROJECT", help="Project the context belongs to.", show_default=False)
    ] = "",
    action_type: Annotated[
        ActionType | None, typer.Option(help="What kind of work produced it.", show_default=False)
    ] = None,
    caused_by: Annotated[
        list[str] | None,
        typer.Option(
            "--caused-by",
            metavar="NOTE",
            help="A note that caused it (any type); repeat for several.",
            autocompletion=complete_notes(),
        ),
    ] = None,
    rationale: Annotated[str | None, typer.Option(help="Why this context exists.")] = None,
    title: Annotated[str | None, typer.Option(help="Title (default: the first line of the content).")] = None,
    file: Annotated[
        str | None, typer.Option("--file", "-f", help="Read the content from this file, or - for stdin.")
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Save a context note in contexts/ with its project, action type, cause(s) and rationale."""
    if content is not None and file is not None:
        raise UsageError("give the content as an argument or with --file, not both")
    if not project.strip():
        raise UsageError("a context needs a project (e.g. --project refactor-auth)")
    text = read_input(file) if file is not None else (content or "")
    corpus = open_vault(vault).corpus
    saved = contexts.save_context(
        corpus,
        text,
        project=project,
        action_type=action_type or "",
        caused_by=caused_by or [],
        rationale=rationale,
        title=title,
    )
    typer.echo(saved_text(saved))


@app.command()
def load(
    project: Annotated[str, typer.Argument(help="The project whose contexts to list.")],
    limit: Annotated[
        int, typer.Option(min=1, max=contexts.MAX_LIMIT, help="At most this many.")
    ] = contexts.DEFAULT_LIMIT,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """A project's saved contexts, newest first."""
    corpus = open_vault(vault).corpus
    entries = contexts.load_contexts(corpus, project, limit=limit)
    if as_json:
        emit_json(entries)
        return
    typer.echo("\n".join(context_lines(project, entries, contexts.projects(corpus) if not entries else [])))


# `brain context bootstrap`: the start of the session protocol (brain/memory/sessions/protocol.py).
@app.command()
def bootstrap(
    task: Annotated[str, typer.Argument(help="The task the session is about to start.")],
    budget: Annotated[
        int, typer.Option(min=service.MIN_BUDGET, max=service.MAX_BUDGET, help="Most tokens the context may use.")
    ] = 1500,
    days: Annotated[int, typer.Option(min=0, help="Recent failures: episodes of the last this many days.")] = 7,
    namespace: Annotated[
        list[str] | None,
        typer.Option(help="Facts: namespace to read (repeat for several; default: [facts] default_namespace)."),
    ] = None,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Start of a session: recent failures, antipattern warnings, facts valid now, relevant patterns and tips, within a budget."""
    from brain.memory.facts.service import default_caller
    from brain.memory.sessions.protocol import bootstrap as build_bootstrap
    from brain.memory.sessions.view import bootstrap_json

    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    context = build_bootstrap(
        memory.corpus,
        task,
        budget=budget,
        days=days,
        namespaces=namespace,
        caller=default_caller("cli"),
        project=scope.project,
    )
    if as_json:
        emit_json(bootstrap_json(context))
        return
    typer.echo(context.text, nl=False)
