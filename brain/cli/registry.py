"""The `brain` command's registry: its commands, each imported only when it runs.

To add a command group, add ONE line to COMMANDS: its name, its module (whose `app` is a typer.Typer;
`module:function` for a single command) and the first paragraph of its help, which `brain --help`
shows without importing the module (tests/cli/test_startup.py checks it matches the module's help).
"""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.group import Lazy, LazyGroup

COMMANDS: dict[str, Lazy] = {
    "init": Lazy(
        "brain.memory.doctor.cli:init",
        "Create a vault, or add what an existing folder lacks (to an Obsidian vault, only .brain/).",
    ),
    "doctor": Lazy(
        "brain.memory.doctor.cli:doctor",
        "List malformed notes, broken and ambiguous links, causal cycles, skipped files and a stale index, each with its fix.",
    ),
    "redact": Lazy(
        "brain.memory.doctor.cli:redact",
        "Find secrets in the notes, their history, the index, the summaries cache and the hooks log, and replace them.",
    ),
    "mcp": Lazy(
        "brain.mcp.cli:mcp", "Serve the vault to AI agents (Claude Desktop, Claude Code, Cursor, any MCP client)."
    ),
    "index": Lazy("brain.index.cli:index", "Bring the indexes up to date: re-parse and re-embed only what changed."),
    "reindex": Lazy(
        "brain.index.cli:reindex",
        "Rebuild the indexes from the notes alone (after changing the embedder, or to start clean).",
    ),
    "status": Lazy(
        "brain.index.cli:status",
        "Counts by note type, how fresh the index is, and the embedder in use with where its model came from.",
    ),
    "watch": Lazy("brain.index.cli:watch", "Keep the indexes current while notes change in any editor, until Ctrl-C."),
    "search": Lazy(
        "brain.memory.search.cli:search",
        "Find notes by meaning and by words; each hit shows the note, the matching section, a snippet and its score.",
    ),
    "note": Lazy("brain.memory.notes.cli", "Read and write any note."),
    "recent": Lazy("brain.memory.notes.cli:recent", "Notes changed lately, newest first."),
    "episode": Lazy("brain.memory.episodes.cli", "Episodes: what happened in a session, with its decisions."),
    "pattern": Lazy("brain.memory.patterns.cli", "Patterns with success rates and causal relationships."),
    "graph": Lazy("brain.memory.causal.graph_cli", "The causal graph as a picture or data."),
    "context": Lazy("brain.memory.causal.context_cli", "Compact contexts built from the vault for agents."),
    "import": Lazy("brain.importers.ai_agents.cli", "Import memory from other tools into the vault."),
    "export": Lazy("brain.importers.ai_agents.export_cli", "Export the vault's memory for other tools."),
    "fact": Lazy(
        "brain.memory.facts.cli", "Immutable facts: supersession, point-in-time recall, a recall journal, retention."
    ),
    "run": Lazy("brain.memory.runs.cli", "Recorded agent runs: what was decided and why, recalled per tenant."),
    "causal": Lazy("brain.memory.causal.cli", "Causal chains: why a note exists and what it led to."),
    "tip": Lazy("brain.memory.tips.cli", "Tips learned from past work: strategy, recovery and optimization."),
    "session": Lazy("brain.memory.sessions.cli", "The session protocol: what to do when a session ends."),
    "hooks": Lazy(
        "brain.agents.cli", "brain inside coding agents (Claude Code, Codex): install, uninstall, status, run."
    ),
    "ui": Lazy(
        "brain.ui.cli:ui",
        "See the vault in the browser: episodes, failures and their fixes, patterns and the causal graph, facts, runs, tips, and what agents were handed.",
    ),
}


class Brain(LazyGroup):
    registry = COMMANDS


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from brain import DISTRIBUTION

        try:
            typer.echo(f"brain {version(DISTRIBUTION)}")
        except PackageNotFoundError:
            typer.echo(f"brain: version unknown (the {DISTRIBUTION} package is not installed)", err=True)
            raise typer.Exit(1) from None
        raise typer.Exit()


app = typer.Typer(
    cls=Brain,
    help="Markdown notes as working memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", help="Show the version and exit.", is_eager=True, callback=_version)
    ] = False,
) -> None:
    pass
