"""`brain session end`: the end of the session protocol in one command."""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.common import (
    JsonOption,
    VaultOption,
    emit_json,
    open_vault,
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

    corpus = open_vault(vault).corpus
    report = service.end_session(corpus, session_log, patterns=pattern or [], format=format)
    if as_json:
        emit_json(views.end_json(report))
        return
    for message in report.warnings:
        warn(message)
    for line in views.end_lines(report):
        typer.echo(line)
