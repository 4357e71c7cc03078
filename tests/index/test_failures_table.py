"""The catalog's `failures` rows (what the tool-failure hook looks up) and their terms' counts
(`failure_terms`) follow the episodes: written by `brain index`, by the watcher, and at once by
brain's own writes (a session's extraction); changed and dropped with their note; made for the
episodes of a catalog of a schema before."""

from __future__ import annotations

import sqlite3

import pytest

from brain.index.catalog.failures import Candidates, FailureSeen, candidates
from brain.index.catalog.schema import CATALOG_FILE
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.watch.watch import Watcher
from tests.conftest import TRANSCRIPTS, lexical_vault, run_brain

TERMS = ("fatal", "unable", "to", "create", "<q>", "file", "exists", "=.git/index.lock")
EPISODE = """---
title: EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0
type: episode
session: 9e4910ab
date: '2026-02-21T00:31:28Z'
outcome: success
---
# EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0

## Events Timeline
1. [2026-02-21T00:31:28Z] e001 (error): `git checkout main` failed: fatal: Unable to create '.git/index.lock': File exists. (leads_to: [[e002]])
2. [2026-02-21T00:31:35Z] e002 (recovery): `git checkout main` succeeded (caused_by: [[e001]])
"""
SEEN = FailureSeen(
    "episodes/EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md",
    "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0",
    "2026-02-21T00:31:28Z",
    "9e4910ab",
    "`git checkout main` failed: fatal: Unable to create '.git/index.lock': File exists.",
    "`git checkout main` succeeded",
    "",
    fix_command="git checkout main",
    terms=TERMS,
)


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def seen(vault) -> list[FailureSeen] | None:
    found = candidates(vault.index_dir, "shell", "git", TERMS, lambda counts, total: {})
    return None if found is None else list(found.seen)


def looked_up(vault) -> Candidates:
    found = candidates(vault.index_dir, "shell", "git", TERMS, lambda counts, total: {})
    assert found is not None
    return found


def test_brain_index_writes_changes_and_drops_an_episodes_failures(vault):
    note = vault.root / "episodes" / "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md"
    note.write_text(EPISODE)
    assert seen(vault) is None  # no index yet: nothing to look in
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    assert seen(vault) == [SEEN]
    note.write_text(EPISODE.replace(" (leads_to: [[e002]])", "").replace(" (caused_by: [[e001]])", ""))
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    assert seen(vault) == []  # no longer recovered: nothing to tell
    note.write_text(EPISODE)
    run_brain("index", "--no-embed", "--vault", str(vault.root))
    note.unlink()
    run_brain("index", "--no-embed", "--vault", str(vault.root))
    assert seen(vault) == []
    db = sqlite3.connect(vault.index_dir / CATALOG_FILE)
    assert db.execute("SELECT COUNT(*) FROM failures").fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM failure_terms").fetchone() == (0,)


def test_each_term_is_counted_once_per_failure_that_holds_it(vault):
    (vault.root / "episodes" / "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md").write_text(EPISODE)
    (vault.root / "episodes" / "EPISODE-2026-02-22-other.md").write_text(
        EPISODE.replace("9e4910ab", "other").replace(
            "fatal: Unable to create '.git/index.lock': File exists.", "fatal: not a git repository"
        )
    )
    assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    found = looked_up(vault)
    assert found.total == 2
    assert found.counts == {
        "fatal": 2,
        "unable": 1,
        "to": 1,
        "create": 1,
        "<q>": 1,
        "file": 1,
        "exists": 1,
        "=.git/index.lock": 1,
        "git": 1,  # the candidates' terms are counted too: every one is weighed
        "not": 1,
        "repository": 1,
    }
    assert [seen.session for seen in found.seen] == ["9e4910ab", "other"]  # of one date: by path


def test_the_watcher_keeps_them_current(vault):
    index_vault(open_index(vault), embed=False)
    note = vault.root / "episodes" / "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md"
    with Watcher(open_index(vault), debounce=0.1) as watcher:
        note.write_text(EPISODE)
        assert watcher.wait_idle(timeout=60)
        assert seen(vault) == [SEEN]
        note.unlink()
        assert watcher.wait_idle(timeout=60)
        assert seen(vault) == []


def test_an_extracted_session_is_looked_up_at_once(vault):
    index_vault(open_index(vault), embed=False)
    transcript = TRANSCRIPTS / "public" / "cipher-box" / "9e4910ab-95a9-4a30-a85e-4677017bfaf0.jsonl"
    assert run_brain("episode", "extract", str(transcript), "--vault", str(vault.root)).exit_code == 0
    found = candidates(
        vault.index_dir, "shell", "git", TERMS, lambda counts, total: {}, everywhere=True
    )  # of the folder's project
    assert found is not None
    assert [(f.title, f.session, f.fix) for f in found.seen] == [
        (
            "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0",
            "9e4910ab-95a9-4a30-a85e-4677017bfaf0",
            "`git checkout main && git pull` succeeded; it worked when run again unchanged (flaky).",
        )
    ]


def test_a_catalog_of_the_schema_before_gets_them_at_its_next_scan(vault):
    (vault.root / "episodes" / "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md").write_text(EPISODE)
    index_vault(open_index(vault), embed=False)
    db = sqlite3.connect(vault.index_dir / CATALOG_FILE)
    db.execute("DROP TABLE failures")
    db.execute("DROP TABLE failure_terms")
    db.execute("PRAGMA user_version=4")
    db.commit()
    db.close()
    assert seen(vault) is None  # another schema: the hook reads nothing rather than guess
    index_vault(open_index(vault), embed=False)
    assert seen(vault) == [SEEN]
