"""The `brain` command: a thin layer over the library. One module per command group."""

from __future__ import annotations

import typer

from brain.cli import episodes, graph, notes, patterns, vault_commands
from brain.cli import context, mcp_command
from brain.cli.common import BrainGroup

app = typer.Typer(
    cls=BrainGroup,
    help="Markdown notes as working memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
vault_commands.register(app)
app.add_typer(notes.app, name="note")
app.add_typer(episodes.app, name="episode")
app.add_typer(patterns.app, name="pattern")
app.add_typer(graph.app, name="graph")
app.add_typer(context.app, name="context")
mcp_command.register(app)
from brain.cli import imports; app.add_typer(imports.app, name="import")  # noqa: E402,E702
from brain.cli import exports; app.add_typer(exports.app, name="export")  # noqa: E402,E702
from brain.cli import index_commands; index_commands.register(app)  # noqa: E402,E702
from brain.cli import facts; app.add_typer(facts.app, name="fact")  # noqa: E402,E702
from brain.cli import runs; app.add_typer(runs.app, name="run")  # noqa: E402,E702
from brain.cli import causal; app.add_typer(causal.app, name="causal")  # noqa: E402,E702


def main() -> None:
    app()
from brain.cli import tips; app.add_typer(tips.app, name="tip")  # noqa: E402,E702
from brain.cli import session; app.add_typer(session.app, name="session")  # noqa: E402,E702
