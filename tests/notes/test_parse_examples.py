"""The example episode and pattern of tests/data (ai-agents layout) parse to exactly what they say."""

from brain.notes.episode import episode_from_note
from brain.notes.model import Decision, EvidenceEpisode
from brain.notes.parse import parse_note
from brain.notes.pattern import pattern_from_note
from tests.conftest import ADR_EPISODE, ADR_PATTERN


def test_adr_episode_parses_every_part():
    note = parse_note(ADR_EPISODE.read_text(), "episodes/EPISODE-2026-01-21-session-42.md")
    episode = episode_from_note(note)
    assert note.problems == ()
    assert note.type == "episode"
    assert episode.title == "EPISODE-2026-01-21-session-42"
    assert episode.tags == ("episodic", "memory", "session-42")
    assert note.permalink == "episodes/episode-2026-01-21-session-42"
    assert episode.outcome == "success"
    assert episode.task == "Implement episodic memory architecture"
    assert episode.duration_minutes == 45
    assert episode.metrics == {"tool_calls": 23, "errors": 2, "recoveries": 2, "commits": 3, "files_changed": 8}
    assert episode.context == "Session implementing ADR-018 episodic memory architecture."
    assert [(o.category, o.ref, o.text, o.tags) for o in episode.observations] == [
        ("decision", "d001", "Chose markdown over JSON for episode storage", ("architecture", "decision")),
        ("decision", "d002", "Selected pattern notes over single JSON for causal graph", ("architecture",)),
        ("event", "e001", "Initial analysis completed after reviewing schemas", ("milestone",)),
        ("event", "e002", "Architecture document drafted", ("milestone",)),
        ("error", "e003", "Missing Brain MCP build_context tool", ("error", "recovered")),
    ]
    assert episode.decisions == (
        Decision(
            id="d001",
            title="Episode Storage Format",
            timestamp="2026-01-21T10:30:00Z",
            type="design",
            context="Need to store episodic memory in brain",
            options=("JSON files", "Markdown notes", "Hybrid"),
            chosen="Markdown notes",
            rationale="Aligns with basic-memory philosophy, enables semantic search",
            outcome="success",
            effects=("d002",),
        ),
        Decision(
            id="d002",
            title="Causal Graph Storage",
            timestamp="2026-01-21T10:45:00Z",
            type="design",
            context="Need causal reasoning capability",
            options=("Single JSON", "Extended relations", "Pattern notes"),
            chosen="Pattern notes with computed graph",
            outcome="success",
        ),
    )
    assert [(e.timestamp, e.text) for e in episode.events] == [
        ("2026-01-21T10:00:00Z", "Session started"),
        ("2026-01-21T10:15:00Z", "Schema analysis completed"),
        ("2026-01-21T10:30:00Z", "Decision d001 made"),
        ("2026-01-21T10:45:00Z", "Decision d002 made"),
        ("2026-01-21T10:50:00Z", "ADR drafted"),
    ]
    assert episode.lessons == (
        "Markdown-first approach enables better searchability",
        "Structured frontmatter captures metrics without losing readability",
        "WikiLinks between decisions create natural causality",
    )
    assert [(r.type, r.target) for r in episode.relations] == [
        ("part_of", "SESSION-2026-01-21-42"),
        ("implements", "ADR-018 Episodic Memory Architecture"),
        ("leads_to", "PATTERN-markdown-episode-format"),
    ]


def test_adr_pattern_parses_every_part():
    note = parse_note(ADR_PATTERN.read_text(), "patterns/PATTERN-serena-first-routing.md")
    pattern = pattern_from_note(note)
    assert note.problems == ()
    assert pattern.title == "PATTERN-serena-first-routing"
    assert pattern.tags == ("causal", "pattern", "routing", "memory")
    assert pattern.trigger == "Memory query needed during session"
    assert pattern.success_rate == 0.85
    assert pattern.occurrences == 12
    assert pattern.last_validated == "2026-01-21"
    assert pattern.trigger_text == "Memory query request during active session"
    assert pattern.action.startswith("Route query to Serena semantic search first.")
    assert [(o.category, o.text, o.tags) for o in pattern.observations] == [
        ("evidence", "12 sessions used this pattern", ("validated",)),
        ("evidence", "85% success rate (10/12 sessions)", ("metrics",)),
        ("evidence", "Average 200ms faster than Forgetful-first", ("performance",)),
        ("causal", "Fast response -> maintains context -> better decisions", ("chain",)),
    ]
    assert [(c.type, c.target, c.weight, c.evidence) for c in pattern.causal_relations] == [
        ("enables", "PATTERN-continuous-context", None, None),
        ("prevents", "PATTERN-context-loss", None, None),
        ("correlates", "ADR-007 Memory First Architecture", None, None),
    ]
    assert pattern.evidence == (
        EvidenceEpisode("EPISODE-2026-01-20-session-41", "success"),
        EvidenceEpisode("EPISODE-2026-01-19-session-40", "success"),
        EvidenceEpisode("EPISODE-2026-01-18-session-39", "partial", "fallback used"),
    )
    assert "See [[ANTIPATTERN-forgetful-first]] for evidence" in pattern.antipattern_warning
    assert [(r.type, r.target) for r in pattern.relations] == [
        ("validates", "ADR-007 Memory First Architecture"),
        ("part_of", "Memory Routing Strategy"),
        ("caused_by", "Research on memory system performance"),
    ]
    # the warning's link is a link of the note, and so are the causal targets
    targets = {link.target for link in note.links}
    assert {"ANTIPATTERN-forgetful-first", "PATTERN-continuous-context", "EPISODE-2026-01-18-session-39"} <= targets
