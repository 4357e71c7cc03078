"""Everything facts ask of the search index, in one place: similarity to a query, and purging swept notes.

Only the index's public functions are used (`open_index`, `search.freshen`, `sync.scan`,
the catalog and vector store of an `Index`), so a change in how the index is opened touches
this module alone. A vault without an index is fine: similarity falls back to word overlap,
and a purge has only files to remove.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from brain.vault import Vault

_WORD = re.compile(r"\w+", re.UNICODE)
WORDS_SOURCE = "word overlap (this vault has no vector index; run `brain index` for similarity by meaning)"


@dataclass(frozen=True)
class Purged:
    catalog_rows: int
    vector_records: int
    indexed: bool


def _index(vault: Vault):
    from brain.index.catalog import CATALOG_FILE

    if not (vault.index_dir / CATALOG_FILE).is_file():
        return None
    from brain.index.engine import open_index

    return open_index(vault)


def words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if len(word) > 1}


def similarity(vault: Vault, query: str, texts: dict[str, str]) -> tuple[dict[str, float], str]:
    """Similarity (0..1) of each candidate (path -> its text) to the query, and where it came from.

    With vectors: the cosine of the query's embedding and the note's best chunk (the index's
    own embedder and vectors, brought up to date first as search does). Else: the share of the
    query's words the fact holds.
    """
    index = _index(vault)
    if index is not None and index.has_vectors():
        from brain.index.search import freshen

        freshen(index, vectors=True)  # as search does: small changes embedded now, bulk left to `brain index`
        stamps = index.catalog.stamps()
        ids = {stamps[path].id: path for path in texts if path in stamps}
        vector = index.embedder.embed([query])[0]
        best: dict[str, float] = {}
        for hit in index.vectors.query(vector, 1 << 30, list(ids)):  # every chunk of these notes
            path = ids[hit.note_id]
            if hit.similarity > best.get(path, -1.0):
                best[path] = hit.similarity
        return {path: max(0.0, min(1.0, best.get(path, 0.0))) for path in texts}, f"vectors ({index.embedder.id})"
    wanted = words(query)
    if not wanted:
        return {path: 0.0 for path in texts}, WORDS_SOURCE
    return {path: len(wanted & words(text)) / len(wanted) for path, text in texts.items()}, WORDS_SOURCE


def note_ids(vault: Vault, paths: Sequence[str]) -> dict[str, int]:
    """The catalog ids of these notes (taken before they are deleted, to purge what they left)."""
    index = _index(vault)
    if index is None:
        return {}
    stamps = index.catalog.stamps()
    return {path: stamps[path].id for path in paths if path in stamps}


def purge(vault: Vault, paths: Sequence[str], ids: dict[str, int]) -> Purged:
    """Forget deleted notes (`ids` from `note_ids`, before the deletion) in every derived store, leaving
    no copy of their text behind.

    The catalog rows (note, links, tags, full text) go with `secure_delete` on; the full-text
    index is merged ('optimize'), which drops the deleted notes' words from its segments; VACUUM
    then rewrites the file without free pages (rows another process removed without
    `secure_delete` included), and the WAL is checkpointed and truncated so no old page stays in
    it. Their vectors are deleted from Chroma (every orphaned chunk, as `brain index` would).
    """
    index = _index(vault)
    if index is None or not paths:
        return Purged(0, 0, index is not None)
    from brain.index.sync import scan
    from brain.index.vectors import record_id

    catalog = index.catalog
    wanted = set(ids.values())
    catalog.db.execute("PRAGMA secure_delete = ON")
    try:
        scan(index, paths=list(paths))
        remaining = set(catalog.stamps()[path].id for path in paths if path in catalog.stamps())
        vectors = 0
        with index.locked():
            if index.has_vectors():
                orphans = catalog.orphan_chunks()
                store = index.vectors
                with store.writing():
                    store.delete([record_id(note, chunk) for note, chunk in orphans])
                with catalog.write():
                    catalog.clear_gone()
                    store.written()
                vectors = sum(1 for note, _ in orphans if note in wanted)
            with catalog.write() as db:
                db.execute("INSERT INTO fts(fts) VALUES('optimize')")
            catalog.db.execute("VACUUM")
            catalog.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        catalog.db.execute("PRAGMA secure_delete = OFF")
    return Purged(len(wanted - remaining), vectors, True)
