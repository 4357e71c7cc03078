"""The one way a front end opens a vault: `open_memory(path) -> Memory` (`brain.open` for users).

A `Memory` is the vault (its files), its index (opened at first use), its corpus (its notes, parsed
once and kept current) and the listener that keeps the index current on brain's own writes. It owns
all of the vault's state in this process: `close` releases it, and two opens of one vault are two
separate handles (like two SQLite connections). The CLI, the MCP server and the agents' hooks all
open a vault here; services take the corpus (which knows its vault and its index), never both.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from brain.index.sync.attach import attach
from brain.index.vault_index import VaultIndex
from brain.vault.history import Actor, acting_as, current_actor
from brain.vault.vault import ChangeListener, Vault

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder
    from brain.index.engine import Index
    from brain.index.watch.watch import Watcher
    from brain.memory.corpus import Corpus
    from brain.memory.notes.move_journal import Moved

# Where a move is written down while it runs (brain/memory/notes/move_journal.py, which is loaded
# only when one is there: every command opens a vault).
PENDING_MOVE = ("journal", "moves", "PENDING.json")


@dataclass(frozen=True)
class Memory:
    """An open vault: `vault` for its files, `index` for its search index, `corpus` for what the
    services read and write (the index and the corpus made at first use: a hook that only starts an
    extraction loads neither)."""

    vault: Vault
    vault_index: VaultIndex
    _listener: ChangeListener  # the one `attach` registered on the vault
    finished_move: Moved | None = None  # a move killed part-way, finished when the vault was opened

    @cached_property
    def corpus(self) -> Corpus:
        from brain.memory.corpus import Corpus

        return Corpus(self.vault, self.vault_index)

    @property
    def index(self) -> Index:
        """The vault's index, created if it has none (`brain index`, search)."""
        return self.vault_index.open()

    def existing_index(self) -> Index | None:
        """The vault's index if it has one, else None: reading or writing never creates one."""
        return self.vault_index.existing()

    @property
    def root(self) -> Path:
        return self.vault.root

    def writing_as(self, by: str, command: str = "") -> AbstractContextManager[Actor]:
        """Name the writer (cli, mcp, hook, importer) of every version written inside the block."""
        return acting_as(by, command)

    def checked_once(self) -> AbstractContextManager[Corpus]:
        """One answer, one look at the vault's files: reads inside the block trust the first check
        (brain's own writes still reach them, through the attached index)."""
        return self.corpus.checked_once()

    def index_catching_up(self) -> bool:
        """Whether this process's last read answered from the index as it was, without the changes
        another process (`brain index`) was still writing into it: reads never wait for a writer."""
        index = self.vault_index.is_open()
        return index is not None and index.catching_up

    def close(self) -> None:
        """Release what this handle holds for the vault: its index (the catalog's connection, the
        vector store and the file-event tracker closed), what the domains kept (the warm run vectors),
        and the change listener. Opening it again starts anew."""
        self.vault.remove_listener(self._listener)
        if "corpus" in self.__dict__:  # made at first use (cached_property)
            self.corpus.close()
        self.vault_index.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def follow_file_events(self) -> Watcher | None:
        """Keep the index current from file events for the life of this process (a long-lived
        server), so its reads never stat every file; the watcher, for a server that stops before
        its process ends (None when another process watches, or there is no index). Raises what
        opening the index raises."""
        from brain.index.watch.watch import follow

        index = self.existing_index()
        return None if index is None else follow(index)


def open_memory(
    path: str | Path | Vault | None = None, *, embedder: Embedder | None = None, chroma_url: str | None = None
) -> Memory:
    """Open the vault at `path` (default: $BRAIN_VAULT, then the current folder upwards) with its
    index attached; `embedder` and `chroma_url` replace the config's for its index. A vault folder
    that does not exist is a `VaultNotFound` naming what to run."""
    vault = path if isinstance(path, Vault) else Vault.find(path)
    vault_index = VaultIndex(vault, embedder=embedder, chroma_url=chroma_url)
    listener = attach(vault, vault_index)  # brain's own writes update the index at once (when the vault has one)
    return Memory(vault, vault_index, listener, _finish_interrupted_move(vault))


def _finish_interrupted_move(vault: Vault) -> Moved | None:
    """A move killed part-way is finished by the next command that opens the vault."""
    if not vault.brain_dir.joinpath(*PENDING_MOVE).is_file():
        return None
    from brain.memory.notes.move_journal import finish_pending

    with acting_as(current_actor().by, "note move (finished)"):
        return finish_pending(vault)
