"""Every console block of the README and of docs/getting-started.md is what brain prints.

A block runs as a person types it, line by line, in a folder of its own holding a fresh copy of
vault-example (indexed once per session, unless the block runs `brain index` itself, as a new user
does), the repository's files the block names and what it presumes (PRESUMED). Its lines are
`$ brain ...`, `$ echo '...' | brain ...` and `$ export NAME=VALUE`; the output must be the block's
lines exactly, where a `...` line stands for lines left out, the folder the block runs in (also its
home, `~`) reads `/home/me`, and times (`0.1 s`) may differ. A block whose machine paths cannot be
made here follows `<!-- example: not run (why) -->`; EXCLUDED lists them.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, run_brain

HOME = "/home/me"  # the folder a block runs in, as the docs show it
MARKER = re.compile(r"<!-- example: not run \(.+?\) -->\n$")  # right above a block's ```console
SPOTTER = "tests/data/transcripts/public/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
FILES = {  # the repository's files the examples name, by the path they name: copied when a block names it
    SPOTTER: [SPOTTER, SPOTTER.removesuffix(".jsonl")],  # the session and its subagents' folder
}
PAGES = {  # each page, with the environment its blocks start in
    REPO / "README.md": "vault-example",  # the main command exported BRAIN_VAULT="$PWD/vault-example"
    REPO / "docs" / "getting-started.md": None,  # a new shell: no vault yet
}
PRESUMED = {  # what a block takes for granted on the reader's machine, by the block's first line
    "$ brain init ~/Obsidian/Work": {"Obsidian/Work/.obsidian/templates.json": '{"folder": "Templates"}'},
}
EXCLUDED = {
    ("README.md", "$ brain hooks install claude-code --vault ~/notes"),
}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the ```console line, for the test's id
    lines: tuple[str, ...]
    vault: str | None  # BRAIN_VAULT at the start, relative to the block's folder


def console_blocks() -> tuple[list[Block], set[tuple[str, str]]]:
    """The console blocks of the pages that run `brain`, and the (page, first line) of those left out."""
    blocks: list[Block] = []
    excluded: set[tuple[str, str]] = set()
    for page, vault in PAGES.items():
        text = page.read_text(encoding="utf-8")
        for found in re.finditer(r"```console\n(.*?)```", text, flags=re.S):
            lines = found.group(1).splitlines()
            if not any(line.startswith("$ ") and "brain " in line for line in lines):
                continue
            if MARKER.search(text[: found.start()]):
                excluded.add((page.name, lines[0]))
                continue
            line = text.count("\n", 0, found.start()) + 1
            blocks.append(Block(page, line, tuple(lines), vault))
    return blocks, excluded


BLOCKS, LEFT_OUT = console_blocks()


def _vault_as_cloned(destination: Path) -> None:
    """vault-example as a clone has it: the notes and the committed settings, no state of a run here."""

    def runtime(folder: str, names: list[str]) -> list[str]:
        kept = {".gitignore", "config.toml"}
        return [name for name in names if name not in kept] if Path(folder).name == ".brain" else []

    shutil.copytree(REPO / "vault-example", destination, ignore=runtime)


@pytest.fixture(scope="session")
def indexed_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("indexed") / "vault-example"
    _vault_as_cloned(vault)
    done = run_brain("index", "--vault", str(vault))
    assert done.exit_code == 0, done.output
    return vault


def normalized(lines: list[str], folder: Path) -> list[str]:
    return [re.sub(r"\b\d+\.\d+ s\b", "N s", line.replace(str(folder), HOME)) for line in lines]


def matches(expected: list[str], printed: list[str]) -> bool:
    """`printed` is `expected`, where each `...` line of `expected` stands for any lines, or none."""
    parts: list[list[str]] = [[]]
    for line in expected:
        if line == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return printed == expected
    first, *middle, last = parts
    if printed[: len(first)] != first:
        return False
    position = len(first)
    for part in middle:
        starts = [i for i in range(position, len(printed) - len(part) + 1) if printed[i : i + len(part)] == part]
        if not starts:
            return False
        position = starts[0] + len(part)
    return len(printed) - len(last) >= position and printed[len(printed) - len(last) :] == last


def test_the_matcher_reads_an_ellipsis_as_lines_left_out() -> None:
    assert matches(["a", "...", "c"], ["a", "b", "b", "c"]) and matches(["a", "...", "c"], ["a", "c"])
    assert matches(["a", "..."], ["a", "b"]) and matches(["...", "b"], ["a", "b"])
    assert not matches(["a", "...", "c"], ["a", "b"]) and not matches(["a"], ["a", "b"])
    assert matches(["a", "...", "c", "...", "e"], ["a", "c", "d", "e"])


def test_the_examples_left_out_are_these() -> None:
    assert LEFT_OUT == EXCLUDED
    assert {block.page.name for block in BLOCKS} == {page.name for page in PAGES}


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{block.page.name}:{block.line}" for block in BLOCKS])
def test_the_example_is_what_brain_prints(
    block: Block, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "me"
    if any(line.startswith("$ brain index") for line in block.lines):
        _vault_as_cloned(folder / "vault-example")
    else:
        shutil.copytree(request.getfixturevalue("indexed_example"), folder / "vault-example")
    text = "\n".join(block.lines)
    for named, paths in FILES.items():
        for path in paths if named in text else []:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            copy = shutil.copytree if (REPO / path).is_dir() else shutil.copy
            copy(REPO / path, folder / path)
    for relative, content in PRESUMED.get(block.lines[0], {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content, encoding="utf-8")
    monkeypatch.chdir(folder)
    env = {"BRAIN_VAULT": str(folder / block.vault) if block.vault else None, "HOME": str(folder)}
    runs: list[tuple[str, list[str]]] = []
    for line in block.lines:
        if line.startswith("$ "):
            runs.append((line[2:], []))
        else:
            assert runs, f"{block.page.name}:{block.line} prints before any command"
            runs[-1][1].append(line)
    for command, expected in runs:
        if command.startswith("export "):
            name, value = command.removeprefix("export ").split("=", 1)
            env[name] = shlex.split(value.replace("$PWD", str(folder)))[0]
            assert not expected, command
            continue
        stdin = None
        if piped := re.fullmatch(r"echo ('[^']*') \| (brain .*)", command):
            stdin, command = shlex.split(piped.group(1))[0] + "\n", piped.group(2)
        assert command.startswith("brain "), f"{block.page.name}:{block.line}: cannot run `{command}`"
        done = run_brain(*shlex.split(command)[1:], input=stdin, env=env)
        printed = normalized(done.output.splitlines(), folder)
        assert matches(normalized(expected, folder), printed), (
            f"{block.page.name}:{block.line} `{command}` printed:\n" + "\n".join(printed)
        )
        failing = any(line.startswith("error: ") for line in expected)
        assert (done.exit_code != 0) == failing, (command, done.exit_code)
