"""`brain note`: read, write, edit, move, delete, list any note, and its history; `brain recent`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, complete_notes, emit_json, open_vault, read_input
from brain.errors import UsageError
from brain.memory.notes import history, listing, service
from brain.memory.notes.view import (
    edited_line,
    history_json,
    history_lines,
    listed_json,
    listed_lines,
    moved_json,
    moved_line,
    note_json,
    purged_json,
    purged_line,
    restored_json,
    restored_line,
    written_line,
)

app = typer.Typer(help="Read and write any note.", no_args_is_help=True)

NameArgument = Annotated[
    str, typer.Argument(help="Title, file stem, permalink or path of the note.", autocompletion=complete_notes())
]


@app.command()
def read(name: NameArgument, vault: VaultOption = None, as_json: JsonOption = False) -> None:
    """Print a note (its file as it is, or its parsed form with --json)."""
    corpus = open_vault(vault).corpus
    note = service.read_note(corpus, name)
    if as_json:
        emit_json(note_json(note))
    else:
        typer.echo(note.text, nl=not note.text.endswith("\n"))


@app.command()
def write(
    title: Annotated[str, typer.Argument(help="Title of the note; its file name is made from it.")],
    file: Annotated[str | None, typer.Option("--file", "-f", help="Body from this file, or - for stdin.")] = None,
    folder: Annotated[
        str | None, typer.Option(help="Folder inside the vault (default: the type's folder, or notes/).")
    ] = None,
    note_type: Annotated[
        str | None, typer.Option("--type", help="Frontmatter type (episode, pattern, context, ...).")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag; repeat for more.")] = None,
    field: Annotated[list[str] | None, typer.Option("--field", help="Frontmatter key=value; repeat for more.")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace the body of an existing note with this title.")] = False,
    vault: VaultOption = None,
) -> None:
    """Create a note with a title and a body."""
    corpus = open_vault(vault).corpus
    written = service.write_note(
        corpus,
        title,
        read_input(file),
        folder=folder,
        note_type=note_type,
        tags=tuple(tag or ()),
        fields=service.parse_fields(field or []),
        overwrite=overwrite,
    )
    typer.echo(written_line(written))


@app.command()
def edit(
    name: NameArgument,
    append: Annotated[str | None, typer.Option(help="Text to add at the end (of --section if given).")] = None,
    prepend: Annotated[str | None, typer.Option(help="Text to add at the start of the body.")] = None,
    section: Annotated[str | None, typer.Option(help="Section heading for --append or --replace-section.")] = None,
    replace_section: Annotated[str | None, typer.Option(help="New content for --section.")] = None,
    find: Annotated[str | None, typer.Option(help="Text to find (with --replace).")] = None,
    replace: Annotated[str | None, typer.Option(help="Replacement for --find.")] = None,
    count: Annotated[
        int | None,
        typer.Option(min=1, help="With --find: replace all N occurrences (refused unless it occurs exactly N times)."),
    ] = None,
    replace_all: Annotated[bool, typer.Option("--all", help="With --find: replace every occurrence.")] = False,
    set_field: Annotated[
        list[str] | None, typer.Option("--set", help="Frontmatter key=value to set; repeat for more.")
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Change one part of a note; the rest stays byte for byte."""
    corpus = open_vault(vault).corpus
    chosen = [
        ("append", append is not None),
        ("prepend", prepend is not None),
        ("replace_section", replace_section is not None),
        ("find_replace", find is not None),
        ("set_frontmatter", bool(set_field)),
    ]
    operations = [name_ for name_, wanted in chosen if wanted]
    if len(operations) != 1:
        raise UsageError("give exactly one of --append, --prepend, --replace-section, --find/--replace, --set")
    operation = operations[0]
    if operation == "find_replace" and replace is None:
        raise UsageError("--find needs --replace (use --replace '' to delete the text)")
    content = {"append": append, "prepend": prepend, "replace_section": replace_section, "find_replace": replace}.get(
        operation
    ) or ""
    written = service.edit_note(
        corpus,
        name,
        operation,
        content=content,
        section=section,
        find=find,
        expected_count=count,
        frontmatter=service.parse_fields(set_field or []),
        replace_all=replace_all,
    )
    typer.echo(edited_line(written, operation))


@app.command()
def move(
    name: NameArgument,
    destination: Annotated[str, typer.Argument(help="Folder to move into, or a new path ending in .md.")],
    no_update_links: Annotated[
        bool, typer.Option("--no-update-links", help="Leave the links to the note as they are.")
    ] = False,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Move or rename a note inside the vault; links to it in other notes follow."""
    corpus = open_vault(vault).corpus
    moved = service.move_note(corpus, name, destination, update_links=not no_update_links)
    if as_json:
        emit_json(moved_json(moved))
    else:
        typer.echo(moved_line(moved))


@app.command()
def delete(
    name: NameArgument,
    purge: Annotated[
        bool, typer.Option("--purge", help="Delete the note and every version of it for good (writes a receipt).")
    ] = False,
    version: Annotated[
        int | None,
        typer.Option(
            "--version", min=1, help="With --purge: forget only this version (from `note history`); the note stays."
        ),
    ] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete a note: it moves to the history, where `brain note restore` brings it back."""
    if version is not None and not purge:
        raise UsageError("--version goes with --purge: `brain note delete NAME --purge --version N`")
    corpus = open_vault(vault).corpus
    if purge:
        purged = history.purge_note(corpus, name) if version is None else history.purge_version(corpus, name, version)
        emit_json(purged_json(purged)) if as_json else typer.echo(purged_line(purged))
        return
    deleted = service.delete_note(corpus, name)
    if as_json:
        emit_json({"path": deleted.path, "title": deleted.title, "restorable": True})
    else:
        typer.echo(
            f"deleted {deleted.path} (kept in the history: `brain note restore '{deleted.path}'` brings it back)"
        )


VersionOption = Annotated[int | None, typer.Option("--version", min=1, help="A version number from `note history`.")]


@app.command("history")
def history_(
    name: NameArgument, version: VersionOption = None, vault: VaultOption = None, as_json: JsonOption = False
) -> None:
    """List a note's versions, newest first, or print one with --version (a deleted note's too)."""
    corpus = open_vault(vault).corpus
    if version is not None:
        found, entry, data = history.version(corpus, name, version)
        if as_json:
            row = next(row for row in history_json(found)["versions"] if row["version"] == entry.v)
            emit_json({"path": found.path, **row, "text": data.decode("utf-8", "replace")})
        else:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        return
    found = history.note_history(corpus, name)
    if as_json:
        emit_json(history_json(found))
    else:
        typer.echo("\n".join(history_lines(found)))


@app.command()
def restore(
    name: NameArgument, version: VersionOption = None, vault: VaultOption = None, as_json: JsonOption = False
) -> None:
    """Put a version back byte for byte (itself a new version); a deleted note comes back without --version."""
    corpus = open_vault(vault).corpus
    restored = history.restore_note(corpus, name, version)
    emit_json(restored_json(restored)) if as_json else typer.echo(restored_line(restored))


@app.command("list")
def list_(
    folder: Annotated[str | None, typer.Option(help="Only notes under this folder.")] = None,
    note_type: Annotated[str | None, typer.Option("--type", help="Only notes of this type.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only notes with this tag.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """List notes by path, with type, tags and when each file last changed."""
    corpus = open_vault(vault).corpus
    found = listing.list_notes(corpus, folder=folder, note_type=note_type, tag=tag)
    if as_json:
        emit_json({"count": len(found), "notes": [listed_json(item) for item in found]})
    elif found:
        typer.echo("\n".join(listed_lines(found)))
    else:
        typer.echo("no notes match")


def recent(
    since: Annotated[str, typer.Option(help="A span (30m, 12h, 1d, 2w) or an ISO date.")] = listing.DEFAULT_RECENT,
    note_type: Annotated[str | None, typer.Option("--type", help="Only notes of this type.")] = None,
    vault: VaultOption = None,
    as_json: JsonOption = False,
) -> None:
    """Notes changed lately, newest first."""
    corpus = open_vault(vault).corpus
    start, found = listing.recent(corpus, since=since, note_type=note_type)
    if as_json:
        emit_json(
            {
                "since": start.isoformat().replace("+00:00", "Z"),
                "count": len(found),
                "notes": [listed_json(item) for item in found],
            }
        )
    elif found:
        typer.echo("\n".join(listed_lines(found)))
    else:
        typer.echo(f"no notes changed since {start.strftime('%Y-%m-%d %H:%M')} UTC")
