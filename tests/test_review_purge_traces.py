"""Review of 360246b (no VACUUM in the sweep's purge): tests that show what the change lets through.

`fact_index.purge` promises to forget deleted notes "leaving no copy of their text behind". With
`secure_delete` on, SQLite zeroes deleted cells and freed pages, but not the unallocated gap of a
page that stays in use: when a b-tree page is rebuilt during a balance (a row re-inserted in the
middle of `fts_content`, which is what `Catalog.put` does for every changed note: delete the FTS row,
insert it again under the same rowid), old copies of cells are left below the page's new cell
content area. Deleting the live copy later zeroes that one only. VACUUM (what purge ran before)
rewrites every page and drops them.
"""

from __future__ import annotations

import random
from pathlib import Path

from brain.index.engine import forget, open_index
from brain.index.scan import scan
from brain.memory import fact_index
from brain.vault import init_vault


def _mark(number: int) -> str:
    return f"zqsecret{number:05d}x"


def test_purge_leaves_no_copy_of_a_deleted_notes_text_after_rows_were_rewritten(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n', encoding="utf-8")
    index = open_index(vault)
    (vault.root / "notes").mkdir(exist_ok=True)
    chance = random.Random(1)
    bodies: dict[int, str] = {}
    count = 300
    for number in range(count):
        # Note n is written, and note n-2 grows (as a fact grows when it is closed): the catalog
        # re-inserts its full-text row in the middle of the table, and pages are rebalanced.
        bodies[number] = f"---\ntitle: N{number}\n---\n{_mark(number)} " + "a " * chance.randint(50, 700) + "\n"
        (vault.root / f"notes/n{number:05d}.md").write_text(bodies[number], encoding="utf-8")
        changed = [f"notes/n{number:05d}.md"]
        if number > 2:
            bodies[number - 2] += "b " * chance.randint(5, 300) + "\n"
            (vault.root / f"notes/n{number - 2:05d}.md").write_text(bodies[number - 2], encoding="utf-8")
            changed.append(f"notes/n{number - 2:05d}.md")
        scan(index, paths=changed)

    deleted = [f"notes/n{number:05d}.md" for number in range(0, count, 2)]
    ids = fact_index.note_ids(vault, deleted)
    for path in deleted:
        (vault.root / path).unlink()
    assert fact_index.purge(vault, deleted, [], ids).catalog_rows == len(deleted)
    forget(vault.root)

    stored = b"".join(path.read_bytes() for path in sorted(vault.index_dir.rglob("*")) if path.is_file())
    left = [number for number in range(0, count, 2) if _mark(number).encode() in stored]
    assert left == [], f"{len(left)} deleted notes' text still in .brain/index/ (free space of live pages)"
