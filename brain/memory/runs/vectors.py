"""The query vectors of recorded runs: the one place the runs service touches the index.

Each run's query is embedded once and kept in a Chroma collection of its own beside the note
chunks (`brain reindex` drops it with them), one record per run note, tagged with the run's
tenant and the embedder that made the vector. Only the records of one tenant and one embedder
are compared, so other tenants' runs and other models' vectors are left out before anything is
ranked; the few hundred vectors of a tenant are then ranked exactly (no approximate index can
drop a match) and cached until the vault changes.

Chroma is the store of record, but a read does not open it (importing chromadb alone is slow):
the records are read from a snapshot, `.brain/index/runs-vectors.npz`, stamped with the time
`brain reindex` last dropped the vault's collections and a stamp every write of run vectors
renews (`runs_vectors_stamp`), the way a search reads chunk vectors (brain/index/vectors/matrix.py). A
snapshot with another stamp is not used: the records are read from Chroma again and the
snapshot rewritten. A process that writes run vectors rewrites the snapshot under the index
lock, unless someone else wrote since it read (then it drops the snapshot, and the next reader
rebuilds it).

Vectors are derived from the notes: a run note written by another process, or by hand, is
embedded at the next recall, and the record of a deleted note is dropped. A record made by
another embedder is never compared or silently replaced: it is an `IndexMismatch` that says to
run `brain reindex`.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import threading
from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from brain.errors import IndexMismatch, Remedy
from brain.index.engine import Index
from brain.index.vectors.hnsw_files import clear_unused_capacity
from brain.index.vectors.vectors import DROPPED_KEY
from brain.memory.corpus import Corpus
from brain.vault.atomic import replace_file
from brain.vault.vault import Vault

COLLECTION = "runs"
BATCH = 256
STAMP_KEY = "runs_vectors_stamp"  # renewed by every write of run vectors (see the module doc)
SNAPSHOT = "runs-vectors.npz"


@dataclass(frozen=True)
class Indexed:
    """What recall compares: a run note's path, tenant and query."""

    path: str
    tenant: str
    query: str


def query_key(query: str) -> str:
    return hashlib.sha256(query.encode("utf-8")).hexdigest()[:16]


class RunVectors:
    """One vault's run query vectors in this process (see the module doc)."""

    def __init__(self, vault: Vault, index: Index):
        self.vault = vault
        self.index = index
        self._known: dict[str, tuple[str, str, str]] | None = None  # path -> (tenant, query key, embedder)
        self._rows: dict[str, np.ndarray] = {}  # path -> its query vector, for every record known
        self._matrices: dict[tuple[str, str], tuple[list[str], np.ndarray]] = {}
        self._stamp: str | None = None  # the stamp of the records this process holds
        self._synced_token: object = None
        self._embedders: tuple[int, str, dict[str, set[str]]] | None = (
            None  # (records, current, tenant -> other embedders)
        )
        self._lock = threading.RLock()

    @property
    def embedder_id(self) -> str:
        return self.index.embedder.id

    def _collection(self) -> Any:
        return self.index.vectors.other_collection(COLLECTION)

    def embed(self, texts: list[str]) -> np.ndarray:
        embedder = self.index.embedder
        if hasattr(embedder, "embed_array"):
            return np.asarray(embedder.embed_array(texts), dtype=np.float32)
        return np.asarray(embedder.embed(texts), dtype=np.float32)

    def embed_later(self, query: str) -> Future[np.ndarray]:
        """The query's vector, computed on a worker thread while the caller reads the notes
        (the model releases the GIL, so the two overlap as they do in search)."""
        return _pool().submit(lambda: self.embed([query])[0])

    # ------------------------------------------------------------ keeping the records in step with the notes

    def _current_stamp(self) -> str:
        catalog = self.index.catalog
        return f"{catalog.peek_meta(DROPPED_KEY)}|{catalog.peek_meta(STAMP_KEY)}"

    def _load_known(self) -> dict[str, tuple[str, str, str]]:
        stamp = self._current_stamp()
        if stamp != self._stamp:  # a reindex, or run vectors written by another process
            self._known, self._stamp, self._synced_token, self._embedders = None, stamp, None, None
            self._rows, self._matrices = {}, {}
        if self._known is None:
            if not self._read_snapshot(stamp):
                found = self._collection().get(include=["metadatas", "embeddings"])
                self._known = {
                    record: (str(meta.get("tenant")), str(meta.get("query_key")), str(meta.get("embedder")))
                    for record, meta in zip(found["ids"], found["metadatas"], strict=True)
                }
                embeddings = found["embeddings"]
                vectors = [] if embeddings is None else embeddings
                self._rows = {
                    record: np.asarray(vector, dtype=np.float32)
                    for record, vector in zip(found["ids"], vectors, strict=True)
                }
                self._write_snapshot(stamp)
        assert self._known is not None
        return self._known

    # ------------------------------------------------------------ the snapshot (see the module doc)

    @property
    def snapshot_path(self) -> Path:
        return self.index.dir / SNAPSHOT

    def _read_snapshot(self, stamp: str) -> bool:
        try:
            with np.load(self.snapshot_path, allow_pickle=False) as data:
                if str(data["stamp"]) != stamp:
                    return False
                paths, tenants, keys, embedders = (
                    data[name].tolist() for name in ("paths", "tenants", "keys", "embedders")
                )
                vectors = data["vectors"]
        except (OSError, KeyError, ValueError):
            return False
        self._known = {
            path: (tenant, key, embedder)
            for path, tenant, key, embedder in zip(paths, tenants, keys, embedders, strict=True)
        }
        self._rows = dict(zip(paths, vectors, strict=True))
        return True

    def _write_snapshot(self, stamp: str) -> None:
        """Atomically (temp file + rename); skipped when the vectors do not all have one width."""
        assert self._known is not None
        paths = list(self._known)
        widths = {len(self._rows[path]) for path in paths if path in self._rows}
        if len(widths) > 1 or any(path not in self._rows for path in paths) or not self.index.dir.is_dir():
            self.snapshot_path.unlink(missing_ok=True)
            return
        columns = list(zip(*(self._known[path] for path in paths), strict=True)) or [(), (), ()]
        vectors = np.stack([self._rows[path] for path in paths]) if paths else np.zeros((0, 0), np.float32)

        def write(handle: BinaryIO) -> None:
            np.savez(
                handle,
                paths=np.asarray(paths, dtype=str),
                tenants=np.asarray(columns[0], dtype=str),
                keys=np.asarray(columns[1], dtype=str),
                embedders=np.asarray(columns[2], dtype=str),
                vectors=vectors.astype(np.float32, copy=False),
                stamp=np.asarray(stamp),
            )

        replace_file(self.snapshot_path, write)

    def _written(self) -> None:
        """Under the index lock, after this process wrote run vectors: renew the stamp, and the
        snapshot if this process held every record (nobody wrote since it read them). A segment
        this write created keeps none of this process's memory in its unused room (segments.py)."""
        if not self.index.chroma_url:
            clear_unused_capacity(self.index.vectors.path)
        before = self._current_stamp()
        self.index.catalog.put_meta(STAMP_KEY, secrets.token_hex(8))
        stamp = self._current_stamp()
        if before == self._stamp:
            self._stamp = stamp
            self._write_snapshot(stamp)
        else:  # someone else wrote meanwhile: what this process holds is not the whole; read again next time
            self.snapshot_path.unlink(missing_ok=True)
            self._known, self._stamp = None, None

    def check_embedder(self, tenant: str | None = None) -> None:
        """Refuse when vectors of runs (of this tenant, when given) were made by another embedder."""
        current = self.embedder_id
        known = self._load_known()
        if self._embedders is None or self._embedders[0] != len(known) or self._embedders[1] != current:
            foreign: dict[str, set[str]] = {}
            for tenant_of, _, embedder in known.values():
                if embedder != current:
                    foreign.setdefault(tenant_of, set()).add(embedder)
            self._embedders = (len(known), current, foreign)
        foreign = self._embedders[2]
        others = sorted(set().union(*foreign.values()) if tenant is None else foreign.get(tenant, set()))
        if others:
            raise IndexMismatch(
                f"the query vectors of recorded runs were made by embedder '{others[0]}', but the embedder in use is "
                f"'{current}'; ",
                Remedy("reindex"),
                " to re-embed them (or switch the embedder back)",
            )

    def synced(self, token: object) -> bool:
        """Whether the records are in step with the notes in the state `token` stands for."""
        with self._lock:
            self._load_known()
            return token is not None and token is self._synced_token

    def sync(
        self, runs: list[Indexed], token: object = None, progress: Callable[[str, int, int], None] | None = None
    ) -> None:
        """Embed the runs whose query has no vector yet (or a stale one); drop records of runs gone.

        `token` stands for the state of the notes: the same token again (and no reindex meanwhile)
        means nothing changed, and nothing is compared.
        """
        with self._lock:
            known = self._load_known()
            if token is not None and token is self._synced_token:
                return
            self.check_embedder()
            current = self.embedder_id
            wanted = {run.path: run for run in runs}
            missing = [run for run in runs if known.get(run.path) != (run.tenant, query_key(run.query), current)]
            gone = [path for path in known if path not in wanted]
            if gone:
                with self.index.locked():
                    self._collection().delete(ids=gone)
                    for path in gone:
                        del known[path]
                        self._rows.pop(path, None)
                    self._written()
                known = self._load_known()
            for start in range(0, len(missing), BATCH):
                self._store(missing[start : start + BATCH])  # the model runs outside the index lock
                if progress:
                    progress("runs", min(start + BATCH, len(missing)), len(missing))
            self._embedders = None
            self._matrices.clear()
            self._synced_token = token  # only once every run is in step

    def sync_one(self, run: Indexed) -> None:
        """Embed one run's query now (a run just recorded through brain)."""
        with self._lock:
            self._load_known()
            self.check_embedder()
            self._store([run])
            self._matrices.pop((run.tenant, self.embedder_id), None)

    def _store(self, batch: list[Indexed]) -> None:
        """Embed a batch of queries, then write them under the index lock."""
        assert self._known is not None
        current = self.embedder_id
        vectors = self.embed([run.query for run in batch])
        metas = [{"tenant": r.tenant, "embedder": current, "query_key": query_key(r.query)} for r in batch]
        with self.index.locked():
            self._collection().upsert(ids=[r.path for r in batch], embeddings=vectors, metadatas=metas)
            self._known.update((r.path, (r.tenant, m["query_key"], current)) for r, m in zip(batch, metas, strict=True))
            self._rows.update((r.path, vector) for r, vector in zip(batch, vectors, strict=True))
            self._written()
        if self._known is None:
            self._load_known()
        self._embedders = None

    # ------------------------------------------------------------ ranking

    def rank(self, tenant: str, vector: np.ndarray, allowed: Collection[str]) -> list[tuple[str, float]]:
        """(run path, cosine similarity) of this tenant's runs, best first; only paths in `allowed`."""
        with self._lock:
            self._load_known()
            self.check_embedder(tenant)
            paths, matrix = self._tenant_matrix(tenant)
        if not paths:
            return []
        vector = vector / max(float(np.linalg.norm(vector)), 1e-12)
        similarities = matrix @ vector
        order = np.argsort(-similarities)
        return [(paths[i], float(similarities[i])) for i in order if paths[i] in allowed]

    def _tenant_matrix(self, tenant: str) -> tuple[list[str], np.ndarray]:
        key = (tenant, self.embedder_id)
        cached = self._matrices.get(key)
        if cached is None:
            assert self._known is not None
            paths = [path for path, (of, _, embedder) in self._known.items() if of == tenant and embedder == key[1]]
            matrix = (
                np.stack([self._rows[path] for path in paths]).astype(np.float32)
                if paths
                else np.zeros((0, self.index.embedder.dim), np.float32)
            )
            matrix /= np.clip(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12, None)
            cached = self._matrices[key] = (paths, matrix)
        return cached


@functools.lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="brain-recall")


_making = threading.Lock()  # two threads asking at once make one


def run_vectors(corpus: Corpus) -> RunVectors:
    """The open vault's RunVectors (kept in `corpus.kept`, so the index, its model and the records
    seen stay warm until the vault is closed); made again when its index was reopened."""
    index = corpus.open_index()
    with _making:
        found = corpus.kept.get("run vectors")
        if found is None or found.index is not index:
            found = corpus.kept["run vectors"] = RunVectors(corpus.vault, index)
        return found
