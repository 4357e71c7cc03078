"""The catalog's SQLite schema and its migrations, by `PRAGMA user_version`.

Older versions are migrated step by step (the catalog is derived, so a step may simply
rebuild); a newer one is refused with a reindex hint.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from brain.errors import IndexMismatch, Remedy

CATALOG_FILE = "catalog.sqlite3"
SCHEMA_VERSION = 8


def _v1(db: sqlite3.Connection) -> None:
    for table in ("notes", "links", "tags", "chunks", "skipped", "meta", "gone", "fts"):
        db.execute(f"DROP TABLE IF EXISTS {table}")
    _script(
        db,
        """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE notes(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL UNIQUE,
            folder TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            type TEXT NOT NULL,
            title TEXT NOT NULL,
            date TEXT,
            frontmatter TEXT NOT NULL,
            parsed TEXT NOT NULL,
            text TEXT NOT NULL,
            searchable INTEGER NOT NULL,
            gen INTEGER NOT NULL,
            indexed_at REAL NOT NULL,
            embedded_sha TEXT
        );
        CREATE INDEX notes_sha ON notes(sha256);
        CREATE INDEX notes_type ON notes(type);
        CREATE INDEX notes_pending ON notes(id) WHERE searchable = 1 AND (embedded_sha IS NULL OR embedded_sha != sha256);
        CREATE TABLE gone(note_id INTEGER PRIMARY KEY);
        CREATE TABLE links(note_id INTEGER NOT NULL, target TEXT NOT NULL, heading TEXT, kind TEXT NOT NULL);
        CREATE INDEX links_note ON links(note_id);
        CREATE INDEX links_target ON links(target COLLATE NOCASE);
        CREATE TABLE tags(note_id INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(note_id, tag)) WITHOUT ROWID;
        CREATE INDEX tags_tag ON tags(tag);
        CREATE TABLE chunks(
            note_id INTEGER NOT NULL, id TEXT NOT NULL, ord INTEGER NOT NULL, section TEXT,
            start INTEGER NOT NULL, end INTEGER NOT NULL, PRIMARY KEY(note_id, id)
        ) WITHOUT ROWID;
        CREATE TABLE skipped(path TEXT PRIMARY KEY, reason TEXT NOT NULL);
        CREATE VIRTUAL TABLE fts USING fts5(title, tags, meta, body, tokenize='porter unicode61 remove_diacritics 2');
        """,
    )


def _script(db: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript() would commit the migration's transaction."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v2(db: sqlite3.Connection) -> None:
    """A covering index for search filters, so allowed notes are found without reading note rows."""
    db.execute("CREATE INDEX IF NOT EXISTS notes_filter ON notes(type, date, folder, searchable, id)")


def _v3(db: sqlite3.Connection) -> None:
    """Skipped files carry the kind of their reason (doctor's fixes go by kind, not by the text).
    Existing rows are classified once, from the texts brain wrote before."""
    db.execute("ALTER TABLE skipped ADD COLUMN kind TEXT NOT NULL DEFAULT 'unreadable'")
    db.execute(
        "UPDATE skipped SET kind = CASE WHEN reason LIKE 'symlink%' THEN 'outside-symlink' "
        "WHEN reason LIKE 'binary%' OR reason = 'not searchable' THEN 'binary' ELSE 'unreadable' END"
    )


def _v4(db: sqlite3.Connection) -> None:
    """Rows by the generation they changed in, covering the path: a reader catching up after an
    edit reads the few changed rows, never the whole table (Catalog.changes_since)."""
    db.execute("CREATE INDEX IF NOT EXISTS notes_gen ON notes(gen, path)")


def _v5(db: sqlite3.Connection) -> None:
    """The failures episodes hold, by signature (what the tool-failure hook looks up). The episodes
    already cataloged are read again at the next scan: their stamps are cleared, so the scan takes
    each for a changed file (its vectors are made again with it)."""
    _script(
        db,
        """
        CREATE TABLE IF NOT EXISTS failures(
            note_id INTEGER NOT NULL, signature TEXT NOT NULL, event TEXT NOT NULL,
            error TEXT NOT NULL, fix TEXT NOT NULL, commit_text TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS failures_signature ON failures(signature);
        CREATE INDEX IF NOT EXISTS failures_note ON failures(note_id);
        UPDATE notes SET mtime_ns = 0, sha256 = '' WHERE type = 'episode'
        """,
    )


def _v6(db: sqlite3.Connection) -> None:
    """A note's `#tags` in its body count as tags (Obsidian's), kept with the parsed note: every note
    is read again at the next scan (its stamps cleared; chunks whose text is unchanged keep their
    vectors)."""
    db.execute("UPDATE notes SET mtime_ns = 0, sha256 = ''")


def _v7(db: sqlite3.Connection) -> None:
    """A failure's matching key and what worked (the tool-failure hook compares failures as error
    templates, each term weighed by how rare it is among the catalog's failures: `failure_terms`
    counts them). The table is made anew (it is derived) and every episode is read again at the
    next scan, as for `_v5`."""
    _script(
        db,
        """
        DROP TABLE IF EXISTS failures;
        DROP TABLE IF EXISTS failure_terms;
        CREATE TABLE failures(
            note_id INTEGER NOT NULL, signature TEXT NOT NULL, event TEXT NOT NULL,
            error TEXT NOT NULL, fix TEXT NOT NULL, commit_text TEXT NOT NULL,
            kind TEXT NOT NULL, program TEXT NOT NULL, terms TEXT NOT NULL,
            fix_command TEXT NOT NULL, change TEXT NOT NULL, retry INTEGER NOT NULL
        );
        CREATE INDEX failures_kind ON failures(kind, program);
        CREATE INDEX failures_note ON failures(note_id);
        CREATE TABLE failure_terms(note_id INTEGER NOT NULL, event TEXT NOT NULL, term TEXT NOT NULL);
        CREATE INDEX failure_terms_term ON failure_terms(term);
        CREATE INDEX failure_terms_failure ON failure_terms(note_id, event);
        UPDATE notes SET mtime_ns = 0, sha256 = '' WHERE type = 'episode'
        """,
    )


def _v8(db: sqlite3.Connection) -> None:
    """The chunk records the embedded Chroma store lacks or holds too many of (`vectors_behind`): a
    write to it goes to the vectors snapshot's journal at once and to Chroma later, in batches
    (vectors/vectors.py, "written behind"). A record listed here that the catalog's `chunks` list
    is one to upsert (`vector` 0: its metadata only, as for a moved note's unchanged chunks); any
    other, one to delete.

    And two covering indexes, so that reads of every note's stamp (`Catalog.stamps`, each stat
    scan) or of every note of a type's hash (`Catalog.hashed_rows`, what a hook's summaries check)
    never read the `notes` table, whose rows hold each note's text: at 50,000 notes, 112 ms against
    43 ms for the stamps, 25 ms against 9 ms for the 12,500 patterns' hashes (`notes_type_sha`
    takes over `notes_type`)."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS vectors_behind(record TEXT PRIMARY KEY, vector INTEGER NOT NULL) WITHOUT ROWID"
    )
    db.execute("CREATE INDEX IF NOT EXISTS notes_stamp ON notes(path, mtime_ns, size, sha256)")
    db.execute("CREATE INDEX IF NOT EXISTS notes_type_sha ON notes(type, path, sha256)")
    db.execute("DROP INDEX IF EXISTS notes_type")


MIGRATIONS = {1: _v1, 2: _v2, 3: _v3, 4: _v4, 5: _v5, 6: _v6, 7: _v7, 8: _v8}


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the schema of the catalog at `path` to SCHEMA_VERSION, in one transaction."""
    if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return  # current: no write transaction (every open but the first)
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise IndexMismatch(
                f"the catalog in {path.parent} was written by a newer brain (schema {version}, "
                f"this one knows {SCHEMA_VERSION}); ",
                Remedy("reindex"),
                " to rebuild it",
            )
        for step in range(version + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[step](db)
        if version != SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
