"""brain: markdown notes as working memory for AI agents.

    import brain

    memory = brain.open("~/notes")  # the vault, its notes and its index, attached
    from brain.memory.facts.recall import recall_facts
    found = recall_facts(memory.corpus, "db-pool-size")

`brain.open` is the one way in (the CLI, the MCP server and the agents' hooks use it too); the
services of each domain live in `brain.memory.<domain>` and take `memory.corpus`. Errors a user can
see are `BrainError`s. Importing `brain` loads nothing else: every name here is looked up at first use.

The version is defined once, in pyproject.toml. `brain.__version__` reads it from the installed
package's metadata at first use (the lookup is slow, and `import brain` must not pay for it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from brain.errors import AmbiguousName, BrainError, InvalidInput, NoteNotFound, VaultNotFound
    from brain.memory.front_door import Memory
    from brain.vault.vault import Vault

__all__ = [
    "AmbiguousName",
    "BrainError",
    "InvalidInput",
    "Memory",
    "NoteNotFound",
    "VaultNotFound",
    "__version__",
    "open",
]

DISTRIBUTION = "brain-vault-memory"
_ERRORS = ("AmbiguousName", "BrainError", "InvalidInput", "NoteNotFound", "VaultNotFound")


def open(path: str | Path | Vault | None = None) -> Memory:
    """Open the vault at `path` (default: $BRAIN_VAULT, then the current folder upwards)."""
    from brain.memory.front_door import open_memory

    return open_memory(path)


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from brain.memory.front_door import Memory

        return Memory
    if name in _ERRORS:
        from brain import errors

        return getattr(errors, name)
    if name != "__version__":
        raise AttributeError(f"module 'brain' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed: there is no metadata to read
        found = "0+unknown"
    globals()["__version__"] = found  # looked up once
    return found
