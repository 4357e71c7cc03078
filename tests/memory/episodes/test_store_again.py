"""Issue 25 point 1: storing an episode again changes only the parts given; everything stored
before (decisions, events, date, duration, lines a person added) stays."""

from __future__ import annotations

from brain.mcp.common import ServerState
from brain.mcp.tools.episodes import store_episode
from brain.memory.corpus import Corpus
from brain.notes.episode import episode_from_note

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
