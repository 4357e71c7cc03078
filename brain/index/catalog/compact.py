"""Leave no text in the catalog's file that its notes no longer hold (`brain redact`).

SQLite keeps what a row held in free pages, and FTS5 keeps a deleted row's terms in its segments
until they are merged. After a secret is redacted out of a note and the note's row rewritten,
`compact` merges the full-text index into one segment (the deleted rows' terms dropped),
rewrites the file without free pages (VACUUM) and empties the write-ahead log.
"""

from __future__ import annotations

from brain.index.catalog.catalog import Catalog


def compact(catalog: Catalog) -> None:
    """Run under the index lock (`Index.locked`): no other brain process writes meanwhile."""
    with catalog.write() as db:
        db.execute("INSERT INTO fts(fts) VALUES('optimize')")
    catalog.db.execute("VACUUM")
    catalog.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
