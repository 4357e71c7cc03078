"""`brain session end`: the end of the session protocol in one command."""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.common import (
    AllProjectsOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    emit_json,
    open_vault,
    project_scope,
    warn,
)
from brain.memory.sessions import protocol as service
from brain.memory.sessions import view as views

app = typer.Typer(help="The session protocol: what to do when a session ends.", no_args_is_help=True)


@app.command()
def end(
    session_log: Annotated[
        str, typer.Argument(help="The session's transcript (Claude Code, Codex) or ai-agents log (JSON or markdown).")
    ],
    format: Annotated[
        str | None,
        typer.Option("--format", help="claude-code, codex, gemini or ai-agents (default: told from the file)."),
    ] = None,
    pattern: Annotated[
        list[str] | None,
        typer.Option("--pattern", help="A pattern this session used (repeat); patterns the log names are found too."),
    ] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Extract the episode, record evidence on the patterns it used, learn its tips, report new antipatterns."""
    from brain.agents.registry import READERS

    corpus = open_vault(vault).corpus
    report = service.end_session(corpus, session_log, readers=READERS, patterns=pattern or [], format=format)
    if as_json:
        emit_json(views.end_json(report))
        return
    for message in report.warnings:
        warn(message)
    for line in views.end_lines(report):
        typer.echo(line)


# `brain context bootstrap`: registered on the `context` group (brain/memory/causal/context_cli.py), where a session starts.
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
