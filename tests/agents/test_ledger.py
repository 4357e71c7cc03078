"""The ledger of what the hooks inject (`.brain/hooks/ledger.jsonl`) and what `brain hooks status`
makes of it: tokens per session over the last days, and which injected notes the agent then used."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain.agents.ledger import ledger_path, notes_named
from tests.conftest import REPO, run_brain

SESSION = "5b0c7d2e-1111-4a2b-9c3d-000000000001"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    copy = tmp_path / "vault-example"
    shutil.copytree(REPO / "vault-example", copy)
    return copy


def brain_process(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`brain ARGS` as an agent runs a hook: a process of its own, the hook JSON on stdin."""
    return subprocess.run(
        [sys.executable, "-m", "brain", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def transcript_naming(path: Path, session: str, named: str, at: datetime) -> Path:
    """A Claude Code transcript whose agent reads a note (`named`) after `at`."""
    later = (at + timedelta(seconds=5)).isoformat().replace("+00:00", "Z")
    records = [
        {
            "type": "user",
            "sessionId": session,
            "timestamp": later,
            "cwd": "/work/demo",
            "message": {"role": "user", "content": "make the payment retries safe"},
        },
        {
            "type": "assistant",
            "sessionId": session,
            "timestamp": later,
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "mcp__brain__read_note", "input": {"name": named}}
                ],
            },
        },
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def session_start(vault: Path, session: str, transcript: Path) -> str:
    payload = {"session_id": session, "transcript_path": str(transcript), "hook_event_name": "SessionStart"}
    done = brain_process("hooks", "run", "session-start", "--vault", str(vault), stdin=json.dumps(payload))
    assert done.returncode == 0 and done.stderr == ""
    context: str = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    return context


def test_each_injection_is_a_ledger_line_and_status_counts_tokens_and_the_notes_used(example, tmp_path):
    before = datetime.now(UTC)
    transcript = tmp_path / f"{SESSION}.jsonl"
    context = session_start(example, SESSION, transcript)
    (entry,) = [json.loads(line) for line in ledger_path(example).read_text().splitlines()]
    named = notes_named(context)
    assert "ANTIPATTERN-retry-without-idempotency" in named and "TIP-key-writes-before-enabling-retries" in named
    assert entry["session"] == SESSION and entry["event"] == "session-start"
    assert entry["tokens"] == math.ceil(len(context) / 4) and entry["notes"] == named
    assert entry["transcript"] == str(transcript)
    assert ledger_path(example).stat().st_mode & 0o777 == 0o600
    assert datetime.fromisoformat(entry["at"]) >= before

    transcript_naming(transcript, SESSION, "ANTIPATTERN-retry-without-idempotency", datetime.now(UTC))
    status = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(example), "--json")
    assert status.exit_code == 0
    injected = json.loads(status.stdout)["injected"]
    (session,) = injected["sessions"]
    assert (injected["days"], injected["tokens"], injected["notes_named"], injected["notes_used"]) == (
        7,
        entry["tokens"],
        len(named),
        1,
    )
    assert session["session"] == SESSION and session["injections"] == 1
    assert session["tokens_by_event"] == {"session-start": entry["tokens"]}
    assert session["used"] == ["ANTIPATTERN-retry-without-idempotency"]

    text = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(example)).stdout
    lines = text.splitlines()
    at = datetime.fromisoformat(entry["at"]).strftime("%Y-%m-%d %H:%M")
    assert lines[-2:] == [
        f"tokens injected, last 7 days: {entry['tokens']} in 1 session; injected notes used 1 of {len(named)}",
        f"  {at}  {SESSION}: session-start {entry['tokens']}; injected notes used 1 of {len(named)}",
    ]


def test_status_leaves_out_older_injections_and_says_when_a_transcript_cannot_be_read(example, tmp_path):
    old = (datetime.now(UTC) - timedelta(days=10)).isoformat()
    ledger_path(example).parent.mkdir(parents=True, exist_ok=True)
    ledger_path(example).write_text(
        json.dumps({"session": "old", "event": "session-start", "at": old, "tokens": 900, "notes": ["X"]})
        + "\n"
        + "{cut short by a cra\n",
        encoding="utf-8",
    )
    gone = tmp_path / "gone.jsonl"
    context = session_start(example, "s2", gone)
    tokens = math.ceil(len(context) / 4)
    named = len(notes_named(context))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not a transcript\n", encoding="utf-8")
    session_start(example, "s3", garbage)
    lines = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(example)).stdout.splitlines()
    assert lines[-3] == (
        f"tokens injected, last 7 days: {2 * tokens} in 2 sessions; "
        "use of the injected notes unknown (transcripts unavailable)"
    )
    assert lines[-2].endswith(f"  s2: session-start {tokens}; {named} notes named, transcript unavailable")
    assert lines[-1].endswith(f"  s3: session-start {tokens}; {named} notes named, transcript unavailable")
    wider = json.loads(
        run_brain(
            "hooks", "status", "--project-dir", str(tmp_path), "--vault", str(example), "--days", "30", "--json"
        ).stdout
    )["injected"]
    assert [(s["session"], s["tokens"], s["used"]) for s in wider["sessions"]] == [
        ("old", 900, None),
        ("s2", tokens, None),
        ("s3", tokens, None),
    ]


def test_a_hook_that_hands_nothing_writes_no_ledger_line(tmp_path):
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path / "empty")
    payload = json.dumps({"session_id": "s", "transcript_path": str(tmp_path / "t.jsonl")})
    done = brain_process("hooks", "run", "session-start", "--vault", str(vault.root), stdin=payload)
    assert (done.returncode, done.stdout) == (0, "")
    assert not ledger_path(vault.root).exists()
    status = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(vault.root))
    assert status.stdout.splitlines()[-1] == "tokens injected, last 7 days: none"


def crowd(vault: Path, count: int) -> None:
    """Failed sessions of today, each with a long task, so the session-start context would pass its budget."""
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    for number in range(count):
        title = f"EPISODE-{today}-crowd-{number:02d}"
        task = f"Migrate ledger shard {number} to the new storage engine " + "and rebuild its secondary indexes " * 8
        (vault / "episodes" / f"{title}.md").write_text(
            f'---\ntitle: {title}\ntype: episode\ndate: "{today}T08:{number:02d}:00Z"\noutcome: failure\n'
            f"task: {task.strip()}\n---\n\n# {title}\n\n## Lessons\n- Check the shard's lag first.\n",
            encoding="utf-8",
        )
        anti = f"ANTIPATTERN-crowd-{number:02d}"
        (vault / "patterns" / f"{anti}.md").write_text(
            f"---\ntitle: {anti}\ntype: pattern\ntrigger: {task.strip()}\nsuccess_rate: 0.1\noccurrences: 5\n---\n\n"
            f"# {anti}\n\n## Trigger\n{task.strip()}\n\n## Action\nRetry blindly.\n",
            encoding="utf-8",
        )


def test_notes_named_reads_links_and_list_items() -> None:
    text = (
        "# Context for: this session\n\n## Recent failures\n- EPISODE-2026-03-01-abc (2026-03-01): deploy\n"
        "## Facts valid now\n- db-pool-size (config, default, since 2026-03-01): 20 [[FACT-db-pool-size-1a2b3c4d]]\n"
        "## Core tips\n- TIP-read-before-edit [strategy]: read a file before editing it\n- plain prose line\n"
    )
    assert notes_named(text) == ["EPISODE-2026-03-01-abc", "FACT-db-pool-size-1a2b3c4d", "TIP-read-before-edit"]


def test_session_start_stays_within_the_budget_by_default_and_follows_the_config(example, tmp_path):
    crowd(example, 40)
    context = session_start(example, "s3", tmp_path / "t.jsonl")
    assert 900 * 4 < len(context) <= 1000 * 4  # the default [hooks] budget, within 1,500 tokens
    config = example / ".brain" / "config.toml"
    original = config.read_text()
    config.write_text(original + "\n[hooks]\nbudget = 300\n", encoding="utf-8")
    assert len(session_start(example, "s4", tmp_path / "t.jsonl")) <= 300 * 4
    config.write_text(original + "\n[hooks]\nbudget = 5\n", encoding="utf-8")
    payload = json.dumps({"session_id": "s5"})
    done = brain_process("hooks", "run", "session-start", "--vault", str(example), stdin=payload)
    assert (done.returncode, done.stdout) == (0, "")
    assert (
        "[hooks] budget must be a whole number of tokens from 100 to 100000 (got 5)"
        in (example / ".brain" / "logs" / "hooks.log").read_text()
    )


@pytest.mark.parametrize(
    "field",
    [{"tokens": "many"}, {"tokens": [12]}, {"notes": 5}, {"at": 5}, {"session": {"id": "s9"}}, {"transcript": [1]}],
)
def test_a_ledger_line_with_a_field_of_the_wrong_type_is_skipped(example, tmp_path, field):
    """Issue 40, 16: a ledger line that is valid JSON with a field of the wrong type ended `brain hooks
    status` in a traceback. It is skipped, as a line cut short is."""
    context = session_start(example, "s2", tmp_path / "gone.jsonl")
    good = ledger_path(example).read_text(encoding="utf-8")
    now = datetime.now(UTC).isoformat()
    bad = {"session": "s1", "event": "session-start", "at": now, "tokens": 10, "notes": ["X"]} | field
    ledger_path(example).write_text(json.dumps(bad) + "\n" + good, encoding="utf-8")
    done = run_brain("hooks", "status", "--project-dir", str(tmp_path), "--vault", str(example))
    assert done.exit_code == 0
    tokens = math.ceil(len(context) / 4)
    assert done.stdout.splitlines()[-2] == (
        f"tokens injected, last 7 days: {tokens} in 1 session; use of the injected notes unknown (transcripts unavailable)"
    )
