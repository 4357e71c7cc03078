"""brain: markdown notes as working memory for AI agents.

The version is defined once, in pyproject.toml. `brain.__version__` reads it from the installed
package's metadata at first use (the lookup is slow, and `import brain` must not pay for it).
"""

from __future__ import annotations

DISTRIBUTION = "brain-vault-memory"


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'brain' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed: there is no metadata to read
        found = "0+unknown"
    globals()["__version__"] = found  # looked up once
    return found
