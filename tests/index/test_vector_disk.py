"""The embedded vector store's size on disk is bounded by what it holds: `brain reindex` leaves no old
segment folder behind.

Lexical embedder throughout (these are about the files, not meaning).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from brain.index.engine import forget
from tests.conftest import lexical_vault, note_text, put, run_brain


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault
    forget(vault.root)


def _disk_bytes(folder: Path) -> int:
    """What the folder's files take on disk (blocks, not apparent sizes: a sparse file counts as written)."""
    return sum(os.stat(Path(top) / name).st_blocks * 512 for top, _, names in os.walk(folder) for name in names)


def _segments(chroma: Path) -> list[str]:
    return sorted(entry.name for entry in chroma.iterdir() if entry.is_dir())


def test_reindex_leaves_no_old_segment_folder_behind(vault):
    for number in range(300):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", f"apples {number} and pears\n\n## More\nplums"))
    assert run_brain("index", "--vault", str(vault.root)).exit_code == 0
    chroma = vault.index_dir / "chroma"
    assert run_brain("reindex", "--vault", str(vault.root)).exit_code == 0
    once, segments = _disk_bytes(chroma), _segments(chroma)
    assert len(segments) == 1
    for _ in range(2):
        assert run_brain("reindex", "--vault", str(vault.root)).exit_code == 0
    thrice = _disk_bytes(chroma)
    assert len(_segments(chroma)) == 1 and _segments(chroma) != segments  # a new segment, the old one gone
    assert abs(thrice - once) <= once * 0.05, (once, thrice)
