"""What the end-to-end checks share: running a program, and installing a pinned agent CLI from the npm registry."""

from __future__ import annotations

import subprocess
from pathlib import Path


def run(
    *command: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None, stdin: str | None = None
) -> str:
    """The program's output (stdout then stderr); fails the test when it exits with other than 0.
    Without `stdin` it reads nothing (an agent CLI waiting on a terminal would hang the check)."""
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
        **({"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}),
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def npm_install(folder: Path, package: str, program: str) -> Path:
    """`package` (name@version) from the npm registry into `folder` (its npm cache too); its `program`."""
    run(
        "npm", "install", "--prefix", folder / "npm", "--cache", folder / "npm-cache", "--no-audit", "--no-fund",
        "--no-save", "--loglevel=error", "--no-update-notifier", package,
    )  # fmt: skip
    return folder / "npm" / "node_modules" / ".bin" / program
