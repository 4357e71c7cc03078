"""Create a vault, or add what an existing folder lacks; an Obsidian vault gets `.brain/` alone.

A new folder gets brain's layout: a folder per note type, `templates/` and `.brain/`. A folder that
Obsidian opens as a vault (it holds `.obsidian/`) is the user's: only `.brain/` is added, each type's
folder appears with its first note (every write makes the folder it writes into), and brain's
templates wait in `.brain/templates/` until asked for where Obsidian's Templates plugin looks.
`.brain/.gitignore` keeps brain's state out of git. No file that exists is ever changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from brain.errors import InvalidInput, UsageError
from brain.vault.note_files import BRAIN_DIR, templates_folder
from brain.vault.vault import TYPE_FOLDERS, Vault

OBSIDIAN_DIR = ".obsidian"
TEMPLATES = "templates"  # brain's templates folder in a vault of its own (never read as notes)
# Under .brain/, the settings and the templates waiting there are the team's; everything else is the
# state of this copy of the vault (the index, the note history, the recall journal, logs, locks, the
# vault's id). Git ignores it all, so a clone indexed and searched stays clean, and a state file brain
# adds later is ignored without a change here.
GITIGNORE = """\
# Written by `brain init`: brain's state in this copy of the vault stays out of git;
# the settings (config.toml) and the templates are the team's to commit. See docs/configuration.md.
*
!/.gitignore
!/config.toml
!/templates/
!/templates/**
"""


@dataclass
class Initialized:
    """What `initialize` did: the vault, what it created, the user's files it left in place of brain's
    templates, where the templates went, and whether the folder is an Obsidian vault."""

    vault: Vault
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    templates: str = TEMPLATES
    obsidian: bool = False


def init_vault(root: Path, *, templates: bool = False) -> tuple[Vault, list[str]]:
    """Create a vault, or add what an existing folder lacks: the vault and what was created (`initialize`)."""
    done = initialize(root, templates=templates)
    return done.vault, done.created


def initialize(root: Path, *, templates: bool = False) -> Initialized:
    """Create a vault, or add what an existing folder lacks; nothing that exists is changed.

    `templates=True` puts the templates where Obsidian's Templates plugin looks (its folder, else
    `templates/`) in an Obsidian vault too.
    """
    root = Path(root).expanduser()
    if root.exists() and not root.is_dir():
        raise UsageError(f"'{root}' is a file, not a folder; choose a folder for the vault")
    root.mkdir(parents=True, exist_ok=True)
    done = Initialized(Vault(root), obsidian=(root / OBSIDIAN_DIR).is_dir())
    done.templates = templates_destination(root, obsidian=done.obsidian, asked=templates)
    layout = [] if done.obsidian else [*TYPE_FOLDERS.values()]
    _make_folders(done, [*layout, done.templates, f"{BRAIN_DIR}/index", f"{BRAIN_DIR}/journal"])
    _write_config(done)
    _write_gitignore(done)
    _copy_templates(done)
    return done


def templates_destination(root: Path, *, obsidian: bool, asked: bool) -> str:
    """Where brain's templates go: `templates/` in a vault of brain's; in an Obsidian vault
    `.brain/templates/` until asked for, then (and from then on: once a template of brain's is there)
    the folder of Obsidian's Templates plugin, else `templates/`."""
    if not obsidian:
        return TEMPLATES
    shown = templates_folder(root) or TEMPLATES
    return shown if asked or _holds_a_template(root / shown) else f"{BRAIN_DIR}/{TEMPLATES}"


def _holds_a_template(folder: Path) -> bool:
    """Whether `folder` holds one of brain's templates as brain wrote it (`--templates` put it there)."""
    from importlib import resources

    return any(
        template.name.endswith(".md") and _holds(folder / template.name, template.read_text(encoding="utf-8"))
        for template in (resources.files("brain") / "templates").iterdir()
    )


def _make_folders(done: Initialized, folders: list[str]) -> None:
    for folder in folders:
        path = done.vault.root / folder
        if not path.exists():
            path.mkdir(parents=True)
            done.created.append(folder + "/")


def _write_config(done: Initialized) -> None:
    from brain.config import DEFAULT_CONFIG

    config = done.vault.brain_dir / "config.toml"
    if not config.exists():
        config.write_text(DEFAULT_CONFIG, encoding="utf-8")
        done.created.append(f"{BRAIN_DIR}/config.toml")


def _write_gitignore(done: Initialized) -> None:
    """`.brain/.gitignore`, unless the vault has one (a team's own is kept as it is)."""
    path = done.vault.brain_dir / ".gitignore"
    if not path.exists():
        path.write_text(GITIGNORE, encoding="utf-8")
        done.created.append(f"{BRAIN_DIR}/.gitignore")


def _copy_templates(done: Initialized) -> None:
    """One template per note type, each written only where no file is (a user's own stays as it is)."""
    from importlib import resources

    if not (done.vault.root / done.templates).is_dir():
        raise InvalidInput(
            f"'{done.templates}' in the vault is a file, not a folder; move it away to get the templates"
        )
    for template in sorted((resources.files("brain") / "templates").iterdir(), key=lambda t: t.name):
        if not template.name.endswith(".md"):
            continue
        relative, text = f"{done.templates}/{template.name}", template.read_text(encoding="utf-8")
        path = done.vault.root / relative
        try:
            with path.open("x", encoding="utf-8") as target:
                target.write(text)
        except FileExistsError:
            if not _holds(path, text):  # a file of the user's by that name: theirs stays
                done.kept.append(relative)
            continue
        done.created.append(relative)


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False
