"""The `brain` command: a thin layer over the library. One module per command group."""

from __future__ import annotations

import typer

from brain.cli import (
    causal,
    context,
    episodes,
    exports,
    facts,
    graph,
    imports,
    index,
    mcp,
    notes,
    patterns,
    runs,
    sessions,
    tips,
    vault,
)
from brain.cli.common import BrainGroup

app = typer.Typer(
    cls=BrainGroup,
    help="Markdown notes as working memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
vault.register(app)
app.add_typer(notes.app, name="note")
app.command("recent")(notes.recent)
app.add_typer(episodes.app, name="episode")
app.add_typer(patterns.app, name="pattern")
app.add_typer(graph.app, name="graph")
context.app.command("bootstrap")(sessions.bootstrap)
app.add_typer(context.app, name="context")
mcp.register(app)
app.add_typer(imports.app, name="import")
app.add_typer(exports.app, name="export")
index.register(app)
app.add_typer(facts.app, name="fact")
app.add_typer(runs.app, name="run")
app.add_typer(causal.app, name="causal")
app.add_typer(tips.app, name="tip")
app.add_typer(sessions.app, name="session")


def main() -> None:
    app()
