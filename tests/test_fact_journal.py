"""The recall journal: one hash-chained record per recall, read back, replayed, verified by doctor."""

from __future__ import annotations

import json
import re

import pytest

from brain.vault import Vault


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
    assert "the same recall now returns something else:" in changed and f" 1. {successor}  config api.rate_limit = 200" in changed
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
