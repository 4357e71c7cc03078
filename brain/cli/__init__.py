"""The `brain` command (`main`). Its commands are listed in `registry.py`, each imported only when it runs.

`main` loads typer and the registry, except for an agent's hook (`brain hooks run ...`), which
`brain/agents/runner.py` answers without them: hooks run before an agent can answer, at every session.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    # One thread for numpy's BLAS unless the user says otherwise: brain multiplies a query by at most
    # tens of thousands of rows, which one thread does well, and OpenBLAS starting a pool per core at
    # numpy's import costs a one-shot command CPU it never gets back (more so beside other work).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.argv[1:3] == ["hooks", "run"]:
        from brain.agents.runner import main as run_hook

        if run_hook(sys.argv[3:]):
            return
    from brain.cli.registry import app

    app()


def __getattr__(name: str) -> Any:
    """`from brain.cli import app, COMMANDS`: the registry, loaded at first use."""
    if name in ("app", "COMMANDS"):
        from brain.cli import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'brain.cli' has no attribute '{name}'")
