"""Create a vault, or add the folders, templates and config an existing folder lacks."""

from __future__ import annotations

from pathlib import Path

from brain.errors import InvalidInput
from brain.note_files import BRAIN_DIR
from brain.vault import TYPE_FOLDERS, Vault


def init_vault(root: Path) -> tuple[Vault, list[str]]:
    """Create a vault, or add what an existing folder lacks; nothing that exists is changed."""
    from importlib import resources

    from brain.config import DEFAULT_CONFIG

    root = Path(root).expanduser()
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"'{root}' is a file, not a folder; choose a folder for the vault")
    root.mkdir(parents=True, exist_ok=True)
    vault = Vault(root)
    created: list[str] = []
    for folder in (*TYPE_FOLDERS.values(), "templates", f"{BRAIN_DIR}/index", f"{BRAIN_DIR}/journal"):
        path = vault.root / folder
        if not path.exists():
            path.mkdir(parents=True)
            created.append(folder + "/")
    config = vault.brain_dir / "config.toml"
    if not config.exists():
        config.write_text(DEFAULT_CONFIG, encoding="utf-8")
        created.append(f"{BRAIN_DIR}/config.toml")
    for template in sorted((resources.files("brain") / "templates").iterdir(), key=lambda t: t.name):
        if not template.name.endswith(".md"):
            continue
        target = vault.root / "templates" / template.name
        if not target.exists():
            target.write_text(template.read_text(encoding="utf-8"), encoding="utf-8")
            created.append(f"templates/{template.name}")
    return vault, created
