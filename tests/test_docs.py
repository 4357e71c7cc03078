"""The README documents every command, and CI runs exactly the README's test command."""

import re
import subprocess

import typer
import typer.main
from conftest import REPO

from brain.cli import app


def command_paths(command, prefix=("brain",)):
    if not hasattr(command, "list_commands"):
        yield " ".join(prefix)
        return
    ctx = typer.Context(command)  # click's own walk: the top-level group imports each command as it is asked for
    for name in command.list_commands(ctx):
        yield from command_paths(command.get_command(ctx, name), (*prefix, name))


def test_every_command_is_in_the_readme():
    readme = (REPO / "README.md").read_text()
    paths = sorted(command_paths(typer.main.get_command(app)))
    assert "brain episode store" in paths and "brain pattern path" in paths
    missing = [path for path in paths if f"`{path}" not in readme]
    assert missing == [], f"commands missing from README.md: {missing}"


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    block = re.search(r"<!-- test-command -->\n```bash\n(.+?)\n```\n<!-- /test-command -->", readme, re.S)
    assert block, "README.md must hold the test command between <!-- test-command --> markers"
    ci = (REPO / ".ci" / "run").read_text()
    extraction = re.search(r"^command=\$\((.+)\)$", ci, re.M)
    assert extraction, ".ci/run must take its command from README.md"
    extracted = subprocess.run(
        ["bash", "-c", extraction.group(1)], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert extracted.stdout.strip() == block.group(1)  # what CI extracts is exactly the README's block ...
    assert 'bash -euo pipefail -c "$command"' in ci  # ... and CI runs it
