"""Run `brain ARGS` in this process with one function made to kill it, as a crash would.

    python tests/helpers/crash_driver.py MODULE:ATTR N before|after -- ARGS...

The Nth call of MODULE.ATTR (e.g. `os:link`, `brain.vault.vault:Vault.write`) ends the process with
`os._exit(9)`: before the call runs, or right after it returned. Nothing is cleaned up, no
`finally` runs, no buffer is flushed by Python: what is on disk then is what a `kill -9` at that
point leaves. The product code is the real one; only the one function is wrapped.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import Any


def main() -> None:
    target, count, when = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    args = sys.argv[sys.argv.index("--") + 1 :]
    module_name, _, attribute = target.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, name)
    calls = 0

    def killing(*positional: Any, **keywords: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == count and when == "before":
            os._exit(9)
        result = real(*positional, **keywords)
        if calls == count:
            os._exit(9)
        return result

    static = isinstance(inspect.getattr_static(owner, name), staticmethod)
    setattr(owner, name, staticmethod(killing) if static else killing)
    from brain.cli import app

    app(args, prog_name="brain")


if __name__ == "__main__":
    main()
