"""Chunk vectors in Chroma: embedded `PersistentClient` under `.brain/index/chroma`, or a server.

One collection per vault and embedder. Each record is one chunk, id `<note id>:<chunk id>`,
with metadata note_id, path, type, folder, section and embedder. The collection's metadata
names the embedder too, and the catalog remembers which embedder wrote the vault's vectors:
a query or a write with another embedder is refused with `IndexMismatch`, never mixed.

Chroma's embedded store keeps its vector index in memory per process. Writes from another
process land on disk but not in this process's copy, so every write bumps the catalog's
`vectors_generation`, and a process that sees a generation it did not write reopens its
client before it reads or writes (cheap when nothing changed: one SQLite read). Writes are
made under the index lock, so only one process writes at a time and always from fresh state.

Reads never query Chroma: they go to an exact in-memory copy of the vectors (`matrix.ChunkMatrix`),
loaded from a snapshot file when it is current, else from Chroma, and kept current by this
process's own writes. The copy is immutable (a write makes a new one and swaps it in), so a read
that holds the current copy uses it without the store's lock: searches in several threads run
at once, and beside a write of this process, each on the copy it started with. A write's new
generation counts as this process's own from `written()` on, but becomes the one readers check
against only when the catalog's transaction commits (`Catalog.when_settled`): until then a reader
in another thread still sees the old generation, and must not take it for another process's write.
The embedded store is read only under the index lock, taken without waiting:
opening it applies Chroma's write-ahead log to the vector segment, a write, and a second process
doing so beside a writer failed its reads (`InternalError: Error finding id`) and grew the
segment's files. While another process holds the lock, a read uses the last snapshot, restricted
to the chunks the catalog lists now (a chunk's id is the hash of its text, so each vector kept is
exact) and says how many notes it lacks (`lacking`).

The embedded store is written behind. Opening it for one chunk loads its whole vector segment (at
50,000 notes: 1.2 s to import chromadb, then 4.6 s and 540 MB to upsert one record), so once brain
holds a snapshot with a journal, a write goes to this process's copy and the snapshot's journal
only, and the records it touched are listed in the catalog's `vectors_behind` table. `written()`
makes the journal durable and names it in the snapshot's head inside the catalog's transaction, so
a process killed at any point loses nothing: the catalog's rows, the list of what Chroma lacks and
the vectors that fill it are committed together (a head written just before a commit that never
happened names a newer snapshot; a reader then takes the last snapshot restricted to the chunks the
catalog lists, each exact). **The snapshot is then the authoritative copy of recent writes**, and
Chroma the store of record for the rest. `catch_up()` brings Chroma up to date in batches, with the
vectors from the snapshot and the metadata from the catalog: at the end of a `brain index` once the
list passes `sync.CATCH_UP_AT` records, when a watcher (`brain watch`, the MCP server) is idle, and
on demand (`brain index --vectors`). A first index, which has no snapshot yet, and a purge (text
that must leave every store) write Chroma at once; so does a Chroma server (shared collection).

Checking the vectors against the catalog (`consistency.py`) need not open Chroma either: brain
records a stamp of the embedded store's files (`files_stamp`) whenever it knows they hold what
the catalog says, after its own writes and after a check that found them so. Files that still
match the stamp are trusted; any other change, made by anyone, means a full check.

On a Chroma server the collection is shared (`shared`): every clone of the vault that names the
server and the same `vault_id` (its committed config) uses one collection, whose records are
named by chunk id alone (a hash of the chunk's text and the embedder) and carry no note's
metadata, as note ids differ from clone to clone. Callers still speak `<note id>:<chunk id>`;
the store translates. A clone's first index embeds only the chunks the server lacks (`held`),
and no index deletes a record from the server: another clone may use it (only a purge does, and
a clone that still has the chunk embeds it again at its next `brain index`). Records no clone
uses any more stay until someone prunes them (`prune_shared`).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from brain.errors import IndexBusy, IndexMismatch, IndexUnavailable, Remedy
from brain.index.catalog.catalog import Catalog
from brain.index.vectors.chunking import CHUNKING_VERSION
from brain.index.vectors.hnsw_files import clear_unused_capacity
from brain.index.vectors.identity import (
    collection_name,
    files_stamp,
    is_copy,
    parse_url,
    renew_vault_identity,
    shared_collection_name,
)

if TYPE_CHECKING:
    import numpy as np

    from brain.index.vectors.matrix import ChunkMatrix
    from brain.index.vectors.snapshot import Journal

GENERATION_KEY = "vectors_generation"
EMBEDDER_KEY = "embedder"
CHUNKING_KEY = "chunking"  # chunking.CHUNKING_VERSION of the texts the vectors were made from
ROOT_KEY = "vault_root"  # collection metadata on a server: the folder of the vault that uses it
STAMP_KEY = "vectors_stamp"  # the store's stamp when brain last knew it held what the catalog says
# The shipped all-MiniLM-L6-v2 run on its float graph: what wrote every vault's vectors before the
# int8 kernels (index/embedders/int8_kernels.py); `embedder = "minilm-float"` still runs it.
FLOAT_MINILM = "all-MiniLM-L6-v2:int8-onnx"
DROPPED_KEY = "collections_dropped"  # when `brain reindex` last dropped every collection of the vault (time_ns)

Metadata = Mapping[str, str | int | float | bool | None]  # one record's metadata, as Chroma takes it
# Chroma's HNSW index for brain's write pattern: brain writes in batches of 256 chunks
# (sync/embedding.py), so one batch is one insert into the index (`batch_size`), and the index's
# files are rewritten every 16 batches (`sync_threshold`) rather than every 1,000 records: fewer
# resize-and-persist cycles, the pattern behind the link_lists.bin growth projects embedding Chroma
# reported. Records not persisted yet are in Chroma's write-ahead log (durable) meanwhile.
HNSW_BATCH, HNSW_SYNC = 256, 4096
HNSW = {"space": "cosine", "batch_size": HNSW_BATCH, "sync_threshold": HNSW_SYNC}
SHARED_PAGE = 1000  # chunk ids asked of a shared collection per request

_P = ParamSpec("_P")
_R = TypeVar("_R")


@dataclass(frozen=True)
class CaughtUp:
    """What `VectorStore.catch_up` wrote to Chroma: records upserted, deleted, and lost (see there)."""

    upserted: int
    deleted: int
    lost: int


@dataclass(frozen=True)
class VectorHit:
    note_id: int
    chunk_id: str
    similarity: float


def _serialized(method: Callable[Concatenate[VectorStore, _P], _R]) -> Callable[Concatenate[VectorStore, _P], _R]:
    @functools.wraps(method)
    def wrapper(self: VectorStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class VectorStore:
    def __init__(
        self,
        catalog: Catalog,
        vault_root: Path,
        embedder_id: str,
        dim: int,
        chroma_url: str | None = None,
        index_lock: Callable[[float | None], AbstractContextManager[None]] | None = None,
        vault_id: str | None = None,
    ):
        self.catalog = catalog
        self._index_lock = index_lock  # the index lock (engine.Index.locked): reading the embedded store takes it
        self.lacking = 0  # notes the last read's copy lacked: another process was writing (see the module doc)
        self.embedder_id = embedder_id
        self.dim = dim
        if chroma_url:
            parse_url(chroma_url)  # a bad URL is an error at once, not at the first write
        self.chroma_url = chroma_url
        self.shared = bool(chroma_url)  # records named by chunk id, shared by the vault's clones (see the module doc)
        self.vault_id = vault_id  # the config's: the same in every clone (else `.brain/vault-id`'s, this copy's)
        self.vault_root = Path(vault_root)
        self.path = catalog.path.parent / "chroma"
        self.name = self._name()
        self._client: Any = None
        self._collection: Any = None
        self._seen_generation: str | None = None
        self._pending_generation: str | None = None  # written() by this process, not committed yet
        self._vouched: str | None = None  # files_stamp after this process's last use, if brain vouched for them then
        # One thread at a time per store: a client is created, reopened and used under this lock
        # (two threads creating Chroma's shared client for one path at once break it).
        self._lock = threading.RLock()
        self._matrix: ChunkMatrix | None = None  # what reads use (see the module doc)
        # records written behind since the last written(), and whether their vector changed (else
        # their metadata only; see the module doc)
        self._behind: dict[str, bool] = {}
        self._unsettled_behind = False  # the catalog's transaction under way lists records written behind
        self._journal: Journal | None = None  # where the snapshot takes the writes made to _matrix since it was read
        self.snapshot_path = (
            catalog.path.parent / f"vectors-{re.sub(r'[^a-zA-Z0-9]+', '-', embedder_id).strip('-')}.head"
        )

    def _name(self) -> str:
        if self.shared:
            return shared_collection_name(self.vault_root, self.embedder_id, self.vault_id)
        return collection_name(self.vault_root, self.embedder_id)

    @property
    def location(self) -> str:
        return f"{self.chroma_url} (Chroma server)" if self.chroma_url else f"{self.path} (embedded Chroma)"

    # ------------------------------------------------------------ client and collection

    def _connect(self) -> Any:
        import chromadb
        from chromadb.config import Settings

        settings = Settings(anonymized_telemetry=False, allow_reset=False)
        if self.chroma_url:
            host, port, ssl = parse_url(self.chroma_url)
            try:
                return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
            except Exception:  # chromadb's own words ("Could not connect to a Chroma server...") say no more
                raise IndexUnavailable(
                    f"cannot reach the Chroma server at {self.chroma_url}; start it (`chroma run`) or fix chroma_url"
                ) from None
        self.path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(self.path), settings=settings)

    @_serialized
    def _reopen(self) -> None:
        """Drop this process's copy of the embedded store so the next use loads it from disk."""
        self._collection = None
        self._matrix = None
        self._journal = None
        self._vouched = None
        if self._client is not None:
            # chromadb shares one System per path in a process; closing our client (its only
            # user) stops it, so the next client reads the store from disk again.
            self._client.close()
            if not self.chroma_url:
                clear_unused_capacity(self.path)  # a segment first persisted as it stopped held this process's memory
        self._client = None

    def _check_fresh(self) -> None:
        generation = self.catalog.peek_meta(GENERATION_KEY)
        if not self._own(generation) and (self._client is not None or self._matrix is not None):
            self._reopen()
        if generation != self._pending_generation:
            self._seen_generation = generation

    def _own(self, generation: str | None) -> bool:
        """Whether the vectors' generation is one this process knows: the last it saw, or the one its
        write under way makes (read before that write commits, or after)."""
        return generation == self._seen_generation or (
            self._pending_generation is not None and generation == self._pending_generation
        )

    def check_embedder(self) -> None:
        """Refuse to use vectors written by another embedder."""
        written = self.catalog.peek_meta(EMBEDDER_KEY)
        if written is not None and written != self.embedder_id:
            back = (
                ' (or keep them: embedder = "minilm-float" under [index] in .brain/config.toml runs the model as it made them)'
                if written == FLOAT_MINILM and self.embedder_id.startswith(FLOAT_MINILM.removesuffix("-onnx"))
                else " (or switch the embedder back)"
            )
            raise IndexMismatch(
                f"the vectors of this vault were made by embedder '{written}', but the embedder in use is "
                f"'{self.embedder_id}'; ",
                Remedy("reindex"),
                f" to rebuild them{back}",
            )

    @_serialized
    def collection(self, create: bool = True) -> Any:
        self.check_embedder()
        self._check_fresh()
        if self._collection is None:
            if not create and not self.chroma_url and not self.path.exists():
                return None  # a reader (status) never creates the embedded store
            if self._client is None:
                self._client = self._connect()
            if create or self.shared:  # a shared collection is made at once: it may take over older vectors
                self._collection = _with_hnsw(
                    self._client.get_or_create_collection(
                        self.name,
                        metadata={"embedder": self.embedder_id, "dim": self.dim, ROOT_KEY: str(self.vault_root)},
                        configuration={"hnsw": HNSW},
                        embedding_function=None,  # brain embeds; Chroma's own function must never run (or download)
                    )
                )
            else:
                try:
                    self._collection = self._client.get_collection(self.name, embedding_function=None)
                except Exception as error:
                    if type(error).__name__ == "NotFoundError" or "does not exist" in str(error):
                        return None
                    raise IndexUnavailable(
                        f"the vectors at {self.location} cannot be read; ", Remedy("reindex"), " to rebuild them"
                    ) from None
            found = (self._collection.metadata or {}).get("embedder")
            if found not in (None, self.embedder_id):
                raise IndexMismatch(
                    f"collection '{self.name}' holds vectors of embedder '{found}', not '{self.embedder_id}'; ",
                    Remedy("reindex"),
                )
            if self.chroma_url and self.vault_id is None:
                self._claim(create)  # a configured vault_id is meant to be shared: no copy to tell apart
            if self.shared and self._collection is not None:
                self._adopt_unshared()
        return self._collection

    def _claim(self, create: bool) -> None:
        """On a server, make sure the collection is this vault's, not its original's (see `is_copy`).

        A copy gets a new id and an empty collection of its own: the vector check (`consistency`)
        then finds every chunk missing and `brain index` embeds them again.
        """
        metadata = dict(self._collection.metadata or {})
        mine = str(self.vault_root)
        if metadata.get(ROOT_KEY) == mine:
            return
        if is_copy(metadata.get(ROOT_KEY), self.vault_root):
            renew_vault_identity(self.vault_root)
            self.name = self._name()
            self._collection = None
            self.collection(create)  # the copy's own collection (None when create=False: nothing yet)
            return
        self._collection.modify(metadata={**metadata, ROOT_KEY: mine})

    @_serialized
    def other_collection(self, kind: str) -> Any:
        """Another collection of this vault on this store's Chroma client (e.g. `runs`, the query
        vectors of recorded runs), named `collection_name(vault_root, kind)`, so `brain reindex`
        drops it with the rest.

        Fetched again on each call: the client is replaced when another process changed the store.
        On a server the vault's own collection is claimed first (see `_claim`): a copied vault
        must not write into its original's collections.
        """
        if self.chroma_url:
            self.collection()
        self._check_fresh()
        if self._client is None:
            self._client = self._connect()
        return _with_hnsw(
            self._client.get_or_create_collection(
                collection_name(self.vault_root, kind, self.vault_id if self.chroma_url else None),
                configuration={"hnsw": HNSW},
                embedding_function=None,
            )
        )

    def _adopt_unshared(self) -> None:
        """The shared collection takes the vectors of the collection of `<note id>:<chunk id>` records
        this vault kept on the server before brain shared them (`collection_name`), those it lacks:
        no chunk is embedded again. That collection is then deleted, when it is this folder's (not
        the original's of a copy)."""
        import numpy as np

        old_name = collection_name(self.vault_root, self.embedder_id)
        try:
            old = self._client.get_collection(old_name, embedding_function=None)
        except Exception:  # chromadb's NotFoundError (its class moved between versions): nothing to adopt
            return
        if (old.metadata or {}).get("embedder") != self.embedder_id:
            return
        for offset in range(0, old.count(), 5000):
            page = old.get(include=["embeddings"], limit=5000, offset=offset)
            rows = {chunk_of(record): row for row, record in enumerate(page["ids"])}
            have = set(self._collection.get(ids=list(rows), include=[])["ids"])
            chunks = [chunk for chunk in rows if chunk not in have]
            vectors = np.asarray(page["embeddings"], dtype=np.float32)
            for start in range(0, len(chunks), HNSW_BATCH):
                batch = chunks[start : start + HNSW_BATCH]
                self._collection.upsert(
                    ids=batch,
                    embeddings=vectors[[rows[chunk] for chunk in batch]],
                    metadatas=[self._shared_meta] * len(batch),
                )
        if (old.metadata or {}).get(ROOT_KEY) in (None, str(self.vault_root)):
            self._client.delete_collection(old_name)

    def written(self, *, agreed: bool = False) -> None:
        """Inside the catalog's write(): record that this process changed the vectors, and their
        stamp if brain can vouch for them: the store was as brain last left it before these writes,
        or (`agreed`) catalog and store were just made to agree (see consistency.repair_vectors)."""
        current = int(self.catalog.get_meta(GENERATION_KEY, "0") or 0) + 1
        self.catalog.set_meta(GENERATION_KEY, str(current))
        self.catalog.set_meta(EMBEDDER_KEY, self.embedder_id)
        self.catalog.set_meta(CHUNKING_KEY, CHUNKING_VERSION)
        self._pending_generation = str(current)
        self.catalog.when_settled(self._settle)
        wrote_behind, self._behind = self._behind, {}
        if wrote_behind:
            self.catalog.add_behind(wrote_behind)
            self._unsettled_behind = True
        if not self.chroma_url and (wrote_behind or self._journal is not None):
            self._persist(str(current))  # durable and named before the catalog commits (see the module doc)
        # Not under self._lock: this runs holding the catalog's lock, and `_using` takes the two the other way round.
        files = self._files()
        vouched = files if files is not None and (agreed or files == self._vouched) else None
        self._vouched = vouched
        self.catalog.set_meta(STAMP_KEY, None if vouched is None else self._stamp(vouched))

    def _settle(self, committed: bool) -> None:
        """The catalog's transaction that `written()` was part of ended: its generation is the one
        this process holds now, or (rolled back) never was."""
        if committed and self._pending_generation is not None:
            self._seen_generation = self._pending_generation
        elif self._unsettled_behind:  # rolled back: this copy holds writes the catalog does not
            self._matrix, self._journal = None, None
        self._pending_generation = None
        self._unsettled_behind = False

    # ------------------------------------------------------------ the stamp (see files_stamp)

    def _files(self) -> str | None:
        return None if self.chroma_url else files_stamp(self.path)  # nothing here can vouch for a server

    def _stamp(self, files: str) -> str:
        """The stamp recorded in the catalog: the files, and what they must hold for this catalog."""
        what = f"{self.name}|{self.embedder_id}|{self.dim}|{self.catalog.chunk_count()}|{files}"
        return hashlib.sha256(what.encode()).hexdigest()[:32]

    def unchanged(self) -> bool:
        """Whether the store is as brain last vouched for it (then it holds what the catalog says)."""
        files = self._files()
        return files is not None and self.catalog.get_meta(STAMP_KEY) == self._stamp(files)

    @_serialized
    def vouch(self) -> None:
        """The store was just found to hold what the catalog says: record its stamp (a meta value
        on its own, not a new catalog generation)."""
        files = self._files()
        self._vouched = files
        self.catalog.put_meta(STAMP_KEY, self._stamp(files) if files is not None else None)

    @contextmanager
    def _using(self, create: bool = True) -> Iterator[Any]:
        """The collection, for one use by this process; afterwards the files' stamp is still vouched
        for if it was before (this process's own use changes the files, and Chroma commits even
        when a client opens), and no longer if anyone else changed the store since."""
        with self._lock:
            self._check_fresh()  # another brain process wrote: reopen, and go by the stamp it recorded
            files = self._files()
            if files is None:  # no store yet: the one made now is brain's own if the catalog expects nothing
                vouched = not self.chroma_url and self.catalog.chunk_count() == 0
            else:
                vouched = files == self._vouched or self.unchanged()
            yield self.collection(create)
            self._vouched = self._files() if vouched else None

    # ------------------------------------------------------------ writing (under the index lock)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the store for a sequence of writes: a query in another thread of this process
        that lands between an upsert and the next update was seen to leave Chroma's in-process
        index without the upserted vectors (chromadb 1.5), so queries wait for the whole batch."""
        with self._lock:
            yield

    @property
    def _shared_meta(self) -> Metadata:
        """A shared record's metadata: the embedder, nothing of any clone's note (see the module doc)."""
        return {"embedder": self.embedder_id}

    def _write_behind(self) -> bool:
        """Whether this write goes to the snapshot's journal only, Chroma catching up later (see the
        module doc): the embedded store, while this process holds the snapshot's journal."""
        if self.chroma_url or self.catalog.read_only:
            return False
        self._check_fresh()
        if self._journal is None or self._matrix is None:
            return False
        if self._vouched is None and not self._behind and self.unchanged():
            self._vouched = self._files()  # Chroma is as brain left it, and stays so: written() vouches again
        return True

    @_serialized
    def upsert(self, ids: Sequence[str], embeddings: Any, metadatas: Sequence[Metadata]) -> None:
        if ids and self._write_behind():
            self._apply(added=(list(ids), embeddings))
            self._behind.update(dict.fromkeys(ids, True))
        elif ids:
            with self._using() as collection:
                if self.shared:  # one record per chunk text, though two notes of this clone hold it
                    import numpy as np

                    unique = {chunk_of(record): row for row, record in enumerate(ids)}
                    vectors = np.asarray(embeddings, dtype=np.float32)[list(unique.values())]
                    collection.upsert(ids=list(unique), embeddings=vectors, metadatas=[self._shared_meta] * len(unique))
                else:
                    collection.upsert(ids=list(ids), embeddings=embeddings, metadatas=list(metadatas))
            self._apply(added=(list(ids), embeddings))

    @_serialized
    def update_metadata(self, ids: Sequence[str], metadatas: Sequence[Metadata]) -> None:
        if ids and not self.shared and self._write_behind():  # the catch-up takes the catalog's metadata
            for record in ids:
                self._behind.setdefault(record, False)
        elif ids and not self.shared:  # a shared record holds no note's metadata
            with self._using() as collection:
                collection.update(ids=list(ids), metadatas=list(metadatas))

    @_serialized
    def held(self, chunk_ids: Iterable[str]) -> set[str]:
        """Which of these chunks a shared collection already holds (another clone embedded them);
        none for a store of this copy's own, which holds only what the catalog lists."""
        wanted = list(dict.fromkeys(chunk_ids))
        if not self.shared or not wanted:
            return set()
        found: set[str] = set()
        with self._using(create=False) as collection:
            for start in range(0, len(wanted) if collection is not None else 0, SHARED_PAGE):
                found.update(collection.get(ids=wanted[start : start + SHARED_PAGE], include=[])["ids"])
        return found

    @_serialized
    def reuse(self, ids: Sequence[str]) -> None:
        """These records are in the shared collection already (`held`): this process's copy of the
        vectors, if it holds one, takes them from there; nothing is embedded or written."""
        if ids and self._matrix is not None:
            import numpy as np

            vectors = self._shared_vectors(chunk_of(record) for record in ids)
            present = [record for record in ids if chunk_of(record) in vectors]
            if present:
                stacked = np.vstack([vectors[chunk_of(record)] for record in present])
                self._apply(added=(present, stacked))

    def _shared_vectors(self, chunk_ids: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors the shared collection holds for these chunks, by chunk id."""
        import numpy as np

        wanted = list(dict.fromkeys(chunk_ids))
        found: dict[str, np.ndarray] = {}
        with self._using(create=False) as collection:
            for start in range(0, len(wanted) if collection is not None else 0, SHARED_PAGE):
                page = collection.get(ids=wanted[start : start + SHARED_PAGE], include=["embeddings"])
                found.update(zip(page["ids"], np.asarray(page["embeddings"], dtype=np.float32), strict=True))
        return found

    @_serialized
    def prune_shared(self) -> int:
        """Delete from a shared collection every record no chunk of this clone's catalog uses; how many.
        Another clone that still uses one embeds it again at its next `brain index` (see the module doc)."""
        if not self.shared:
            return 0
        used = {chunk for _, chunk in self.catalog.chunk_ids()}
        stored: list[str] = []
        with self._using(create=False) as collection:
            for offset in range(0, collection.count() if collection is not None else 0, 5000):
                stored += collection.get(include=[], limit=5000, offset=offset)["ids"]
            unused = [chunk for chunk in stored if chunk not in used]
            for start in range(0, len(unused), 5000):
                collection.delete(ids=unused[start : start + 5000])
        return len(unused)

    def delete(self, ids: Sequence[str], *, purge: bool = False) -> None:
        with self.deleting(ids, purge=purge):
            pass

    @contextmanager
    def deleting(self, ids: Sequence[str], *, purge: bool = False) -> Iterator[None]:
        """Delete these records from the store and from this process's copy of the vectors, with the
        caller's block run meanwhile: Chroma deletes in its own native code
        without holding Python's lock, so a large delete runs on a thread
        beside the block. This process's copy of the vectors loses the records after the block
        (a copy the block loads, e.g. `load_snapshot`, included); the thread's error is raised then.

        A shared collection keeps them (another clone may use them) unless this is a `purge`: the
        text must leave every store (another clone that still has it embeds it again)."""
        with self._lock:
            if not ids:
                yield
                return
            if not purge and self._write_behind():
                yield
                self._apply(removed=list(ids))
                self._behind.update(dict.fromkeys(ids, True))
                return
            if not self.shared:
                wire = list(ids)
            else:  # a shared collection's record ids, for a purge only (see above)
                wire = list(dict.fromkeys(chunk_of(record) for record in ids)) if purge else []
            with self._using(create=False) as collection:
                failures: list[BaseException] = []

                def run() -> None:
                    try:
                        for start in range(0, len(wire) if collection is not None else 0, 5000):
                            collection.delete(ids=wire[start : start + 5000])
                    except BaseException as error:
                        failures.append(error)

                thread = threading.Thread(target=run, name="brain-vector-delete", daemon=True)
                thread.start()
                try:
                    yield
                finally:
                    thread.join()
                if failures:
                    raise failures[0]
            self._apply(removed=list(ids))
            if purge:
                self._journal = None  # the snapshot is written whole: its base must not keep these vectors

    def _apply(self, added: tuple[list[str], Any] | None = None, removed: list[str] | None = None) -> None:
        """A write made to the store, made to this process's copy of the vectors too, and appended to
        its snapshot's journal (saved by `save_snapshot`); a journal that cannot be appended to is
        dropped: the snapshot is then written whole."""
        if self._matrix is None:
            return
        if added is not None:
            self._matrix = self._matrix.upsert(*added)
        if removed:
            self._matrix = self._matrix.remove(removed)
        if self._journal is not None:
            try:
                if added is not None:
                    self._journal.add(*added)
                if removed:
                    self._journal.remove(removed)
            except OSError:
                self._journal = None

    # ------------------------------------------------------------ reading

    @_serialized
    def count(self) -> int:
        """The records the collection holds; in a shared one, those of this clone's chunks."""
        if self.shared:
            return len(self.record_ids())
        with self._using(create=False) as collection:
            return collection.count() if collection is not None else 0

    @_serialized
    def record_ids(self) -> set[str]:
        """The id of every record the collection holds (the vector check, when counts differ); in a
        shared one, the records of this clone's chunks it holds (the rest are other clones')."""
        if self.shared:
            listed = self.catalog.chunk_ids()
            held = self.held(chunk for _, chunk in listed)
            return {record_id(note, chunk) for note, chunk in listed if chunk in held}
        found: set[str] = set()
        with self._using(create=False) as collection:
            for offset in range(0, collection.count() if collection is not None else 0, 5000):
                found.update(collection.get(include=[], limit=5000, offset=offset)["ids"])
        return found

    def matrix(self) -> ChunkMatrix:
        """This process's exact copy of the vectors: from the snapshot file when it is current,
        else from Chroma (and then saved as the snapshot for the next process); while another
        process writes the embedded store, the last snapshot (see the module doc). A copy held and
        current is returned without the store's lock, which a write holds."""
        held = self._matrix
        if held is not None and self._own(self.catalog.peek_meta(GENERATION_KEY)):
            self.check_embedder()
            return held
        return self._loaded_matrix()

    @_serialized
    def _loaded_matrix(self) -> ChunkMatrix:
        from brain.index.vectors import snapshot

        self.check_embedder()
        self._check_fresh()
        if self._matrix is not None:
            return self._matrix
        loaded = snapshot.load(self.snapshot_path, self._seen_generation or "0", self.dim)
        if loaded is None:
            try:
                with self._reading():
                    self._check_fresh()  # the generation the store holds now, under the lock
                    generation = self._seen_generation or "0"
                    loaded = snapshot.load(self.snapshot_path, generation, self.dim)
                    if loaded is None:
                        rebuilt = self._matrix_from_chroma()
                        journal = None
                        if self.catalog.path.parent.is_dir() and not self.catalog.read_only:
                            journal = snapshot.save(rebuilt, self.snapshot_path, generation)
                        self.lacking = self._lost_behind(rebuilt)
                        self._matrix, self._journal = rebuilt, journal
                        return rebuilt
            except IndexBusy:
                return self._last_snapshot()
        self.lacking = 0
        self._matrix, self._journal = loaded
        return self._matrix

    def _reading(self) -> AbstractContextManager[None]:
        """The index lock without waiting, for reading the embedded store (a server serves its own reads)."""
        if self._index_lock is None or self.chroma_url or self.catalog.read_only:
            return nullcontext()
        return self._index_lock(0)

    def last_copy(self, *, trailing: bool = False) -> ChunkMatrix:
        """This process's copy of the vectors if it holds one, else the last snapshot whatever its
        generation (empty without one): brain's own vectors, never read from Chroma. `trailing`: see
        `snapshot.load` (the caller keeps only the chunks the catalog lists)."""
        from brain.index.vectors import snapshot
        from brain.index.vectors.matrix import ChunkMatrix

        if self._matrix is not None:
            return self._matrix
        loaded = snapshot.load(self.snapshot_path, None, self.dim, trailing=trailing)
        return loaded[0] if loaded is not None else ChunkMatrix.empty(self.dim)

    def adopt(self, copy: ChunkMatrix) -> None:
        """After `written`: `copy` is exactly what the store holds now; keep it and save it as the snapshot."""
        with self._lock:
            self._matrix, self._journal = copy, None
            self.save_snapshot()

    def _last_snapshot(self) -> ChunkMatrix:
        """The last snapshot, whatever its generation, restricted to the chunks the catalog lists now;
        not kept: the next read looks again."""
        listed = self.catalog.chunk_ids()
        kept = self.last_copy().only(listed)
        held = set(zip(kept.notes.tolist(), kept.chunks.tolist(), strict=True))
        self.lacking = len({note for note, chunk in listed if (note, chunk.encode()) not in held})
        return kept

    @_serialized
    def load_snapshot(self) -> bool:
        """Take this process's copy of the vectors from the snapshot, only if it is current (never
        from Chroma, which is slow for a large store); an empty copy when the catalog lists no chunk
        (a first index: its copy is built as it writes). Whether a copy is held now."""
        from brain.index.vectors import snapshot
        from brain.index.vectors.matrix import ChunkMatrix

        self.check_embedder()
        self._check_fresh()
        if self._matrix is None:
            loaded = snapshot.load(self.snapshot_path, self._seen_generation or "0", self.dim)
            if loaded is not None:
                self._matrix, self._journal = loaded
            elif self.catalog.chunk_count() == 0:
                self._matrix, self._journal = ChunkMatrix.empty(self.dim), None
            elif not self.chroma_url and self.catalog.behind_count():
                self._loaded_matrix()  # Chroma lacks what the snapshot holds: the copy is rebuilt from both
        return self._matrix is not None

    @_serialized
    def save_snapshot(self) -> None:
        """After a write (`written`): this process's copy saved as the current snapshot, or, with no
        copy held, the snapshot removed: it would still hold the vectors just deleted. The writes
        since the snapshot was read are in its journal already: saving them names them in its head;
        the snapshot is written whole only without a journal or when the journal has grown past its
        share (`snapshot.COMPACT_SHARE`), and then mapped again from the file (the pages the OS keeps)."""
        from brain.index.vectors import snapshot

        if self._matrix is None and not self.chroma_url and self.catalog.behind_count():
            self._loaded_matrix()  # the snapshot holds what Chroma lacks: never removed, only made current
        if self._matrix is None or not self.catalog.path.parent.is_dir():
            self._journal = None
            snapshot.remove_all(self.snapshot_path)
            return
        self._persist(self._seen_generation or "0")

    def _persist(self, generation: str) -> None:
        """This process's copy saved as the snapshot of `generation`: the journal named in the head,
        or the base written whole (see `save_snapshot`)."""
        from brain.index.vectors import snapshot

        if self._matrix is None:
            return
        if self._journal is not None and not self._journal.worth_compacting:
            self._journal.commit(generation)
            return
        snapshot.save(self._matrix, self.snapshot_path, generation)
        loaded = snapshot.load(self.snapshot_path, generation, self.dim)
        if loaded is not None:
            self._matrix, self._journal = loaded

    def _matrix_from_chroma(self) -> ChunkMatrix:
        if self.shared:
            return self._shared_matrix()
        built = self._chroma_records()
        behind = [record for record, vector in self.catalog.behind_rows(-1) if vector]
        if not behind:
            return built
        # Chroma lacks the vectors written behind: they come from the last snapshot (any generation:
        # a chunk's id is its text's hash, so a vector kept for a chunk the catalog lists is exact)
        listed = {record_id(note, chunk) for note, chunk in self.catalog.chunk_ids()}
        kept = self.last_copy(trailing=True).only(
            [(int(note), chunk) for note, _, chunk in (r.partition(":") for r in behind if r in listed)]
        )
        records = [
            record_id(note, chunk.decode())
            for note, chunk in zip(kept.notes.tolist(), kept.chunks.tolist(), strict=True)
        ]
        return built.remove(behind).upsert(records, kept.vectors) if records else built.remove(behind)

    def _lost_behind(self, copy: ChunkMatrix) -> int:
        """The notes with a vector written behind that neither Chroma nor the last snapshot held
        (`_matrix_from_chroma`): a search counts them as waiting, and the next catch-up has them
        embedded again."""
        if self.chroma_url:
            return 0
        behind = [record for record, vector in self.catalog.behind_rows(-1) if vector]
        if not behind:
            return 0
        listed = {record_id(note, chunk) for note, chunk in self.catalog.chunk_ids()}
        held = {
            record_id(note, chunk.decode())
            for note, chunk in zip(copy.notes.tolist(), copy.chunks.tolist(), strict=True)
        }
        return len({record.partition(":")[0] for record in behind if record in listed and record not in held})

    def _chroma_records(self) -> ChunkMatrix:
        from brain.index.vectors.matrix import ChunkMatrix

        records: list[str] = []
        parts = []
        with self._using(create=False) as collection:
            for offset in range(0, collection.count() if collection is not None else 0, 5000):
                page = collection.get(include=["embeddings"], limit=5000, offset=offset)
                records += page["ids"]
                parts.append(page["embeddings"])
        import numpy as np

        vectors = np.vstack([np.asarray(part, dtype=np.float32) for part in parts]) if records else None
        return ChunkMatrix.from_records(records, vectors, self.dim) if records else ChunkMatrix.empty(self.dim)

    def _shared_matrix(self) -> ChunkMatrix:
        """From a shared collection: this clone's chunks only, each under the note (or notes) holding it."""
        import numpy as np

        from brain.index.vectors.matrix import ChunkMatrix

        listed = self.catalog.chunk_ids()
        found = self._shared_vectors(chunk for _, chunk in listed)
        present = [(note, chunk) for note, chunk in listed if chunk in found]
        if not present:
            return ChunkMatrix.empty(self.dim)
        stacked = np.vstack([found[chunk] for _, chunk in present])
        return ChunkMatrix.from_records([record_id(note, chunk) for note, chunk in present], stacked, self.dim)

    @_serialized
    def catch_up(self, batch: int = 1024, between: Callable[[], object] | None = None) -> CaughtUp:
        """Under the index lock: bring the embedded store up to date with the records written behind
        (see the module doc), `batch` records at a time, each batch committed on its own (a catch-up
        stopped midway keeps what it wrote) and followed by `between()` (the disk bound's check, as
        after any write). A record the catalog lists is upserted with its vector from this process's
        copy and its metadata from the catalog (its metadata only, when only that changed: a
        moved note's unchanged chunks; Chroma never reuses a replaced vector's slot); any other is
        deleted. A listed record no copy holds (its snapshot was lost) is `lost`: its note waits to
        be embedded again."""
        done = CaughtUp(0, 0, 0)
        if self.chroma_url:
            return done
        while rows := self.catalog.behind_rows(batch):
            caught = self._catch_up_batch(rows)
            done = CaughtUp(done.upserted + caught.upserted, done.deleted + caught.deleted, done.lost + caught.lost)
            if between is not None:
                between()
        return done

    def _catch_up_batch(self, rows: list[tuple[str, bool]]) -> CaughtUp:
        import numpy as np

        behind = [record for record, _ in rows]
        relabel = {record for record, vector in rows if not vector}  # metadata only: Chroma's vector is right
        notes = sorted({int(record.partition(":")[0]) for record in behind})
        listed: dict[str, Metadata] = {
            record_id(note, chunk): {
                "note_id": note,
                "path": path,
                "type": kind,
                "folder": folder,
                "embedder": self.embedder_id,
                "section": section or "",
                "ord": order,
            }
            for note, chunk, order, section, path, kind, folder in self.catalog.chunk_records(notes)
        }
        wanted = [record for record in behind if record in listed and record not in relabel]
        relabelled = [record for record in behind if record in listed and record in relabel]
        held = self.matrix().only(
            [(int(note), chunk) for note, _, chunk in (record.partition(":") for record in wanted)]
        )
        found = {
            record_id(note, chunk.decode()): row
            for row, (note, chunk) in enumerate(zip(held.notes.tolist(), held.chunks.tolist(), strict=True))
        }
        upserts = [record for record in wanted if record in found]
        deletes = [record for record in behind if record not in listed]
        lost = sorted({int(record.partition(":")[0]) for record in wanted if record not in found})
        with self._using() as collection:
            if upserts:
                vectors = held.gather(np.asarray([found[record] for record in upserts], dtype=np.int64))
                collection.upsert(ids=upserts, embeddings=vectors, metadatas=[listed[record] for record in upserts])
            if relabelled:
                collection.update(ids=relabelled, metadatas=[listed[record] for record in relabelled])
            if deletes:
                collection.delete(ids=deletes)
        with self.catalog.write():
            self.catalog.clear_behind(behind)
            self.catalog.forget_vectors(lost)
            self.written()
        return CaughtUp(len(upserts) + len(relabelled), len(deletes), len(lost))

    def query(self, vector: Sequence[float], n: int, note_ids: Sequence[int] | None = None) -> list[VectorHit]:
        """The `n` chunks nearest to `vector` (exact), among the chunks of `note_ids` when given."""
        if note_ids is not None and not note_ids:
            return []
        return [
            VectorHit(note, chunk, similarity) for note, chunk, similarity in self.matrix().nearest(vector, n, note_ids)
        ]


def _with_hnsw(collection: Any) -> Any:
    """A collection made before brain set HNSW gets it (Chroma keeps a collection's first configuration)."""
    with warnings.catch_warnings():  # chromadb warns of the embedding function brain never gave it
        warnings.simplefilter("ignore", DeprecationWarning)
        current = (collection.configuration or {}).get("hnsw") or {}
    if current.get("sync_threshold") != HNSW["sync_threshold"]:
        collection.modify(
            configuration={"hnsw": {"batch_size": HNSW["batch_size"], "sync_threshold": HNSW["sync_threshold"]}}
        )
    return collection


def record_id(note_id: int, chunk_id: str) -> str:
    return f"{note_id}:{chunk_id}"


def chunk_of(record: str) -> str:
    """The chunk id of a record id `<note id>:<chunk id>`: a shared collection's record id."""
    return record.partition(":")[2]
