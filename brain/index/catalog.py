"""The catalog: one SQLite file in `.brain/index/` holding every note's stat, hash and parsed form.

Tables: `notes` (path, mtime_ns, size, sha256, type, title, date, frontmatter JSON, parsed JSON,
text), `links`, `tags`, `chunks` (what the vector store holds for each note), `skipped` (files
not indexed for search, with the reason), `meta` (generation counters, the embedder of the
vectors) and `fts`, an FTS5 table searched with `bm25()`.

The database runs in WAL mode, so readers never block the one writer; writers are serialized
by the index lock in `brain.index.sync`. Every committed change bumps `generation`, which is how
long-lived readers (a Corpus, a search cache) learn cheaply that something changed. The schema
carries its version in `PRAGMA user_version`: older versions are migrated step by step (the
catalog is derived, so a step may simply rebuild), a newer one is refused with a reindex hint.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from brain.errors import IndexMismatch
from brain.index import codec
from brain.notes.model import Note

CATALOG_FILE = "catalog.sqlite3"
SCHEMA_VERSION = 2
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_DATE_KEYS = ("date", "created", "valid_from", "last_validated")
_NOT_META = {"title", "type", "tags", "permalink"}


@dataclass(frozen=True)
class Stamp:
    """A file as the catalog last saw it."""

    id: int
    path: str
    mtime_ns: int
    size: int
    sha256: str


@dataclass(frozen=True)
class Row:
    """A note ready to store: the file facts and everything derived from its parsed form.

    Made where the file is parsed (a pool worker, for a cold index), so the writer only runs SQL.
    """

    path: str
    mtime_ns: int
    size: int
    sha256: str
    searchable: bool  # False for binary files: kept for doctor, left out of FTS and vectors
    type: str
    title: str
    date: str
    frontmatter: str  # JSON
    parsed: str  # JSON, see codec
    text: str
    body: str
    meta: str  # frontmatter text for full-text search
    tags: tuple[str, ...]
    links: tuple[tuple[str, str | None, str], ...]  # (target, heading, kind)
    binary_reason: str = ""

    @classmethod
    def of(cls, path: str, mtime_ns: int, size: int, sha256: str, note: Note, searchable: bool = True) -> Row:
        links = [(link.target, link.heading, "link") for link in note.links]
        links += [(r.target, None, f"relation:{r.type}") for r in note.relations]
        links += [(r.target, None, f"causal:{r.type}") for r in note.causal_relations]
        return cls(path, mtime_ns, size, sha256, searchable, note.type, note.title, note_date(note, mtime_ns),
                   codec.encode_frontmatter(note.frontmatter), codec.encode(note), note.text, note.body, meta_text(note),
                   tuple(note_tags(note)), tuple(links), "" if searchable else _binary_reason(note))


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
        """
    )


def _script(db: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: executescript() would commit the migration's transaction."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v2(db: sqlite3.Connection) -> None:
    """A covering index for search filters, so allowed notes are found without reading note rows."""
    db.execute("CREATE INDEX IF NOT EXISTS notes_filter ON notes(type, date, folder, searchable, id)")


MIGRATIONS = {1: _v1, 2: _v2}


def note_date(note: Note, mtime_ns: int) -> str:
    """The date search filters use: the first ISO date among date, created, valid_from,
    last_validated; else the file's modification day (UTC)."""
    for key in _DATE_KEYS:
        value = note.frontmatter.get(key)
        if isinstance(value, str) and _DATE.match(value.strip()):
            return value.strip()[:10]
    return datetime.fromtimestamp(mtime_ns / 1e9, tz=timezone.utc).strftime("%Y-%m-%d")


def note_tags(note: Note) -> list[str]:
    tags = [tag.lower() for tag in note.tags]
    tags += [tag.lower() for observation in note.observations for tag in observation.tags]
    return list(dict.fromkeys(tags))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def meta_text(note: Note) -> str:
    """Frontmatter text worth finding by words: task, trigger, subject, aliases ..."""
    return "\n".join(s for key, value in note.frontmatter.items() if key not in _NOT_META for s in _strings(value))


def folder_of(path: str) -> str:
    parent = PurePosixPath(path).parent.as_posix()
    return "" if parent == "." else parent


_COLUMNS = "path, folder, mtime_ns, size, sha256, type, title, date, frontmatter, parsed, text, searchable, gen, indexed_at"
_ASSIGN = ", ".join(f"{column.strip()} = ?" for column in _COLUMNS.split(","))


class Catalog:
    """One connection to a vault's catalog, safe to share between threads (calls are serialized)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self.db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=60000")
        self._migrate()
        # A second connection for reads that must not wait behind another thread's query or
        # write on the first (WAL lets them run side by side): searches, freshness checks.
        self._reader = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
        self._reader.execute("PRAGMA busy_timeout=60000")
        self._reader_lock = threading.Lock()
        self._stamps: dict[str, Stamp] | None = None
        self._df: dict[str, int] = {}
        self._df_generation: str | None = None
        self._stamps_generation = -1

    @classmethod
    def for_index_dir(cls, index_dir: Path) -> Catalog:
        return cls(Path(index_dir) / CATALOG_FILE)

    def close(self) -> None:
        with self._lock:
            self.db.close()
        with self._reader_lock:
            self._reader.close()

    def _migrate(self) -> None:
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                version = self.db.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise IndexMismatch(
                        f"the catalog in {self.path.parent} was written by a newer brain (schema {version}, "
                        f"this one knows {SCHEMA_VERSION}); run `brain reindex` to rebuild it"
                    )
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    MIGRATIONS[step](self.db)
                if version != SCHEMA_VERSION:
                    self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    # ------------------------------------------------------------ transactions and meta

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; commits with a new generation number."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
                self.db.execute(
                    "INSERT INTO meta(key, value) VALUES('generation', '1') "
                    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                )
                self.db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES('updated_at', ?)", (repr(time.time()),)
                )
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._lock:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def peek_meta(self, key: str, default: str | None = None) -> str | None:
        """`get_meta` for readers outside any write: never waits for another thread's statement."""
        with self._reader_lock:
            row = self._reader.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        """Inside `write()`."""
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    # ------------------------------------------------------------ reading

    def stamps(self) -> dict[str, Stamp]:
        """path -> Stamp for every cataloged note; cached until the generation changes."""
        with self._lock:
            generation = self.generation()
            if self._stamps is None or generation != self._stamps_generation:
                rows = self.db.execute("SELECT id, path, mtime_ns, size, sha256 FROM notes").fetchall()
                self._stamps = {row[1]: Stamp(*row) for row in rows}
                self._stamps_generation = generation
            return self._stamps

    def skipped(self) -> dict[str, str]:
        with self._lock:
            return dict(self.db.execute("SELECT path, reason FROM skipped").fetchall())

    def note_versions(self) -> dict[str, int]:
        """path -> the generation its row last changed in."""
        with self._lock:
            return dict(self.db.execute("SELECT path, gen FROM notes").fetchall())

    def load(self, paths: list[str] | None = None) -> dict[str, Note]:
        """Parsed notes from their stored form, without re-parsing (all, or the given paths)."""
        query = "SELECT path, parsed, frontmatter, text FROM notes"
        with self._lock:
            if paths is None:
                rows = self.db.execute(query).fetchall()
            else:
                rows = []
                for start in range(0, len(paths), 500):
                    part = paths[start : start + 500]
                    rows += self.db.execute(f"{query} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
        return {path: codec.decode(parsed, frontmatter, text, path) for path, parsed, frontmatter, text in rows}

    def ids_where(self, where: str, params: list[Any]) -> list[int]:
        """Ids of searchable notes meeting SQL conditions on `notes n` (see search.filter_sql)."""
        with self._lock:
            rows = self.db.execute(f"SELECT n.id FROM notes n WHERE n.searchable = 1 AND {where}", params).fetchall()
        return [row[0] for row in rows]

    def document_frequency(self, word: str) -> int:
        """How many notes a (quoted) word matches; cached until the catalog changes."""
        generation = self.peek_meta("generation")
        if self._df_generation != generation:
            self._df, self._df_generation = {}, generation
        found = self._df.get(word)
        if found is None:
            with self._reader_lock:
                found = self._reader.execute("SELECT COUNT(*) FROM fts WHERE fts MATCH ?", (f'"{word}"',)).fetchone()[0]
            self._df[word] = found
        return found

    def searchable_count(self) -> int:
        with self._reader_lock:
            return self._reader.execute("SELECT COUNT(*) FROM fts").fetchone()[0]

    def bm25(self, expression: str, weights: tuple[float, ...], depth: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """(note id, BM25 score, higher is better) for an FTS5 match expression, best first.

        With `allowed`, every match is ranked and the best allowed ones kept (filters before
        ranking); a `rowid IN (...)` constraint inside the FTS query is far slower in SQLite.
        """
        columns = ", ".join(str(weight) for weight in weights)
        sql = f"SELECT rowid, -bm25(fts, {columns}) AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC"
        with self._reader_lock:
            if allowed is None:
                return [(row[0], float(row[1])) for row in self._reader.execute(sql + " LIMIT ?", (expression, depth))]
            found = []
            for note_id, score in self._reader.execute(sql, (expression,)):
                if note_id in allowed:
                    found.append((note_id, float(score)))
                    if len(found) >= depth:
                        break
            return found

    def counts_by_type(self) -> dict[str, int]:
        with self._lock:
            return dict(self.db.execute("SELECT type, COUNT(*) FROM notes GROUP BY type ORDER BY type").fetchall())

    def info(self, note_ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
        """id -> (path, title, type, text)."""
        if not note_ids:
            return {}
        with self._lock:
            rows = self.db.execute(
                f"SELECT id, path, title, type, text FROM notes WHERE id IN ({','.join('?' * len(note_ids))})", note_ids
            ).fetchall()
        return {row[0]: row[1:] for row in rows}

    # ------------------------------------------------------------ writing (inside write())

    def put(self, row: Row, note_id: int | None = None) -> int:
        """Insert or replace a note's rows; `note_id` keeps an existing identity (a moved file)."""
        generation = self.generation() + 1
        values = (
            row.path, folder_of(row.path), row.mtime_ns, row.size, row.sha256, row.type, row.title, row.date,
            row.frontmatter, row.parsed, row.text, int(row.searchable), generation, time.time(),
        )
        if note_id is None:
            existing = self.db.execute("SELECT id FROM notes WHERE path = ?", (row.path,)).fetchone()
            note_id = existing[0] if existing else None
        if note_id is None:
            note_id = self.db.execute(f"INSERT INTO notes({_COLUMNS}) VALUES({','.join('?' * 14)})", values).lastrowid
        else:
            self._clear_derived(note_id)
            self.db.execute(f"UPDATE notes SET {_ASSIGN}, embedded_sha = NULL WHERE id = ?", (*values, note_id))
        self.db.execute("DELETE FROM skipped WHERE path = ?", (row.path,))
        self.db.executemany("INSERT OR IGNORE INTO tags(note_id, tag) VALUES(?, ?)", [(note_id, tag) for tag in row.tags])
        self.db.executemany("INSERT INTO links(note_id, target, heading, kind) VALUES(?, ?, ?, ?)", [(note_id, *link) for link in row.links])
        if row.searchable:
            self.db.execute(
                "INSERT INTO fts(rowid, title, tags, meta, body) VALUES(?, ?, ?, ?, ?)",
                (note_id, row.title, " ".join(row.tags), row.meta, row.body),
            )
        else:
            self.db.execute("INSERT OR REPLACE INTO skipped(path, reason) VALUES(?, ?)", (row.path, row.binary_reason))
            self.db.execute("INSERT OR IGNORE INTO gone(note_id) VALUES(?)", (note_id,))
        return note_id

    def touch(self, note_id: int, mtime_ns: int, size: int) -> None:
        """The file's stat changed but its bytes did not: nothing to re-parse."""
        self.db.execute("UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", (mtime_ns, size, note_id))

    def remove(self, note_id: int) -> None:
        """Forget a note. Its `chunks` rows stay until the vector store has dropped them."""
        self._clear_derived(note_id)
        self.db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        self.db.execute("INSERT OR IGNORE INTO gone(note_id) VALUES(?)", (note_id,))

    def _clear_derived(self, note_id: int) -> None:
        self.db.execute("DELETE FROM fts WHERE rowid = ?", (note_id,))
        self.db.execute("DELETE FROM links WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM tags WHERE note_id = ?", (note_id,))

    def skip(self, path: str, reason: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO skipped(path, reason) VALUES(?, ?)", (path, reason))

    def unskip(self, paths: list[str]) -> None:
        self.db.executemany("DELETE FROM skipped WHERE path = ?", [(path,) for path in paths])

    def clear(self) -> None:
        """Drop every note row (for reindex); meta counters survive so readers see a change."""
        for table in ("notes", "links", "tags", "chunks", "skipped", "gone", "fts"):
            self.db.execute(f"DELETE FROM {table}")
        self.set_meta("embedder", None)

    # ------------------------------------------------------------ chunks (what the vector store holds)

    def pending_vectors(self) -> list[tuple[int, str]]:
        """(id, path) of searchable notes whose vectors are missing or older than their text."""
        with self._lock:
            return self.db.execute(
                "SELECT id, path FROM notes INDEXED BY notes_pending "
                "WHERE searchable = 1 AND (embedded_sha IS NULL OR embedded_sha != sha256) ORDER BY id"
            ).fetchall()

    def chunk_rows(self, note_id: int) -> dict[str, tuple[int, str | None, int, int]]:
        with self._lock:
            rows = self.db.execute("SELECT id, ord, section, start, end FROM chunks WHERE note_id = ?", (note_id,)).fetchall()
        return {row[0]: row[1:] for row in rows}

    def chunk_spans(self, keys: list[tuple[int, str]]) -> dict[tuple[int, str], tuple[str | None, int, int]]:
        """(note id, chunk id) -> (section, start, end) of the chunk's text in the note."""
        found: dict[tuple[int, str], tuple[str | None, int, int]] = {}
        with self._lock:
            for note_id, chunk_id in keys:
                row = self.db.execute(
                    "SELECT section, start, end FROM chunks WHERE note_id = ? AND id = ?", (note_id, chunk_id)
                ).fetchone()
                if row:
                    found[(note_id, chunk_id)] = row
        return found

    def chunk_keys(self, note_ids: list[int]) -> list[tuple[int, str]]:
        """(note id, chunk id) of every chunk the vector store holds for these notes."""
        keys: list[tuple[int, str]] = []
        with self._lock:
            for start in range(0, len(note_ids), 500):
                part = note_ids[start : start + 500]
                keys += self.db.execute(f"SELECT note_id, id FROM chunks WHERE note_id IN ({','.join('?' * len(part))})", part).fetchall()
        return keys

    def orphan_chunks(self) -> list[tuple[int, str]]:
        """Chunks of notes that were removed or became unsearchable since the vectors were updated."""
        with self._lock:
            return self.db.execute(
                "SELECT c.note_id, c.id FROM gone g JOIN chunks c ON c.note_id = g.note_id"
            ).fetchall()

    def has_gone(self) -> bool:
        with self._lock:
            return self.db.execute("SELECT 1 FROM gone LIMIT 1").fetchone() is not None

    def clear_gone(self) -> None:
        """Inside `write()`, once the vector store dropped their chunks."""
        self.db.execute("DELETE FROM chunks WHERE note_id IN (SELECT note_id FROM gone)")
        self.db.execute("DELETE FROM gone")

    def set_chunks(self, note_id: int, rows: list[tuple[str, int, str | None, int, int]], sha256: str) -> None:
        """Inside `write()`: the chunks the vector store now holds for a note, made from `sha256`."""
        self.db.execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))
        self.db.executemany(
            "INSERT OR REPLACE INTO chunks(note_id, id, ord, section, start, end) VALUES(?, ?, ?, ?, ?, ?)",
            [(note_id, *row) for row in rows],
        )
        self.db.execute("UPDATE notes SET embedded_sha = ? WHERE id = ?", (sha256, note_id))

    def chunk_count(self) -> int:
        with self._lock:
            return self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def note_row(self, note_id: int) -> tuple[str, str, str, str, str] | None:
        """(path, type, folder, sha256, text) of a note."""
        with self._lock:
            return self.db.execute("SELECT path, type, folder, sha256, text FROM notes WHERE id = ?", (note_id,)).fetchone()


def _binary_reason(note: Note) -> str:
    return "binary file (NUL bytes); kept out of search" if "\x00" in note.text else "not searchable"


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
