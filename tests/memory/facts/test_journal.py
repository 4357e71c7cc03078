"""The recall journal: one hash-chained record per recall, read back, replayed, verified by doctor."""

from __future__ import annotations

import json
import re

import pytest

from brain.memory.facts import journal_check
from brain.vault.vault import Vault


def _journal(vault: Vault):
    return vault.root / ".brain" / "journal" / "recall.jsonl"


def _record_and_recall_twice(brain) -> str:
    out = brain("fact", "record", "config", "api.rate_limit", "100", "--valid-from", "2026-01-01T00:00:00Z").output
    fact = re.search(r"facts/(FACT-[\w-]+)\.md", out).group(1)
    for _ in range(2):
        assert brain("fact", "recall", "--subject", "api.rate_limit").exit_code == 0
    return fact


def test_every_recall_appends_one_chained_record(brain, vault: Vault) -> None:
    fact = _record_and_recall_twice(brain)
    records = [json.loads(line) for line in _journal(vault).read_text(encoding="utf-8").splitlines()]
    assert [record["seq"] for record in records] == [1, 2]
    first = records[0]
    assert first["caller"].startswith("cli:") and first["query"] is None
    assert first["filters"]["subject"] == "api.rate_limit" and first["filters"]["namespaces"] == ["default"]
    assert (first["as_of"], first["known_at"]) == (None, None)
    (hit,) = first["results"]
    assert hit["id"] == fact and hit["version"].startswith("sha256:") and hit["value"] == 100
    assert set(hit["parts"]) == {"recency", "authority", "validity"}
    assert first["prev"] == "0" * 64 and records[1]["prev"] != first["prev"]

    listed = brain("fact", "journal").output.splitlines()
    assert len(listed) == 2
    assert re.fullmatch(rf"#1 \S+Z cli:\S+ \[default\] subject=api\.rate_limit -> {fact}", listed[0])
    since = records[1]["time"]
    later = brain("fact", "journal", "--since", since).output.splitlines()
    assert [line.split()[0] for line in later] == [f"#{n}" for n in (1, 2) if records[n - 1]["time"] >= since]


def test_replay_shows_what_was_returned_then_and_what_would_be_now(brain, vault: Vault) -> None:
    fact = _record_and_recall_twice(brain)
    same = brain("fact", "replay", "1").output
    assert f"returned:\n 1. {fact} = 100" in same and "the same recall now returns the same facts" in same
    out = brain("fact", "supersede", fact, "200", "--reason", "raised").output
    successor = re.search(r"recorded facts/(FACT-[\w-]+)\.md", out).group(1)
    changed = brain("fact", "replay", "1").output
    assert f" 1. {fact} = 100" in changed
    assert (
        "the same recall now returns something else:" in changed
        and f" 1. {successor}  config api.rate_limit = 200" in changed
    )
    assert brain("fact", "replay", "99").exit_code == 1


@pytest.mark.parametrize("tamper", ["edit", "remove", "swap"])
def test_doctor_detects_an_edited_removed_or_reordered_record(brain, vault: Vault, tamper: str) -> None:
    _record_and_recall_twice(brain)
    brain("fact", "recall", "--subject", "api.rate_limit")
    assert "journal" not in brain("doctor").output
    path = _journal(vault)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if tamper == "edit":
        lines[0] = lines[0].replace('"api.rate_limit"', '"api.rate_limitX"', 1)
    elif tamper == "remove":
        del lines[1]
    else:
        lines[0], lines[1] = lines[1], lines[0]
    path.write_text("".join(lines), encoding="utf-8")
    report = brain("doctor").output
    assert re.search(r"journal\s+\.brain/journal/recall\.jsonl:\d+: ", report), report


def test_reindex_leaves_the_journal_alone(brain, vault: Vault) -> None:
    _record_and_recall_twice(brain)
    before = _journal(vault).read_bytes()
    assert brain("reindex").exit_code == 0
    assert _journal(vault).read_bytes() == before


def test_append_chains_to_what_another_process_appended_meanwhile(vault: Vault) -> None:
    from brain.memory.facts import journal as fact_journal

    first = fact_journal.append(vault, {"time": "2026-01-01T00:00:00Z", "results": []})
    # Another process appends a record of its own: this process's memory of the end is now stale.
    other = {"seq": 2, "time": "2026-01-01T00:00:01Z", "results": [], "prev": first["hash"]}
    other["hash"] = fact_journal.chain_hash(first["hash"], other)
    with _journal(vault).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(other) + "\n")
    third = fact_journal.append(vault, {"time": "2026-01-01T00:00:02Z", "results": []})
    assert (third["seq"], third["prev"]) == (3, other["hash"])
    # The sweeper rewrites the file (a new inode): the end is read from the file again.
    fact_journal.purge_values(vault, {"nothing"}, "SWEEP-x")
    fourth = fact_journal.append(vault, {"time": "2026-01-01T00:00:03Z", "results": []})
    assert (fourth["seq"], fourth["prev"]) == (4, third["hash"])
    assert journal_check.verify(vault).ok


def test_threads_appending_at_once_keep_one_chain(vault: Vault) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from brain.memory.facts import journal as fact_journal

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(
            pool.map(
                lambda n: fact_journal.append(vault, {"time": "2026-01-01T00:00:00Z", "n": n, "results": []}), range(40)
            )
        )
    check = journal_check.verify(vault)
    assert check.ok and check.records == 40
    assert [record["seq"] for record in fact_journal.records(vault)] == list(range(1, 41))


def test_the_rewrites_a_killed_sweep_left_are_removed_old_name_and_new(vault: Vault) -> None:
    """The sweep's journal rewrite goes through `vault/atomic.py`, whose temp file is
    `.recall.jsonl.<hex>.tmp`; older versions left `.journal-rewrite.tmp`. Both may hold purged values."""
    from brain.memory.facts import journal as fact_journal

    fact_journal.append(vault, {"time": "2026-01-01T00:00:00Z", "results": []})
    folder = _journal(vault).parent
    for name in (".recall.jsonl.0123abcd.tmp", ".journal-rewrite.tmp"):
        (folder / name).write_text('{"value": "a purged secret"}\n', encoding="utf-8")
    assert fact_journal.remove_stale_temps(vault) == [
        ".brain/journal/.journal-rewrite.tmp",
        ".brain/journal/.recall.jsonl.0123abcd.tmp",
    ]
    assert sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp")) == []
    assert fact_journal.remove_stale_temps(vault) == []
