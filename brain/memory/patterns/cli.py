"""`brain pattern`: learn patterns, list them, find antipatterns and causal paths."""

from __future__ import annotations

from typing import Annotated

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
    warn,
)
from brain.markdown.model import Outcome, Pattern
from brain.memory.causal import graph as causal
from brain.memory.patterns import service
from brain.memory.patterns.view import (
    causal_path_lines,
    no_path_line,
    pattern_row,
    pattern_summary,
    pattern_update_line,
)

app = typer.Typer(help="Patterns with success rates and causal relationships.", no_args_is_help=True)

OutcomeOption = Annotated[Outcome, typer.Option(help="How this occurrence went.")]
EpisodeOption = Annotated[
    str | None,
    typer.Option(help="The episode this occurrence comes from.", autocompletion=complete_notes("episode")),
]


def _report(update: service.PatternUpdate) -> None:
    for message in update.warnings:
        warn(message)
    typer.echo(pattern_update_line(update))


@app.command()
def add(
    name: Annotated[
        str,
        typer.Argument(
            help="Pattern name or title (PATTERN-... is added to a plain name).",
            autocompletion=complete_notes("pattern"),
        ),
    ],
    outcome: OutcomeOption = "success",
    trigger: Annotated[str | None, typer.Option(help="When the pattern applies (needed for a new pattern).")] = None,
    action: Annotated[str | None, typer.Option(help="What to do (needed for a new pattern).")] = None,
    episode: EpisodeOption = None,
    vault: VaultOption = None,
) -> None:
    """Create a pattern, or record one more occurrence of an existing one."""
    corpus = open_vault(vault).corpus
    _report(service.add_pattern(corpus, name, outcome=outcome, trigger=trigger, action=action, episode=episode))


@app.command()
def evidence(
    name: Annotated[str, typer.Argument(help="An existing pattern.", autocompletion=complete_notes("pattern"))],
    outcome: OutcomeOption,
    episode: EpisodeOption = None,
    vault: VaultOption = None,
) -> None:
    """Record evidence for an existing pattern: running average, occurrences + 1, evidence line."""
    corpus = open_vault(vault).corpus
    _report(service.record_pattern_evidence(corpus, name, outcome=outcome, episode=episode))


def _print(patterns: list[Pattern], as_json: bool, empty: str) -> None:
    if as_json:
        emit_json([pattern_summary(pattern) for pattern in patterns])
        return
    if not patterns:
        typer.echo(empty)
    for pattern in patterns:
        typer.echo(pattern_row(pattern))


@app.command("list")
def list_(
    min_success_rate: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Only patterns at or above this rate.")
    ] = 0.0,
    min_occurrences: Annotated[int, typer.Option(min=0, help="Only patterns seen at least this often.")] = 0,
    trigger: Annotated[str | None, typer.Option(help="Only patterns whose trigger contains this text.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List patterns, most successful first."""
    corpus = open_vault(vault).corpus
    found = service.list_patterns(
        corpus, min_success_rate=min_success_rate, min_occurrences=min_occurrences, trigger=trigger
    )
    _print(found, as_json, "no patterns match")


@app.command()
def antipatterns(
    max_success_rate: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="At most this success rate (default: [antipatterns] in config.toml, 0.3)."),
    ] = None,
    min_occurrences: Annotated[
        int | None, typer.Option(min=0, help="Seen at least this often (default: config, 2).")
    ] = None,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Patterns that keep failing, worst first (the current folder's project's, and those of no project)."""
    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    found = service.antipatterns(
        memory.corpus, max_success_rate=max_success_rate, min_occurrences=min_occurrences, project=scope.project
    )
    _print(found, as_json, "no antipatterns")


@app.command()
def path(
    source: Annotated[
        str,
        typer.Argument(metavar="FROM", help="Start note (title, stem or permalink).", autocompletion=complete_notes()),
    ],
    target: Annotated[str, typer.Argument(metavar="TO", help="End note.", autocompletion=complete_notes())],
    max_depth: Annotated[
        int, typer.Option(min=1, max=causal.MAX_DEPTH, help="Most hops to follow.")
    ] = causal.DEFAULT_DEPTH,
    weighted: Annotated[
        bool, typer.Option(help="Most reliable path (edge weights, success rates) instead of fewest hops.")
    ] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find the causal path from one note to another."""
    corpus = open_vault(vault).corpus
    found = causal.find_path(corpus, source, target, max_depth=max_depth, weighted=weighted)
    if as_json:
        emit_json({"found": found is not None, "path": found})
        return
    if found is None:
        typer.echo(
            no_path_line(source, target, max_depth, causal.reverse_path_exists(corpus, source, target, max_depth))
        )
        raise typer.Exit(1)
    typer.echo("\n".join(causal_path_lines(found)))
