"""The front door to a vault's indexes: catalog, embedder, vector store, and the index lock.

An open vault (`brain.open`, a `Memory`) holds a `VaultIndex` (index/vault_index.py): its `Index`,
opened at the first use and kept until the vault is closed, so the catalog connection and Chroma
client stay warm between reads; front ends and services get that `Index` passed in (`open()` when
they build or search the index, creating one if needed; `existing()` when they only use an index
the vault already has: readers, brain's own writes, status). Two opens of one vault are two
handles, like two SQLite connections: nothing is shared between them but the embedder's weights
(`shared_embedder`, read-only, by model). `open_index(vault)` is a handle of its own, for a script
or a test that wants just the index. The embedder and the Chroma location come from
`.brain/config.toml`, `$BRAIN_CHROMA_URL`, or the arguments.

Locks: every write to the catalog or the vectors happens inside `Index.locked()`, a lock file
(`.brain/index/index.lock`, via filelock) plus a thread lock, so two `brain index` processes,
the watcher and the MCP server never write at once. Reads take neither: SQLite's WAL and the
catalog's reading connections let them go on meanwhile, in any number of threads, and the
vectors are read from an immutable copy a write swaps (vectors/vectors.py).
`watch.lock` is held by a running watcher; while it is held, readers trust the catalog instead
of re-statting the vault (see `watcher_alive`).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from brain.config import load_config
from brain.errors import READ_ONLY_HINT, IndexBusy, ReadOnlyStorage
from brain.index.catalog.catalog import Catalog
from brain.index.heartbeat import BEAT_FILE, current
from brain.index.vectors.chunking import CHUNKING_VERSION, FIRST_CHUNKING, Spans
from brain.index.vectors.vectors import CHUNKING_KEY, EMBEDDER_KEY, VectorStore
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from filelock import FileLock

    from brain.index.embedders.embedders import Embedder

ENV_CHROMA_URL = "BRAIN_CHROMA_URL"
LOCK_TIMEOUT = 600.0
log = logging.getLogger(__name__)

_warned: set[str] = set()  # messages, not vaults: a warning is said once per process


def warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


class Follower(Protocol):
    """What an Index keeps of the file-event follower fresh.py starts for it (a `fresh.Tracker`)."""

    def take(self) -> tuple[set[str], bool]: ...
    def missed(self) -> None: ...
    def put_back(self, paths: set[str], full: bool) -> None: ...
    def alive(self) -> bool: ...
    def stop(self) -> None: ...


@dataclass
class ReadHistory:
    """The reads of one Index handle, from which index/watch/fresh.py decides to follow file events."""

    count: int = 0
    first: float | None = None  # monotonic time of the first read
    scan_ms: float = 0.0  # how long the last full stat scan took
    unfollowable: bool = False  # file events could not be had: not tried again for this handle
    tracker: Follower | None = None  # following the vault's file events (stopped when the Index closes)
    # Inside a command that looks at the files once (`Corpus.checked_once`), after its look: what
    # that look answered, which every later read of the command takes (fresh.ensure_fresh)
    checked: bool | None = None


class Index:
    def __init__(self, vault: Vault, *, embedder: Embedder | None = None, chroma_url: str | None = None):
        self.vault = vault
        self.dir = vault.index_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        # A vault on a read-only disk (a backup, a snapshot): the index is read as it is, never
        # refreshed or locked (`locked` refuses in one line; readers answer from the files).
        self.read_only = not os.access(self.dir, os.W_OK)
        config = load_config(vault.brain_dir)
        self.config = config
        self.chroma_url = chroma_url or os.environ.get(ENV_CHROMA_URL) or config.chroma_url
        self._embedder = embedder
        self._vectors: VectorStore | None = None
        self._spans: tuple[Embedder, Spans] | None = None  # (the embedder, its token counter)
        self._file_lock: FileLock | None = None  # made at the first write: most one-shot reads never lock
        self._thread_lock = threading.RLock()
        self._parts_lock = threading.Lock()  # the parts made at first use (`vectors`)
        self.watched_here = False  # a Watcher of this process holds watch.lock (set and cleared by it)
        self.catching_up = False  # the last read answered from the catalog as it was: another process writes it
        self.reads = ReadHistory()  # how this handle's reads went: fresh.py decides from it whether to follow events
        if self.read_only:
            self.catalog = Catalog.for_index_dir(self.dir, read_only=True)
            return
        # Creating or migrating the schema is one SQLite transaction of its own; an index that is
        # current (every read after the first) takes no lock here.
        self.catalog = Catalog.for_index_dir(self.dir)
        if self.vectors_outdated():
            # without waiting: a reader never waits for a writer, and a writer renews them (embed_pending)
            try:
                with self.locked(timeout=0):
                    self.renew_outdated_vectors()
            except IndexBusy:
                pass

    def vectors_outdated(self) -> bool:
        written = self.catalog.get_meta(CHUNKING_KEY, FIRST_CHUNKING)
        return self.catalog.get_meta(EMBEDDER_KEY) is not None and written != CHUNKING_VERSION

    def renew_outdated_vectors(self) -> None:
        """Under the index lock: vectors made from another chunking's texts (chunking.CHUNKING_VERSION)
        are made again: every note is marked pending, so a search reports them as waiting (and embeds
        them at once in a small vault) and `brain index` re-chunks them all, embedding only the chunks
        whose text changed. Old and new chunk texts are never mixed without saying so."""
        if not self.vectors_outdated():  # another process renewed them while this one waited for the lock
            return
        with self.catalog.write():
            self.catalog.mark_all_pending()
            self.catalog.set_meta(CHUNKING_KEY, CHUNKING_VERSION)

    # ------------------------------------------------------------ parts

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = shared_embedder(self.config.embedder, self.config.model_path)
        return self._embedder

    @property
    def vectors(self) -> VectorStore:
        if self._vectors is None:
            embedder = self.embedder
            with self._parts_lock:  # two searches starting at once make one store, not two
                if self._vectors is None:
                    self._vectors = VectorStore(
                        self.catalog,
                        self.vault.root,
                        embedder.id,
                        embedder.dim,
                        self.chroma_url,
                        index_lock=self.locked,
                        vault_id=self.config.vault_id,
                    )
        return self._vectors

    @property
    def spans(self) -> Spans:
        """The token counter chunking uses: the embedder's own tokenizer (see chunking.spans_for)."""
        embedder = self.embedder
        if self._spans is None or self._spans[0] is not embedder:
            from brain.index.vectors.chunking import spans_for

            self._spans = (embedder, spans_for(embedder))
        return self._spans[1]

    def reset_vectors(self) -> None:
        """Forget this process's vector store client (after a reindex dropped the collections)."""
        if self._vectors is not None:
            self._vectors._reopen()
        self._vectors = None

    def has_vectors(self) -> bool:
        return self.catalog.get_meta("embedder") is not None

    # ------------------------------------------------------------ locks

    @contextmanager
    def locked(self, timeout: float | None = None) -> Iterator[None]:
        timeout = LOCK_TIMEOUT if timeout is None else timeout
        if self.read_only:
            raise ReadOnlyStorage(
                f"the index in '{self.dir}' is on a read-only disk; it cannot be updated. {READ_ONLY_HINT}"
            )
        from filelock import FileLock, Timeout  # imported here: only a write pays for the import

        busy = IndexBusy(
            f"another brain process has held {self.dir / 'index.lock'} for over {timeout:g} s; "
            "if none is running, delete that file"
        )
        if not self._thread_lock.acquire(timeout=timeout):  # a thread of this process writes
            raise busy
        try:
            if self._file_lock is None:
                self._file_lock = FileLock(str(self.dir / "index.lock"), timeout=LOCK_TIMEOUT, thread_local=False)
            try:
                self._file_lock.acquire(timeout=timeout)
            except Timeout:
                raise busy from None
            try:
                yield
            finally:
                self._file_lock.release()
        finally:
            self._thread_lock.release()

    def watcher_alive(self) -> bool:
        """True while some process runs `brain watch` on this vault (it holds watch.lock)."""
        if self.watched_here:  # no need to probe the lock file on every read (the MCP server follows its vault)
            return True
        if self.read_only:  # no watcher can write this index
            return False
        if not (self.dir / BEAT_FILE).exists():  # a watcher beats from the moment it holds watch.lock
            return False
        from filelock import FileLock, Timeout

        probe = FileLock(str(self.dir / "watch.lock"), timeout=0, thread_local=False)
        try:
            probe.acquire()
        except Timeout:
            return True
        probe.release()
        return False

    def watcher_current(self) -> bool:
        """True while a watcher keeps the catalog current *now*: it holds watch.lock, and its
        heartbeat is recent and says every event it saw is applied (see index/heartbeat.py).
        A suspended or busy watcher is not current: readers check freshness themselves."""
        if self.watched_here:  # this process's own watcher: its tracker applies events before each read
            return True
        return current(self.dir) and self.watcher_alive()

    def close(self) -> None:
        tracker, self.reads.tracker = self.reads.tracker, None
        if tracker is not None:
            tracker.stop()
        if self._vectors is not None:
            self._vectors._reopen()  # stops this process's embedded Chroma for the vault
        self.catalog.close()


_shared: dict[tuple[str, str | None, str | None], Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(name: str, model_path: str | None) -> Embedder:
    """The embedder a vault's config names, loaded once per process and only when first asked for:
    indexes, tips and a bootstrap share it (a model is large and slow to load;
    two threads asking at once, a query embedded while the notes are read, load it once)."""
    from brain.index.embedders.embedders import load_embedder  # numpy, onnxruntime: only when needed
    from brain.index.embedders.model_files import ENV_MODEL

    key = (name, model_path, os.environ.get(ENV_MODEL))
    with _shared_lock:
        if key not in _shared:
            _shared[key] = load_embedder(name, model_path, warn=warn_once)
        return _shared[key]


def open_index(vault: Vault, *, embedder: Embedder | None = None, chroma_url: str | None = None) -> Index:
    """A new handle on the vault's index (created if needed), for a caller that wants only the index;
    an open vault's services use its own (`Memory.index`). Close it when done."""
    return Index(vault, embedder=embedder, chroma_url=chroma_url)
