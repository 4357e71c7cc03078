"""brain: markdown notes as working memory for AI agents.

    import brain

    memory = brain.open("~/notes")  # the vault, its notes and its index, attached
    found = brain.recall_facts(memory.corpus, "db-pool-size")

`brain.open` is the one way in (the CLI, the MCP server and the agents' hooks use it too). What a
script reads is here, in `__all__`: each a domain's service (`brain.memory.<domain>`), taking
`memory.corpus`. Errors a user can see are `BrainError`s. Importing `brain` loads nothing else:
every name here is looked up at first use.

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
    "antipatterns",
    "causal_path",
    "get_episode",
    "list_episodes",
    "open",
    "recall_facts",
]

DISTRIBUTION = "brain-vault-memory"
_ERRORS = ("AmbiguousName", "BrainError", "InvalidInput", "NoteNotFound", "VaultNotFound")
# The services a script reads with, each from its domain: name -> (module, name there).
_SERVICES = {
    "antipatterns": ("brain.memory.patterns.service", "antipatterns"),
    "causal_path": ("brain.memory.causal.graph", "find_path"),
    "get_episode": ("brain.memory.episodes.service", "get_episode"),
    "list_episodes": ("brain.memory.episodes.service", "list_episodes"),
    "recall_facts": ("brain.memory.facts.recall", "recall_facts"),
}


def open(path: str | Path | Vault | None = None) -> Memory:
    """Open the vault at `path` (default: $BRAIN_VAULT, then the current folder upwards). The Memory
    owns what brain keeps of the vault (its index, caches, the tracker of its files): `close()` it, or
    use it in a `with` block; each open is a handle of its own."""
    from brain.memory.front_door import open_memory

    return open_memory(path)


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from brain.memory.front_door import Memory

        return Memory
    if name in _ERRORS:
        from brain import errors

        return getattr(errors, name)
    if name in _SERVICES:
        from importlib import import_module

        module, attribute = _SERVICES[name]
        return getattr(import_module(module), attribute)
    if name != "__version__":
        raise AttributeError(f"module 'brain' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed: there is no metadata to read
        found = "0+unknown"
    globals()["__version__"] = found  # looked up once
    return found
