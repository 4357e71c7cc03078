"""Issue 22: examples in the docs are what the commands print. `episode list --outcome failure`
showed a partial episode; the MCP tools table lacked the fact tools."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from conftest import REPO, run_brain

from brain.mcp.common import tools_in
from brain.mcp.server import GROUPS

DOCS = REPO / "docs"


def console_block(page: Path, first_command: str) -> list[tuple[list[str], list[str]]]:
    """The (command args, output lines) of the console block holding `first_command`."""
    text = page.read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        if first_command not in block:
            continue
        runs: list[tuple[list[str], list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ brain "):
                runs.append((shlex.split(line[len("$ brain ") :]), []))
            else:
                runs[-1][1].append(line)
        return runs
    raise AssertionError(f"no console block with {first_command!r} in {page}")


def test_the_episode_list_example_is_what_brain_prints(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns(".brain"))
    runs = console_block(DOCS / "guide" / "episodes.md", "episode list --outcome failure")
    assert [args[:2] for args, _ in runs] == [["episode", "store"], ["episode", "list"]]
    for args, expected in runs:
        printed = run_brain(*args, "--vault", str(vault))
        assert printed.exit_code == 0, printed.output
        assert printed.stdout.splitlines() == expected, args
    listed = runs[1][1]
    assert listed and all("  failure  " in line for line in listed)


def test_the_mcp_tools_table_lists_every_tool() -> None:
    table = (DOCS / "guide" / "mcp.md").read_text(encoding="utf-8").split("## Tools", 1)[1].split("###", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", table))
    served = {fn.__name__ for modules in GROUPS.values() for module in modules for fn in tools_in(module)}
    assert served - listed == set()
    assert {"record_fact", "supersede_fact", "invalidate_fact", "recall_facts"} <= listed
