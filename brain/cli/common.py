"""What every command shares: the vault option, JSON output, input files, progress bars, and the
shell completion of the note names and agent names arguments take.

Kept light: a command module imports it at start-up, so the library is imported only where a command uses it
(errors are translated once, in brain/cli/group.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from brain.cli.group import opened_vaults, until_the_command_ends
from brain.cli.typer_private import Context
from brain.errors import BrainError, UsageError
from brain.plain import plain

if TYPE_CHECKING:
    from brain.memory.front_door import Memory
    from brain.memory.projects.service import Scope

VaultOption = Annotated[
    Path | None,
    typer.Option(
        "--vault", help="Vault folder (default: $BRAIN_VAULT, then the current folder upwards).", show_default=False
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
ProjectOption = Annotated[
    str | None,
    typer.Option(
        "--project",
        metavar="PROJECT",
        help="Only this project's episodes, patterns and tips: its remote (github.com/acme/shop) or a folder of it (default: the current folder's project, or the whole vault while it has none of its episodes).",
        show_default=False,
    ),
]
AllProjectsOption = Annotated[
    bool, typer.Option("--all-projects", help="Every project's episodes, patterns and tips (the whole vault).")
]


def open_vault(vault: Path | None, *, chroma_url: str | None = None) -> Memory:
    """The vault of `--vault` (or $BRAIN_VAULT, or the current folder upwards), opened by the front
    door, checked once for the whole command, and closed when it ends (`--chroma-url`: its index's
    vector store)."""
    from brain.memory.front_door import open_memory

    memory = open_memory(vault, chroma_url=chroma_url)
    until_the_command_ends(memory)  # entered first, left last: after the checked-once block below
    opened_vaults.append(memory.root)  # the disk a storage error is about (see group.BrainGroup)
    # One command is one answer: the vault's files are checked at its first read, not at each of
    # its reads (a stat scan each, which grows with the vault). brain's own writes still reach the
    # reads after them, through the index the front door attached.
    until_the_command_ends(memory.checked_once())
    return memory


def project_scope(memory: Memory, project: str | None, all_projects: bool) -> Scope:
    """The scope of `--project` / `--all-projects`, else of the current folder's project."""
    from brain.memory.projects.service import current_folder, scope_for

    if project is not None and all_projects:
        raise UsageError("--project and --all-projects do not go together; give one of them")
    return scope_for(memory.corpus, folder=current_folder(), project=project, all_projects=all_projects)


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(plain(value), indent=2, ensure_ascii=False, default=str) + "\n")


def warn(message: str) -> None:
    typer.echo(f"warning: {message}", err=True)


def read_input(file: str | None) -> str:
    """Text from a file path (a plain file, or anything else that reads as one: /dev/null, a pipe such
    as bash's `<(command)`), or from stdin for '-'."""
    if file is None:
        return ""
    if file == "-":
        return sys.stdin.read()
    path = Path(file)
    if path.is_dir():
        raise UsageError(f"--file '{file}' is a folder; give a file, or - for stdin")
    if not path.exists():
        raise UsageError(f"--file '{file}' does not exist; give a file, or - for stdin")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BrainError(f"input file '{file}' is not UTF-8 text") from None


@contextmanager
def progress_bars(
    labels: Mapping[str, str | tuple[str, str]] | None = None,
) -> Iterator[Callable[[str, int, int], None] | None]:
    """A callback `(stage, done, total)` drawing one line per stage on a terminal (bar, count, rate,
    time left: cli/progress.py); None (silence) when piped. `labels`: stage -> label, or (label, unit)."""
    if not (sys.stdout.isatty() and sys.stderr.isatty()):
        yield None
        return
    from brain.cli.progress import Bar

    bars: dict[str, Bar] = {}

    def update(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            named = (labels or {}).get(stage, stage)
            label, unit = (named, "") if isinstance(named, str) else named
            bar = bars[stage] = Bar(sys.stderr, label, unit)
        bar.update(done, total)

    try:
        yield update
    finally:
        for bar in bars.values():
            bar.close()


def write_output(path: Path, text: str) -> None:
    """Write a command's output file; a missing folder, a folder or a refused write is one line."""
    if path.is_dir():
        raise UsageError(f"'{path}' is a folder; give a file name for the output")
    if not path.parent.is_dir():
        raise UsageError(f"folder '{path.parent}' does not exist; create it first or choose another --output")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise BrainError(f"cannot write '{path}': {error.strerror or error}") from None


# ---------------------------------------------------------------- shell completion
# typer calls a completer while the shell asks (`brain --install-completion` sets that up). A note
# completer reads the vault the command would open (`--vault` when it is on the line before the
# word, else $BRAIN_VAULT, else the current folder upwards), from the catalog when the vault is
# indexed, else from its files, and never builds an index.

Candidates = list[tuple[str, str]]  # (what is typed, what the shell may show beside it)


def complete_notes(note_type: str | None = None) -> Callable[[Context, str], Candidates]:
    """A completer of note names (only those of `note_type` when given): each note's title, its
    path beside it, and its path, its title beside it."""

    def complete(ctx: Context, incomplete: str) -> Candidates:
        try:
            return _note_candidates(ctx, incomplete, note_type)
        except Exception:  # whatever went wrong, the shell gets no candidate rather than a traceback on its line
            return []

    return complete


def _note_candidates(ctx: Context, incomplete: str, note_type: str | None) -> Candidates:
    from brain.memory.notes.names import note_names
    from brain.vault.vault import Vault

    names = note_names(Vault.find(ctx.params.get("vault")), note_type)
    found: dict[str, str] = {}
    for name in sorted(names, key=lambda name: name.title.casefold()):
        if name.title.startswith(incomplete):
            found.setdefault(name.title, name.path)
    for name in names:
        if name.path.startswith(incomplete):
            found.setdefault(name.path, name.title)
    return list(found.items())


def complete_agents(incomplete: str) -> list[str]:
    """The agents `brain hooks` installs into."""
    from brain.agents.registry import AGENTS

    return [name for name in AGENTS if name.startswith(incomplete)]


ChromaOption = Annotated[
    str | None,
    typer.Option(
        "--chroma-url",
        help="Keep the vectors on this Chroma server (default: config, then the embedded store).",
        show_default=False,
    ),
]
