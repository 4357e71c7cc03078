"""The note grammar, its edge cases, the rule that parsing never fails, and the example episode and
pattern of tests/data (ai-agents layout), which parse to exactly what they say."""

from brain.markdown.model import Decision, EvidenceEpisode
from brain.markdown.parse import parse_note, parse_wikilink
from brain.memory.episodes.note import episode_from_note
from brain.memory.patterns.note import pattern_from_note
from brain.vault.note_files import parse_bytes
from tests.conftest import ADR_EPISODE, ADR_PATTERN


def test_wikilink_forms():
    assert parse_wikilink("Title").target == "Title"
    link = parse_wikilink("folder/Title#Heading|alias")
    assert (link.target, link.heading, link.alias) == ("folder/Title", "Heading", "alias")


def test_observation_grammar_and_what_is_not_an_observation():
    text = """# N

- [idea] Cache the token #auth #perf (seen in staging)
- [ ] an open task
- [x] a done task
- [[A Link]] to somewhere
- [a markdown link](https://example.com)
- [2026-01-21] a timestamp
> - [quote] inside a blockquote
```
- [code] inside a fence
```
"""
    note = parse_note(text)
    assert [(o.category, o.text, o.tags, o.context) for o in note.observations] == [
        ("idea", "Cache the token", ("auth", "perf"), "seen in staging")
    ]


def test_causal_relations_with_weight_evidence_and_bad_type():
    text = """## Causal Relationships
- causes [[B]] (weight: 0.8, evidence: 3)
- enables [[C|see C]]
- prevents [[D]] (weight: 0.25)
- correlates [[E]] (loosely)
- blames [[F]]
"""
    note = parse_note(text)
    assert [(c.type, c.target, c.weight, c.evidence, c.context) for c in note.causal_relations] == [
        ("causes", "B", 0.8, 3, None),
        ("enables", "C", None, None, None),
        ("prevents", "D", 0.25, None, None),
        ("correlates", "E", None, None, "loosely"),
    ]
    assert any("'blames' is not a causal relation type" in p for p in note.problems)


def test_heading_inside_code_fence_is_not_a_section():
    note = parse_note("## Context\nreal\n```\n## Decisions\n```\n## Relations\n- part_of [[X]]\n")
    assert [s.heading for s in note.sections] == ["Context", "Relations"]
    assert note.section_text("Context") == "real\n```\n## Decisions\n```\n"
    assert [(r.type, r.target) for r in note.relations] == [("part_of", "X")]


def test_malformed_frontmatter_is_reported_and_body_still_read():
    note = parse_note("---\ntitle: [unclosed\ntype: episode\n---\n# Heading\n- [fact] still read\n", "x/Broken.md")
    assert note.frontmatter == {}
    assert any("malformed frontmatter" in p for p in note.problems)
    assert note.title == "Heading"
    assert note.observations[0].text == "still read"


def test_frontmatter_that_is_not_a_mapping_and_unclosed_frontmatter():
    assert "not a mapping" in parse_note("---\n- a\n- b\n---\nbody\n").problems[0]
    unclosed = parse_note("---\ntitle: x\nno end\n")
    assert "never closed" in unclosed.problems[0]


def test_timestamps_stay_exact_strings():
    note = parse_note("---\ndate: 2026-01-23T14:23:52.2927538-08:00\nday: 2026-01-23\n---\n")
    assert note.frontmatter["date"] == "2026-01-23T14:23:52.2927538-08:00"
    assert note.frontmatter["day"] == "2026-01-23"


def test_empty_binary_and_non_utf8_files_never_fail():
    assert parse_bytes(b"", "empty.md").title == "empty"
    binary = parse_bytes(bytes(range(256)) * 4, "bin.md")
    assert any("UTF-8" in p for p in binary.problems)
    latin = parse_bytes("---\ntitle: Caf\xe9\n---\n".encode("latin-1"), "latin.md")
    assert any("not valid UTF-8" in p for p in latin.problems)
    assert latin.title.startswith("Caf")


def test_crlf_notes_parse_like_lf():
    text = "---\r\ntitle: T\r\ntype: pattern\r\n---\r\n## Causal Relationships\r\n- causes [[B]] (weight: 0.5)\r\n"
    note = parse_note(text)
    assert note.title == "T" and note.type == "pattern"
    assert [(c.type, c.target, c.weight) for c in note.causal_relations] == [("causes", "B", 0.5)]


def test_duplicate_decision_ids_are_kept_and_reported():
    text = """---
type: episode
---
## Decisions

### d001: First
- **Chosen**: A

### d001: Second
- **Chosen**: B
"""
    episode = episode_from_note(parse_note(text))
    assert [d.chosen for d in episode.decisions] == ["A", "B"]
    assert any("d001" in p and "more than once" in p for p in episode.problems)


def test_decision_options_as_nested_list_and_multiline_values():
    text = """---
type: episode
---
## Decisions

### d001: Retry policy
- **Options**:
  - Retry with backoff, then fail
  - Fail fast
- **Rationale**: first line
  second line
- **Reviewer**: Sam
"""
    decision = episode_from_note(parse_note(text)).decisions[0]
    assert decision.options == ("Retry with backoff, then fail", "Fail fast")
    assert decision.rationale == "first line\nsecond line"
    assert decision.extra == (("Reviewer", "Sam"),)


def test_event_lines_with_ids_types_and_links():
    text = """---
type: episode
---
## Events Timeline
1. [2026-03-02T09:00:00Z] e001 (milestone): Session started
2. [2026-03-02T09:40:00Z] e002 (error): Token refresh failed (in staging) (caused_by: [[d001]], [[e001]]; leads_to: [[e003]])
3. [2026-03-02T10:00:00Z] Deploy finished
4. [2026-03-02T10:05:00Z] e004 (commit): Fix (_source_session: 2026-03-01-session-9)
"""
    events = episode_from_note(parse_note(text)).events
    assert [(e.id, e.type, e.text, e.caused_by, e.leads_to) for e in events] == [
        ("e001", "milestone", "Session started", (), ()),
        ("e002", "error", "Token refresh failed (in staging)", ("d001", "e001"), ("e003",)),
        (None, None, "Deploy finished", (), ()),
        ("e004", "commit", "Fix", (), ()),
    ]
    assert events[3].extra == (("_source_session", "2026-03-01-session-9"),)


def test_caused_by_frontmatter_is_a_link_and_title_falls_back():
    note = parse_note('---\ncaused_by: "[[Research]]"\n---\nno heading\n', "contexts/decision-1.md")
    assert [link.target for link in note.links] == ["Research"]
    assert note.title == "decision-1"


# ---------------------------------------------------------------- the example notes of tests/data


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


def test_tags_in_the_body_are_tags_as_obsidian_reads_them():
    """`#security` and `#project/mobile` in a note's text are tags, as in Obsidian; a heading's `#`,
    a URL's `#fragment`, a link's `#Heading`, an issue number, an escaped `\\#`, an HTML entity and
    anything in code or a comment are not."""
    text = (
        "---\ntags: [ops]\n---\n"
        "# Threat model\n"
        "#security The login flow needs review. #project/mobile, and #Security again.\n"
        "## Heading #deploy\n"
        "```bash\necho '#incode'\n```\n"
        "    #indented-code\n"
        "See https://example.com/page#fragment, [[Other#Heading]], [x](#anchor), `#inline` and issue #42.\n"
        "\\#escaped, &#39;, a#b, <!-- #commented --> %% #hidden %% #2024-review #tag/\n"
        "- [risk] token reuse #oauth\n"
    )
    note = parse_note(text, "notes/Threat model.md")
    assert note.body_tags == ("security", "project/mobile", "Security", "deploy", "2024-review", "tag", "oauth")
    assert note.tags == ("ops",)  # the frontmatter's, which tools rewrite: never the body's
    assert note.all_tags == ("ops", "security", "project/mobile", "deploy", "2024-review", "tag", "oauth")
    assert parse_note("# Title\n\nNo tags #1 here.\n").all_tags == ()
