"""The `brain` command (`main`). Its commands are listed in `registry.py`, each imported only when it runs.

`main` loads typer and the registry, except for an agent's hook (`brain hooks run ...`), which
`hook_runner.py` answers without them: hooks run before an agent can answer, at every session.
"""

from __future__ import annotations

import sys
from typing import Any


def main() -> None:
    if sys.argv[1:3] == ["hooks", "run"]:
        from brain.cli.hook_runner import main as run_hook

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
