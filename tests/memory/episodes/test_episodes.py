"""Episodes through the CLI: store from ai-agents JSON, list with filters, show, decisions."""

import json
from datetime import UTC, datetime

from brain.memory.corpus import Corpus
from brain.memory.episodes.service import episode_from_data
from brain.notes.episode import episode_from_note
from tests.conftest import AI_AGENTS as FIXTURES
from tests.conftest import write


def episode_json(session: str, outcome: str, task: str, timestamp: str, **extra) -> str:
    data = {
        "id": f"episode-{session}",
        "session": session,
        "timestamp": timestamp,
        "outcome": outcome,
        "task": task,
        "decisions": [
            {
                "id": "d002",
                "timestamp": "2026-03-02T11:00:00Z",
                "type": "implementation",
                "context": "Second by time",
                "options": ["Retry with backoff, then fail", "Fail fast"],
                "chosen": "Fail fast",
                "rationale": "Simpler",
                "outcome": "success",
                "effects": ["e002"],
            },
            {
                "id": "d001",
                "timestamp": "2026-03-02T10:00:00Z",
                "type": "design",
                "context": "First",
                "chosen": "A",
                "outcome": "partial",
            },
        ],
        "events": [
            {
                "id": "e001",
                "timestamp": "2026-03-02T10:00:00Z",
                "type": "milestone",
                "content": "Started",
                "caused_by": [],
                "leads_to": ["e002"],
            },
            {
                "id": "e002",
                "timestamp": "2026-03-02T11:05:00Z",
                "type": "error",
                "content": "Boom",
                "caused_by": ["d002"],
                "leads_to": [],
            },
        ],
        "metrics": {"tool_calls": 12, "errors": 1, "recoveries": 1, "commits": 2, "files_changed": 3},
        "lessons": ["Fail fast beats silent retries"],
        **extra,
    }
    return json.dumps(data)


def test_store_from_file_writes_the_adr_layout(brain, vault, tmp_path):
    source = tmp_path / "ep.json"
    source.write_text(episode_json("2026-03-02-session-7", "failure", "Harden the retry path", "2026-03-02T09:00:00Z"))
    result = brain("episode", "store", "--file", str(source))
    assert result.exit_code == 0, result.output
    assert "created episodes/EPISODE-2026-03-02-session-7.md" in result.output
    text = (vault.root / "episodes/EPISODE-2026-03-02-session-7.md").read_text()
    for heading in (
        "## Context",
        "## Decisions",
        "### d002:",
        "## Events Timeline",
        "## Lessons Learned",
        "## Relations",
    ):
        assert heading in text
    assert "- **Options**:\n  - Retry with backoff, then fail\n  - Fail fast" in text
    episode = episode_from_note(Corpus(vault).get("EPISODE-2026-03-02-session-7"))
    assert episode.outcome == "failure" and episode.metrics["tool_calls"] == 12
    assert [d.id for d in episode.decisions] == ["d002", "d001"]
    assert episode.events[1].caused_by == ("d002",)
    # storing the same data again changes nothing
    again = brain("episode", "store", "--file", str(source))
    assert "unchanged" in again.output


def test_store_again_keeps_user_prose(brain, vault, tmp_path):
    source = tmp_path / "ep.json"
    source.write_text(episode_json("2026-03-02-session-7", "partial", "T", "2026-03-02T09:00:00Z"))
    brain("episode", "store", "--file", str(source))
    path = vault.root / "episodes/EPISODE-2026-03-02-session-7.md"
    path.write_text(
        path.read_text().replace("## Context\n", "## Context\nWritten by a person.\n").replace("reviewer", "x")
        + "\n## My Notes\nkeep me\n"
    )
    source.write_text(episode_json("2026-03-02-session-7", "success", "T", "2026-03-02T09:00:00Z"))
    result = brain("episode", "store", "--file", str(source))
    assert "updated" in result.output
    text = path.read_text()
    assert "Written by a person." in text and "## My Notes\nkeep me\n" in text
    assert "outcome: success" in text


def test_store_from_stdin_and_from_flags(brain, vault):
    result = brain(
        "episode",
        "store",
        "-f",
        "-",
        input=episode_json("2026-03-03-session-8", "success", "From stdin", "2026-03-03T09:00:00Z"),
    )
    assert result.exit_code == 0 and "EPISODE-2026-03-03-session-8" in result.output
    result = brain(
        "episode",
        "store",
        "--session",
        "quick",
        "--task",
        "Flags only",
        "--outcome",
        "partial",
        "--date",
        "2026-03-04T08:00:00Z",
        "--lesson",
        "one",
    )
    assert result.exit_code == 0, result.output
    assert (vault.root / "episodes/EPISODE-2026-03-04-quick.md").is_file()


def test_store_real_messy_v1_episode_with_warnings(brain, vault):
    messy = FIXTURES / "v1/episodes/episode-2026-01-03-session-356.json"
    result = brain("episode", "store", "--file", str(messy))
    assert result.exit_code == 0, result.output
    assert "decisions: null" in result.output  # warning names the field
    assert (vault.root / "episodes/EPISODE-2026-01-03-session-356.md").is_file()


def test_string_decisions_are_read_as_chosen():
    episode, warnings = episode_from_data(
        {"id": "episode-x", "outcome": "success", "decisions": ["Adopted a Draft PR policy"]}
    )
    assert episode.decisions[0].chosen == "Adopted a Draft PR policy"
    assert any("plain string" in w for w in warnings)


def test_bad_input_is_an_error_and_writes_nothing(brain, vault, tmp_path):
    before = sorted(p.name for p in (vault.root / "episodes").iterdir())
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = brain("episode", "store", "--file", str(bad))
    assert result.exit_code == 1 and "is not JSON" in result.output
    bad.write_text(json.dumps({"id": "episode-x", "outcome": "great"}))
    result = brain("episode", "store", "--file", str(bad))
    assert result.exit_code == 1 and "outcome 'great'" in result.output
    result = brain("episode", "store", "--file", str(tmp_path / "missing.json"))
    assert result.exit_code == 1 and "does not exist" in result.output
    result = brain("episode", "store", "--outcome", "maybe")
    assert result.exit_code == 2
    assert sorted(p.name for p in (vault.root / "episodes").iterdir()) == before


def test_episode_store_names_a_missing_outcome_and_dates_the_episode(brain, vault) -> None:
    missing = brain("episode", "store", "--task", "x")
    assert (missing.exit_code, missing.stderr) == (
        1,
        "error: an episode needs an outcome: one of success, partial, failure\n",
    )
    assert (
        brain("episode", "store", "--session", "2026-03-02-session-01", "--task", "t", "--outcome", "success").exit_code
        == 0
    )
    dated = json.loads(brain("episode", "list", "--json").output)
    assert [row["date"] for row in dated] == ["2026-03-02"]
    assert brain("episode", "store", "--session", "nightly", "--task", "t", "--outcome", "partial").exit_code == 0
    today = datetime.now(UTC).date().isoformat()
    assert sorted(row["date"] for row in json.loads(brain("episode", "list", "--json").output)) == ["2026-03-02", today]


def test_list_filters_and_orders_newest_first(brain, vault):
    for session, outcome, task, ts in [
        ("2026-03-01-session-1", "success", "Add caching", "2026-03-01T09:00:00Z"),
        ("2026-03-05-session-2", "failure", "Migrate the ledger table", "2026-03-05T09:00:00-08:00"),
        ("2026-03-09-session-3", "failure", "Caching bug", "2026-03-09T09:00:00.2927538+00:00"),
    ]:
        assert brain("episode", "store", "-f", "-", input=episode_json(session, outcome, task, ts)).exit_code == 0
    listed = json.loads(brain("episode", "list", "--json").output)
    assert [e["title"] for e in listed] == [
        "EPISODE-2026-03-09-session-3",
        "EPISODE-2026-03-05-session-2",
        "EPISODE-2026-03-01-session-1",
    ]
    failures = json.loads(brain("episode", "list", "--outcome", "failure", "--json").output)
    assert {e["title"] for e in failures} == {"EPISODE-2026-03-09-session-3", "EPISODE-2026-03-05-session-2"}
    caching = json.loads(brain("episode", "list", "--task", "CACHING", "--json").output)
    assert {e["title"] for e in caching} == {"EPISODE-2026-03-09-session-3", "EPISODE-2026-03-01-session-1"}
    window = json.loads(brain("episode", "list", "--since", "2026-03-02", "--until", "2026-03-05", "--json").output)
    assert [e["title"] for e in window] == ["EPISODE-2026-03-05-session-2"]
    assert len(json.loads(brain("episode", "list", "--limit", "1", "--json").output)) == 1
    assert brain("episode", "list", "--limit", "101").exit_code == 2
    bad = brain("episode", "list", "--since", "last tuesday")
    assert bad.exit_code == 1 and "not an ISO date" in bad.output


def test_show_and_decisions_in_time_order(brain, vault):
    brain(
        "episode",
        "store",
        "-f",
        "-",
        input=episode_json("2026-03-02-session-7", "success", "T", "2026-03-02T09:00:00Z"),
    )
    shown = json.loads(brain("episode", "show", "2026-03-02-session-7", "--json").output)
    assert shown["title"] == "EPISODE-2026-03-02-session-7" and len(shown["events"]) == 2
    sequence = json.loads(brain("episode", "decisions", "EPISODE-2026-03-02-session-7", "--json").output)
    assert [d["id"] for d in sequence] == ["d001", "d002"]
    text = brain("episode", "decisions", "episode-2026-03-02-session-7").output
    assert text.index("d001") < text.index("d002") and "why: Simpler" in text
    missing = brain("episode", "show", "EPISODE-nope")
    assert missing.exit_code == 1 and missing.output.startswith("error: no note named")


def test_adr_episode_in_a_vault_reads_through_the_cli(brain, adr_vault):
    result = brain("episode", "decisions", "EPISODE-2026-01-21-session-42", "--json")
    decisions = json.loads(result.output)
    assert [d["chosen"] for d in decisions] == ["Markdown notes", "Pattern notes with computed graph"]


def test_a_plain_note_is_not_an_episode(brain, vault):
    write(vault, "notes/plain.md", "# plain\n")
    result = brain("episode", "show", "plain")
    assert result.exit_code == 1 and "not an episode" in result.output
