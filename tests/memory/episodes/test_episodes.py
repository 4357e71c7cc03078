"""Episodes: store from ai-agents JSON, from flags and through MCP, list with filters, show, decisions;
storing an episode again changes only the parts given (decisions, events, date, duration and lines
a person added stay)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from brain.mcp.common import ServerState
from brain.memory.corpus import Corpus
from brain.memory.episodes.note import episode_from_note
from brain.memory.episodes.service import episode_from_data
from brain.memory.episodes.tools import store_episode
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
    assert result.exit_code == 2 and "does not exist" in result.output  # a path that names nothing: usage
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
    assert bad.exit_code == 2 and bad.stderr.startswith("error: --since 'last tuesday' is not an ISO date")


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


# ---------------------------------------------------------------- storing again


PATH = "episodes/EPISODE-2026-03-02-session-7.md"
DECISION = {"id": "d001", "context": "Retry policy", "chosen": "Fail fast", "outcome": "success"}
EVENT = {"id": "e001", "timestamp": "2026-03-02T10:00:00Z", "type": "milestone", "content": "Started"}


def stored(vault):
    return episode_from_note(Corpus(vault).get("EPISODE-2026-03-02-session-7"))


def test_mcp_store_again_with_only_lessons_keeps_everything_stored(vault):
    state = ServerState(vault, Corpus(vault))
    first = store_episode(
        state,
        task="Harden retries",
        outcome="partial",
        session="2026-03-02-session-7",
        timestamp="2026-03-02T09:00:00Z",
        decisions=[DECISION],
        events=[EVENT],
        lessons=["Fail fast beats silent retries"],
        duration_minutes=42,
    )
    assert first.structured_content["status"] == "created"
    path = vault.root / PATH
    path.write_text(
        path.read_text().replace(
            "- Fail fast beats silent retries\n", "- Fail fast beats silent retries\nA person's line.\n"
        )
    )
    again = store_episode(
        state, task="Harden retries", outcome="success", session="2026-03-02-session-7", lessons=["Log the cause"]
    )
    assert again.structured_content["status"] == "updated"
    episode = stored(vault)
    assert [d.id for d in episode.decisions] == ["d001"] and episode.decisions[0].chosen == "Fail fast"
    assert [(e.id, e.text) for e in episode.events] == [("e001", "Started")]
    assert episode.date == "2026-03-02T09:00:00Z" and episode.duration_minutes == 42
    assert episode.outcome == "success"
    text = path.read_text()
    assert "- Fail fast beats silent retries\nA person's line.\n- Log the cause\n" in text
    # the same call once more changes nothing
    assert (
        store_episode(
            state, task="Harden retries", outcome="success", session="2026-03-02-session-7", lessons=["Log the cause"]
        ).structured_content["status"]
        == "unchanged"
    )


def test_mcp_decisions_merge_by_id_and_keep_prose(vault):
    state = ServerState(vault, Corpus(vault))
    base = {"task": "T", "outcome": "partial", "session": "2026-03-02-session-7"}
    store_episode(state, **base, decisions=[DECISION, {"id": "d002", "context": "Second", "chosen": "B"}])
    path = vault.root / PATH
    path.write_text(path.read_text().replace("## Decisions\n", "## Decisions\nWhy these mattered, by a person.\n"))
    store_episode(
        state, **base, decisions=[{"id": "d002", "context": "Second", "chosen": "C"}, {"id": "d003", "chosen": "D"}]
    )
    episode = stored(vault)
    assert [(d.id, d.chosen) for d in episode.decisions] == [("d001", "Fail fast"), ("d002", "C"), ("d003", "D")]
    assert "## Decisions\nWhy these mattered, by a person.\n" in path.read_text()


def test_cli_store_again_with_flags_keeps_decisions_and_events(brain, vault, tmp_path):
    import json

    source = tmp_path / "ep.json"
    source.write_text(
        json.dumps(
            {
                "session": "2026-03-02-session-7",
                "timestamp": "2026-03-02T09:00:00Z",
                "task": "T",
                "outcome": "partial",
                "decisions": [DECISION],
                "events": [EVENT],
                "duration_minutes": 30,
            }
        )
    )
    assert brain("episode", "store", "--file", str(source)).exit_code == 0
    result = brain("episode", "store", "--session", "2026-03-02-session-7", "--task", "T", "--outcome", "success")
    assert result.output == f"updated {PATH}\n"
    episode = stored(vault)
    assert [d.id for d in episode.decisions] == ["d001"] and [e.id for e in episode.events] == ["e001"]
    assert episode.duration_minutes == 30 and episode.date == "2026-03-02T09:00:00Z" and episode.outcome == "success"


def test_a_session_stored_again_on_another_day_without_a_date_updates_the_same_note(vault, brain):
    first = brain(
        "episode",
        "store",
        "--session",
        "nightly",
        "--task",
        "Rotate keys",
        "--outcome",
        "success",
        "--date",
        "2026-01-05",
    )
    assert first.exit_code == 0, first.output
    again = brain("episode", "store", "--session", "nightly", "--outcome", "success", "--lesson", "Rotate before noon")
    assert again.exit_code == 0, again.output
    assert sorted(p.name for p in (vault.root / "episodes").iterdir()) == ["EPISODE-2026-01-05-nightly.md"]
    episode = episode_from_note(Corpus(vault).get("EPISODE-2026-01-05-nightly"))
    assert episode.task == "Rotate keys" and episode.lessons == ("Rotate before noon",)
