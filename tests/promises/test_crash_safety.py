"""Crashes leave the vault whole: a real process is killed at the moment that matters
(tests/helpers/crash_driver.py wraps one function to `os._exit(9)`, as `kill -9` would), then the
invariants are checked: no value the sweep deleted is anywhere in the vault, one current value per
subject, every acknowledged journal record present and verified. A killed `brain index` takes its
parse workers with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import brain as brain_package
from brain.vault.init import init_vault
from brain.vault.vault import Vault
from tests.conftest import REPO
from tests.helpers import crash_driver

DRIVER = Path(crash_driver.__file__)
CODE = Path(brain_package.__file__).resolve().parents[1]  # the brain under test, for the subprocess
SECRET = "zebra-quokka-7731"  # a value that occurs nowhere else


def killed(vault: Vault, target: str, count: int, when: str, *args: str) -> subprocess.CompletedProcess:
    """Run `brain ARGS --vault V` in a subprocess killed at the `count`th call of `target`."""
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    done = subprocess.run(
        [sys.executable, "-B", str(DRIVER), target, str(count), when, "--", *args, "--vault", str(vault.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, f"the process was not killed where the test meant: {done.stdout}{done.stderr}"
    return done


def every_byte(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def holding(root: Path, text: str) -> list[str]:
    return sorted(path for path, data in every_byte(root).items() if text.encode() in data)


def record(brain, subject: str, value: str, *extra: str) -> str:
    result = brain(
        "fact", "record", "preference", subject, json.dumps(value), "--namespace", "user:alice", "--json", *extra
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["fact"]["id"]


def lexical(vault: Vault) -> None:
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n', encoding="utf-8")


# ---------------------------------------------------------------- 2. a sweep killed after deleting the files


def swept_secret(vault: Vault, brain) -> tuple[str, str]:
    """An indexed vault where SECRET is a superseded fact due for deletion, recalled into the journal."""
    lexical(vault)
    old = record(brain, "theme", SECRET, "--valid-from", "2026-01-01T00:00:00Z", "--retention-days", "1")
    new = brain("fact", "supersede", old, '"calm"', "--valid-from", "2026-01-10T00:00:00Z", "--json")
    assert new.exit_code == 0, new.output
    assert brain("index").exit_code == 0
    assert SECRET in brain("fact", "recall", "--namespace", "user:alice", "--history").stdout
    return old, json.loads(new.stdout)["fact"]["id"]


@pytest.mark.parametrize("finish", [("fact", "sweep", "--no-dry-run"), ("doctor", "--fix")])
def test_a_sweep_killed_after_deleting_the_files_is_finished_later(vault: Vault, brain, finish) -> None:
    old, new = swept_secret(vault, brain)
    killed(vault, "brain.memory.facts.journal:purge_values", 1, "before", "fact", "sweep", "--no-dry-run")
    assert not (vault.root / f"facts/{old}.md").exists()  # the files went, the journal was not purged yet
    assert holding(vault.root, SECRET) == [".brain/journal/recall.jsonl"]  # the plan names no value
    assert "interrupted-sweep" in brain("doctor").stdout

    result = brain(*finish)
    assert result.exit_code in (0, 1), result.output  # doctor exits 1 when it still finds something
    assert holding(vault.root, SECRET) == []
    (receipt,) = sorted((vault.brain_dir / "journal/sweeps").glob("SWEEP-*.json"))
    body = json.loads(receipt.read_text())
    assert [item["id"] for item in body["facts"]] == [old]
    assert body["facts"][0]["file_sha256"] is None  # deleted by the killed run, before this one
    assert body["counts"]["journal_values"] == 1
    assert not (vault.brain_dir / "journal/sweeps/PENDING.json").exists()
    assert "interrupted-sweep" not in brain("doctor").stdout
    journal = [json.loads(line) for line in (vault.brain_dir / "journal/recall.jsonl").read_text().splitlines()]
    assert [(r["id"], r.get("purged")) for r in journal[0]["results"]] == [(new, None), (old, receipt.stem)]
    again = brain("fact", "sweep", "--no-dry-run")
    assert again.stdout.strip().splitlines()[-1] == "0 facts deleted, 0 held"


def test_a_sweep_killed_mid_way_through_the_index_purge_is_finished_later(vault: Vault, brain) -> None:
    swept_secret(vault, brain)
    killed(vault, "brain.memory.facts.index:purge", 1, "before", "fact", "sweep", "--no-dry-run")
    assert holding(vault.root, SECRET)  # the catalog and the journal still hold it
    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 0, result.output
    assert "finished an interrupted sweep" in result.stdout
    assert holding(vault.root, SECRET) == []


# ---------------------------------------------------------------- 3. a supersede killed between its two writes


def test_a_supersede_killed_between_its_writes_leaves_one_current_value(vault: Vault, brain) -> None:
    old = record(brain, "theme", "dark", "--valid-from", "2026-01-01T00:00:00Z")
    killed(vault, "brain.vault.vault:Vault.write", 2, "before", "fact", "supersede", old, '"light"')
    files = sorted(path.stem for path in (vault.root / "facts").glob("FACT-*.md"))
    (new,) = [title for title in files if title != old]
    assert "superseded_by: ''" in (vault.root / f"facts/{old}.md").read_text()  # the closing was never written

    now = json.loads(brain("fact", "recall", "--namespace", "user:alice", "--subject", "theme", "--json").stdout)
    assert [(row["id"], row["status"]) for row in now["facts"]] == [(new, "valid")]
    refused = brain("fact", "supersede", old, '"blue"')
    assert refused.exit_code == 1
    assert refused.stderr.startswith(f"error: {old} is already closed (superseded by {new} at ")
    doctor = brain("doctor").stdout
    assert (
        f"interrupted-supersede facts/{old}.md: {old} is superseded by {new}, but its closing was never written"
        in doctor
    )

    fixed = brain("doctor", "--fix").stdout
    assert f"fixed: closed {old}: superseded by {new}" in fixed
    assert "interrupted-supersede" not in fixed
    text = (vault.root / f"facts/{old}.md").read_text()
    assert f"superseded_by: '[[{new}]]'" in text
    assert (
        f"closed_reason: 'closing written by `brain doctor --fix`: the supersede that recorded {new} was interrupted'"
        in text
    )
    third = brain("fact", "supersede", new, '"blue"', "--json")
    assert third.exit_code == 0, third.output
    after = json.loads(brain("fact", "recall", "--namespace", "user:alice", "--subject", "theme", "--json").stdout)
    assert [row["status"] for row in after["facts"]] == ["valid"]


# ---------------------------------------------------------------- 4. a write killed after linking its temp file


@pytest.mark.parametrize("cleaner", ["next write", "index", "doctor", "sweep"])
def test_a_temp_file_left_by_a_killed_write_is_removed(vault: Vault, brain, cleaner: str) -> None:
    lexical(vault)
    killed(
        vault, "os:link", 1, "after", "fact", "record", "preference", "theme", json.dumps(SECRET), "--namespace", "u"
    )
    (temp,) = (vault.root / "facts").glob(".brain-*.tmp")
    assert SECRET in temp.read_text()
    if cleaner == "next write":
        record(brain, "font", "serif")
    elif cleaner == "index":
        assert brain("index").exit_code == 0
    elif cleaner == "doctor":
        assert (
            f"temp-file       facts/{temp.name}: a temp file left by a write that was killed" in brain("doctor").stdout
        )
    else:
        assert brain("fact", "sweep", "--no-dry-run").exit_code == 0
    assert list((vault.root / "facts").glob(".brain-*.tmp")) == []


def test_a_sweep_leaves_no_temp_file_holding_a_swept_value(vault: Vault, brain) -> None:
    old, _ = swept_secret(vault, brain)
    # a write of the old fact's note killed after its temp file was made: it holds the value
    killed(vault, "brain.vault.fileswap:_recheck", 1, "before", "note", "edit", old, "--append", "a comment")
    assert [p.name for p in (vault.root / "facts").glob(".brain-*.tmp")] == [".brain-write.tmp"]
    result = brain("fact", "sweep", "--no-dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert list((vault.root / "facts").glob(".brain-*.tmp")) == []  # the relink's write, or the purge after it
    assert holding(vault.root, SECRET) == []


# ---------------------------------------------------------------- kill -9 at random moments


def test_kill_at_random_moments_of_a_sweep_never_leaves_a_swept_value(vault: Vault, brain) -> None:
    """A real `kill -9` after a random delay, a few times: whatever point it hit, the next sweep
    leaves no value it deleted anywhere, and the journal verifies."""
    import random
    import time

    lexical(vault)
    secrets = []
    for number in range(3):
        secret = f"{SECRET}-{number}"
        first = record(brain, f"s{number}", secret, "--valid-from", "2026-01-01T00:00:00Z", "--retention-days", "1")
        assert brain("fact", "supersede", first, '"calm"', "--valid-from", "2026-01-10T00:00:00Z").exit_code == 0
        secrets.append(secret)
    assert brain("index").exit_code == 0
    assert brain("fact", "recall", "--namespace", "user:alice", "--history").exit_code == 0
    rng = random.Random(25)
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    process = subprocess.Popen(
        [sys.executable, "-B", "-m", "brain", "fact", "sweep", "--no-dry-run", "--vault", str(vault.root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pending = vault.brain_dir / "journal/sweeps/PENDING.json"
    deadline = time.monotonic() + 60
    while not pending.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    time.sleep(rng.uniform(0, 0.3))
    process.kill()
    process.wait()
    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 0, result.output
    assert [s for s in secrets if holding(vault.root, s)] == []
    assert "journal " not in brain("doctor").stdout


# ---------------------------------------------------------------- a killed indexer
# `kill -9` of `brain index` takes its parse workers with it (they lived on for hours, about 41 MB each).


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc") or (os.cpu_count() or 1) < 2, reason="needs /proc and 2 cores")
def test_parse_workers_die_with_a_killed_indexer(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    (vault.root / "notes").mkdir()
    for number in range(6000):
        (vault.root / "notes" / f"Note {number}.md").write_text(
            f"---\ntitle: Note {number}\ntags: [a, b]\n---\n\n# Note {number}\n\n" + "Some words. " * 200
        )
    indexer = subprocess.Popen(
        [sys.executable, "-m", "brain", "index", "--no-embed", "--vault", str(vault.root)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(workers) < 2 and indexer.poll() is None:
        workers = [pid for pid in children(indexer.pid) if alive(pid)]
        time.sleep(0.01)
    assert len(workers) >= 2, "the indexer finished before its pool started; give it more notes"
    time.sleep(0.3)  # the workers are parsing
    os.kill(indexer.pid, signal.SIGKILL)
    indexer.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(alive(pid) for pid in workers):
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []
