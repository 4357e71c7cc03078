"""`brain ARGS` as a new process, reporting every module it imported (start-up cost is about imports)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Runs `brain` as `python -m brain` does, then prints every module the process imported, as it exits.
PROBE = (
    "import atexit, runpy, sys; atexit.register(lambda: print(*sorted(sys.modules), sep='\\n', file=sys.stderr)); "
    "sys.argv[0] = 'brain'; runpy.run_module('brain', run_name='__main__', alter_sys=True)"
)
# Modules no command should import unless it uses them. numpy and networkx may be bound lazily (brain/lazy.py):
# a submodule in sys.modules means the package was really loaded.
HEAVY = ("numpy.linalg", "onnxruntime", "onnx", "chromadb", "networkx.classes", "markdown_it", "pydantic")


def probe(*args: str) -> tuple[str, set[str]]:
    """(stdout, modules imported) of `brain ARGS` in a new process, which must exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={
            "PYTHONPATH": str(REPO),
            "PATH": "/usr/bin:/bin",
            "HOME": str(Path.home()),
            **{key: os.environ[key] for key in ("XDG_CACHE_HOME",) if key in os.environ},
        },
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {line for line in done.stderr.splitlines() if line and " " not in line}
    return done.stdout, modules


def imported_modules(*args: str) -> set[str]:
    return probe(*args)[1]


def heavy(modules: set[str]) -> list[str]:
    return [name for name in HEAVY if name in modules]
