"""`brain watch`: keep the indexes current while notes change in any editor.

A watchdog observer collects the paths that file events touch; after `debounce` seconds
without new events (or `max_delay` after the first one) the batch is handed to
`sync.update_paths`, which stats each path and updates the catalog and vectors. Because a
batch is re-checked against the disk, the kind of event does not matter: editors' temp and
swap files are ignored by name, save-by-rename (write `x.tmp`, rename onto `x.md`) is just a
change of `x.md`, and a rename within one batch keeps the note's identity (same hash). Folder
events and failed batches trigger a full scan. No error stops the watcher: it is reported to
`on_batch` and the next batch goes on.

While running, the watcher holds `.brain/index/watch.lock` and beats in `watch.beat` (see
heartbeat.py); readers in other processes trust the catalog instead of re-statting the vault
only while the beat is recent and says the watcher has applied every event it saw.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from filelock import FileLock, Timeout
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from brain.errors import IndexBusy
from brain.index.engine import Index
from brain.index.heartbeat import BEAT_SECONDS, Beat, clear_beat, write_beat
from brain.index.sync.embedding import embed_pending
from brain.index.sync.scan import scan
from brain.index.sync.sync import catch_up_vectors, index_vault, update_paths
from brain.index.watch.fresh import event_paths, track

DEBOUNCE = 0.3
MAX_DELAY = 2.0
IDLE_CATCH_UP = 30.0  # seconds without file events after which the embedded store catches up (see _catch_up_due)
log = logging.getLogger(__name__)


@dataclass
class Batch:
    paths: int = 0
    changes: int = 0
    full_scan: bool = False
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher):
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.watcher._event(event)


class Watcher:
    def __init__(
        self,
        index: Index,
        *,
        embed: bool = True,
        debounce: float = DEBOUNCE,
        max_delay: float = MAX_DELAY,
        on_batch: Callable[[Batch], None] | None = None,
    ):
        self.vault = index.vault
        self.index = index
        self.embed = embed
        self.debounce, self.max_delay = debounce, max_delay
        self.on_batch = on_batch
        self._pending: set[str] = set()
        self._full = False
        self._first = self._last = 0.0
        self._done = time.monotonic()  # when the last batch ended
        self._busy = False
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._observer = Observer()
        self._thread = threading.Thread(target=self._loop, name="brain-watch", daemon=True)
        self.caught_up = threading.Event()  # set once the catch-up index run after start is done
        self._lock = FileLock(str(self.index.dir / "watch.lock"), timeout=0, thread_local=False)
        self.batches = 0
        self._caught_up_once = False
        self._applied = 0.0
        self._beater = threading.Thread(target=self._beat_loop, name="brain-watch-beat", daemon=True)
        self.idle_catch_up = IDLE_CATCH_UP  # seconds without events before Chroma catches up (vectors written behind)
        self._behind_checked = False  # looked for vectors written behind since the last batch

    # ------------------------------------------------------------ life cycle

    def start(self) -> Watcher:
        try:  # first of all: a second watcher is refused before it indexes anything
            self._lock.acquire()
        except Timeout:
            raise IndexBusy(
                f"another brain process (`brain watch` or `brain mcp`) is already watching {self.vault.root} "
                "and keeps its index current; stop it first to watch from here"
            ) from None
        self.index.watched_here = True
        self._beat()  # "alive, not idle" from the first moment: readers probe watch.lock only when a beat exists
        try:
            self._observer.schedule(_Handler(self), str(self.vault.root), recursive=True)
            self._observer.start()  # first, so nothing that changes during the catch-up is missed
            index_vault(self.index, embed=self.embed)
        except BaseException:
            self.index.watched_here = False
            clear_beat(self.index.dir)
            self._lock.release()
            raise
        self._thread.start()
        self._caught_up_once = True
        self._applied = time.time()
        self._beat()
        self._beater.start()
        self.caught_up.set()
        return self

    def _beat(self) -> None:
        """Say, in `watch.beat`, that this watcher is running and whether it is idle (heartbeat.py)."""
        with self._cond:
            idle = self._caught_up_once and not (self._pending or self._full or self._busy)
        try:
            write_beat(self.index.dir, Beat(os.getpid(), time.time(), idle, self._applied))
        except OSError as error:  # a full disk: readers then check freshness themselves
            log.warning("watch heartbeat not written (%s)", error)

    def _beat_loop(self) -> None:
        while not self._stop.wait(BEAT_SECONDS):
            self._beat()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._observer.stop()
        self._observer.join(timeout=5)
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        if self._beater.is_alive():
            self._beater.join(timeout=5)
        clear_beat(self.index.dir)
        if self._lock.is_locked:
            self.index.watched_here = False
            self._lock.release()

    def __enter__(self) -> Watcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait(self) -> None:
        """Block until stopped (Ctrl-C in the CLI)."""
        while not self._stop.is_set():
            self._stop.wait(0.5)

    def wait_idle(self, timeout: float = 30.0, quiet: float = 0.5) -> bool:
        """True once no event waits, no batch runs, and no event came for `quiet` seconds
        (events reach the observer a little after the change; tests and benchmarks)."""
        started = time.monotonic()
        deadline = started + timeout
        with self._cond:
            while True:
                now = time.monotonic()
                calm = now - max(self._last, started) >= quiet
                if not (self._pending or self._full or self._busy) and calm:
                    return True
                if now >= deadline:
                    return False
                self._cond.wait(min(deadline - now, 0.05))

    # ------------------------------------------------------------ events

    def _event(self, event: FileSystemEvent) -> None:
        seen = event_paths(str(self.vault.root), event)
        if seen is None:
            return
        with self._cond:
            now = time.monotonic()
            self._pending |= seen[0]
            self._full |= seen[1]
            if not self._first:
                self._first = now
            self._last = now
            self._cond.notify_all()

    # ------------------------------------------------------------ batches

    def _take(self) -> tuple[set[str], bool] | None:
        with self._cond:
            while not self._stop.is_set():
                if self._pending or self._full:
                    now = time.monotonic()
                    quiet = now - self._last >= self.debounce
                    overdue = now - self._first >= self.max_delay
                    if quiet or overdue:
                        paths, full = self._pending, self._full
                        self._pending, self._full, self._first, self._busy = set(), False, 0.0, True
                        return paths, full
                    self._cond.wait(
                        max(min(self.debounce - (now - self._last), self.max_delay - (now - self._first)), 0.01)
                    )
                else:
                    self._cond.wait(0.5)
                    if self._catch_up_due():
                        self._busy = True
                        return set(), False  # no paths: the loop brings Chroma up to date
            return None

    def _catch_up_due(self) -> bool:
        """Idle long enough after a batch, and the embedded store is behind (vectors/vectors.py)."""
        if self._behind_checked or not self.embed:
            return False
        if time.monotonic() - max(self._last, self._done) < self.idle_catch_up:
            return False
        self._behind_checked = True
        return not self.index.chroma_url and self.index.catalog.behind_count() > 0

    def _loop(self) -> None:
        while True:
            taken = self._take()
            if taken is None:
                return
            paths, full = taken
            if not paths and not full:
                self._catch_up()
                continue
            batch = Batch(paths=len(paths), full_scan=full)
            started = time.perf_counter()
            try:
                result = scan(self.index) if full else update_paths(self.index, paths, embed=False)
                batch.changes = result.changes
                if self.embed:
                    embed_pending(self.index)
            except Exception as error:
                batch.errors.append(f"{type(error).__name__}: {error}")
                log.warning("watch batch failed (%s); a full scan follows", error, exc_info=True)
                with self._cond:
                    self._full = True  # try again from the disk's state
                    self._first = self._first or time.monotonic()
                    self._last = time.monotonic() + 1.0  # back off a little
            batch.seconds = time.perf_counter() - started
            self.batches += 1
            with self._cond:
                self._busy = False
                self._done = time.monotonic()
                self._behind_checked = False
                if not batch.errors:
                    self._applied = time.time()
                self._cond.notify_all()
            if self.on_batch:
                try:
                    self.on_batch(batch)
                except Exception:
                    log.exception("on_batch callback failed")

    def _catch_up(self) -> None:
        try:
            catch_up_vectors(self.index)
        except Exception as error:  # Chroma stays behind; the snapshot keeps serving searches
            log.warning("the vector store did not catch up (%s); it tries again after the next change", error)
        with self._cond:
            self._busy = False
            self._cond.notify_all()


def follow(index: Index, *, embed: bool = True) -> Watcher | None:
    """Keep this index current from file events while it is open (the MCP server does this), so
    its reads never stat every file, and track the events for its reads (fresh.track). No watcher
    when another process already watches the vault. The catch-up index run happens on a background
    thread: the caller never waits for it."""
    from filelock import Timeout

    track(index)  # and reads re-check what changed before them at once, not after the watcher's debounce
    if index.watcher_alive() or index.read_only:  # a read-only index is read as it is, never kept current
        return None
    watcher = Watcher(index, embed=embed)

    def start() -> None:
        try:
            watcher.start()
        except Timeout:  # another process started watching meanwhile: it keeps the index current
            watcher._observer.stop()
        except Exception as error:
            watcher._observer.stop()
            log.warning("not following file events for %s: %s", index.vault.root, error)

    threading.Thread(target=start, name="brain-follow", daemon=True).start()
    return watcher
