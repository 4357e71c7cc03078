"""Patterns: learn them from occurrences, list them, find the antipatterns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import cast

from brain.config import load_config
from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown.edit import set_frontmatter
from brain.markdown.lines import require_one_line
from brain.markdown.model import OUTCOMES, Note, Pattern
from brain.memory.corpus import Corpus
from brain.memory.patterns.note import (
    OUTCOME_SCORE,
    antipattern_header,
    evidence_line,
    pattern_from_note,
    record_evidence,
    render_pattern,
)
from brain.memory.projects.note import in_scope
from brain.vault.vault import TYPE_FOLDERS


@dataclass(frozen=True)
class PatternUpdate:
    path: str
    pattern: Pattern
    created: bool
    warnings: tuple[str, ...] = ()


def pattern_title(name: str) -> str:
    """`PATTERN-slug` for a free-text name; a name that already has the prefix is kept."""
    name = name.strip()
    if not name:
        raise UsageError("a pattern needs a name")
    if re.match(r"^(ANTI)?PATTERN-", name, re.IGNORECASE):
        return name
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not slug:
        raise UsageError(f"'{name}' has no letters or digits to name a pattern with")
    return f"PATTERN-{slug}"


def add_pattern(
    corpus: Corpus,
    name: str,
    *,
    outcome: str,
    trigger: str | None = None,
    action: str | None = None,
    episode: str | None = None,
    today: str | None = None,
) -> PatternUpdate:
    """Record one occurrence of a pattern: create it (occurrences 1) or update its running average."""
    vault = corpus.vault
    if outcome not in OUTCOMES:
        raise UsageError(f"outcome '{outcome}' is not one of {', '.join(OUTCOMES)}")
    require_one_line(name, "name")
    require_one_line(trigger, "trigger")
    today = today or date.today().isoformat()
    warnings: list[str] = []
    episode_title = None
    if episode:
        found = corpus.resolver().candidates(episode)
        episode_title = corpus.resolver().titles[found[0]] if len(found) == 1 else episode.strip().strip("[]")
        if not found:
            warnings.append(f"episode '{episode}' is not a note in this vault yet; linked anyway")
    existing = find_pattern(corpus, name)
    if existing is None:
        if not trigger or not action:
            raise InvalidInput(f"'{name}' is a new pattern: give ", Remedy("trigger_and_action"), " to create it")
        title = pattern_title(name)
        path = f"{TYPE_FOLDERS['pattern']}/{vault.filename_for(title)}"
        text = render_pattern(
            title,
            trigger=trigger,
            action=action,
            success_rate=OUTCOME_SCORE[outcome],
            occurrences=1,
            last_validated=today,
            evidence=(evidence_line(episode_title, outcome),) if episode_title else (),
        )
        vault.write(path, text, create=True)
        return PatternUpdate(path, pattern_from_note(vault.read(path).note), True, tuple(warnings))

    def with_evidence(note: Note) -> str:
        if note.type != "pattern":
            raise InvalidInput(f"'{name}' resolves to {existing}, a {note.type} note, not a pattern")
        pattern = pattern_from_note(note)
        text = record_evidence(note.text, pattern, outcome=outcome, episode=episode_title, today=today)
        return set_frontmatter(text, {"trigger": trigger}) if trigger and not pattern.trigger else text

    vault.update(existing, with_evidence)
    return PatternUpdate(existing, pattern_from_note(vault.read(existing).note), False, tuple(warnings))


def find_pattern(corpus: Corpus, name: str) -> str | None:
    """The path of the pattern a name (title, stem, permalink, or plain name) refers to, if any."""
    resolver = corpus.resolver()
    return resolver.try_resolve(name) or resolver.try_resolve(pattern_title(name))


def record_pattern_evidence(corpus: Corpus, name: str, *, outcome: str, episode: str | None = None) -> PatternUpdate:
    """One more occurrence of an existing pattern; an unknown name is an error, never a new pattern."""
    if find_pattern(corpus, name) is None:
        corpus.resolver().resolve(name)  # raises NoteNotFound (or AmbiguousName) with suggestions
    return add_pattern(corpus, name, outcome=outcome, episode=episode)


def all_patterns(corpus: Corpus) -> list[Pattern]:
    """Every pattern, parsed once and cached with the corpus until a note changes."""
    notes = corpus.of_type("pattern")  # brings the corpus up to date, which clears its caches on a change
    cached = corpus.derived.get("patterns")
    if cached is None:
        cached = corpus.derived["patterns"] = [corpus.memo("pattern", note, pattern_from_note) for note in notes]
    return list(cast(list[Pattern], cached))


def list_patterns(
    corpus: Corpus, *, min_success_rate: float = 0.0, min_occurrences: int = 0, trigger: str | None = None
) -> list[Pattern]:
    """Patterns at or above the thresholds, most successful first."""
    _check_rate(min_success_rate, "min success rate")
    needle = trigger.lower() if trigger else None
    found = [
        pattern
        for pattern in all_patterns(corpus)
        if (pattern.success_rate or 0.0) >= min_success_rate
        and (pattern.occurrences or 0) >= min_occurrences
        and (needle is None or needle in (pattern.trigger or "").lower() or needle in pattern.title.lower())
    ]
    found.sort(key=lambda p: (-(p.success_rate or 0.0), -(p.occurrences or 0), p.title))
    return found


def antipatterns(
    corpus: Corpus,
    *,
    max_success_rate: float | None = None,
    min_occurrences: int | None = None,
    project: str | None = None,
) -> list[Pattern]:
    """Patterns that keep failing: success rate at most the threshold over enough occurrences, worst first;
    with `project`, those of its scope (`brain.memory.projects.note`: a pattern without a project is in every one).

    A threshold not given comes from the vault's `[antipatterns]` config (defaults 0.3 and 2).
    """
    if max_success_rate is None or min_occurrences is None:
        config = load_config(corpus.vault.brain_dir)
        max_success_rate = config.antipattern_max_success_rate if max_success_rate is None else max_success_rate
        min_occurrences = config.antipattern_min_occurrences if min_occurrences is None else min_occurrences
    _check_rate(max_success_rate, "max success rate")
    if min_occurrences < 0:
        raise UsageError(f"min occurrences must be 0 or more, got {min_occurrences}")
    rate, least = max_success_rate, min_occurrences
    chosen = corpus.select(
        "pattern",
        lambda header: antipattern_header(header, rate, least) and in_scope("pattern", header.frontmatter, project),
    )
    found = [corpus.memo("pattern", note, pattern_from_note) for note in chosen]
    found.sort(key=lambda p: (p.success_rate, -(p.occurrences or 0), p.title))
    return found


def _check_rate(value: float, what: str) -> None:
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"{what} must be between 0 and 1, got {value}")
