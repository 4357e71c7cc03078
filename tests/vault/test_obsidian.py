"""`brain init` on an Obsidian vault: only `.brain/` is added, each type's folder comes with its first
note, and the templates go where Obsidian's Templates plugin looks, never over a user's file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.vault.note_files import note_files, templates_folder
from brain.vault.vault import Vault
from tests.conftest import run_brain

TEMPLATE_NAMES = ("context.md", "episode.md", "fact.md", "note.md", "pattern.md", "run.md", "tip.md")
USERS_FILES = {
    ".obsidian/app.json": '{"vimMode": true}\n',
    ".obsidian/templates.json": '{"folder":"Meta/Templates","dateFormat":"YYYY-MM-DD","timeFormat":"HH:mm"}',
    "Daily/2026-03-02.md": "# 2 March\n\nShipped the ledger.\n",
    "Projects/Ledger.md": "---\ntags: [work]\n---\n# Ledger\n\nDouble entry.\n",
    "Meta/Templates/Daily.md": "# {{date}}\n",
    "Meta/Templates/note.md": "my own note template\n",
    "README.md": "my vault\n",
}


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `root`, by relative path."""
    return {
        path.relative_to(root).as_posix(): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


@pytest.fixture
def obsidian(tmp_path: Path) -> Path:
    root = tmp_path / "Work"
    for relative, text in USERS_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def test_init_adds_only_brain_folder_to_an_obsidian_vault(obsidian: Path):
    before = tree(obsidian)
    result = run_brain("init", str(obsidian))
    assert result.exit_code == 0
    templates = [f".brain/templates/{name}" for name in TEMPLATE_NAMES]
    assert result.output == (
        f"vault ready at {obsidian}; created: .brain/templates/, .brain/index/, .brain/journal/, "
        f".brain/config.toml, .brain/.gitignore, {', '.join(templates)}\n"
        "an Obsidian vault: brain adds a folder of its own only with a note for it (episodes/ with the first "
        "episode); the templates wait in .brain/templates/ ('brain init --templates' copies them to Meta/Templates/, "
        "the folder of Obsidian's Templates plugin)\n"
    )
    after = tree(obsidian)
    assert {path: data for path, data in after.items() if not path.startswith(".brain")} == before
    assert sorted(path for path in after if path.startswith(".brain")) == [
        ".brain",
        ".brain/.gitignore",
        ".brain/config.toml",
        ".brain/index",
        ".brain/journal",
        ".brain/templates",
        *templates,
    ]
    again = run_brain("init", str(obsidian))
    assert again.output.startswith(f"vault at {obsidian} already has everything; nothing changed\n")
    assert tree(obsidian) == after


def test_a_type_folder_comes_with_the_first_note_of_its_type(obsidian: Path):
    run_brain("init", str(obsidian))
    vault = ["--vault", str(obsidian)]
    assert not (obsidian / "episodes").exists()
    stored = run_brain("episode", "store", "--session", "s1", "--task", "Try brain", "--outcome", "success", *vault)
    assert stored.exit_code == 0 and stored.output.startswith("created episodes/EPISODE-")
    pattern = run_brain("pattern", "add", "retry", "--trigger", "a write fails", "--action", "retry", *vault)
    assert pattern.output == "created patterns/PATTERN-retry.md: success_rate 1.00 over 1 occurrences\n"
    (episode,) = (obsidian / "episodes").iterdir()
    assert sorted(note_files(obsidian)[0]) == [
        "Daily/2026-03-02.md",
        "Projects/Ledger.md",
        "README.md",
        f"episodes/{episode.name}",
        "patterns/PATTERN-retry.md",
    ]
    assert sorted(path.name for path in obsidian.iterdir() if path.is_dir()) == [
        ".brain",
        ".obsidian",
        "Daily",
        "Meta",
        "Projects",
        "episodes",
        "patterns",
    ]


def test_templates_go_where_obsidian_looks_and_never_over_a_users_file(obsidian: Path):
    run_brain("init", str(obsidian))
    users = tree(obsidian / "Meta/Templates")
    result = run_brain("init", str(obsidian), "--templates")
    copied = [f"Meta/Templates/{name}" for name in TEMPLATE_NAMES if name != "note.md"]
    assert result.output == (
        f"vault ready at {obsidian}; created: {', '.join(copied)}\n"
        "kept your own: Meta/Templates/note.md (brain's templates of those names were not copied)\n"
        "an Obsidian vault: brain adds a folder of its own only with a note for it (episodes/ with the first "
        "episode); the templates are in Meta/Templates/, the folder of Obsidian's Templates plugin\n"
    )
    after = tree(obsidian / "Meta/Templates")
    again = run_brain("init", str(obsidian))  # later: it says where they are, not that they wait
    assert again.output.endswith(
        "episode); the templates are in Meta/Templates/, the folder of Obsidian's Templates plugin\n"
    )
    assert tree(obsidian / "Meta/Templates") == after
    assert {name: after[name] for name in users} == users  # Daily.md and the user's note.md, byte for byte
    shipped = Path(__file__).parents[2] / "brain/templates/episode.md"
    assert after["episode.md"] == shipped.read_bytes()
    # templates are not notes: neither listed nor written there
    assert "Meta/Templates" not in run_brain("note", "list", "--vault", str(obsidian)).output
    refused = run_brain("note", "write", "X", "--folder", "Meta/Templates", "--vault", str(obsidian))
    assert refused.exit_code == 1
    assert refused.output == (
        "error: 'Meta/Templates/X.md' is inside 'Meta/Templates/', Obsidian's templates folder; choose another folder\n"
    )


def test_without_a_templates_folder_set_they_go_to_templates(obsidian: Path):
    (obsidian / ".obsidian/templates.json").unlink()
    result = run_brain("init", str(obsidian), "--templates")
    assert result.output.endswith(
        "the templates are in templates/ (choose it as the Templates plugin's folder in Obsidian)\n"
    )
    assert sorted(path.name for path in (obsidian / "templates").iterdir()) == list(TEMPLATE_NAMES)
    assert not (obsidian / ".brain/templates").exists()
    assert not (obsidian / "episodes").exists()


@pytest.mark.parametrize(
    ("settings", "folder"),
    [
        ('{"folder": "Templates"}', "Templates"),
        ('{"folder": "/Meta/Templates/"}', "Meta/Templates"),
        ('{"folder": ""}', None),
        ('{"folder": "/"}', None),
        ('{"folder": "../elsewhere"}', None),
        ('{"folder": 3}', None),
        ('["Templates"]', None),
        ("{not json", None),
        (None, None),
    ],
)
def test_the_templates_folder_is_read_from_obsidians_settings(tmp_path: Path, settings: str | None, folder):
    (tmp_path / ".obsidian").mkdir()
    if settings is not None:
        (tmp_path / ".obsidian/templates.json").write_text(settings)
    assert templates_folder(tmp_path) == folder


def test_notes_in_the_templates_folder_leave_the_index_when_obsidian_points_there(obsidian: Path):
    run_brain("init", str(obsidian))
    settings = obsidian / ".obsidian/templates.json"
    settings.unlink()
    assert run_brain("index", "--no-embed", "--vault", str(obsidian)).exit_code == 0
    assert "Meta/Templates/Daily.md" in run_brain("note", "list", "--vault", str(obsidian)).output
    settings.write_text(json.dumps({"folder": "meta/templates"}))  # Obsidian finds it whatever the case
    assert "Meta/Templates" not in run_brain("note", "list", "--vault", str(obsidian)).output
    assert sorted(note_files(obsidian)[0]) == ["Daily/2026-03-02.md", "Projects/Ledger.md", "README.md"]
    assert sorted(note_files(obsidian, ["Meta/Templates/Daily.md", "README.md"])[0]) == ["README.md"]
    assert list(Vault(obsidian).iter_files()) == ["Daily/2026-03-02.md", "Projects/Ledger.md", "README.md"]
