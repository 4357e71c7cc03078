"""`attach(vault, vault_index)`: brain's own writes through a Vault update its index at once.

It registers a `Vault.on_change` listener, so the catalog follows each write; the vectors follow
at the next `brain index` or search (or at once with `attach(vault, vault_index, embed=True)`, as a long-lived
server with a loaded model may prefer). Writes made inside `Vault.batched_changes()` (an import)
reach the index as one update. Kept apart from sync.py: every command attaches its vault, and
only the ones that write need the indexing pipeline, imported by the listener.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brain.index.vault_index import VaultIndex
    from brain.vault.vault import ChangeListener, Vault


def attach(vault: Vault, vault_index: VaultIndex, *, embed: bool = False) -> ChangeListener:
    """Keep the index current on brain's own writes through this Vault; returns the listener
    registered, for its owner to remove when it closes (`Vault.remove_listener`).

    Only a vault that has an index is updated: reading or writing never creates one.
    """

    def listener(paths: tuple[str, ...]) -> None:
        from brain.index.sync.sync import update_paths

        try:
            index = vault_index.existing()
            if index is not None:
                update_paths(index, paths, embed=embed)
        except Exception as error:
            import logging  # only here: every command and hook attaches its vault, few ever warn

            logging.getLogger(__name__).warning("index not updated after writing %s: %s", ", ".join(paths[:3]), error)

    vault.on_change(listener)
    return listener
