"""What facts promise under hostile edits and odd inputs: no note tool lifts a legal hold, the
journal's purged marks, truncation, torn lines and short writes are caught, a sweep keeps the
journal's mode, out-of-range dates are one-line errors, subjects compare in NFC."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import brain as brain_package
from brain.vault.vault import Vault
from tests.conftest import DATA
from tests.helpers.mcp_harness import connect, text_of

CODE = Path(brain_package.__file__).resolve().parents[1]
SECRET = "zebra-quokka-7731"


def every_byte(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def record(brain, subject: str, value, *extra: str, namespace: str = "user:alice") -> str:
    result = brain(
        "fact", "record", "preference", subject, json.dumps(value), "--namespace", namespace, "--json", *extra
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["fact"]["id"]


def recall(brain, *extra: str):
    return brain("fact", "recall", "--namespace", "user:alice", *extra)


def journal(vault: Vault) -> Path:
    return vault.brain_dir / "journal" / "recall.jsonl"


def journal_findings(brain) -> list[str]:
    lines = brain("doctor").stdout.splitlines()
    return [line for line in lines if line.startswith("journal ")]


# ---------------------------------------------------------------- 5. a legal hold no agent can lift


HOLD_EDITS = [
    ("--set", "legal_hold=false"),
    ("--set", "legal_delete_at=2020-01-01T00:00:00Z"),
    ("--set", "type=note"),
    ("--find", "legal_hold: true", "--replace", "legal_hold: false"),
    ("--set", "valid_until=2020-01-01T00:00:00Z"),
]


@pytest.mark.parametrize("edit", HOLD_EDITS, ids=lambda edit: " ".join(edit))
def test_the_note_tools_refuse_to_change_a_facts_managed_keys(vault: Vault, brain, edit) -> None:
    held = record(brain, "ledger", SECRET, "--legal-hold")
    before = every_byte(vault.root)
    result = brain("note", "edit", held, *edit)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: facts/{held}.md is a fact; the note tools do not change its ")
    assert every_byte(vault.root) == before


def test_an_mcp_agent_cannot_lift_a_hold(vault: Vault, brain) -> None:
    held = record(brain, "ledger", SECRET, "--legal-hold")
    before = every_byte(vault.root)
    with connect(vault.root) as client:
        for frontmatter in ({"legal_hold": False}, {"legal_delete_at": "2020-01-01T00:00:00Z"}, {"type": "note"}):
            result = client.call(
                "edit_note", {"name": held, "operation": "set_frontmatter", "frontmatter": frontmatter}
            )
            assert result.is_error, text_of(result)
            assert "is a fact; the note tools do not change its" in text_of(result)
        result = client.call(
            "write_note", {"title": held, "folder": "facts", "content": "x", "note_type": "note", "overwrite": True}
        )
        assert result.is_error
    assert {k: v for k, v in every_byte(vault.root).items() if not k.startswith(".brain/")} == {
        k: v for k, v in before.items() if not k.startswith(".brain/")
    }


def test_a_hold_lifted_by_editing_the_file_keeps_the_fact(vault: Vault, brain) -> None:
    held = record(brain, "ledger", SECRET, "--legal-hold", "--valid-from", "2026-01-01T00:00:00Z")
    path = vault.root / f"facts/{held}.md"
    # a person (or a program) edits the note: hold off, a delete date in the past
    text = path.read_text().replace("legal_hold: true", "legal_hold: false")
    path.write_text(text.replace("legal_delete_at: ''", "legal_delete_at: '2026-02-01T00:00:00Z'"))
    swept = brain("fact", "sweep", "--no-dry-run")
    assert swept.exit_code == 0, swept.output
    assert swept.stdout.splitlines() == [
        f"held {held} (user:alice): legal hold on the fact (lifted in its note, not by a fact command: "
        "the hold register keeps it); due by legal_delete_at",
        "0 facts deleted, 1 held",
    ]
    assert path.exists()
    assert (
        f"hold-lifted     facts/{held}.md: {held} was put under a legal hold, but its note no longer says so"
        in brain("doctor").stdout
    )


# ---------------------------------------------------------------- 6. a forged purged mark


def test_a_value_marked_purged_without_a_receipt_is_reported(vault: Vault, brain) -> None:
    fact = record(brain, "theme", "dark")
    assert recall(brain).exit_code == 0
    assert journal_findings(brain) == []
    record_ = json.loads(journal(vault).read_text())
    record_["results"][0]["value"] = "forged"
    record_["results"][0]["purged"] = "SWEEP-20260101T000000Z"
    journal(vault).write_text(json.dumps(record_) + "\n")
    assert journal_findings(brain) == [
        f"journal         .brain/journal/recall.jsonl:1: the value of {fact} is marked purged by "
        "SWEEP-20260101T000000Z, but no sweep receipt lists that fact (forged)"
    ]


# ---------------------------------------------------------------- 7. the newest records, or the whole journal, removed


def test_removing_the_newest_records_is_reported_and_the_chain_goes_on(vault: Vault, brain) -> None:
    record(brain, "theme", "dark")
    for _ in range(3):
        assert recall(brain).exit_code == 0
    lines = journal(vault).read_text().splitlines(keepends=True)
    journal(vault).write_text("".join(lines[:2]))
    assert journal_findings(brain) == [
        "journal         .brain/journal/recall.jsonl: the journal ends at #2 but its anchor says #3: "
        "the newest records were removed"
    ]
    assert json.loads(recall(brain, "--json").stdout)["journal"]["seq"] == 4  # never #3 again


def test_removing_the_whole_journal_is_reported(vault: Vault, brain) -> None:
    record(brain, "theme", "dark")
    for _ in range(2):
        assert recall(brain).exit_code == 0
    journal(vault).unlink()
    assert journal_findings(brain) == [
        "journal         .brain/journal/recall.jsonl: the journal is missing or empty, but its anchor says 2 "
        "records were written"
    ]
    assert json.loads(recall(brain, "--json").stdout)["journal"]["seq"] == 3  # not a new chain at #1
    assert journal_findings(brain)[0].startswith(
        "journal         .brain/journal/recall.jsonl:1: seq 3 where 1 was expected"
    )


# ---------------------------------------------------------------- 8. a torn last line


def test_a_torn_last_line_is_set_aside_and_recall_goes_on(vault: Vault, brain) -> None:
    record(brain, "theme", "dark")
    assert recall(brain).exit_code == 0
    good = journal(vault).read_bytes()
    with journal(vault).open("ab") as handle:
        handle.write(b'{"seq":2,"time":"2026-')  # a write cut short
    again = recall(brain, "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["journal"]["seq"] == 2
    assert journal(vault).read_bytes().startswith(good)
    (torn,) = (vault.brain_dir / "journal/torn").glob("*.jsonl")
    assert torn.read_bytes() == b'{"seq":2,"time":"2026-'
    doctor = brain("doctor").stdout
    assert f"journal-torn    .brain/journal/torn/{torn.name}: the journal's last line was not a whole record" in doctor
    assert journal_findings(brain) == []
    assert brain("context", "bootstrap", "a task").exit_code == 0


# ---------------------------------------------------------------- 9. a full disk


def test_a_recall_on_a_full_disk_is_an_error_and_leaves_the_journal_whole(vault: Vault, brain) -> None:
    record(brain, "theme", "dark" * 40)
    assert recall(brain).exit_code == 0
    before = journal(vault).read_bytes()
    limit = len(before) + 50  # the next record is longer: the disk takes part of it, then refuses

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [
            sys.executable,
            "-B",
            "-m",
            "brain",
            "fact",
            "recall",
            "--namespace",
            "user:alice",
            "--vault",
            str(vault.root),
        ],
        env={**os.environ, "PYTHONPATH": str(CODE)},
        capture_output=True,
        text=True,
        preexec_fn=full_disk,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith("error: cannot write the recall journal .brain/journal/recall.jsonl (")
    assert len(done.stderr.strip().splitlines()) == 1 and "dark" not in done.stdout
    assert journal(vault).read_bytes() == before
    assert json.loads(recall(brain, "--json").stdout)["journal"]["seq"] == 2
    assert journal_findings(brain) == []


# ---------------------------------------------------------------- 11. the journal's mode


def test_a_sweep_keeps_the_journals_mode(vault: Vault, brain) -> None:
    old = record(brain, "theme", SECRET, "--valid-from", "2026-01-01T00:00:00Z", "--retention-days", "1")
    assert brain("fact", "supersede", old, '"calm"', "--valid-from", "2026-01-10T00:00:00Z").exit_code == 0
    assert recall(brain, "--history").exit_code == 0
    journal(vault).chmod(0o640)
    assert brain("fact", "sweep", "--no-dry-run").exit_code == 0
    assert SECRET not in journal(vault).read_text()
    assert journal(vault).stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------- 13. inputs out of range


EARLY = """---
title: FACT-early
type: fact
kind: preference
subject: early
value: v
namespace: user:alice
valid_from: 0001-01-01T00:00:00+01:00
recorded_at: 2026-01-01T00:00:00Z
---
"""

FOREVER = """---
title: FACT-forever
type: fact
kind: preference
subject: forever
value: kept
namespace: user:alice
valid_from: 2026-01-01T00:00:00Z
valid_until: 2026-01-02T00:00:00Z
retention_days: 999999999
recorded_at: 2026-01-01T00:00:00Z
---
"""


def test_dates_out_of_range_never_stop_the_fact_commands(vault: Vault, brain) -> None:
    (vault.root / "facts/FACT-early.md").write_text(EARLY)
    (vault.root / "facts/FACT-forever.md").write_text(FOREVER)
    due = record(brain, "theme", SECRET, "--valid-from", "2026-01-01T00:00:00Z", "--retention-days", "1")
    assert brain("fact", "supersede", due, '"calm"', "--valid-from", "2026-01-10T00:00:00Z").exit_code == 0
    found = json.loads(recall(brain, "--json").stdout)
    assert sorted(row["subject"] for row in found["facts"]) == ["early", "theme"]
    assert brain("fact", "history", "early", "--namespace", "user:alice").exit_code == 0
    assert brain("context", "bootstrap", "a task", "--namespace", "user:alice").exit_code == 0
    assert brain("context", "bootstrap", "a task", "--days", "999999999").exit_code == 0
    assert (
        "valid_from '0001-01-01T00:00:00+01:00' is outside the dates brain can hold (years 1 to 9999 in UTC)"
        in brain("doctor").stdout
    )
    swept = brain("fact", "sweep", "--no-dry-run")
    assert swept.exit_code == 0, swept.output
    assert swept.stdout.splitlines()[0].startswith(f"deleted {due} (user:alice): retention_days (fact)")
    assert (vault.root / "facts/FACT-forever.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("fact", "recall", "--as-of", "9999-12-31T23:59:59-01:00"),
            "error: as of '9999-12-31T23:59:59-01:00' is outside the dates brain can hold (years 1 to 9999 in UTC)",
        ),
        (
            ("fact", "record", "preference", "x", '"y"', "--retention-days", "99999999"),
            "error: --retention-days: 99999999 is out of range; give 0 to 3650000",
        ),
        (
            (
                "run",
                "record",
                "-f",
                str(DATA / "runs" / "loan-42.json"),
                "--tenant",
                "t",
                "--ttl",
                "99999999d",
            ),
            "error: ttl '99999999d' ends after the year 9999 (UTC); give a shorter one, or none to keep the run",
        ),
    ],
)
def test_out_of_range_arguments_are_one_line_errors(vault: Vault, brain, args, message) -> None:
    before = every_byte(vault.root)
    result = brain(*args)
    assert result.exit_code == 2  # a value out of range is a usage error
    assert result.stderr.strip().splitlines() == [message]
    assert {k: v for k, v in every_byte(vault.root).items() if "journal" not in k} == before


# ---------------------------------------------------------------- 21. Unicode forms


def test_subjects_kinds_and_namespaces_compare_in_nfc(vault: Vault, brain) -> None:
    nfc, nfd = "café", unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    # distinct valid_from: two facts recorded within one second are otherwise ordered by their hashed titles
    first = record(brain, nfc, "dark", "--valid-from", "2026-01-01T00:00:00Z", namespace=f"user:{nfd}")
    by_nfd = json.loads(brain("fact", "recall", "--namespace", f"user:{nfc}", "--subject", nfd, "--json").stdout)
    assert [row["id"] for row in by_nfd["facts"]] == [first]
    history = brain("fact", "history", nfd, "--namespace", f"user:{nfd}")
    assert history.exit_code == 0 and first in history.stdout
    refused = brain("fact", "record", "preference", nfd, "light", "--namespace", f"user:{nfc}")
    assert refused.exit_code == 1 and refused.stderr.startswith(
        f"error: '{nfc}' already has a current value in namespace 'user:{nfc}': {first} = dark;"
    )
    second = record(brain, nfd, "light", "--valid-from", "2026-02-01T00:00:00Z", "--supersede", namespace=f"user:{nfc}")
    text = (vault.root / f"facts/{second}.md").read_text()
    assert f"subject: {nfc}" in text and f"namespace: user:{nfc}" in text
    history = brain("fact", "history", nfc, "--namespace", f"user:{nfc}", "--json")
    assert [row["id"] for row in json.loads(history.stdout)] == [first, second]


def test_a_hold_is_put_and_lifted_only_by_the_fact_commands(vault: Vault, brain) -> None:
    fact = record(
        brain, "box", SECRET, "--valid-from", "2026-01-01T00:00:00Z", "--legal-delete-at", "2026-02-01T00:00:00Z"
    )
    assert brain("fact", "hold", fact).stdout == f"held facts/{fact}.md: legal hold on {fact}\n"
    assert "legal_hold: true" in (vault.root / f"facts/{fact}.md").read_text()
    assert brain("fact", "sweep", "--no-dry-run").stdout.splitlines()[-1] == "0 facts deleted, 1 held"
    assert brain("fact", "release", fact).exit_code == 2  # a reason is required
    released = brain("fact", "release", fact, "--reason", "case closed")
    assert released.stdout == f"released facts/{fact}.md: no legal hold on {fact}\n"
    entries = [json.loads(line) for line in (vault.brain_dir / "journal/holds.jsonl").read_text().splitlines()]
    assert [(e["id"], e.get("action"), e.get("reason")) for e in entries] == [
        (fact, None, None),
        (fact, "release", "case closed"),
    ]
    swept = brain("fact", "sweep", "--no-dry-run")
    assert swept.stdout.splitlines()[0].startswith(f"deleted {fact} (user:alice): legal_delete_at")


def test_a_held_fact_edited_into_a_plain_note_is_not_deleted(vault: Vault, brain) -> None:
    held = record(brain, "ledger", SECRET, "--legal-hold")
    path = vault.root / f"facts/{held}.md"
    path.write_text(path.read_text().replace("type: fact", "type: note"))  # a person's edit
    result = brain("note", "delete", held)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: facts/{held}.md is under a legal hold (the hold register names {held})")
    assert path.exists()
