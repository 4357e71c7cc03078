"""Issue 22: examples in the docs are what the commands print. `episode list --outcome failure`
showed a partial episode; the MCP tools table lacked the fact tools."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from brain.mcp.common import tools_in
from brain.mcp.server import GROUPS
from tests.conftest import REPO, run_brain

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


def test_the_readme_shows_what_the_hooks_print_and_what_a_session_became(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    part = readme.split("<!-- hook-example: begin -->")[1].split("<!-- hook-example: end -->")[0]
    shown_context = re.search(r"```text\n(.*?)```", part, flags=re.S).group(1)  # type: ignore[union-attr]
    vault = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", vault, ignore=shutil.ignore_patterns(".brain"))
    hook = subprocess.run(
        [sys.executable, "-m", "brain", "hooks", "run", "session-start", "--vault", str(vault)],
        input=json.dumps({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup"}),
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"] == shown_context

    command = re.search(r"```console\n\$ brain (.*?)\n(.*?)\n```", part, flags=re.S)
    assert command is not None
    transcript = REPO / "tests/data/transcripts/public/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
    shutil.copy(transcript, tmp_path / transcript.name)
    shutil.copytree(transcript.parent / transcript.stem, tmp_path / transcript.stem)  # its subagents
    args = [*shlex.split(command.group(1)), "--vault", str(vault)]
    args[2] = str(tmp_path / transcript.name)
    result = run_brain(*args)
    assert result.exit_code == 0 and result.output.strip() == command.group(2)
    note = (vault / "episodes/EPISODE-2026-02-12-ae4a77f8.md").read_text(encoding="utf-8").splitlines()
    shown = re.search(r"```markdown\n(.*?)```", part, flags=re.S).group(1).splitlines()  # type: ignore[union-attr]
    lines = iter(note)
    assert all(line in lines for line in shown), "the README's episode is not an excerpt of the note, in order"
