"""The hooks' ledger stays bounded: it keeps the last KEEP_DAYS days, at most KEEP_BYTES of them,
compacted by the append that finds it past COMPACT_BYTES or its first line too old; what `brain
hooks status` shows of the kept days is unchanged; a line appended by another hook while the
ledger is compacted is kept; a torn or foreign line is skipped, never fatal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain.agents import ledger
from brain.agents.ledger import COMPACT_BYTES, KEEP_BYTES, KEEP_DAYS, ledger_path
from brain.vault.init import init_vault
from tests.conftest import REPO, run_brain


def vault_root(tmp_path: Path) -> Path:
    vault, _ = init_vault(tmp_path / "vault")
    return vault.root


def context_naming(count: int, prefix: str = "EPISODE-2026-11-28-a-long-enough-note-name") -> str:
    """A hook's context naming `count` notes (a list item per note, as the hooks write them)."""
    return "## Recent failures\n" + "".join(
        f"- {prefix}-{number:05d} (2026-11-28): deploy\n" for number in range(count)
    )


def payload(session: str) -> str:
    return json.dumps({"session_id": session, "transcript_path": f"/nowhere/{session}.jsonl"})


def sessions_in(root: Path) -> list[str]:
    return [json.loads(line)["session"] for line in ledger_path(root).read_text(encoding="utf-8").splitlines()]


def status(root: Path, tmp_path: Path, days: int) -> dict:
    done = run_brain(
        "hooks", "status", "--project-dir", str(tmp_path), "--vault", str(root), "--days", str(days), "--json"
    )
    assert done.exit_code == 0
    injected: dict = json.loads(done.stdout)["injected"]
    return injected


def test_the_ledger_stays_under_its_size_after_many_injections(tmp_path: Path) -> None:
    root = vault_root(tmp_path)
    context = context_naming(1500)  # a line of about 100 KB
    line_bytes = len(json.dumps({"notes": ledger.notes_named(context)}))
    writes = 3 * COMPACT_BYTES // line_bytes
    largest = 0
    for number in range(writes):
        ledger.record(root, payload(f"s{number:04d}"), "session-start", context)
        largest = max(largest, ledger_path(root).stat().st_size)
    assert writes * line_bytes > 2 * COMPACT_BYTES  # it was compacted more than once
    assert largest <= COMPACT_BYTES
    kept = sessions_in(root)
    # the newest injections that fit in KEEP_BYTES, in the order they came, the last one included
    assert kept == [f"s{number:04d}" for number in range(writes - len(kept), writes)]
    assert KEEP_BYTES - 2 * line_bytes < ledger_path(root).stat().st_size
    assert ledger_path(root).stat().st_mode & 0o777 == 0o600
    assert not list(ledger_path(root).parent.glob(".*.tmp"))


def old_line(session: str, days_ago: float, tokens: int = 100) -> str:
    at = (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()
    return json.dumps({"session": session, "event": "session-start", "at": at, "tokens": tokens, "notes": ["X"]}) + "\n"


def test_lines_older_than_the_kept_days_go_and_status_shows_the_kept_days_as_before(tmp_path: Path) -> None:
    root = vault_root(tmp_path)
    ledger_path(root).parent.mkdir(parents=True, exist_ok=True)
    days_ago = [60, 45, 32, KEEP_DAYS - 1, 20, 8, 6, 2, 0.5]
    ledger_path(root).write_text("".join(old_line(f"d{days}", days) for days in days_ago), encoding="utf-8")
    week, month = status(root, tmp_path, 7), status(root, tmp_path, KEEP_DAYS)
    assert [session["session"] for session in month["sessions"]] == ["d29", "d20", "d8", "d6", "d2", "d0.5"]

    ledger.record(root, payload("new"), "first-prompt", context_naming(2))  # its first line is 60 days old

    assert sessions_in(root) == ["d29", "d20", "d8", "d6", "d2", "d0.5", "new"]
    now_week, now_month = status(root, tmp_path, 7), status(root, tmp_path, KEEP_DAYS)
    assert now_week["sessions"][:-1] == week["sessions"] and now_month["sessions"][:-1] == month["sessions"]
    assert now_month["sessions"][-1]["session"] == "new"
    # the next append finds a first line within the days kept (and the file small): nothing is rewritten
    inode = ledger_path(root).stat().st_ino
    ledger.record(root, payload("newer"), "first-prompt", context_naming(2))
    assert ledger_path(root).stat().st_ino == inode and sessions_in(root)[-1] == "newer"


def test_status_reads_at_most_the_days_the_ledger_keeps(tmp_path: Path) -> None:
    root = vault_root(tmp_path)
    done = run_brain("hooks", "status", "--vault", str(root), "--days", str(KEEP_DAYS + 1))
    assert done.exit_code == 2
    assert f"--days: {KEEP_DAYS + 1} is out of range; give 1 to {KEEP_DAYS}" in done.output


def test_a_torn_or_foreign_line_is_skipped_and_the_next_line_is_whole(tmp_path: Path) -> None:
    root = vault_root(tmp_path)
    ledger_path(root).parent.mkdir(parents=True, exist_ok=True)
    ledger_path(root).write_text(
        old_line("kept", 1)
        + "not json at all\n"
        + '["a", "list"]\n'
        + '{"session": "no time"}\n'
        + '{"session": "cut sh',
        encoding="utf-8",
    )
    ledger.record(root, payload("after"), "session-start", context_naming(3))
    lines = ledger_path(root).read_text(encoding="utf-8").splitlines()
    assert lines[-2:] == ['{"session": "cut sh', lines[-1]]  # the torn line is left alone, the new one is its own
    assert [s["session"] for s in status(root, tmp_path, 7)["sessions"]] == ["kept", "after"]

    ledger.compact(ledger_path(root), datetime.now(UTC))
    assert sessions_in(root) == ["kept", "after"]  # every line left parses


WRITER = """
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from brain.agents import ledger

root, name, size, days_ago = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
stop, most, last = Path(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "last"
context = "".join(f"- NOTE-{name}-{number:06d} (2026-11-28): x\\n" for number in range(size))
written = 0
while written < most and not stop.exists():
    at = datetime.now(UTC) - timedelta(days=days_ago)
    ledger.record(root, '{"session_id": "%s-%d"}' % (name, written), "session-start", context, at=at)
    written += 1
if last:
    stop.touch()
print(written)
"""


SMALL_MOST = 10_000  # lines of about 150 bytes


def test_lines_appended_by_other_hooks_while_the_ledger_is_compacted_are_kept(tmp_path: Path) -> None:
    """Three processes append small lines of today until a fourth has appended large lines older than
    the days kept, enough to pass COMPACT_BYTES three times: each pass compacts the ledger while the
    small lines keep coming (SMALL_MOST at most each, far less than KEEP_BYTES in all)."""
    root = vault_root(tmp_path)
    stop = tmp_path / "stop"
    large = 20_000  # notes per old line, each `"NOTE-old-000000", ` in it
    old_line = large * len('"NOTE-old-000000", ')  # about 380 KB
    old_writes = 3 * COMPACT_BYTES // old_line + 1
    env = os.environ | {"PYTHONPATH": str(REPO)}

    def start(name: str, size: int, days_ago: int, most: int, last: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-c", WRITER, str(root), name, str(size), str(days_ago), str(stop), str(most), last]
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)

    small = [start(f"w{k}", 3, 0, SMALL_MOST, "") for k in range(3)]
    old = start("old", large, KEEP_DAYS + 10, old_writes, "last")
    written = [int(writer.communicate(timeout=600)[0]) for writer in [*small, old]]
    assert written[-1] == old_writes and min(written[:3]) > 0

    kept = sessions_in(root)
    for k in range(3):  # every line of each small writer, in the order it wrote them
        assert [name for name in kept if name.startswith(f"w{k}-")] == [f"w{k}-{n}" for n in range(written[k])]
    appended_since = [name for name in kept if name.startswith("old-")]  # since the last compaction
    assert len(appended_since) * old_line <= COMPACT_BYTES < old_writes * old_line // 3
    assert ledger_path(root).stat().st_size <= COMPACT_BYTES
