"""Before a read: the catalog brought up to date with the files, as cheaply as is safe.

Three cases, cheapest first:

- A watcher (`brain watch`, or the MCP server following its vault, in this process or another)
  holds `watch.lock` and keeps the catalog current from file events: the reader trusts it.
- This process follows the vault's file events itself (a `Tracker`): only the paths the kernel
  reported since the last read are re-checked. A read costs a few stats, not one per note. So
  that a change made just before the read is never missed, the read first creates and removes a
  marker file under `.brain/index/` and waits for its event: events arrive in order, so every
  change made before the read has been seen by then.
- Otherwise: a stat scan of every note file (`scan.scan`), whose cost grows with the vault.

A read never waits for a writer. When the scan finds changes but another process holds the index
lock (`brain index` catching up on thousands of changed notes, a reindex), the read answers from the
catalog as it is, the last state a writer committed (SQLite's WAL keeps it whole), and
`Index.catching_up` says so until a read finds the lock free again. A busy watcher's batch is
waited for at most `BUSY_WATCHER_WAIT`.

An `Index` handle starts a tracker at a read once it has been reading for `TRACK_AFTER_SECONDS` or
more, when its stat scan took `TRACK_FROM_SCAN_MS` or more (a vault of a few thousand notes): a
one-shot command (a CLI call, a hook) that reads twice in its fraction of a second never starts
one, and starting one (watchdog, a kernel watch per folder, two threads) costs more than a small
vault's scans, while on a large vault a script, notebook, server or long command stops paying a
stat scan per read. A tracker writes nothing and takes no lock (`brain watch` can still start
beside it); it only notes which paths changed. Events can be lost (a kernel queue overflow, a
network file system whose other clients' writes raise no event), so a tracked vault still gets
a full scan every `RESCAN_EVERY` seconds of reading, and at once if the observer has stopped.
How the handle's reads went, and its tracker, live on the `Index` (`Index.reads`): closing it (or
the open vault that holds it) stops the tracker.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
import warnings
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from brain.errors import IndexBusy
from brain.index.engine import Follower, Index, ReadHistory, warn_once
from brain.index.sync.scan import scan
from brain.vault.note_files import is_note_path

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent

TRACK_FROM_READ = 2  # the read of a vault (in this process) that may start following its file events
TRACK_FROM_SCAN_MS = 5.0  # ... when its last full stat scan took this long
TRACK_AFTER_SECONDS = 1.0  # ... and its first read was this long ago (a one-shot command is done by then)
RESCAN_EVERY = 60.0  # seconds: a tracked vault is still fully re-scanned this often
MARKER_WAIT = 2.0  # seconds to wait for the marker's event before falling back to a full scan
_TEMP_SUFFIXES = (".swp", ".swo", ".swx", ".swpx", "~", ".tmp", ".temp", ".part", ".crdownload", ".bak", ".orig")
log = logging.getLogger(__name__)
# watchdog warns when a folder made with `mkdir -p` is watched twice (its own creation race); the
# watch is simply replaced, so the warning says nothing a user could act on.
warnings.filterwarnings("ignore", message="Callback with id .* already exists", category=RuntimeWarning)


def ignored(relative: str) -> bool:
    """Editors' and tools' scratch files, brain's own state, and anything that is not a note."""
    name = PurePosixPath(relative).name
    if name == "4913" or name.startswith((".#", "#", ".~", "~$")) or name.lower().endswith(_TEMP_SUFFIXES):
        return True  # vim's write test, emacs locks and autosaves, office locks, backups, temp files
    return not is_note_path(relative)


def event_paths(root: str, event: FileSystemEvent) -> tuple[set[str], bool] | None:
    """What a file event asks to re-check: (note paths, whether a full scan is needed), or None
    when it concerns nothing that could be a note. A folder created, moved or deleted needs a full
    scan: the files inside it raise no events of their own."""
    if event.event_type in ("opened", "closed", "closed_no_write"):
        return None
    relative = []
    for path in (event.src_path, getattr(event, "dest_path", "") or ""):
        text = path.decode() if isinstance(path, bytes) else path
        if text.startswith(root + "/"):
            relative.append(text[len(root) + 1 :])
    if not relative or all(r.split("/", 1)[0].startswith(".") for r in relative):
        return None  # .brain/, .git/, .obsidian/: never notes
    if event.is_directory:
        return (set(), True) if event.event_type in ("moved", "deleted", "created") else None
    wanted = {r for r in relative if not ignored(r)}
    return (wanted, False) if wanted else None


class Tracker:
    """Follows a vault's file events and remembers which note paths changed since `take`."""

    def __init__(self, index: Index):
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        tracker = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                tracker._event(event)

        self.root = str(index.vault.root)
        self._marker_prefix = os.path.join(str(index.dir), f"fresh-{os.getpid()}-{id(self)}-")
        self._markers = itertools.count()
        self._marker_seen = -1  # the highest marker number whose event was handled
        self._cond = threading.Condition()
        self._paths: set[str] = set()
        self._full = True  # the first take is a full scan: the baseline the events are relative to
        self._last_full = 0.0
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(Handler(), self.root, recursive=True)
        self._observer.start()  # the kernel watches exist once this returns: the baseline scan misses nothing

    def _event(self, event: FileSystemEvent) -> None:
        source = event.src_path.decode() if isinstance(event.src_path, bytes) else event.src_path
        if source.startswith(self._marker_prefix):
            number = source[len(self._marker_prefix) :]
            if event.event_type == "created" and number.isdigit():
                with self._cond:
                    self._marker_seen = max(self._marker_seen, int(number))
                    self._cond.notify_all()
            return
        seen = event_paths(self.root, event)
        if seen is not None:
            with self._cond:
                self._paths |= seen[0]
                self._full |= seen[1]

    def _caught_up(self) -> bool:
        """True once every event from before this call has been handled (see the module doc).

        Markers are numbered in the order the calls began, and the kernel reports events in order:
        once a marker numbered n or more is seen, every event from before the call that took n was
        handled. Several threads reading at once each wait for their own number or a later one (a
        single "last marker seen" made all but one of them wait out MARKER_WAIT, then scan in full)."""
        number = next(self._markers)
        marker = f"{self._marker_prefix}{number}"
        try:
            with open(marker, "x"):
                pass
            os.unlink(marker)
        except OSError:  # a read-only .brain: no marker, so no certainty
            return False
        with self._cond:
            return self._cond.wait_for(lambda: self._marker_seen >= number, MARKER_WAIT)

    def take(self) -> tuple[set[str], bool]:
        """The paths changed since the last take, and whether a full scan is due instead."""
        caught_up = self.alive() and self._caught_up()
        now = time.monotonic()
        with self._cond:
            full = self._full or not caught_up or now - self._last_full >= RESCAN_EVERY
            paths, self._paths, self._full = self._paths, set(), False
            if full:
                self._last_full = now
        return paths, full

    def missed(self) -> None:
        """The last take's changes were not applied: the next take scans everything."""
        with self._cond:
            self._full = True

    def put_back(self, paths: set[str], full: bool) -> None:
        """A take's changes were not applied (the index lock was busy): the next take has them again."""
        with self._cond:
            self._paths |= paths
            self._full |= full

    def alive(self) -> bool:
        return self._observer.is_alive() and all(emitter.is_alive() for emitter in self._observer.emitters)

    def stop(self) -> None:
        self._observer.stop()


BUSY_WATCHER_WAIT = 2.0  # seconds a read waits for a busy watcher's batch before answering as it is
_starting = threading.Lock()  # two threads reading one Index start one tracker


def ensure_fresh(index: Index) -> bool:
    """Bring the catalog up to date before a read (see the module doc). True when a watcher keeps
    it current, so the caller may leave further work (embedding) to that watcher.

    An index on a read-only disk cannot be refreshed: the caller is told it is as current as it
    will get (True: nothing to embed either), and a warning says that answers may be stale. Inside
    a command that looks at the files once (`Corpus.checked_once`), a read after that look takes
    its answer (`ReadHistory.checked`): `brain search` reads the project scope, then searches."""
    if index.read_only:
        warn_once(
            f"the vault is read-only: the index could not be refreshed, answers come from it as it is ({index.dir})"
        )
        return True
    if index.reads.checked is not None:  # this command has looked at the files already (Corpus.checked_once)
        return index.reads.checked
    root = str(index.vault.root)
    tracker = index.reads.tracker
    if tracker is not None:  # exact, even beside a watcher (whose batches wait for a debounce)
        if not _apply(index, tracker):
            return True  # another process is writing: leave the rest (embedding) to it
        return index.watcher_current()
    if index.watcher_current():  # alive, beating and idle: not merely holding its lock
        return True
    if index.watcher_alive():  # suspended or busy: check the files ourselves, but never wait out a long batch
        try:
            scan(index, wait=BUSY_WATCHER_WAIT)
        except IndexBusy:
            warn_once(
                f"the watcher of {root} is busy with a long batch; answering from the index as it is "
                "(changes of the last moments may be missing)"
            )
            return True
        return False
    tracker = _maybe_track(index)
    if tracker is not None:
        return not _apply(index, tracker)
    started = time.perf_counter()
    try:
        scan(index, wait=0)
    except IndexBusy:
        return _catching_up(index)
    index.reads.scan_ms = (time.perf_counter() - started) * 1000
    index.catching_up = False
    return False


def _catching_up(index: Index) -> bool:
    """Another process holds the index lock: the read answers from the catalog as it is (see the module doc)."""
    index.catching_up = True
    warn_once(
        f"another brain process is writing the index of {index.vault.root} (`brain index` catching up); "
        "answering from the index as it is (changes of the last moments may be missing)"
    )
    return True


def track(index: Index) -> None:
    """Follow this vault's file events from now on (a long-lived process that knows it will read
    often, such as the MCP server, need not wait for its second read)."""
    with _starting:
        if index.reads.tracker is None:
            _start(index)


def _apply(index: Index, tracker: Follower) -> bool:
    """Apply the changes the tracker saw; False when another process holds the index lock (the
    changes are applied at the next read)."""
    paths, full = tracker.take()
    try:
        if full:
            scan(index, wait=0)
        elif paths:
            scan(index, paths=paths, wait=0)
    except IndexBusy:  # another process, or another read of this one applying its own take: next time
        tracker.put_back(paths, full)
        _catching_up(index)
        return False
    except BaseException:
        tracker.missed()
        raise
    index.catching_up = False
    return True


def _maybe_track(index: Index) -> Follower | None:
    reads = index.reads
    with _starting:
        reads.count += 1
        if reads.first is None:
            reads.first = time.monotonic()
        if (
            reads.unfollowable
            or reads.count < TRACK_FROM_READ
            or reads.scan_ms < TRACK_FROM_SCAN_MS
            or time.monotonic() - reads.first < TRACK_AFTER_SECONDS
        ):
            return None
        return reads.tracker or _start(index)


def _start(index: Index) -> Tracker | None:
    """A new tracker for the Index (the caller holds `_starting`), or None when events cannot be had."""
    try:
        tracker = Tracker(index)
    except Exception as error:
        log.info("not following file events for %s (%s); reads re-stat the vault", index.vault.root, error)
        index.reads.unfollowable = True
        return None
    index.reads.tracker = tracker
    return tracker


def stop_tracking(index: Index) -> None:
    """Stop following the vault's file events for this Index and forget how its reads went: its next
    read scans, and following starts again from there."""
    tracker = index.reads.tracker
    if tracker is not None:
        tracker.stop()
    index.reads = ReadHistory()
