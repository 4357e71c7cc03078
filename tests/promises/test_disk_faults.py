"""A full disk and a read-only vault end a command in one line.

Every write on a full disk fails with one line that says what happened and what to do, and every
file of the vault is left as it was. On a read-only vault reads answer from what is there (saying
the index could not be refreshed) and writes fail in one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.disk_faults import brain, files, full_disk, read_only_vault, unmount

SNAPSHOT = {"query": "how do I retry a payment", "finalContent": "Retry with backoff", "decisions": []}
EPISODE = {"session": "2026-03-02-s1", "task": "T", "outcome": "success", "lessons": ["a lesson"]}


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """An indexed vault (lexical embedder: no model to load) with a fact, a run, an episode and a
    note saved after the index was built (so `brain index` has work to do)."""
    root = tmp_path_factory.mktemp("faults") / "vault"
    assert brain("init", str(root)).returncode == 0
    config = root / ".brain" / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    v = ("--vault", str(root))
    assert brain("note", "write", "Retries", "-f", "-", *v, input="Retry with backoff.\n").returncode == 0
    assert brain("fact", "record", "preference", "alice", "tea", *v).returncode == 0
    assert brain("run", "record", "-f", "-", "--tenant", "acme", *v, input=json.dumps(SNAPSHOT)).returncode == 0
    assert brain("episode", "store", "-f", "-", *v, input=json.dumps(EPISODE)).returncode == 0
    assert brain("index", *v).returncode == 0
    (root / "notes" / "Saved in an editor.md").write_text("# Saved in an editor\n\nAbout payments.\n")
    return root


WRITES = [
    ("note", "write", "New note", "-f", "-"),
    ("note", "edit", "Retries", "--append", "one more line"),
    ("fact", "record", "preference", "bob", "coffee"),
    ("context", "save", "a context", "--project", "p", "--action-type", "decision"),
    ("episode", "store", "--session", "2026-03-02-s1", "--task", "T", "--outcome", "failure", "--lesson", "another"),
    ("index",),
    ("run", "record", "-f", "-", "--tenant", "acme"),
    ("fact", "sweep", "--no-dry-run"),
]
INPUTS = {"write": "A body long enough to need a block of its own.\n" * 20, "record": json.dumps(SNAPSHOT)}


@pytest.mark.parametrize("command", WRITES, ids=lambda command: " ".join(command[:2]))
def test_a_full_disk_is_one_line_and_changes_nothing(base: Path, tmp_path: Path, command: tuple[str, ...]) -> None:
    with full_disk(base, tmp_path) as (root, limit):
        before = files(root)
        stdin = INPUTS.get(command[1]) if len(command) > 1 and command[-1] in ("-", "--tenant") else None
        if command[0] == "run":
            stdin = INPUTS["record"]
        elif command[:2] == ("note", "write"):
            stdin = INPUTS["write"]
        done = brain(*command, "--vault", str(root), input=stdin, file_limit=limit)
        after = files(root)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    if command[:2] == ("fact", "sweep") and done.returncode == 0:  # nothing due: nothing to write
        assert before == after
        return
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(errors) == 1, done.stderr
    assert errors[0].startswith("error: the disk is full") and errors[0].endswith(
        "free some space, then run the command again"
    ), errors[0]
    assert before == after


READS = [
    ("status",),
    ("doctor",),
    ("search", "payments"),
    ("tip", "guidelines", "retry a payment"),
    ("context", "bootstrap", "retry a payment"),
    ("note", "read", "Saved in an editor"),
]


@pytest.fixture(scope="module")
def read_only(base: Path, tmp_path_factory):
    view = read_only_vault(base, tmp_path_factory.mktemp("ro"))
    if view is None:
        pytest.skip("no read-only bind mount here (needs root and mount); chmod cannot stop root from writing")
    yield view
    unmount(view)


@pytest.mark.parametrize("command", READS, ids=lambda command: " ".join(command[:2]))
def test_reads_work_on_a_read_only_vault(read_only: Path, command: tuple[str, ...]) -> None:
    done = brain(*command, "--vault", str(read_only))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    if command[0] == "search":
        assert "Saved in an editor" in done.stdout or "Retries" in done.stdout
    if command[:2] == ("note", "read"):
        assert "About payments." in done.stdout


@pytest.mark.parametrize("command", WRITES[:5], ids=lambda command: " ".join(command[:2]))
def test_writes_on_a_read_only_vault_are_one_line(read_only: Path, command: tuple[str, ...]) -> None:
    before = files(read_only)
    done = brain(*command, "--vault", str(read_only), input=INPUTS["write"])
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "read-only" in done.stderr
    assert files(read_only) == before


def test_mcp_reads_work_and_writes_are_one_line_on_a_read_only_vault(read_only: Path) -> None:
    from tests.helpers.mcp_harness import connect, text_of

    before = files(read_only)
    with connect(read_only) as client:
        assert "About payments." in text_of(client.ok("read_note", {"name": "Saved in an editor"}))
        assert "Retries" in text_of(client.ok("search", {"query": "retry backoff", "mode": "text"}))
        message = client.bad("write_note", {"title": "Z", "content": "x"}, "the disk or folder is read-only")
        assert "\n" not in message
    assert files(read_only) == before
