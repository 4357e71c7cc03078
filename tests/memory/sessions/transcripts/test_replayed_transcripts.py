"""A resumed, forked or compacted session replays earlier records in its transcript: each tool call and
its result count once (per tool_use id / call_id), and no event is repeated.

Data: `public/entireio-cli/34b1e2a4-....jsonl` is a real Claude Code session of entireio/cli as its
transcript reads once the session was resumed: the copy of its first part, then the whole session
again with the same uuids and tool_use ids (tests/data/transcripts/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

from brain.memory.sessions.ingest import extract_transcript
from tests.conftest import TRANSCRIPTS

RESUMED = TRANSCRIPTS / "public/entireio-cli/34b1e2a4-8cec-4bb9-94a0-ec9e9c639c8e.jsonl"
CLAUDE = TRANSCRIPTS / "claude-code/-work-demo/7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
CODEX = next((TRANSCRIPTS / "public/codemie").glob("rollout-2026-05-11T11-26-55-*.jsonl"))


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def tool_use_ids(path: Path) -> list[str]:
    return [
        block["id"]
        for record in records(path)
        if isinstance(record.get("message"), dict) and isinstance(record["message"].get("content"), list)
        for block in record["message"]["content"]
        if block.get("type") == "tool_use"
    ]


def write_lines(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_resumed_session_counts_each_tool_call_once_and_repeats_no_event(tmp_path: Path) -> None:
    ids = tool_use_ids(RESUMED)
    assert (len(ids), len(set(ids))) == (30, 20)  # ten calls replayed
    episode = extract_transcript(RESUMED).episode
    assert {key: episode.metrics[key] for key in ("tool_calls", "errors", "recoveries", "files_changed")} == {
        "tool_calls": 20,
        "errors": 4,
        "recoveries": 2,  # `mise run lint` failed on two errors in turn, and then passed: both were recovered
        "files_changed": 2,
    }
    # the same session read without the replayed part gives the same episode
    rows = records(RESUMED)
    again = next(n for n, row in enumerate(rows) if n and row == rows[0])  # where the session starts over
    whole = tmp_path / RESUMED.name
    once = extract_transcript(write_lines(whole, rows[again:])).episode
    assert again == 53
    assert episode.metrics == once.metrics
    assert episode.events == once.events and len(episode.events) == len(once.events) > 0
    assert episode.lessons == once.lessons


def test_a_call_replayed_under_new_record_ids_still_counts_once(tmp_path: Path) -> None:
    """A fork copies records under new uuids; the tool_use ids stay, and they are what counts."""
    rows = records(CLAUDE)
    forked = [{**row, "uuid": f"fork-{row['uuid']}"} if "uuid" in row else row for row in rows]
    (tmp_path / "plain").mkdir()
    plain = extract_transcript(write_lines(tmp_path / "plain" / CLAUDE.name, rows)).episode.metrics
    metrics = extract_transcript(write_lines(tmp_path / CLAUDE.name, rows + forked)).episode.metrics
    assert (plain["tool_calls"], plain["errors"]) == (7, 1)  # the session without its subagent
    assert (metrics["tool_calls"], metrics["errors"]) == (7, 1)


def test_a_codex_rollout_that_replays_its_calls_counts_each_call_id_once(tmp_path: Path) -> None:
    rows = records(CODEX)
    calls = [row for row in rows if row.get("type") == "response_item"]
    replayed = write_lines(tmp_path / CODEX.name, rows + calls)
    assert extract_transcript(CODEX).episode.metrics["tool_calls"] == 102
    metrics = extract_transcript(replayed).episode.metrics
    assert (metrics["tool_calls"], metrics["errors"]) == (102, 5)
