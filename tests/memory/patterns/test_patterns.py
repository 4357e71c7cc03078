"""Patterns: create, running average on new evidence, lossless edits, list and antipatterns."""

import json

import pytest

from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.patterns.note import pattern_from_note, running_average
from brain.memory.patterns.service import add_pattern, antipatterns
from tests.conftest import ADR_PATTERN, write


def pattern_note(title: str, rate: float, occurrences: int, trigger: str = "t") -> str:
    return f"---\ntitle: {title}\ntype: pattern\ntrigger: {trigger}\nsuccess_rate: {rate}\noccurrences: {occurrences}\n---\n# {title}\n"


def test_running_average_is_the_mean_of_every_outcome():
    rate = 0.0
    for n, outcome in enumerate([1.0, 0.0, 0.5, 1.0, 1.0], start=1):
        rate = running_average(rate, n, outcome)
    assert rate == pytest.approx(0.7)  # 3.5 / 5
    assert running_average(0.85, 13, 0.0) == pytest.approx(0.784615, abs=1e-6)  # the ADR's pattern after one failure


def test_add_creates_then_updates_with_running_average(brain, vault):
    result = brain(
        "pattern",
        "add",
        "retry with jitter",
        "--trigger",
        "Upstream 503s",
        "--action",
        "Retry with jitter",
        "--outcome",
        "success",
        "--episode",
        "EPISODE-x",
    )
    assert result.exit_code == 0, result.output
    assert "created patterns/PATTERN-retry-with-jitter.md" in result.output
    assert "not a note in this vault yet" in result.output  # the episode does not exist: a warning, not an error
    brain("pattern", "add", "PATTERN-retry-with-jitter", "--outcome", "failure", "--episode", "EPISODE-y")
    brain("pattern", "evidence", "retry with jitter", "--outcome", "partial")
    pattern = pattern_from_note(Corpus(vault).get("PATTERN-retry-with-jitter"))
    assert pattern.occurrences == 3
    assert pattern.success_rate == pytest.approx(0.5, abs=1e-4)
    assert [(e.target, e.outcome) for e in pattern.evidence] == [("EPISODE-x", "success"), ("EPISODE-y", "failure")]
    assert pattern.trigger == "Upstream 503s" and pattern.action == "Retry with jitter"


def test_new_pattern_needs_trigger_and_action_and_evidence_needs_existing(brain, vault):
    result = brain("pattern", "add", "brand new")
    assert result.exit_code == 1 and "--trigger and --action" in result.output
    result = brain("pattern", "evidence", "no such pattern", "--outcome", "success")
    assert result.exit_code == 1 and "no note named" in result.output
    assert list((vault.root / "patterns").iterdir()) == []


def test_evidence_on_the_adr_pattern_changes_only_managed_parts(brain, adr_vault):
    path = adr_vault.root / "patterns" / ADR_PATTERN.name
    original = ADR_PATTERN.read_text()
    custom = original.replace(
        "last_validated: 2026-01-21\n", "last_validated: 2026-01-21\nowner: sam # who curates it\n"
    )
    custom += "\n## My Section\nUser prose, *kept* exactly.   \n"
    path.write_text(custom)
    result = brain(
        "pattern",
        "evidence",
        "PATTERN-serena-first-routing",
        "--outcome",
        "failure",
        "--episode",
        "EPISODE-2026-01-21-session-42",
    )
    assert result.exit_code == 0, result.output
    updated = path.read_text()
    pattern = pattern_from_note(parse_note(updated))
    assert pattern.occurrences == 13
    assert pattern.success_rate == pytest.approx(round((0.85 * 12 + 0) / 13, 4))
    assert pattern.evidence[-1].target == "EPISODE-2026-01-21-session-42" and pattern.evidence[-1].outcome == "failure"
    # everything else byte for byte: the frontmatter lines we did not manage, every other section
    assert "owner: sam # who curates it\n" in updated
    assert updated.endswith("## My Section\nUser prose, *kept* exactly.   \n")
    body_before = custom.split("---\n", 2)[2]
    body_after = updated.split("---\n", 2)[2]
    added = "- [[EPISODE-2026-01-21-session-42]] - failure\n"
    assert body_after.replace(added, "") == body_before
    assert updated.split("\n")[:6] == custom.split("\n")[:6]  # title, type, tags, permalink, trigger untouched


def test_list_and_antipatterns(brain, vault):
    write(vault, "patterns/A.md", pattern_note("PATTERN-a", 0.9, 5, trigger="deploy"))
    write(vault, "patterns/B.md", pattern_note("ANTIPATTERN-b", 0.1, 4))
    write(vault, "patterns/C.md", pattern_note("ANTIPATTERN-c", 0.3, 2))
    write(vault, "patterns/D.md", pattern_note("PATTERN-d", 0.0, 1))
    write(vault, "patterns/E.md", pattern_note("PATTERN-e", 0.5, 3))
    listed = json.loads(brain("pattern", "list", "--json").output)
    assert [p["title"] for p in listed] == ["PATTERN-a", "PATTERN-e", "ANTIPATTERN-c", "ANTIPATTERN-b", "PATTERN-d"]
    high = json.loads(brain("pattern", "list", "--min-success-rate", "0.5", "--min-occurrences", "4", "--json").output)
    assert [p["title"] for p in high] == ["PATTERN-a"]
    assert [p["title"] for p in json.loads(brain("pattern", "list", "--trigger", "DEPLOY", "--json").output)] == [
        "PATTERN-a"
    ]
    anti = json.loads(brain("pattern", "antipatterns", "--json").output)
    assert [p["title"] for p in anti] == ["ANTIPATTERN-b", "ANTIPATTERN-c"]
    looser = json.loads(
        brain("pattern", "antipatterns", "--max-success-rate", "0.5", "--min-occurrences", "1", "--json").output
    )
    assert [p["title"] for p in looser] == ["PATTERN-d", "ANTIPATTERN-b", "ANTIPATTERN-c", "PATTERN-e"]
    assert brain("pattern", "antipatterns", "--max-success-rate", "2").exit_code == 2
    text = brain("pattern", "antipatterns").output
    assert text.index("ANTIPATTERN-b") < text.index("ANTIPATTERN-c")


def test_antipattern_thresholds_come_from_config_and_flags_override(brain, vault):
    write(vault, "patterns/B.md", pattern_note("ANTIPATTERN-b", 0.1, 4))
    write(vault, "patterns/E.md", pattern_note("PATTERN-e", 0.5, 3))
    write(vault, "patterns/F.md", pattern_note("PATTERN-f", 0.2, 1))
    assert brain("pattern", "antipatterns").output == " 10% x4    ANTIPATTERN-b  t\n"  # config as `brain init` wrote it
    config = vault.brain_dir / "config.toml"
    config.write_text(
        config.read_text()
        .replace("max_success_rate = 0.3", "max_success_rate = 0.5")
        .replace("min_occurrences = 2", "min_occurrences = 1")
    )
    assert [p["title"] for p in json.loads(brain("pattern", "antipatterns", "--json").output)] == [
        "ANTIPATTERN-b",
        "PATTERN-f",
        "PATTERN-e",
    ]
    assert [p.title for p in antipatterns(Corpus(vault))] == [
        "ANTIPATTERN-b",
        "PATTERN-f",
        "PATTERN-e",
    ]  # MCP calls this
    flagged = json.loads(brain("pattern", "antipatterns", "--max-success-rate", "0.3", "--json").output)
    assert [p["title"] for p in flagged] == [
        "ANTIPATTERN-b",
        "PATTERN-f",
    ]  # the flag wins, the config's min_occurrences stays


def test_malformed_success_rate_is_reported_not_fatal(brain, vault):
    write(
        vault, "patterns/bad.md", "---\ntitle: PATTERN-bad\ntype: pattern\nsuccess_rate: lots\noccurrences: 2.5\n---\n"
    )
    result = brain("pattern", "list", "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)[0]["success_rate"] is None
    doctor = brain("doctor")
    assert "success_rate 'lots' is not a number" in doctor.output
    problems = pattern_from_note(Corpus(vault).get("PATTERN-bad")).problems
    assert any("success_rate" in p for p in problems) and any("occurrences" in p for p in problems)


def test_add_pattern_refuses_a_non_pattern_note(vault):
    write(vault, "notes/plain.md", "---\ntitle: PATTERN-fake\n---\n")
    from brain.errors import InvalidInput

    with pytest.raises(InvalidInput, match="not a pattern"):
        add_pattern(Corpus(vault), "PATTERN-fake", outcome="success")


def test_one_corpus_sees_a_pattern_edited_meanwhile(vault):
    write(vault, "patterns/B.md", pattern_note("ANTIPATTERN-b", 0.1, 4))
    corpus = Corpus(vault)
    assert [p.title for p in antipatterns(corpus)] == ["ANTIPATTERN-b"]
    path = vault.root / "patterns/B.md"
    path.write_text(pattern_note("ANTIPATTERN-b", 0.9, 4) + "\nedited in an editor\n")
    assert antipatterns(corpus) == []
