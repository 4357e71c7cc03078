"""Keep the indexes in step with the notes: `brain index`, `brain reindex`, freshness before a
read, and brain's own writes.

The work is done by the scan (`scan.py`: files -> catalog) and the embedding pipeline
(`embedding.py`: catalog -> vectors); this module decides when each runs. Every function takes
the `Index` to work on (an open vault's, `engine.VaultIndex`: the front door).

brain's own writes reach the index through `attach.py`, which calls `update_paths` here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from brain.errors import BrainError
from brain.index.catalog import summaries
from brain.index.engine import Index
from brain.index.sync.consistency import repair_vectors
from brain.index.sync.disk_bound import keep_in_bounds
from brain.index.sync.embedding import EmbedResult, embed_pending
from brain.index.sync.scan import Progress, ScanResult, scan
from brain.index.vectors.segments import drop_vault_collections
from brain.index.vectors.vectors import DROPPED_KEY, CaughtUp
from brain.vault.note_files import Skip, SkipKind

__all__ = ["IndexReport", "catch_up_vectors", "index_vault", "prune_shared", "reindex_vault", "update_paths"]
log = logging.getLogger(__name__)
# Records written behind (vectors/vectors.py) past which `brain index` brings the embedded Chroma
# store up to date before it ends. A catch-up pays a fixed cost (importing chromadb and loading the
# whole vector segment: about 6 s and 540 MB at 50,000 notes) and little per record, so it waits
# until that cost is small beside the writes it catches up on; an edit of one note (a few records)
# never pays it. docs/benchmarks.md has the figures.
CATCH_UP_AT = 2048


@dataclass
class IndexReport:
    scan: ScanResult
    embed: EmbedResult | None
    notes: int
    embedder: str | None
    lost_vectors: int = 0  # chunk records the vector store had lost, embedded again
    conflicts: dict[str, Skip] = field(default_factory=dict)  # notes holding git's conflict markers, now
    caught_up: CaughtUp | None = None  # what the embedded store was brought up to date with, if it was


# ---------------------------------------------------------------- entry points


def index_vault(
    index: Index, *, embed: bool = True, progress: Progress | None = None, catch_up: bool = False
) -> IndexReport:
    """`brain index`: bring the catalog (and, unless embed=False, the vectors) up to date; temp files
    that killed writes left are removed first (they can hold a note's whole text). The embedded
    Chroma store catches up with the vectors written behind once they pass CATCH_UP_AT records, or
    at once with `catch_up` (`brain index --vectors`)."""
    try:
        index.vault.remove_stale_temps()
    except (BrainError, OSError):  # a read-only vault or a busy write lock: `brain doctor` lists them
        pass
    scanned = scan(index, progress=progress)
    repaired = repair_vectors(index) if embed else None  # what the store lost is embedded again below
    embedded = embed_pending(index, progress=progress) if embed else None
    if embedded is not None and (embedded.embedded or embedded.deleted or not index.vectors.snapshot_path.exists()):
        index.vectors.matrix()  # leaves a current snapshot: the next one-shot search loads one file
    caught = catch_up_vectors(index, at_least=1 if catch_up else CATCH_UP_AT) if embed else None
    if caught is not None and caught.lost and embedded is not None:  # vectors no copy held: embedded again now
        again = embed_pending(index, progress=progress)
        embedded.embedded += again.embedded
        embedded.notes += again.notes
    lost = repaired.missing if repaired else 0
    if repaired and embedded:
        embedded.deleted += len(repaired.extra)
    conflicts = {path: skip for path, skip in index.catalog.skipped().items() if skip.kind is SkipKind.MERGE_CONFLICT}
    return IndexReport(
        scanned,
        embedded,
        sum(index.catalog.counts_by_type().values()),
        index.embedder.id if embed else None,
        lost,
        dict(sorted(conflicts.items())),
        caught,
    )


def catch_up_vectors(index: Index, *, at_least: int = 1) -> CaughtUp | None:
    """Write to the embedded Chroma store the vectors written behind (VectorStore.catch_up), when
    there are at least `at_least` records; None when it was not run."""
    if index.chroma_url or index.read_only or not index.has_vectors() or index.catalog.behind_count() < at_least:
        return None
    with index.locked():
        caught = index.vectors.catch_up(between=lambda: keep_in_bounds(index))
    return caught


def reindex_vault(index: Index, *, embed: bool = True, progress: Progress | None = None) -> IndexReport:
    """`brain reindex`: forget every derived row and vector, then index from the notes alone."""
    with index.locked():
        with index.catalog.write():
            index.catalog.clear()
            # Other processes holding the embedded store in memory must reload it; copies of other
            # collections (the run vectors' snapshot) are no longer current.
            dropped = str(time.time_ns())
            index.catalog.set_meta("vectors_generation", dropped)
            index.catalog.set_meta(DROPPED_KEY, dropped)
        index.reset_vectors()
        drop_vault_collections(index.dir, index.vault.root, index.chroma_url, index.config.vault_id)
        summaries.forget(index.dir)  # values a brain of another version may have computed
        if embed:  # the vault's collections are gone and the catalog expects none: they agree
            index.vectors.vouch()
    return index_vault(index, embed=embed, progress=progress)


def prune_shared(index: Index) -> int:
    """`brain index --prune`: the shared collection on a Chroma server loses every chunk this clone's
    notes do not use (no index deletes one: another clone may use it); how many. Run it in a clone
    that is up to date with the others: a clone that still uses a pruned chunk embeds it again."""
    with index.locked():
        return index.vectors.prune_shared()


def update_paths(index: Index, paths: Iterable[str], *, embed: bool = True) -> ScanResult:
    """Re-check just these paths (a watcher batch, a write through brain)."""
    result = scan(index, paths=paths)
    if embed and index.has_vectors():
        embed_pending(index)
    return result
