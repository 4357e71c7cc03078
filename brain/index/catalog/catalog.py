"""The catalog: one SQLite file in `.brain/index/` holding every note's stat, hash and parsed form.

Tables: `notes` (path, mtime_ns, size, sha256, type, title, date, frontmatter JSON, parsed JSON,
text), `links`, `tags`, `failures` (the failures episodes hold, by signature: `brain.memory.episodes.signature`), `chunks` (what the vector store holds for each note), `skipped` (files
not indexed for search, with the reason), `meta` (generation counters, the embedder of the
vectors) and `fts`, an FTS5 table searched with `bm25()`.

This module is the connection and its statements (reads, writes, the search queries); the
tables are made in `schema.py` and a note's row in `rows.py`. The database runs in WAL mode, so
readers never block the one writer; writers are serialized by the index lock (`Index.locked`).
Reads go through connections of their own, one per reading thread at a time (`_connection`), so
an MCP server's searches run side by side and beside a write transaction, each seeing the last
committed state; only the thread inside `write()` reads through the writing connection (it sees
its own changes).
Every committed change bumps `generation`, which is how long-lived readers (a Corpus, a search
cache) learn cheaply that something changed.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from brain.errors import IndexMismatch, Remedy, storage_error
from brain.index.catalog import codec
from brain.index.catalog.chunks import ChunkTable
from brain.index.catalog.rows import Row, Stamp, folder_of
from brain.index.catalog.schema import CATALOG_FILE, SCHEMA_VERSION, migrate
from brain.markdown.model import Note, NoteHeader
from brain.vault.note_files import Skip, SkipKind

__all__ = ["CATALOG_FILE", "SCHEMA_VERSION", "Catalog", "Row", "Stamp"]  # schema and rows live beside it

_COLUMNS = (
    "path, folder, mtime_ns, size, sha256, type, title, date, frontmatter, parsed, text, searchable, gen, indexed_at"
)
_ASSIGN = ", ".join(f"{column.strip()} = ?" for column in _COLUMNS.split(","))


class Catalog(ChunkTable):
    """A vault's catalog, safe to share between threads: one writing connection (writes are
    serialized by its lock) and a pool of reading connections (reads run at once)."""

    def __init__(self, path: Path, *, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.RLock()
        if self.path.exists() and not self.path.is_file():  # a folder (or a device) in the catalog's place
            raise IndexMismatch(
                f"the catalog {self.path} is not a file and cannot be read; ",
                Remedy("rebuild_index", folder=str(self.path.parent)),
            )
        if read_only:
            # On a read-only disk SQLite cannot make the WAL's shared memory; `immutable` reads
            # the file as it is, with no locks (nothing can change it through this mount).
            self.db = self._connect_read_only()
            if self.db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                raise IndexMismatch(
                    f"the catalog in {self.path.parent} has another schema and the vault is read-only, "
                    "so it cannot be migrated; reading the notes from their files"
                )
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA busy_timeout=60000")
                self._migrate()
            except sqlite3.DatabaseError as error:
                self.db.close()
                if storage_error(error) is not None or not _damaged(error):
                    raise  # a fault of the disk is translated as such; anything else is a bug
                raise IndexMismatch(
                    f"the catalog {self.path} is damaged and cannot be read; ",
                    Remedy("rebuild_index", folder=str(self.path.parent)),
                ) from None
        self._writer: int | None = None  # the thread inside write(), which reads through self.db
        self._idle: list[sqlite3.Connection] = []  # reading connections no thread uses now
        self._pinned = threading.local()  # .db: the connection of this thread's `reading()` block
        self._closed = False
        self._stamps: dict[str, Stamp] | None = None
        self._stamps_lock = threading.Lock()  # the cached stamps, shared by reading threads and the writer
        self._df: dict[str, int] = {}
        self._df_generation: str | None = None
        self._stamps_generation = -1
        self._patched_generation = -1  # the generation our own commits brought the stamps to (see _restamp)
        self._unstamped: set[str] = set()  # paths those commits wrote, not yet patched into _stamps
        self._written: set[str] | None = None  # paths the open write transaction changed (None: too many to track)
        self._settled: list[Callable[[bool], None]] | None = None  # what to call once the write ends (when_settled)

    @classmethod
    def for_index_dir(cls, index_dir: Path, *, read_only: bool = False) -> Catalog:
        return cls(Path(index_dir) / CATALOG_FILE, read_only=read_only)

    def _connect_read_only(self) -> sqlite3.Connection:
        uri = f"{self.path.resolve().as_uri()}?mode=ro&immutable=1"
        return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)

    def _connect_reader(self) -> sqlite3.Connection:
        if self.read_only:
            return self._connect_read_only()
        reader = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False, isolation_level=None)
        reader.execute("PRAGMA busy_timeout=60000")
        return reader

    @contextmanager
    def _connection(self, *, latest: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection a read uses: inside this thread's `write()`, the writing one (the read sees
        the transaction's own changes); else a reading connection of its own for the read's length,
        taken from the idle ones (list.pop and append are atomic) or opened, so no read waits for
        another thread's read or write. Inside `reading()`, its snapshot, unless `latest`."""
        if self._writer == threading.get_ident():
            yield self.db
            return
        pinned = None if latest else getattr(self._pinned, "db", None)
        if pinned is not None:  # inside `reading()` on this thread: its snapshot
            yield pinned
            return
        try:
            reader = self._idle.pop()
        except IndexError:
            reader = self._connect_reader()
        try:
            yield reader
        finally:
            if reader.in_transaction:  # a read cut short inside `_snapshot`
                reader.execute("ROLLBACK")
            self._idle.append(reader)
            if self._closed:  # closed meanwhile: this connection was not idle then
                self._close_idle()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Every read of this thread inside sees one state of the catalog, the last committed when
        the block began, whatever commits meanwhile (one read transaction): an answer made of
        several reads (a search's rankings, then its hits' rows) is made from one state."""
        if self._writer == threading.get_ident() or getattr(self._pinned, "db", None) is not None:
            yield
            return
        with self._snapshot() as db:
            self._pinned.db = db
            try:
                yield
            finally:
                self._pinned.db = None

    def _close_idle(self) -> None:
        while True:
            try:
                self._idle.pop().close()
            except IndexError:
                return

    def close(self) -> None:
        self._closed = True
        with self._lock:
            self.db.close()
        self._close_idle()

    def _migrate(self) -> None:
        with self._lock:
            migrate(self.db, self.path)

    # ------------------------------------------------------------ transactions and meta

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; commits with a new generation number."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            outer, self._writer = self._writer, threading.get_ident()
            settled: list[Callable[[bool], None]] = []
            self._settled = settled
            try:
                before = self.generation()
                self._written = set()
                yield self.db
                self.db.execute(
                    "INSERT INTO meta(key, value) VALUES('generation', '1') "
                    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                )
                self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('updated_at', ?)", (repr(time.time()),))
                self.db.execute("COMMIT")
            except BaseException:
                self._written = None
                self.db.execute("ROLLBACK")
                for settle in settled:
                    settle(False)
                raise
            finally:
                self._writer, self._settled = outer, None
            self._restamp(before)
            for settle in settled:
                settle(True)

    def when_settled(self, settle: Callable[[bool], None]) -> None:
        """Inside `write()`: call `settle(committed)` once the transaction committed (True) or was
        rolled back (False), still holding the catalog's lock. What a reader in another thread
        sees changes at the commit: a cache published here changes with it."""
        if self._settled is None or self._writer != threading.get_ident():  # not inside a write: nothing to wait for
            settle(True)
            return
        self._settled.append(settle)

    def _restamp(self, before: int) -> None:
        """After our own commit (generation `before` -> `before + 1`): remember the paths it wrote,
        so the next `stamps()` patches its cache with just those rows instead of reloading every
        row (a write of one note would cost a 10k-row read). The patch waits for that call: a scan
        that commits fifty batches in a row patches once, not fifty times."""
        written, self._written = self._written, None
        with self._stamps_lock:
            if self._stamps is None or written is None or before != self._patched_generation:
                self._stamps, self._unstamped = None, set()  # someone else wrote in between: reload when asked
                return
            self._unstamped |= written
            self._patched_generation = before + 1
            if len(self._unstamped) > max(1000, len(self._stamps) // 4):
                self._stamps, self._unstamped = None, set()  # most rows changed: reading them all is as quick

    def _patch_stamps(self, db: sqlite3.Connection) -> None:
        """Bring the cached stamps up to `_patched_generation` with the rows our commits wrote."""
        assert self._stamps is not None
        stamps = dict(self._stamps)  # callers may hold the old dict: never change it under them
        paths = sorted(self._unstamped)
        for start in range(0, len(paths), 500):
            part = paths[start : start + 500]
            rows = db.execute(
                f"SELECT id, path, mtime_ns, size, sha256 FROM notes WHERE path IN ({','.join('?' * len(part))})", part
            ).fetchall()
            for path in part:
                stamps.pop(path, None)
            stamps.update((row[1], Stamp(*row)) for row in rows)
        self._unstamped = set()
        if db.execute("SELECT COUNT(*) FROM notes").fetchone()[0] != len(stamps):
            self._stamps = None  # rows changed some other way than put/touch/remove: reload
            return
        self._stamps, self._stamps_generation = stamps, self._patched_generation

    def _wrote(self, *paths: str | None) -> None:
        if self._written is not None:
            self._written.update(path for path in paths if path)

    def _path_of(self, note_id: int) -> str | None:
        row = self.db.execute("SELECT path FROM notes WHERE id = ?", (note_id,)).fetchone()
        return row[0] if row else None

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        with self._connection() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def peek_meta(self, key: str, default: str | None = None) -> str | None:
        """The value committed last, even inside a `reading()` block (whose snapshot may be older):
        what the vector store checks its copy against."""
        with self._connection(latest=True) as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        """Inside `write()`."""
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def put_meta(self, key: str, value: str | None) -> None:
        """One meta value on its own, outside `write()`: no new generation (bookkeeping that no
        reader caches, such as the vector store's stamp)."""
        with self._lock:
            self.set_meta(key, value)

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """The reads inside, on the connection yielded, see one state of the catalog (one read
        transaction; inside this thread's write(), the write's own)."""
        with self._connection() as db:
            if db is self.db or db.in_transaction:  # the write's own, or this thread's `reading()`
                yield db
                return
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    def generation(self) -> int:
        return int(self.get_meta("generation", "0") or 0)

    # ------------------------------------------------------------ reading

    def stamps(self) -> dict[str, Stamp]:
        """path -> Stamp for every cataloged note; cached until the generation changes."""
        with self._stamps_lock, self._snapshot() as db:
            generation = int((db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone() or (0,))[0] or 0)
            if (
                self._stamps is not None
                and generation != self._stamps_generation
                and generation == self._patched_generation
            ):
                self._patch_stamps(db)
            if self._stamps is None or generation != self._stamps_generation:
                rows = db.execute("SELECT id, path, mtime_ns, size, sha256 FROM notes").fetchall()
                self._stamps = {row[1]: Stamp(*row) for row in rows}
                self._stamps_generation = self._patched_generation = generation
                self._unstamped = set()
            return self._stamps

    def skipped(self) -> dict[str, Skip]:
        with self._connection() as db:
            rows = db.execute("SELECT path, kind, reason FROM skipped").fetchall()
        return {path: Skip(SkipKind(kind), reason) for path, kind, reason in rows}

    def note_versions(self, types: frozenset[str] | None = None) -> dict[str, int]:
        """path -> the generation its row last changed in (of the notes of `types`, or of all)."""
        where, params = _of_types(types)
        with self._connection() as db:
            return dict(db.execute(f"SELECT path, gen FROM notes WHERE {where}", params).fetchall())

    def hashed_rows(
        self, note_type: str, wanted: Callable[[dict[str, str]], list[str]]
    ) -> tuple[dict[str, str], dict[str, tuple[int, Note]]]:
        """path -> the sha256 of its file for the notes of a type, and `load_rows` of the paths
        `wanted(those hashes)` names, from one snapshot."""
        with self._snapshot() as db:
            hashes = dict(db.execute("SELECT path, sha256 FROM notes WHERE type = ?", (note_type,)).fetchall())
            return hashes, self._load_rows(db, wanted(hashes))

    def changes_since(self, generation: int, types: frozenset[str] | None = None) -> tuple[int, dict[str, int], int]:
        """(generation now, path -> gen of the rows changed after `generation`, how many notes there
        are), from one snapshot, of the notes of `types` (None: all). A reader that knows those notes
        as of `generation` can tell from the count whether any was removed since (then it needs
        `note_versions`); a note whose type changed away from `types` counts as removed."""
        where, params = _of_types(types)
        with self._snapshot() as db:
            now = int((db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone() or (0,))[0] or 0)
            query = f"SELECT path, gen FROM notes WHERE gen > ? AND {where}"
            changed = dict(db.execute(query, (generation, *params)).fetchall())
            count = db.execute(f"SELECT COUNT(*) FROM notes WHERE {where}", params).fetchone()[0]
        return now, changed, count

    def load(self, paths: list[str] | None = None) -> dict[str, Note]:
        """Parsed notes from their stored form, without re-parsing (all, or the given paths)."""
        return {path: note for path, (_, note) in self.load_rows(paths).items()}

    def load_rows(
        self,
        paths: list[str] | None = None,
        *,
        types: frozenset[str] | None = None,
        other_than: frozenset[str] = frozenset(),
    ) -> dict[str, tuple[int, Note]]:
        """path -> (the generation the row last changed in, its parsed note): the given paths, or
        the notes of `types` (None: every type) but those of `other_than`."""
        with self._connection() as db:
            return self._load_rows(db, paths, types=types, other_than=other_than)

    def _load_rows(
        self,
        db: sqlite3.Connection,
        paths: list[str] | None,
        *,
        types: frozenset[str] | None = None,
        other_than: frozenset[str] = frozenset(),
    ) -> dict[str, tuple[int, Note]]:
        query = "SELECT path, gen, parsed, frontmatter, text FROM notes"
        if paths is None:
            where, params = _of_types(types)
            if other_than:
                where += f" AND type NOT IN ({','.join('?' * len(other_than))})"
                params = [*params, *sorted(other_than)]
            rows = db.execute(f"{query} WHERE {where}", params).fetchall()
        else:
            rows = []
            for start in range(0, len(paths), 500):
                part = paths[start : start + 500]
                rows += db.execute(f"{query} WHERE path IN ({','.join('?' * len(part))})", part).fetchall()
        return {path: (gen, codec.decode(parsed, fm, text, path)) for path, gen, parsed, fm, text in rows}

    def load_where(
        self,
        note_type: str,
        keep: Callable[[NoteHeader], bool],
        first: tuple[Callable[[NoteHeader], Any], int] | None = None,
        equal: tuple[str, str] | None = None,
    ) -> dict[str, tuple[int, Note]]:
        """`load_rows` of the notes of a type whose header passes `keep` (a header is the row's path,
        title and frontmatter), by path; with `first=(key, n)`, the first n by `key`, in that order.
        The others are never decoded. With `equal=(key, value)`, only the rows whose frontmatter
        `key` reads as `value` (as `has_value` compares) have their header decoded for `keep`."""
        sql, params = "SELECT path, title, frontmatter FROM notes WHERE type = ?", [note_type]
        if equal is not None:
            sql += " AND CAST(json_extract(frontmatter, ?) AS TEXT) = ?"
            params += [f'$."{equal[0]}"', equal[1]]
        with self._snapshot() as db:
            rows = db.execute(f"{sql} ORDER BY path", params).fetchall()
            wanted = [header for header in (NoteHeader(p, t, json.loads(fm)) for p, t, fm in rows) if keep(header)]
            if first is not None:
                key, count = first
                wanted = sorted(wanted, key=key)[:count]
            loaded = self._load_rows(db, [header.path for header in wanted])
            return {header.path: loaded[header.path] for header in wanted if header.path in loaded}

    def has_value(self, note_type: str, key: str, value: str) -> bool:
        """Whether a note of the type has `value` under the frontmatter `key`: one query, no row decoded."""
        with self._connection() as db:
            found = db.execute(
                "SELECT 1 FROM notes WHERE type = ? AND CAST(json_extract(frontmatter, ?) AS TEXT) = ? LIMIT 1",
                (note_type, f'$."{key}"', value),
            ).fetchone()
        return found is not None

    def ids_where(self, where: str, params: list[Any]) -> list[int]:
        """Ids of searchable notes meeting SQL conditions on `notes n` (see search.filter_sql)."""
        with self._connection() as db:
            rows = db.execute(f"SELECT n.id FROM notes n WHERE n.searchable = 1 AND {where}", params).fetchall()
        return [row[0] for row in rows]

    def document_frequency(self, word: str) -> int:
        """How many notes a (quoted) word matches; cached until the catalog changes."""
        return self._counted(f'"{word}"', "SELECT COUNT(*) FROM fts WHERE fts MATCH ?", (f'"{word}"',))

    def searchable_count(self) -> int:
        """How many notes full-text search holds (FTS5's N); cached until the catalog changes."""
        return self._counted("", "SELECT COUNT(*) FROM fts", ())

    def _counted(self, key: str, sql: str, params: tuple[str, ...]) -> int:
        generation = self.peek_meta("generation")
        if self._df_generation != generation:
            self._df, self._df_generation = {}, generation
        found = self._df.get(key)
        if found is None:
            with self._connection() as db:
                found = int(db.execute(sql, params).fetchone()[0])
            self._df[key] = found
        return found

    def bm25(
        self, expression: str, weights: tuple[float, ...], depth: int, allowed: set[int] | None = None
    ) -> list[tuple[int, float]]:
        """(note id, BM25 score, higher is better) for an FTS5 match expression, best first.

        With `allowed`, every match is ranked and the best allowed ones kept (filters before
        ranking); a `rowid IN (...)` constraint inside the FTS query is far slower in SQLite.
        """
        columns = ", ".join(str(weight) for weight in weights)
        sql = f"SELECT rowid, -bm25(fts, {columns}) AS score FROM fts WHERE fts MATCH ? ORDER BY score DESC"
        with self._connection() as db:
            if allowed is None:
                return [(row[0], float(row[1])) for row in db.execute(sql + " LIMIT ?", (expression, depth))]
            found = []
            for note_id, score in db.execute(sql, (expression,)):
                if note_id in allowed:
                    found.append((note_id, float(score)))
                    if len(found) >= depth:
                        break
            return found

    def bm25_of(self, expression: str, weights: tuple[float, ...], note_ids: list[int]) -> dict[int, float]:
        """The BM25 score of each of `note_ids` that matches (the others are absent).

        `+rowid` keeps the id list out of FTS5's plan: pushed into it, each id would be a query of
        its own; applied after the match, BM25 is computed for these notes only."""
        if not note_ids:
            return {}
        columns = ", ".join(str(weight) for weight in weights)
        sql = (
            f"SELECT rowid, -bm25(fts, {columns}) FROM fts WHERE fts MATCH ? "
            f"AND +rowid IN ({','.join('?' * len(note_ids))})"
        )
        with self._connection() as db:
            return {row[0]: float(row[1]) for row in db.execute(sql, (expression, *note_ids))}

    def counts_by_type(self) -> dict[str, int]:
        with self._connection() as db:
            return dict(db.execute("SELECT type, COUNT(*) FROM notes GROUP BY type ORDER BY type").fetchall())

    def info(self, note_ids: list[int]) -> dict[int, tuple[str, str, str, str]]:
        """id -> (path, title, type, text)."""
        if not note_ids:
            return {}
        with self._connection() as db:
            rows = db.execute(
                f"SELECT id, path, title, type, text FROM notes WHERE id IN ({','.join('?' * len(note_ids))})", note_ids
            ).fetchall()
        return {row[0]: row[1:] for row in rows}

    # ------------------------------------------------------------ writing (inside write())

    def put(self, row: Row, note_id: int | None = None) -> int:
        """Insert or replace a note's rows; `note_id` keeps an existing identity (a moved file)."""
        generation = self.generation() + 1
        values = (
            row.path,
            folder_of(row.path),
            row.mtime_ns,
            row.size,
            row.sha256,
            row.type,
            row.title,
            row.date,
            row.frontmatter,
            row.parsed,
            row.text,
            int(row.searchable),
            generation,
            time.time(),
        )
        if note_id is None:
            existing = self.db.execute("SELECT id FROM notes WHERE path = ?", (row.path,)).fetchone()
            note_id = existing[0] if existing else None
        else:
            self._wrote(self._path_of(note_id))  # a move: the old path goes
        self._wrote(row.path)
        if note_id is None:
            inserted = self.db.execute(f"INSERT INTO notes({_COLUMNS}) VALUES({','.join('?' * 14)})", values).lastrowid
            # sqlite3 sets lastrowid after every successful INSERT into a rowid table; None only before any.
            assert inserted is not None
            note_id = inserted
        else:
            self._clear_derived(note_id)
            self.db.execute(f"UPDATE notes SET {_ASSIGN}, embedded_sha = NULL WHERE id = ?", (*values, note_id))
        self.db.execute("DELETE FROM skipped WHERE path = ?", (row.path,))
        self.db.executemany(
            "INSERT OR IGNORE INTO tags(note_id, tag) VALUES(?, ?)", [(note_id, tag) for tag in row.tags]
        )
        self.db.executemany(
            "INSERT INTO links(note_id, target, heading, kind) VALUES(?, ?, ?, ?)",
            [(note_id, *link) for link in row.links],
        )
        self.db.executemany(
            "INSERT INTO failures(note_id, signature, event, error, fix, commit_text, kind, program, terms, "
            "fix_command, change, retry) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(note_id, *failure) for failure in row.failures],
        )
        self.db.executemany(
            "INSERT INTO failure_terms(note_id, event, term) VALUES(?, ?, ?)",
            [(note_id, failure[1], term) for failure in row.failures for term in failure[7].split("\n") if term],
        )
        if row.searchable:
            self.db.execute(
                "INSERT INTO fts(rowid, title, tags, meta, body) VALUES(?, ?, ?, ?, ?)",
                (note_id, row.title, " ".join(row.tags), row.meta, row.body),
            )
        else:
            self.skip(row.path, row.skip or Skip(SkipKind.BINARY, "not searchable"))
            self.db.execute("INSERT OR IGNORE INTO gone(note_id) VALUES(?)", (note_id,))
        return note_id

    def touch(self, note_id: int, mtime_ns: int, size: int) -> None:
        """The file's stat changed but its bytes did not: nothing to re-parse."""
        self._wrote(self._path_of(note_id))
        self.db.execute("UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", (mtime_ns, size, note_id))

    def remove(self, note_id: int) -> None:
        """Forget a note. Its `chunks` rows stay until the vector store has dropped them."""
        self._wrote(self._path_of(note_id))
        self._clear_derived(note_id)
        self.db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        self.db.execute("INSERT OR IGNORE INTO gone(note_id) VALUES(?)", (note_id,))

    def _clear_derived(self, note_id: int) -> None:
        self.db.execute("DELETE FROM fts WHERE rowid = ?", (note_id,))
        self.db.execute("DELETE FROM links WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM tags WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM failures WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM failure_terms WHERE note_id = ?", (note_id,))

    def skip(self, path: str, skip: Skip) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO skipped(path, kind, reason) VALUES(?, ?, ?)", (path, skip.kind.value, skip.reason)
        )

    def unskip(self, paths: list[str]) -> None:
        self.db.executemany("DELETE FROM skipped WHERE path = ?", [(path,) for path in paths])

    def clear(self) -> None:
        """Drop every note row (for reindex); meta counters survive so readers see a change."""
        self._written = None
        for table in (
            "notes",
            "links",
            "tags",
            "chunks",
            "skipped",
            "gone",
            "fts",
            "failures",
            "failure_terms",
            "vectors_behind",
        ):
            self.db.execute(f"DELETE FROM {table}")
        self.set_meta("embedder", None)

    def note_row(self, note_id: int) -> tuple[str, str, str, str, str] | None:
        """(path, type, folder, sha256, text) of a note."""
        with self._connection() as db:
            row: tuple[str, str, str, str, str] | None = db.execute(
                "SELECT path, type, folder, sha256, text FROM notes WHERE id = ?", (note_id,)
            ).fetchone()
        return row


def _of_types(types: frozenset[str] | None) -> tuple[str, list[str]]:
    """A WHERE condition on `notes` for rows of these types (None: every row) and its parameters."""
    if types is None:
        return "1", []
    return f"type IN ({','.join('?' * len(types))})", sorted(types)


def _damaged(error: sqlite3.DatabaseError) -> bool:
    """SQLite's words for a file that is not a database, or one whose pages are broken."""
    text = str(error).lower()
    return "not a database" in text or "malformed" in text
