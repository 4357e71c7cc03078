"""The one append-only log (`brain.vault.append_log`): a torn last line stays the only line lost and
`repair` drops exactly it, rotation renames once past the bound, a rewrite keeps or sets the mode,
`cut` hands over what it cuts, and the log's lock keeps threads and processes apart."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from filelock import Timeout
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.vault.append_log import AppendLog, as_text, lock_beside, rotated_path

texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


def record(number: int, text: str) -> bytes:
    return (json.dumps({"n": number, "text": text}, ensure_ascii=False) + "\n").encode("utf-8")


def whole(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.lists(texts, min_size=1, max_size=6),
    after=st.lists(texts, max_size=6),
    kept=st.floats(min_value=0.0, max_value=1.0, exclude_max=True),
)
def test_a_torn_last_line_is_the_only_line_lost_and_repair_drops_exactly_it(
    tmp_path_factory: pytest.TempPathFactory, before: list[str], after: list[str], kept: float
) -> None:
    path = tmp_path_factory.mktemp("log") / "log.jsonl"
    log = AppendLog(path)
    first = [record(number, text) for number, text in enumerate(before)]
    for line in first:
        log.append(line)
    torn = first[-1][: int(kept * (len(first[-1]) - 1))]  # cut short before its line break: never whole
    os.truncate(path, sum(map(len, first[:-1])) + len(torn))
    later = [record(len(first) + number, text) for number, text in enumerate(after)]
    for line in later:
        log.append(line)

    data = path.read_bytes()
    good = b"".join(first[:-1] + later)
    assert data == b"".join(first[:-1]) + torn + (b"\n" if torn and later else b"") + b"".join(later)
    assert [line for line in data.split(b"\n") if whole(line)] == [line.rstrip(b"\n") for line in first[:-1] + later]
    assert log.repair(whole) == (1 if torn else 0)
    assert (path.read_bytes() if path.exists() else b"") == good


def test_appends_return_where_the_line_went_and_keep_a_private_log_private(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "hooks.log"
    path.parent.mkdir()
    path.write_bytes(b"old\n")
    path.chmod(0o644)
    log = AppendLog(path, mode=0o600, private=True)
    done = log.append(b"new\n")
    assert (done.start, done.size, done.inode) == (4, 8, path.stat().st_ino)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b"old\nnew\n"
    shared = AppendLog(tmp_path / "shared.log", mode=0o644)
    shared.append(b"a\n")
    (tmp_path / "shared.log").chmod(0o640)
    shared.append(b"b\n")
    assert stat.S_IMODE((tmp_path / "shared.log").stat().st_mode) == 0o640  # not private: its mode is left


def test_a_concurrent_log_does_not_mend_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "hooks.log"
    path.write_bytes(b"whole\ntorn")
    AppendLog(path, lock=lock_beside(path), concurrent=True).append(b"next\n")
    assert path.read_bytes() == b"whole\ntornnext\n"


def test_a_log_past_its_bound_is_rotated_once_to_its_dot_1(tmp_path: Path) -> None:
    path = tmp_path / "hooks.log"
    log = AppendLog(path, lock=lock_beside(path), rotate_at=10)
    rotated_path(path).write_bytes(b"the one before\n")
    log.append(b"12345\n")
    assert rotated_path(path).read_bytes() == b"the one before\n"
    log.append(b"67890\n")  # 12 bytes: past the bound
    assert rotated_path(path).read_bytes() == b"12345\n67890\n"
    assert not path.exists()
    log.append(b"after\n")
    assert path.read_bytes() == b"after\n"
    assert lock_beside(rotated_path(path)) == lock_beside(path) == tmp_path / ".hooks.log.lock"
    with pytest.raises(ValueError, match="needs a lock"):
        AppendLog(path, rotate_at=10)


def test_no_rotation_while_another_holds_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "hooks.log"
    log = AppendLog(path, lock=lock_beside(path), rotate_at=4)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock_beside(path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        log.append(b"past the bound\n")
        assert path.read_bytes() == b"past the bound\n" and not rotated_path(path).exists()
        with pytest.raises(Timeout):
            log.rewrite(lambda data: b"", wait=0.1)
    finally:
        holder.communicate(b"\n")
    log.append(b"now\n")
    assert rotated_path(path).read_bytes() == b"past the bound\nnow\n"


HOLD = """
import sys
from filelock import FileLock

with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_rewrite_keeps_a_shared_logs_mode_and_sets_a_private_ones(tmp_path: Path) -> None:
    shared = tmp_path / "recall.jsonl"
    shared.write_bytes(b"a secret\nb\n")
    shared.chmod(0o640)
    log = AppendLog(shared, mode=0o644, lock=tmp_path / "journal.lock")
    assert log.rewrite(lambda data: data.replace(b"secret", b"[redacted]")) is True
    assert shared.read_bytes() == b"a [redacted]\nb\n"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640
    assert log.rewrite(lambda data: data) is False

    private = tmp_path / "hooks.log"
    private.write_bytes("caf\xe9 secret\n".encode("latin-1"))  # not UTF-8: kept as it was
    private.chmod(0o644)
    hooks = AppendLog(private, mode=0o600, private=True, lock=lock_beside(private))
    assert hooks.rewrite(as_text(lambda text: text.replace("secret", "[redacted]"))) is True
    assert private.read_bytes() == "caf\xe9 [redacted]\n".encode("latin-1")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600

    assert AppendLog(tmp_path / "missing.log").rewrite(lambda data: b"x") is False
    assert not (tmp_path / "missing.log").exists()
    assert AppendLog(shared).rewrite(lambda data: b"", drop_empty=True) is True
    assert not shared.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == [".hooks.log.lock", "hooks.log", "journal.lock"]


def test_cut_hands_over_the_end_before_it_goes(tmp_path: Path) -> None:
    path = tmp_path / "recall.jsonl"
    path.write_bytes(b'{"seq":1}\n{"seq":2')
    taken: list[bytes] = []
    AppendLog(path).cut(10, taken.append)
    assert (taken, path.read_bytes()) == ([b'{"seq":2'], b'{"seq":1}\n')


def test_the_lock_is_reentrant_in_a_thread_and_keeps_other_threads_out(tmp_path: Path) -> None:
    log = AppendLog(tmp_path / "ledger.jsonl", lock=tmp_path / "ledger.lock")
    other = AppendLog(tmp_path / "ledger.jsonl", lock=tmp_path / "ledger.lock")  # the same lock, shared
    outcome: list[str] = []

    def try_it() -> None:
        try:
            with other.locked(wait=0.1):
                outcome.append("had it")
        except Timeout:
            outcome.append("timed out")

    with log.locked(wait=1):
        with other.locked(wait=0):  # this thread again
            log.append(b"1\n")
            assert log.rewrite(lambda data: data + b"2\n", wait=0) is True
        thread = threading.Thread(target=try_it)
        thread.start()
        thread.join()
    try_it()
    assert outcome == ["timed out", "had it"]
    assert (tmp_path / "ledger.jsonl").read_bytes() == b"1\n2\n"
