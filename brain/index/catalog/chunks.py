"""The catalog's `chunks` rows: what the vector store holds for each note, and which notes wait
for their vectors. A part of `Catalog` (its connections), kept apart by concern."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager


class ChunkTable:
    db: sqlite3.Connection
    _connection: Callable[[], AbstractContextManager[sqlite3.Connection]]

    def pending_vectors(self) -> list[tuple[int, str]]:
        """(id, path) of searchable notes whose vectors are missing or older than their text."""
        with self._connection() as db:
            return db.execute(
                "SELECT id, path FROM notes INDEXED BY notes_pending "
                "WHERE searchable = 1 AND (embedded_sha IS NULL OR embedded_sha != sha256) ORDER BY id"
            ).fetchall()

    def mark_all_pending(self) -> None:
        """Inside `write()`: every note's vectors are to be made again (see engine.Index)."""
        self.db.execute("UPDATE notes SET embedded_sha = NULL WHERE embedded_sha IS NOT NULL")

    def chunk_rows(self, note_id: int) -> dict[str, tuple[int, str | None, int, int]]:
        with self._connection() as db:
            rows = db.execute(
                "SELECT id, ord, section, start, end FROM chunks WHERE note_id = ?", (note_id,)
            ).fetchall()
        return {row[0]: row[1:] for row in rows}

    def chunk_spans(self, keys: list[tuple[int, str]]) -> dict[tuple[int, str], tuple[str | None, int, int]]:
        """(note id, chunk id) -> (section, start, end) of the chunk's text in the note, for notes whose
        chunks were made from their current text (a note changed since waits for its vectors: its
        chunks' offsets are those of its old text)."""
        found: dict[tuple[int, str], tuple[str | None, int, int]] = {}
        with self._connection() as db:
            for note_id, chunk_id in keys:
                row = db.execute(
                    "SELECT c.section, c.start, c.end FROM chunks c JOIN notes n ON n.id = c.note_id "
                    "WHERE c.note_id = ? AND c.id = ? AND n.embedded_sha = n.sha256",
                    (note_id, chunk_id),
                ).fetchone()
                if row:
                    found[(note_id, chunk_id)] = row
        return found

    def orphan_chunks(self) -> list[tuple[int, str]]:
        """Chunks of notes that were removed or became unsearchable since the vectors were updated."""
        with self._connection() as db:
            return db.execute("SELECT c.note_id, c.id FROM gone g JOIN chunks c ON c.note_id = g.note_id").fetchall()

    def has_gone(self) -> bool:
        with self._connection() as db:
            return db.execute("SELECT 1 FROM gone LIMIT 1").fetchone() is not None

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
        with self._connection() as db:
            count: int = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        return count

    def chunk_count_of(self, note_ids: list[int]) -> int:
        """The chunk rows of these notes."""
        count = 0
        with self._connection() as db:
            for start in range(0, len(note_ids), 500):
                part = note_ids[start : start + 500]
                count += db.execute(
                    f"SELECT COUNT(*) FROM chunks WHERE note_id IN ({','.join('?' * len(part))})", part
                ).fetchone()[0]
        return count

    def embedded_chunk_count(self) -> int:
        """Chunks of the notes whose vectors are made from their current text (the others wait)."""
        with self._connection() as db:
            count: int = db.execute(
                "SELECT COUNT(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE n.searchable = 1 AND n.embedded_sha = n.sha256"
            ).fetchone()[0]
        return count

    def chunk_ids(self) -> list[tuple[int, str]]:
        """(note id, chunk id) of every chunk the vector store should hold."""
        with self._connection() as db:
            return db.execute("SELECT note_id, id FROM chunks").fetchall()

    def chunk_records(self, note_ids: list[int] | None = None) -> list[tuple[int, str, int, str | None, str, str, str]]:
        """(note id, chunk id, ord, section, path, type, folder) of every chunk (of these notes only, when
        given), what its vector's record holds."""
        select = "SELECT c.note_id, c.id, c.ord, c.section, n.path, n.type, n.folder FROM chunks c JOIN notes n ON n.id = c.note_id"
        with self._connection() as db:
            if note_ids is None:
                return db.execute(f"{select} ORDER BY c.note_id, c.ord").fetchall()
            found = []
            for start in range(0, len(note_ids), 500):
                part = note_ids[start : start + 500]
                found += db.execute(f"{select} WHERE c.note_id IN ({','.join('?' * len(part))})", part).fetchall()
            return found

    def behind(self) -> list[str]:
        """The chunk records the embedded Chroma store is behind on (`schema._v8`)."""
        with self._connection() as db:
            return [row[0] for row in db.execute("SELECT record FROM vectors_behind")]

    def behind_rows(self, limit: int) -> list[tuple[str, bool]]:
        """The first `limit` records Chroma is behind on, a note's together, each with whether its
        vector is to be written (else its metadata only)."""
        with self._connection() as db:
            rows = db.execute("SELECT record, vector FROM vectors_behind ORDER BY record LIMIT ?", (limit,))
            return [(record, bool(vector)) for record, vector in rows]

    def behind_count(self) -> int:
        with self._connection() as db:
            count: int = db.execute("SELECT COUNT(*) FROM vectors_behind").fetchone()[0]
        return count

    def add_behind(self, records: dict[str, bool]) -> None:
        """Inside `write()`: Chroma is to be brought up to date on these records (upsert or delete;
        False: the record's metadata only, unless its vector is waiting already)."""
        self.db.executemany(
            "INSERT INTO vectors_behind(record, vector) VALUES (?, ?) "
            "ON CONFLICT(record) DO UPDATE SET vector = max(vector, excluded.vector)",
            ((record, int(vector)) for record, vector in sorted(records.items())),
        )

    def clear_behind(self, records: list[str] | None = None) -> None:
        """Inside `write()`: Chroma holds these records as the catalog says now (None: every one)."""
        if records is None:
            self.db.execute("DELETE FROM vectors_behind")
        else:
            self.db.executemany("DELETE FROM vectors_behind WHERE record = ?", ((r,) for r in records))

    def forget_vectors(self, note_ids: list[int]) -> None:
        """Inside `write()`: these notes' vectors are lost; their chunks wait to be embedded again."""
        for start in range(0, len(note_ids), 500):
            part = note_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM chunks WHERE note_id IN ({marks})", part)
            self.db.execute(f"UPDATE notes SET embedded_sha = NULL WHERE id IN ({marks})", part)
