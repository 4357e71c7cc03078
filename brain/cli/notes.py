"""`brain note`: read, write, edit, move and delete any note."""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.common import JsonOption, VaultOption, emit_json, open_vault, read_input
from brain.errors import InvalidInput
from brain.memory.notes import service
from brain.views.notes import edited_line, note_json, written_line

app = typer.Typer(help="Read and write any note.", no_args_is_help=True)

NameArgument = Annotated[str, typer.Argument(help="Title, file stem, permalink or path of the note.")]


@app.command()
def read(name: NameArgument, vault: VaultOption = None, as_json: JsonOption = False) -> None:
    """Print a note (its file as it is, or its parsed form with --json)."""
    _, corpus = open_vault(vault)
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
    vault_, corpus = open_vault(vault)
    written = service.write_note(
        vault_,
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
    count: Annotated[int | None, typer.Option(help="With --find: refuse unless it occurs exactly this often.")] = None,
    set_field: Annotated[
        list[str] | None, typer.Option("--set", help="Frontmatter key=value to set; repeat for more.")
    ] = None,
    vault: VaultOption = None,
) -> None:
    """Change one part of a note; the rest stays byte for byte."""
    vault_, corpus = open_vault(vault)
    chosen = [
        ("append", append is not None),
        ("prepend", prepend is not None),
        ("replace_section", replace_section is not None),
        ("find_replace", find is not None),
        ("set_frontmatter", bool(set_field)),
    ]
    operations = [name_ for name_, wanted in chosen if wanted]
    if len(operations) != 1:
        raise InvalidInput("give exactly one of --append, --prepend, --replace-section, --find/--replace, --set")
    operation = operations[0]
    if operation == "find_replace" and replace is None:
        raise InvalidInput("--find needs --replace (use --replace '' to delete the text)")
    content = {"append": append, "prepend": prepend, "replace_section": replace_section, "find_replace": replace}.get(
        operation
    ) or ""
    written = service.edit_note(
        vault_,
        corpus,
        name,
        operation,
        content=content,
        section=section,
        find=find,
        expected_count=count,
        frontmatter=service.parse_fields(set_field or []),
    )
    typer.echo(edited_line(written, operation))


@app.command()
def move(
    name: NameArgument,
    destination: Annotated[str, typer.Argument(help="Folder to move into, or a new path ending in .md.")],
    vault: VaultOption = None,
) -> None:
    """Move or rename a note inside the vault."""
    vault_, corpus = open_vault(vault)
    moved = service.move_note(vault_, corpus, name, destination)
    typer.echo(f"moved to {moved.path}")


@app.command()
def delete(name: NameArgument, vault: VaultOption = None) -> None:
    """Delete a note file."""
    vault_, corpus = open_vault(vault)
    deleted = service.delete_note(vault_, corpus, name)
    typer.echo(f"deleted {deleted.path}")
