"""What every page reads: the open vault, one lock for the corpus, the caches of the viewer's own
derived data, and the arguments of a request with their checks.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from brain.errors import UsageError
from brain.memory.front_door import Memory

if TYPE_CHECKING:
    from brain.index.watch.watch import Watcher
    from brain.vault.vault import Vault

T = TypeVar("T")
PAGE_SIZE = 50
CLOSE_WAIT = 30.0  # seconds a closing viewer waits for its watcher's catch-up run to end
CATCH_UP_WAIT = 60.0  # seconds an opening viewer waits for it (the pages then read an index that is current)


@dataclass
class Viewer:
    """The vault the viewer shows. Pages run on worker threads, one at a time (`lock`): the corpus
    is not made to be read by two threads at once."""

    memory: Memory
    watcher: Watcher | None = None  # keeps the index current from file events while the viewer runs
    lock: threading.Lock = field(default_factory=threading.Lock)
    _kept: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    _uses: dict[tuple[Any, ...], list[str] | None] = field(default_factory=dict)  # see ledger.summary

    def close(self) -> None:
        """Stop following file events (once the watcher's start, on its own thread, is over)."""
        if self.watcher is not None:
            self.watcher.caught_up.wait(CLOSE_WAIT)
            self.watcher.stop()
            self.watcher = None

    @property
    def root(self) -> Path:
        return self.memory.root

    def kept(self, name: str, key: object, make: Callable[[], T]) -> T:
        """`make()`, made again only when `key` changes (one value per name)."""
        found = self._kept.get(name)
        if found is not None and found[0] == key:
            value: T = found[1]
            return value
        value = make()
        self._kept[name] = (key, value)
        return value

    def made_from(self, name: str, sources: tuple[object, ...], make: Callable[[], T]) -> T:
        """`make()`, made again only when one of `sources` is another object than last time (the
        sources are kept with the value, so none of them is freed while it is compared with)."""
        found = self._kept.get(name)
        if found is not None:
            before, value = found
            if len(before) == len(sources) and all(a is b for a, b in zip(before, sources, strict=True)):
                kept: T = value
                return kept
        value = make()
        self._kept[name] = (sources, value)
        return value

    def derived(self, name: str, make: Callable[[], T]) -> T:
        """`make()` (which reads the notes, or the catalog written with them), made again after any
        note changes: kept in the corpus's `derived`, which the corpus clears on a change."""
        corpus = self.memory.corpus
        corpus.refresh()
        if name not in corpus.derived:
            corpus.derived[name] = make()
        value: T = corpus.derived[name]
        return value

    def ledger(self) -> Any:
        """The ledger's summary over all it keeps (`brain.agents.ledger`), made again when the ledger
        or one of the transcripts it read changes (and each hour: its lines age out of it)."""
        from brain.agents import ledger

        before = self._kept.get("ledger")
        read = tuple(_stamp(session.transcript) for session in before[1].sessions) if before else ()
        key = (_stamp(str(ledger.ledger_path(self.root))), read, int(time.time() // 3600))
        return self.kept("ledger", key, lambda: ledger.summary(self.root, days=ledger.KEEP_DAYS, uses=self._uses))


def _stamp(path: str) -> tuple[int, int] | None:
    """A file's time and size, None when it is not there (or no file is named)."""
    if not path:
        return None
    try:
        found = Path(path).stat()
    except OSError:
        return None
    return found.st_mtime_ns, found.st_size


Args = Mapping[str, str]


def text(args: Args, name: str) -> str | None:
    """An argument's text, None when absent or blank."""
    value = (args.get(name) or "").strip()
    return value or None


def number(args: Args, name: str, default: int, low: int, high: int) -> int:
    value = text(args, name)
    if value is None:
        return default
    try:
        found = int(value)
    except ValueError:
        raise UsageError(f"{name} must be a whole number, got '{value}'") from None
    if not low <= found <= high:
        raise UsageError(f"{name} must be between {low} and {high}, got {found}")
    return found


def paged(items: Sequence[T], args: Args, size: int = PAGE_SIZE) -> tuple[list[T], dict[str, int]]:
    """The page of `items` that `?page=` asks for (the first by default), and where it is."""
    pages = max(1, math.ceil(len(items) / size))
    page = number(args, "page", 1, 1, pages)
    start = (page - 1) * size
    return list(items[start : start + size]), {"number": page, "pages": pages, "size": size, "total": len(items)}


def open_viewer(vault: str | Path | Vault | None) -> Viewer:
    """The vault opened for the life of the server: its index kept current from file events (so a
    page never stats every file), and its notes loaded once."""
    import sqlite3
    import sys

    from brain.errors import BrainError
    from brain.memory.front_door import open_memory

    memory = open_memory(vault)
    watcher = None
    try:
        watcher = memory.follow_file_events()
    except (BrainError, OSError, sqlite3.Error) as error:  # notes are still shown; search says what is wrong itself
        print(f"brain ui: warning: index not followed ({error})", file=sys.stderr, flush=True)
    if watcher is not None:  # its catch-up run (of what changed while nothing watched) ends first
        watcher.caught_up.wait(CATCH_UP_WAIT)
    memory.corpus.notes()
    return Viewer(memory, watcher)
