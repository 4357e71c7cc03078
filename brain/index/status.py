"""What `brain status` and `brain doctor` report about the indexes. Reading only: nothing is updated
but the vector store's stamp, once a full check found it consistent (see index/sync/consistency.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from brain.errors import IndexBusy
from brain.index.catalog.rows import Stamp
from brain.index.engine import Index, warn_once
from brain.index.sync.consistency import VectorCheck, check_vectors
from brain.index.sync.embedding import PLANNED_KEY
from brain.index.vectors.segments import Segment, segments
from brain.vault.note_files import Skip, SkipKind, note_files
from brain.vault.vault import Vault

LOCK_WAIT = 2.0  # seconds status waits for a writer before it skips the vector check


@dataclass(frozen=True)
class IndexStatus:
    vault: str
    indexed: bool  # an index exists
    notes: int  # note files in the vault now
    by_type: dict[str, int] = field(default_factory=dict)  # cataloged notes per type
    updated_at: str | None = None
    changed_files: int = 0  # files added, changed or removed since the last scan
    pending_vectors: int = 0  # cataloged notes whose vectors are missing or stale
    chunks: int = 0
    embedded_chunks: int = 0  # chunks of notes whose vectors are made from their current text
    planned_chunks: int | None = None  # while notes wait: the chunks the vault has once they are embedded
    skipped: dict[str, Skip] = field(default_factory=dict)
    embedder: str | None = None
    embedder_source: str | None = None
    vectors_embedder: str | None = None  # the embedder that wrote the vectors
    vector_store: str | None = None
    watcher: bool = False
    # What the vector store lacks or holds beyond the catalog (see index/sync/consistency.py);
    # None when not checked (no vectors yet, another embedder's, or the index busy writing).
    vectors_missing: int | None = None  # chunk records the catalog expects and the store lacks
    vectors_missing_notes: int | None = None  # notes those records belong to
    vectors_extra: int | None = None  # records no chunk of the catalog stands for
    vectors_behind: int = 0  # chunk records written behind: the snapshot holds them, embedded Chroma not yet
    read_only: bool = False  # on a read-only disk: read as it is, never refreshed there

    @property
    def other_embedder(self) -> bool:
        """The vectors were made by an embedder other than the one in use: dense search refuses them."""
        return bool(self.vectors_embedder and self.embedder and self.vectors_embedder != self.embedder)

    @property
    def fresh(self) -> bool:
        return (
            self.indexed
            and self.changed_files == 0
            and self.pending_vectors == 0
            and not self.vectors_missing
            and not self.vectors_extra
            and not self.other_embedder
        )


def index_status(vault: Vault, index: Index | None, *, with_embedder: bool = True) -> IndexStatus:
    """The status of the vault's index (`index`: the open vault's, None when it has none)."""
    files, left_out = note_files(vault.root)
    if index is None:
        embedder = None
        if with_embedder:  # which embedder an index would use, without creating one
            from brain.config import load_config
            from brain.index.embedders.embedders import load_embedder

            config = load_config(vault.brain_dir)
            embedder = load_embedder(config.embedder, config.model_path, warn=warn_once)
        return IndexStatus(
            str(vault.root),
            False,
            len(files),
            skipped=left_out,
            embedder=embedder.id if embedder else None,
            embedder_source=embedder.source if embedder else None,
        )
    catalog = index.catalog
    skipped = catalog.skipped()
    changed = _changed(files, catalog.stamps(), skipped)
    pending = len(catalog.pending_vectors())
    embedded, planned = embedding_progress(index)
    updated = catalog.get_meta("updated_at")
    when = datetime.fromtimestamp(float(updated), tz=UTC).isoformat(timespec="seconds") if updated else None
    written = catalog.get_meta("embedder")
    embedder = index.embedder if with_embedder or written else None
    check = _vector_check(index) if embedder is not None and written == embedder.id else None
    return IndexStatus(
        vault=str(vault.root),
        indexed=True,
        notes=len(files),
        by_type=catalog.counts_by_type(),
        updated_at=when,
        changed_files=changed,
        pending_vectors=pending,
        chunks=catalog.chunk_count(),
        embedded_chunks=embedded,
        planned_chunks=planned,
        skipped={**skipped, **left_out},
        embedder=embedder.id if embedder else None,
        embedder_source=embedder.source if embedder else None,
        vectors_embedder=written,
        vector_store=index.vectors.location if embedder else None,
        watcher=index.watcher_alive(),
        vectors_missing=check.missing if check else None,
        vectors_missing_notes=len(check.missing_notes) if check else None,
        vectors_extra=len(check.extra) if check else None,
        vectors_behind=catalog.behind_count() if not index.chroma_url else 0,
        read_only=index.read_only,
    )


def embedding_progress(index: Index) -> tuple[int, int | None]:
    """(chunks embedded from their notes' current text, the chunks the vault has once the waiting notes
    are embedded too): the second as the last embedding run planned it (sync/embedding.py records it
    when it starts), None when no note waits or no run planned them (the notes were only cataloged)."""
    catalog = index.catalog
    embedded = catalog.embedded_chunk_count()
    recorded = catalog.get_meta(PLANNED_KEY)
    if not recorded or not catalog.pending_vectors():
        return embedded, None
    try:
        return embedded, max(int(recorded), embedded)
    except ValueError:
        return embedded, None


def changed_since_index(index: Index | None) -> int | None:
    """How many note files were added, changed or removed since the last scan; None when the vault
    has no index. A quick check (file stats against the catalog): nothing is built, embedded or waited on."""
    if index is None:
        return None
    files, _ = note_files(index.vault.root)
    return _changed(files, index.catalog.stamps(), index.catalog.skipped())


def _changed(files: dict[str, tuple[int, int]], stamps: dict[str, Stamp], skipped: dict[str, Skip]) -> int:
    """Files added, changed or removed since the last scan. A note the index left out for its merge
    conflict is none of these: it is reported as the conflict it is."""
    changed = sum(
        1
        for p, (m, s) in files.items()
        if (p not in stamps and _not_conflicted(skipped.get(p)))
        or (p in stamps and (stamps[p].mtime_ns, stamps[p].size) != (m, s))
    )
    return changed + sum(1 for p in stamps if p not in files)


def _not_conflicted(skip: Skip | None) -> bool:
    return skip is None or skip.kind is not SkipKind.MERGE_CONFLICT


def _vector_check(index: Index) -> VectorCheck | None:
    """The catalog/vector check, under the index lock (a write in progress changes the store
    first); skipped when a writer holds the lock for long, and on a read-only disk (no Chroma
    store opens there, and no writer can be under way through it)."""
    if index.read_only:
        return None
    try:
        with index.locked(timeout=LOCK_WAIT):
            return check_vectors(index)
    except IndexBusy:
        return None


def vector_segments(index: Index | None) -> list[Segment]:
    """The embedded store's vector segments, their size and their bound (none on a Chroma server):
    read from the files, nothing opened or written."""
    if index is None or index.chroma_url:
        return []
    return segments(index.dir / "chroma")
