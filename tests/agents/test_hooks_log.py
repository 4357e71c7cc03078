"""The hooks log stays bounded: past ROTATE_BYTES it is renamed to `hooks.log.1` (the one before
dropped), so the two files never hold much more than twice that; `brain hooks status` reads both and
shows the same last runs and errors after a rotation; appenders that cross the bound together rotate
once, and lose no line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brain.agents import runtime
from brain.agents.hooks_log import ROTATE_BYTES, log_path, rotated_path
from brain.agents.runner import main as hooks_run
from brain.vault.init import init_vault
from tests.agents.test_hooks import brain_process
from tests.conftest import REPO, run_brain


def vault_root(tmp_path: Path) -> Path:
    vault, _ = init_vault(tmp_path / "vault")
    return vault.root


def kept_lines(root: Path) -> list[str]:
    """The log's lines, the rotated file's first, without their time stamps."""
    path = log_path(root)
    return [
        line.split(" ", 1)[1]
        for file in (rotated_path(path), path)
        if file.is_file()
        for line in file.read_text(encoding="utf-8").splitlines()
    ]


def test_many_hook_runs_with_bad_arguments_leave_two_files_under_the_bound(tmp_path: Path) -> None:
    """`brain hooks run` with an argument it cannot read: one line in the log each."""
    root = vault_root(tmp_path)
    path = log_path(root)
    padding = "x" * 4000  # a line of about 4 KB, so 3 MiB of runs pass the bound twice
    runs = 3 * ROTATE_BYTES // len(padding)
    largest = 0
    for number in range(runs - 1):  # `brain hooks run ARGS`, in this process
        assert hooks_run(["session-start", "--vault", str(root), f"--bad-{number:04d}-{padding}"])
        largest = max(largest, path.stat().st_size if path.is_file() else 0)
    done = brain_process("hooks", "run", "session-start", "--vault", str(root), f"--bad-{runs - 1:04d}-{padding}")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    line = len(
        f"2026-11-29T00:00:00Z session-start error: bad arguments: unrecognized arguments: --bad-0000-{padding}\n"
    )
    assert largest <= ROTATE_BYTES + line
    assert rotated_path(path).stat().st_size <= ROTATE_BYTES + line
    assert sorted(file.name for file in path.parent.glob("hooks.log*")) == ["hooks.log", "hooks.log.1"]
    kept = kept_lines(root)
    # the newest runs, in the order they ran, the last one included: at least a whole file of them
    first = runs - len(kept)
    assert kept == [
        f"session-start error: bad arguments: unrecognized arguments: --bad-{number:04d}-{padding}"
        for number in range(first, runs)
    ]
    assert len(kept) * line > ROTATE_BYTES and first > 0


def status(root: Path, tmp_path: Path, *more: str) -> str:
    done = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(root), *more)
    assert done.exit_code == 0
    return done.stdout


def test_status_shows_the_last_runs_and_errors_of_the_rotated_file_too(tmp_path: Path) -> None:
    """The warm-up and the errors are logged before a rotation; after it, the current file holds only
    tool failures, and status shows the same as if nothing had been rotated."""
    root = vault_root(tmp_path)
    path = log_path(root)
    runtime.log(root, "warm", "patterns and tips embedded in 1.0 s")
    for number in range(7):
        runtime.log(root, "session-end", f"error: ValueError: bad transcript {number}")
    filler = "s1: Bash [exit 1: no such file] not seen before " + "y" * 1000
    while not rotated_path(path).exists():
        runtime.log(root, "tool-failure", filler)
    runtime.log(root, "tool-failure", "s2: Bash [exit 1: no such file] not seen before")

    current = path.read_text(encoding="utf-8").splitlines()
    older = rotated_path(path).read_text(encoding="utf-8").splitlines()
    assert [line.split(" ", 1)[1] for line in current] == [
        "tool-failure s2: Bash [exit 1: no such file] not seen before"
    ]
    warm_at, errors = older[0].split(" ")[0], older[3:8]
    assert [line.split(" ", 1)[1] for line in errors] == [
        f"session-end error: ValueError: bad transcript {number}" for number in range(2, 7)
    ]
    assert (
        f"  last runs: session-end {errors[-1].split(' ')[0]} error; tool-failure {current[0].split(' ')[0]} ok; "
        f"warm {warm_at} ok\n"
        "  last errors:\n" + "".join(f"    {line}\n" for line in errors)
    ) in status(root, tmp_path)
    found = json.loads(status(root, tmp_path, "--json"))["vaults"][0]
    assert found["last_errors"] == errors
    assert found["last_runs"][2] == {"event": "warm", "at": warm_at, "result": "ok"}


APPENDER = """
import sys
from pathlib import Path

from brain.agents import runtime

root, name, lines, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    pass
for number in range(lines):
    runtime.log(root, name, f"line {number} " + "z" * 200)
"""


def test_appenders_crossing_the_bound_together_rotate_once_and_lose_no_line(tmp_path: Path) -> None:
    """Four processes append to a log a line short of the bound, so each one's first line passes it
    and each tries to rotate at once; they append less than the bound in all, so one rotation is
    due. Every line is kept, whole and once: the earlier lines in `hooks.log.1`, each writer's in
    the order it wrote them."""
    root = vault_root(tmp_path)
    path = log_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    earlier = [f"2026-11-28T10:00:00Z session-start earlier {number:05d} " + "e" * 100 for number in range(10_000)]
    text = "".join(line + "\n" for line in earlier)
    while len(text) > ROTATE_BYTES - 50:  # a line short of the bound
        earlier.pop(0)
        text = "".join(line + "\n" for line in earlier)
    path.write_text(text, encoding="utf-8")
    go, writers, each = tmp_path / "go", 4, 800  # 4 x 800 lines of about 240 bytes: under a MiB
    env = os.environ | {"PYTHONPATH": str(REPO)}
    started = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(root), f"w{k}", str(each), str(go)], cwd=REPO, env=env)
        for k in range(writers)
    ]
    go.touch()
    assert [process.wait(timeout=300) for process in started] == [0] * writers

    older = rotated_path(path).read_text(encoding="utf-8").splitlines()
    assert older[: len(earlier)] == earlier  # rotated once: no second rotation replaced it
    kept = kept_lines(root)
    for k in range(writers):
        assert [line for line in kept if line.startswith(f"w{k} ")] == [
            f"w{k} line {number} " + "z" * 200 for number in range(each)
        ]
    assert len(kept) == len(earlier) + writers * each
    assert path.stat().st_size < ROTATE_BYTES


def test_the_log_is_readable_by_its_owner_only(tmp_path: Path, monkeypatch) -> None:
    """Its lines name sessions and commands; without a vault it is in the shared temporary folder."""
    vault = tmp_path / "vault"
    init_vault(vault)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    runtime.log(vault, "session-start", "a line")
    runtime.log(None, "session-start", "a line without a vault")
    for path in (log_path(vault), tmp_path / "tmp" / "brain-hooks.log"):
        assert path.read_text().endswith("\n") and (path.stat().st_mode & 0o777) == 0o600, path


RAW_APPENDER = """
import sys
from pathlib import Path

from brain.agents.hooks_log import append, log_path

root, name, lines, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    pass
for number in range(lines):  # as a worker's stderr lands in the log: not redacted
    append(log_path(root), f"2026-11-28T10:00:00Z extract {name} line {number} password=hunter2-{name}-{number}")
"""


def test_redact_rewriting_the_log_loses_no_line_hooks_append_meanwhile(tmp_path: Path) -> None:
    """Issue 40, 3: `brain redact --apply` replaced the log with its redacted text while hooks
    appended to it; the lines appended between its read and its rename were lost (7 to 16 of 1,500)."""
    from brain.memory.sessions.scrub import redact_vault
    from brain.vault.vault import Vault

    root = vault_root(tmp_path)
    go, writers, each = tmp_path / "go", 3, 500
    env = os.environ | {"PYTHONPATH": str(REPO)}
    started = [
        subprocess.Popen(
            [sys.executable, "-c", RAW_APPENDER, str(root), f"w{k}", str(each), str(go)], cwd=REPO, env=env
        )
        for k in range(writers)
    ]
    go.touch()
    runs = 0
    while any(process.poll() is None for process in started) or runs == 0:
        redact_vault(Vault(root), None, apply=True)  # each finds the lines appended since the last
        runs += 1
    assert [process.wait(timeout=300) for process in started] == [0] * writers
    redact_vault(Vault(root), None, apply=True)
    kept = kept_lines(root)
    for k in range(writers):
        assert [line for line in kept if line.startswith(f"extract w{k} ")] == [
            f"extract w{k} line {number} password=[REDACTED:assignment]" for number in range(each)
        ], runs
    assert len(kept) == writers * each


def test_the_log_a_spawned_worker_opens_and_a_redacted_log_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    """Issue 40, 9: the first hook's spawned worker created the log (its stderr) mode 644, `brain
    redact --apply` rewrote it 644, and a log an older brain made stayed 644."""
    root = vault_root(tmp_path)
    path = log_path(root)
    runtime.spawn(root, ["no-such-event"])  # the worker's stderr goes to the log, which it opens first
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)  # as an older brain left it
    runtime.log(root, "session-start", "a line")
    assert path.stat().st_mode & 0o777 == 0o600
    with path.open("a") as log:
        log.write("2026-11-28T10:00:00Z extract x: password=hunter2-xyz\n")
    path.chmod(0o644)
    done = run_brain("redact", "--apply", "--vault", str(root))
    assert done.exit_code == 0, done.output
    assert "hunter2-xyz" not in path.read_text() and path.stat().st_mode & 0o777 == 0o600
