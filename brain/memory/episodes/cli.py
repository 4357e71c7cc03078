"""`brain episode`: store episodes and read them back."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from brain.cli.common import (
    AllProjectsOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    complete_agents,
    complete_notes,
    emit_json,
    open_vault,
    project_scope,
    read_input,
    warn,
)
from brain.errors import InvalidInput, UsageError
from brain.markdown.model import Outcome
from brain.memory.episodes import service
from brain.memory.episodes.view import decision_lines, episode_lines, episode_row, episode_summary, stored_episode_line

if TYPE_CHECKING:
    from brain.memory.corpus import Corpus

app = typer.Typer(help="Episodes: what happened in a session, with its decisions.", no_args_is_help=True)

EpisodeArgument = Annotated[
    str, typer.Argument(help="Episode title, id, file stem or path.", autocompletion=complete_notes("episode"))
]


@app.command()
def store(
    file: Annotated[
        str | None, typer.Option("--file", "-f", help="ai-agents episode JSON file, or - for stdin.")
    ] = None,
    session: Annotated[str | None, typer.Option(help="Session id, e.g. 2026-03-02-session-01.")] = None,
    task: Annotated[str | None, typer.Option(help="What the session set out to do.")] = None,
    outcome: Annotated[Outcome | None, typer.Option(help="How the session went.")] = None,
    date: Annotated[str | None, typer.Option(help="When it happened (ISO timestamp).")] = None,
    lesson: Annotated[list[str] | None, typer.Option("--lesson", help="A lesson learned; repeat for more.")] = None,
    duration: Annotated[float | None, typer.Option(min=0.0, help="Duration in minutes.")] = None,
    vault: VaultOption = None,
) -> None:
    """Write an episode note from ai-agents-shaped JSON and/or flags (flags win)."""
    data: dict[str, Any] = {}
    if file is not None:
        text = read_input(file)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidInput(
                f"{file} is not JSON ({error.msg} at line {error.lineno}); give an ai-agents episode file"
            ) from None
        if not isinstance(data, dict):
            raise InvalidInput(f"{file} holds a JSON {type(data).__name__}, not an episode object")
    flags = {"session": session, "task": task, "outcome": outcome, "timestamp": date}
    data.update({key: value for key, value in flags.items() if value is not None})
    if lesson:
        data["lessons"] = list(data.get("lessons") or []) + list(lesson)
    if duration is not None:
        data["duration_minutes"] = duration
    if not data:
        raise UsageError("give --file with an episode, or at least --session, --task and --outcome")
    corpus = open_vault(vault).corpus
    stored, warnings = service.store_episode_data(corpus, data)
    for message in warnings:
        warn(message)
    typer.echo(stored_episode_line(stored))


@app.command("list")
def list_(
    outcome: Annotated[Outcome | None, typer.Option(help="Only episodes with this outcome.")] = None,
    task: Annotated[str | None, typer.Option(help="Only episodes whose task contains this text.")] = None,
    since: Annotated[str | None, typer.Option(help="Only on or after this date/time.")] = None,
    until: Annotated[str | None, typer.Option(help="Only on or before this date/time.")] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=service.MAX_LIMIT, help="At most this many.")
    ] = service.DEFAULT_LIMIT,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List episodes, newest first: the current folder's project's, or the whole vault while it has none."""
    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    found = service.list_episodes(
        memory.corpus, outcome=outcome, task=task, since=since, until=until, limit=limit, project=scope.project
    )
    if as_json:
        emit_json([episode_summary(episode) for episode in found])
        return
    if not found:
        typer.echo("no episodes match")
    for episode in found:
        typer.echo(episode_row(episode))


@app.command()
def show(name: EpisodeArgument, vault: VaultOption = None, as_json: JsonOption = False) -> None:
    """Show an episode: task, outcome, metrics, decisions, events and lessons."""
    corpus = open_vault(vault).corpus
    episode = service.get_episode(corpus, name)
    if as_json:
        emit_json(episode)
        return
    typer.echo("\n".join(episode_lines(episode)))
    for problem in episode.problems:
        warn(problem)


@app.command()
def decisions(name: EpisodeArgument, vault: VaultOption = None, as_json: JsonOption = False) -> None:
    """An episode's decisions in time order, with what each chose, why, and what it led to."""
    corpus = open_vault(vault).corpus
    sequence = service.decision_sequence(corpus, name)
    if as_json:
        emit_json(sequence)
        return
    if not sequence:
        typer.echo("this episode records no decisions")
    for decision in sequence:
        typer.echo("\n".join(decision_lines(decision)))


@app.command()
def extract(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Transcripts (Claude Code, Codex), ai-agents session logs (JSON or markdown), or folders of them."
        ),
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="Read every file as this format: claude-code, codex, gemini or ai-agents (default: told per file).",
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Backfill: every session the agent (claude-code, codex, gemini) still keeps that the vault does not "
            "hold yet, oldest first (~/.claude/projects, $CODEX_HOME/sessions, ~/.gemini/tmp).",
            autocompletion=complete_agents,
        ),
    ] = None,
    project: Annotated[
        Path | None,
        typer.Option("--project", help="With --from: only the sessions run in this folder or below it."),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written, write nothing.")] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Turn transcripts and session logs into episode notes by brain's extraction rules (see the README)."""
    from brain.memory.sessions.ingest import extract_into_vault
    from brain.memory.sessions.view import extracted_json, extracted_line

    corpus = open_vault(vault).corpus
    if agent is not None:
        if paths:
            raise UsageError("give transcripts or --from AGENT, not both")
        _backfill(corpus, agent, project, dry_run, as_json)
        return
    if project is not None:
        raise UsageError("--project goes with --from AGENT; give --from claude-code, codex or gemini")
    if not paths:
        raise UsageError(
            "give transcripts, session logs or folders of them, or --from AGENT (claude-code, codex, gemini)"
        )
    results = extract_into_vault(corpus, paths, format=format, dry_run=dry_run)
    if as_json:
        emit_json([extracted_json(item, path, verb) for item, path, verb in results])
        return
    for item, path, verb in results:
        for message in item.warnings:
            warn(message)
        typer.echo(extracted_line(item, path, verb))


def _backfill(corpus: Corpus, agent: str, project: Path | None, dry_run: bool, as_json: bool) -> None:
    from brain.memory.sessions.backfill import backfill, sessions_in
    from brain.memory.sessions.transcripts.readers import reader_named
    from brain.memory.sessions.view import backfill_summary, backfilled_json, extracted_line

    reader = reader_named(agent)
    store = reader.store(Path.home())
    sessions = sessions_in(store, project)
    results = []
    with typer.progressbar(
        length=len(sessions), label=f"{reader.format} sessions", file=sys.stderr, hidden=as_json or not sessions
    ) as bar:
        for result in backfill(corpus, sessions, reader, dry_run=dry_run, progress=lambda _: bar.update(1)):
            results.append(result)
            if as_json:
                continue
            if result.item is None:
                warn(f"skipped {result.session.file.name}: {result.reason}")
            else:
                typer.echo(extracted_line(result.item, result.path, result.verb))
    if as_json:
        emit_json(backfilled_json(store, sessions, results))
        return
    typer.echo(backfill_summary(store, sessions, results))
