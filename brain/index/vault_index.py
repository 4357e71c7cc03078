"""An open vault's index: `VaultIndex`; and `has_index`, `existing_index` for a caller without one.

Kept apart from engine.py, which loads the catalog and the vector store: every command and hook
opens its vault, and only those that read or write the index pay for importing them.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder
    from brain.index.engine import Index
    from brain.vault.vault import Vault


def has_index(vault: Vault) -> bool:
    """Whether the vault has an index (its catalog). Reading or writing notes never creates one."""
    from brain.index.catalog.schema import CATALOG_FILE  # sqlite3: only once a vault's index is asked about

    return (vault.index_dir / CATALOG_FILE).is_file()


def existing_index(vault: Vault) -> Index | None:
    """A new handle on the vault's index if it has one, else None (nothing is created); its caller closes it."""
    from brain.index.engine import Index

    return Index(vault) if has_index(vault) else None


class VaultIndex:
    """The Index of one open vault: opened at its first use (a hook that only starts an extraction
    needs none), then kept, so the model is loaded once and the catalog connection and Chroma client
    stay warm, until `close`. Its owner (a `Memory`, or a `Corpus` made on its own) passes it on."""

    def __init__(self, vault: Vault, *, embedder: Embedder | None = None, chroma_url: str | None = None):
        self.vault = vault
        self.embedder = embedder
        self.chroma_url = chroma_url
        self._index: Index | None = None
        self._lock = threading.Lock()  # an MCP server's tool threads and its watcher open it at once

    def open(self) -> Index:
        """The vault's Index, created if the vault has none yet."""
        from brain.index.engine import Index

        with self._lock:
            if self._index is not None:
                if has_index(self.vault):
                    return self._index
                self._index.close()  # the index folder was deleted: start again
            self._index = Index(self.vault, embedder=self.embedder, chroma_url=self.chroma_url)
            return self._index

    def existing(self) -> Index | None:
        """The vault's Index if it has one, else None (nothing is created)."""
        return self.open() if has_index(self.vault) else None

    def is_open(self) -> Index | None:
        """The Index if it was opened, without opening it."""
        return self._index

    def close(self) -> None:
        """Release the Index (its catalog connection, vector store and file-event follower)."""
        with self._lock:
            found, self._index = self._index, None
        if found is not None:
            found.close()
