"""The sweep reaches every version of a fact in the note history: under every path the fact had
(moved outside brain), of a fact deleted by hand, and past a history log with a torn line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import brain as brain_package
from brain.memory.corpus import Corpus
from brain.memory.facts import service
from brain.memory.facts import sweep as retention
from brain.vault.vault import Vault
from tests.conftest import holding
from tests.helpers import crash_driver

T0 = (datetime.now(UTC) - timedelta(days=30)).replace(microsecond=0)  # the CLI sweeps at the real now
SECRET = "zebra-quokka-7731"  # a value that occurs nowhere else
DRIVER = Path(crash_driver.__file__)
CODE = Path(brain_package.__file__).resolve().parents[1]


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def superseded_secret(vault: Vault) -> tuple[str, str]:
    """SECRET recorded at day 0, superseded at day 10, kept 1 day: due from day 11."""
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n', encoding="utf-8")
    first = service.record_fact(
        Corpus(vault),
        "preference",
        "theme",
        SECRET,
        namespace="user:alice",
        retention_days=1,
        valid_from=at(0),
        now=at(0),
    )
    new = service.supersede_fact(Corpus(vault), first.fact.title, "calm", valid_from=at(10), now=at(10))
    return first.fact.title, new.fact.title


def tear(vault: Vault, path: str) -> None:
    """Cut the last line of the note's history log short, as a crash in the middle of an append does."""
    log = vault.history.log_path(path)
    with open(log, "ab") as handle:
        handle.write(b'{"v":9,"event":"ed')


def test_a_fact_moved_outside_brain_is_swept_from_every_path_it_had(vault: Vault, brain) -> None:
    old, _ = superseded_secret(vault)
    (vault.root / "archive").mkdir()
    os.rename(vault.root / f"facts/{old}.md", vault.root / f"archive/{old}.md")  # mv in a shell, or Obsidian
    assert holding(vault.root, SECRET) == sorted([f"archive/{old}.md", *_objects(vault)])
    report = retention.sweep(Corpus(vault), dry_run=False, now=at(20))
    assert [item.fact.title for item in report.due] == [old]
    assert report.stores["history_versions"] == 3  # recorded, closed, and its move found at the purge
    assert holding(vault.root, SECRET) == []
    missing = brain("note", "restore", old)
    assert (missing.exit_code, missing.stderr.startswith(f"error: no note named '{old}'")) == (1, True)
    recalled = brain("fact", "recall", "--namespace", "user:alice", "--history")
    assert SECRET not in recalled.stdout


def test_a_fact_moved_and_edited_outside_brain_is_still_swept_from_its_old_path(vault: Vault) -> None:
    old, _ = superseded_secret(vault)
    (vault.root / "archive").mkdir()
    text = (vault.root / f"facts/{old}.md").read_text()
    (vault.root / f"archive/{old}.md").write_text(text + "a note added by hand\n")  # moved, and its bytes changed
    (vault.root / f"facts/{old}.md").unlink()
    report = retention.sweep(Corpus(vault), dry_run=False, now=at(20))
    assert [item.fact.title for item in report.due] == [old]
    assert holding(vault.root, SECRET) == []
    assert vault.history.deleted() == []


def test_a_fact_deleted_by_hand_has_its_versions_swept_after_its_retention(vault: Vault) -> None:
    (vault.brain_dir / "config.toml").write_text(
        '[index]\nembedder = "lexical"\n[retention]\nretention_days = 30\n', encoding="utf-8"
    )
    written = service.record_fact(Corpus(vault), "preference", "theme", SECRET, namespace="user:alice", now=at(0))
    title = written.fact.title
    gone_at = datetime.fromisoformat(vault.history.entries(written.path)[-1].time.replace("Z", "+00:00"))
    (vault.root / written.path).unlink()  # deleted by hand: the history keeps its versions
    assert [item.fact.title for item in retention.sweep(Corpus(vault), dry_run=True, now=gone_at).due] == []
    later = gone_at + timedelta(days=31)
    plan = retention.sweep(Corpus(vault), dry_run=True, now=later)
    assert [(item.fact.title, item.policy) for item in plan.due] == [(title, "retention_days (default)")]
    report = retention.sweep(Corpus(vault), dry_run=False, now=later)
    assert [item.fact.title for item in report.due] == [title]
    assert holding(vault.root, SECRET) == []
    assert vault.history.entries(written.path) == []
    receipt = json.loads((vault.root / (report.receipt or "")).read_text())
    assert [(fact["id"], fact["file_sha256"]) for fact in receipt["facts"]] == [(title, None)]


def test_a_sweep_past_a_torn_history_log_deletes_and_purges_everything(vault: Vault, brain) -> None:
    old, _ = superseded_secret(vault)
    tear(vault, f"facts/{old}.md")
    doctor = brain("doctor")
    assert (
        f"history-torn    {vault.history.log_path(f'facts/{old}.md').relative_to(vault.root)}: 1 line" in doctor.stdout
    )
    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 0, result.output
    assert holding(vault.root, SECRET) == []
    assert not (vault.brain_dir / "journal/sweeps/PENDING.json").exists()


@pytest.mark.parametrize("finish", [("doctor", "--fix"), ("fact", "sweep", "--no-dry-run")])
def test_a_sweep_killed_after_deleting_files_with_a_torn_history_log_is_finished(vault: Vault, brain, finish) -> None:
    old, new = superseded_secret(vault)
    tear(vault, f"facts/{new}.md")  # another fact's log: every log is read by the purge
    env = {**os.environ, "PYTHONPATH": str(CODE)}
    args = ["fact", "sweep", "--no-dry-run", "--vault", str(vault.root)]
    killed = subprocess.run(
        [sys.executable, "-B", str(DRIVER), "brain.vault.history:History.purge", "1", "before", "--", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == 9, killed.stdout + killed.stderr
    assert not (vault.root / f"facts/{old}.md").exists()
    assert (vault.brain_dir / "journal/sweeps/PENDING.json").exists()
    assert holding(vault.root, SECRET)  # its versions are still in the history
    result = brain(*finish)
    assert "Traceback" not in result.output
    assert holding(vault.root, SECRET) == []
    assert not (vault.brain_dir / "journal/sweeps/PENDING.json").exists()
    if finish[0] == "doctor":
        assert "fixed: finished the interrupted sweep; receipt .brain/journal/sweeps/SWEEP-" in result.stdout
        assert "fixed: dropped 1 torn line of .brain/history/notes/" in result.stdout
        assert "history-torn" not in brain("doctor").stdout


def _objects(vault: Vault) -> list[str]:
    return sorted(
        path.relative_to(vault.root).as_posix()
        for path in (vault.brain_dir / "history/objects").rglob("*")
        if path.is_file() and SECRET.encode() in zlib.decompress(path.read_bytes())
    )
