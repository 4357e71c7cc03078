"""`brain episode`: store episodes and read them back."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from brain.cli.common import JsonOption, VaultOption, complete_notes, emit_json, open_vault, read_input, warn
from brain.errors import InvalidInput, UsageError
from brain.memory.episodes import service
from brain.memory.episodes.merge import given_parts
from brain.notes.model import Outcome
from brain.views.episodes import decision_lines, episode_lines, episode_row, episode_summary, stored_episode_line

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
    episode, warnings = service.episode_from_data(service.with_stored_date(corpus, data))
    for message in warnings:
        warn(message)
    typer.echo(stored_episode_line(service.store_episode(corpus, episode, given=given_parts(data))))


@app.command("list")
def list_(
    outcome: Annotated[Outcome | None, typer.Option(help="Only episodes with this outcome.")] = None,
    task: Annotated[str | None, typer.Option(help="Only episodes whose task contains this text.")] = None,
    since: Annotated[str | None, typer.Option(help="Only on or after this date/time.")] = None,
    until: Annotated[str | None, typer.Option(help="Only on or before this date/time.")] = None,
    limit: Annotated[
        int, typer.Option(min=1, max=service.MAX_LIMIT, help="At most this many.")
    ] = service.DEFAULT_LIMIT,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List episodes, newest first."""
    corpus = open_vault(vault).corpus
    found = service.list_episodes(corpus, outcome=outcome, task=task, since=since, until=until, limit=limit)
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
        list[str],
        typer.Argument(
            help="Transcripts (Claude Code, Codex), ai-agents session logs (JSON or markdown), or folders of them."
        ),
    ],
    format: Annotated[
        str | None,
        typer.Option(
            "--format", help="Read every file as this format: claude-code, codex or ai-agents (default: told per file)."
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be written, write nothing.")] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Turn transcripts and session logs into episode notes by brain's extraction rules (see the README)."""
    from brain.agents.registry import READERS
    from brain.memory.sessions.ingest import extract_into_vault
    from brain.views.sessions import extracted_json, extracted_line

    corpus = open_vault(vault).corpus
    results = extract_into_vault(corpus, paths, readers=READERS, format=format, dry_run=dry_run)
    if as_json:
        emit_json([extracted_json(item, path, verb) for item, path, verb in results])
        return
    for item, path, verb in results:
        for message in item.warnings:
            warn(message)
        typer.echo(extracted_line(item, path, verb))
