"""The tool-failure hook on a vault it cannot write: a read-only vault and a full disk. It answers from
the catalog as it is, as `brain search` does (issue 40, 11: SQLite's read-only open wanted a `-shm`
file it could not make, and the hook answered nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.test_tool_failure import FIRST, failure_input, run_hook
from tests.helpers.disk_faults import brain, files, full_disk, read_only_vault, unmount


@pytest.fixture
def remembered(vault) -> Path:
    """A vault with an index and the first session's episode, made by processes that have ended: the
    catalog is closed, SQLite's `-wal` and `-shm` files gone with its last connection."""
    root = vault.root
    assert brain("index", "--no-embed", "--vault", str(root)).returncode == 0
    done = brain("episode", "extract", str(FIRST), "--vault", str(root))
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (root / ".brain" / "index").glob("catalog.sqlite3*")) == ["catalog.sqlite3"]
    return root


def _answer(out: str) -> str:
    return json.loads(out)["hookSpecificOutput"]["additionalContext"]


def _writable_answer(root: Path) -> str:
    """What the hook hands the agent on the vault as it is, writable: the answer to expect."""
    code, out, err = run_hook(root, failure_input())
    assert (code, err) == (0, "")
    answer = _answer(out)
    assert answer.startswith("brain: this failure was seen before")
    # a read-only connection leaves SQLite's shared memory behind: taken away as the last writer would
    index = root / ".brain" / "index"
    assert not (index / "catalog.sqlite3-wal").is_file() or (index / "catalog.sqlite3-wal").stat().st_size == 0
    for name in ("catalog.sqlite3-wal", "catalog.sqlite3-shm"):
        (index / name).unlink(missing_ok=True)
    return answer


def test_a_read_only_vault_is_answered_with_the_earlier_fix(remembered, tmp_path: Path) -> None:
    expected = _writable_answer(remembered)
    view = read_only_vault(remembered, tmp_path)
    if view is None:
        pytest.skip("no read-only bind mount here (needs root and mount); chmod cannot stop root from writing")
    try:
        before = files(view)
        code, out, err = run_hook(view, failure_input())
        assert (code, err) == (0, "")
        assert _answer(out) == expected
        assert files(view) == before
    finally:
        unmount(view)


def test_a_vault_on_a_full_disk_is_answered_with_the_earlier_fix(remembered, tmp_path: Path) -> None:
    expected = _writable_answer(remembered)
    with full_disk(remembered, tmp_path) as (root, limit):
        if limit is not None:
            pytest.skip("no tmpfs to fill here (needs root and mount): a file size limit makes no -shm fail")
        code, out, err = run_hook(root, failure_input())
        assert (code, err) == (0, "")
        assert _answer(out) == expected
