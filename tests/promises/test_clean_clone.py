"""The README's main command leaves a clone of the repository clean: vault-example, as git holds it,
is indexed, searched and walked by the command's brain steps, and `git status` shows nothing, because
the `.brain/.gitignore` that `brain init` writes (and vault-example commits) covers brain's state."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from brain.vault.init import GITIGNORE
from tests.conftest import REPO

GIT_IDENTITY = ["-c", "user.name=test", "-c", "user.email=test@example.com"]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True).stdout


def main_command() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- main-command -->\n```bash\n(.+?)\n```\n<!-- /main-command -->", readme, re.S)
    assert found, "README.md must hold the main command between <!-- main-command --> markers"
    return found.group(1).split(" && ")


def test_the_main_command_leaves_git_status_empty(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "-q")
    # what a commit of the working tree would hold (tracked files and new ones git does not ignore)
    listed = git(REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "vault-example")
    for relative in filter(None, listed.split("\0")):
        if (REPO / relative).is_file():
            (clone / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / relative, clone / relative)
    assert (clone / "vault-example" / ".brain" / ".gitignore").read_text(encoding="utf-8") == GITIGNORE  # init's
    git(clone, "add", "-A")
    git(clone, *GIT_IDENTITY, "commit", "-q", "-m", "a clone")

    steps = main_command()
    exported = [step.removeprefix("export BRAIN_VAULT=") for step in steps if step.startswith("export BRAIN_VAULT=")]
    assert len(exported) == 1
    vault = shlex.split(exported[0].replace("$PWD", str(clone)))[0]
    env = {**os.environ, "BRAIN_VAULT": vault}
    commands = [shlex.split(step)[1:] for step in steps if step.startswith("brain ")]
    assert [command[0] for command in commands] == ["index", "search", "pattern", "pattern"]
    for command in commands:
        done = subprocess.run(
            [sys.executable, "-m", "brain", *command], cwd=clone, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (command, done.stderr)
    assert (clone / "vault-example" / ".brain" / "index").is_dir()  # the steps did write brain's state ...
    assert git(clone, "status", "--porcelain", "--untracked-files=all") == ""  # ... and git ignores it
