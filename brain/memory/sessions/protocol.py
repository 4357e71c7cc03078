"""The session protocol (ADR-018): a compact context to start a task with, and the end of a session.

Start (`bootstrap`): recent failure episodes (7 days by default), antipattern warnings, the
facts valid now about the subjects the task names, the patterns whose trigger is close to the
task, and the tips for the task (guidelines), packed in that order of priority into a token
budget. A fact subject is named by the task when every word of it is a word of the task
(`mobile-access-token-ttl` in "shorten the mobile access token TTL"; plural or not); the facts
come from the facts service's recall, so they are the ones valid now, in the namespaces given
(default: the configured one), and each recall is journaled like any other.

End (`end_session`): extract the episode from the session log, record its outcome as evidence on
the patterns it used (named with --pattern, or named in the log), learn its tips, and report the
antipatterns that appeared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from brain.errors import InvalidInput
from brain.memory.causal.neighbourhood import CHARS_PER_TOKEN, MAX_BUDGET, MIN_BUDGET
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import list_episodes
from brain.memory.patterns import service as pattern_service
from brain.memory.similarity import cosine, text_vectors
from brain.memory.tips.service import Guidelines, LearnResult, guidelines, learn_episode
from brain.notes.fact import canonical_json, fact_from_note, format_time
from brain.notes.model import Note
from brain.notes.pattern import pattern_from_note
from brain.vault import Vault

if TYPE_CHECKING:
    from brain.index.embedders import Embedder

DEFAULT_BUDGET = 1500
DEFAULT_DAYS = 7
PATTERN_THRESHOLD = 0.45  # a pattern's name and trigger together; a little looser than tips, as context not instruction
MAX_PATTERNS = 5
MAX_FACT_SUBJECTS = 5
FACTS_PER_SUBJECT = 3
FACT_VALUE_CHARS = 160
_GENERIC_WORDS = frozenset("a an and the of for to in on at by with default current".split())


@dataclass(frozen=True)
class Bootstrap:
    task: str
    budget: int
    text: str
    tokens: int
    sections: dict[str, list[str]]
    omitted: int  # lines left out for the budget


def bootstrap(
    corpus: Corpus,
    task: str,
    *,
    budget: int = DEFAULT_BUDGET,
    days: int = DEFAULT_DAYS,
    now: datetime | None = None,
    embedder: Embedder | None = None,
    namespaces: list[str] | tuple[str, ...] | None = None,
    caller: str | None = None,
) -> Bootstrap:
    """The session's starting context. `now` is the clock for recent failures and for the facts'
    validity; `namespaces` and `caller` go to the facts recall (and so to its journal)."""
    if not task.strip():
        raise InvalidInput("give the task the session is about to start")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise InvalidInput(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens, got {budget}")
    if days < 0:
        raise InvalidInput(f"days must be 0 or more, got {days}")
    now = now or datetime.now(UTC)
    try:
        since = (now - timedelta(days=days)).isoformat()
    except OverflowError:  # more days than there are since year 1: every episode
        since = datetime.min.replace(tzinfo=UTC).isoformat()
    sections: dict[str, list[str]] = {}
    failures = list_episodes(corpus, outcome="failure", since=since, until=now.isoformat(), limit=20)
    sections["Recent failures"] = [
        f"- {e.title} ({(e.date or '')[:10]}): {e.task or ''}" + (f" Lesson: {e.lessons[0]}" if e.lessons else "")
        for e in failures
    ]
    sections["Antipattern warnings"] = [
        f"- {p.title} ({(p.success_rate or 0):.0%} over {p.occurrences}): {p.trigger or ''}".rstrip(": ")
        for p in pattern_service.antipatterns(corpus)
    ]
    sections["Facts valid now"] = facts_named_in(corpus, task, namespaces=namespaces, caller=caller, now=now)
    sections["Patterns for this task"] = _relevant_patterns(corpus, task, embedder)
    found = guidelines(corpus, task, embedder=embedder)
    sections["Tips"] = _tip_lines(found)
    text, used, omitted = _pack(task, sections, budget)
    return Bootstrap(task, budget, text, used, {k: v for k, v in sections.items() if v}, omitted)


def _relevant_patterns(corpus: Corpus, task: str, embedder: Embedder | None) -> list[str]:
    candidates = [found for found in corpus.summaries(CANDIDATES, "pattern", _candidate) if found is not None]
    if not candidates:
        return []
    candidates.sort(key=lambda c: (-c[1], -(c[2] or 0), c[0]))  # as list_patterns orders them
    vectors = text_vectors(corpus.vault, embedder)
    query = vectors.query(task)
    by_trigger = cosine(query, vectors.matrix([trigger for _, _, _, trigger, _ in candidates]))
    by_name = cosine(
        query, vectors.matrix([f"{_name_words(title)}: {trigger}" for title, _, _, trigger, _ in candidates])
    )
    by_action = cosine(
        query, vectors.matrix([f"{_name_words(title)}: {action}" for title, _, _, _, action in candidates])
    )
    scores = np.maximum(np.maximum(by_trigger, by_name), by_action)
    ranked = sorted(zip(scores.tolist(), candidates, strict=True), key=lambda pair: -pair[0])
    return [
        f"- {title} ({rate:.0%} over {occurrences}): {trigger}"
        for score, (title, rate, occurrences, trigger, _) in ranked[:MAX_PATTERNS]
        if score >= PATTERN_THRESHOLD
    ]


CANDIDATES = "bootstrap-pattern-candidates-1"  # the name of `_candidate`'s values on disk


def _candidate(note: Note) -> list | None:
    """A pattern worth suggesting for a task (it works more often than not, and has a trigger) as
    what the task is compared with: [title, success rate, occurrences, trigger, action]."""
    pattern = pattern_from_note(note)
    if (pattern.success_rate or 0) <= 0.3 or not pattern.trigger:
        return None
    return [pattern.title, pattern.success_rate, pattern.occurrences, pattern.trigger, " ".join(pattern.action.split())]


def _name_words(title: str) -> str:
    """'PATTERN-jittered-ttl-and-request-coalescing' -> 'jittered ttl and request coalescing'."""
    return re.sub(r"^(ANTI)?PATTERN-", "", title).replace("-", " ")


def _tip_lines(found: Guidelines) -> list[str]:
    lines = []
    for guideline in found.all:
        tip = guideline.tip
        line = f"- {tip.title} [{tip.category}]: {tip.tip}"
        if tip.avoid:
            line += f" Avoid: {tip.avoid}"
        lines.append(line)
    return lines


def _word_set(text: str) -> frozenset[str]:
    """Lower-case words, a plural 's' dropped, so 'keys' names 'key'."""
    found = (
        word.removesuffix("s") if len(word) > 3 and not word.endswith("ss") else word
        for word in re.findall(r"[a-z0-9]+", text.lower())
    )
    return frozenset(found) - _GENERIC_WORDS


def _fact_subjects(corpus: Corpus) -> dict[str, dict[str, frozenset[str]]]:
    """namespace -> subject -> its words, for every subject with a fact."""
    subjects: dict[str, dict[str, frozenset[str]]] = {}
    for namespace, subject in corpus.summaries("fact-subjects-1", "fact", _namespace_and_subject):
        subjects.setdefault(namespace, {}).setdefault(subject, _word_set(subject))
    return subjects


def _namespace_and_subject(note: Note) -> list[str]:
    fact = fact_from_note(note)
    return [fact.namespace, fact.subject]


def facts_named_in(
    corpus: Corpus,
    task: str,
    *,
    namespaces: list[str] | tuple[str, ...] | None = None,
    caller: str | None = None,
    now: datetime | None = None,
) -> list[str]:
    """Lines for the facts valid now about the subjects the task names (see the module doc)."""
    from brain.memory.facts.recall import recall_facts
    from brain.memory.facts.settings import load_settings

    chosen = list(dict.fromkeys(namespaces or [load_settings(corpus.vault).default_namespace]))
    known = _fact_subjects(corpus)
    task_words = _word_set(task)
    named: dict[str, int] = {}
    for namespace in chosen:
        for subject, subject_words in known.get(namespace, {}).items():
            if subject_words and subject_words <= task_words:
                named[subject] = max(named.get(subject, 0), len(subject_words))
    lines: list[str] = []
    for subject in sorted(named, key=lambda name: (-named[name], name))[:MAX_FACT_SUBJECTS]:
        found = recall_facts(
            corpus.vault, corpus, subject=subject, namespaces=chosen, limit=FACTS_PER_SUBJECT, caller=caller, now=now
        )
        lines += [_fact_line(hit.fact) for hit in found.hits]
    return lines


def _fact_line(fact) -> str:
    value = fact.value if isinstance(fact.value, str) else canonical_json(fact.value)
    value = " ".join(value.split())
    if len(value) > FACT_VALUE_CHARS:
        value = value[: FACT_VALUE_CHARS - 3] + "..."
    since = format_time(fact.valid_from)[:10]
    marks = " [value edited by hand]" if fact.tampered else ""
    return f"- {fact.subject} ({fact.kind}, {fact.namespace}, since {since}): {value} [[{fact.title}]]{marks}"


def _pack(task: str, sections: dict[str, list[str]], budget: int) -> tuple[str, int, int]:
    """Sections in priority order, line by line, until the budget is spent. Each item is one line
    (a tip's text wrapped in its note would otherwise break the list)."""
    sections = {heading: [" ".join(line.split()) for line in lines] for heading, lines in sections.items()}
    limit = budget * CHARS_PER_TOKEN
    out = [f"# Context for: {task}\n"]
    size = len(out[0])
    omitted = 0
    for heading, lines in sections.items():
        if not lines:
            continue
        head = f"\n## {heading}\n"
        if size + len(head) > limit:
            omitted += len(lines)
            continue
        kept = []
        for line in lines:
            if size + len(head) + len(line) + 1 > limit:
                omitted += 1
                continue
            kept.append(line)
            size += len(line) + 1
        if kept:
            out.append(head + "\n".join(kept) + "\n")
            size += len(head)
    text = "".join(out)
    return text, -(-len(text) // CHARS_PER_TOKEN), omitted


# ---------------------------------------------------------------- session end


@dataclass(frozen=True)
class SessionEnd:
    episode: str
    episode_path: str
    outcome: str | None
    patterns: tuple[str, ...]
    tips: LearnResult
    new_antipatterns: tuple[str, ...]
    warnings: tuple[str, ...] = field(default=())
    redacted: int = 0  # values replaced because they look like secrets


def end_session(
    vault: Vault,
    corpus: Corpus,
    session_log: str | Path,
    *,
    patterns: Sequence[str] = (),
    today: str | None = None,
    format: str | None = None,
) -> SessionEnd:
    """Extract (a transcript or a log), redact, store, record pattern evidence once per episode, learn tips,
    report new antipatterns."""
    from brain.memory.sessions.ingest import (
        TranscriptExtracted,
        extract_transcript,
        named_for_session,
        redacted,
        store_extract,
    )
    from brain.memory.sessions.redact import markers, redactor_for

    if not Path(session_log).is_file():
        raise InvalidInput(
            f"session log '{session_log}' does not exist; give the transcript or log of the session that ended"
        )
    redactor = redactor_for(vault.brain_dir)
    extracted = named_for_session(corpus, redacted(extract_transcript(session_log, format, redactor), redactor))
    named = [pattern_service.find_pattern(corpus, name) or corpus.resolver().resolve(name) for name in patterns]
    if isinstance(extracted, TranscriptExtracted):  # the reader saw every PATTERN- name as it streamed the file
        text = " ".join(extracted.patterns_named)
    else:
        text = Path(session_log).read_text(encoding="utf-8-sig")
    used = list(dict.fromkeys(named + _patterns_named_in(corpus, text)))
    before = {p.title for p in pattern_service.antipatterns(corpus)}
    episode = extracted.episode
    stored = store_extract(vault, corpus, extracted)
    titles = []
    for path in used:
        if _has_evidence(corpus, path, episode.title):  # the same session ended again (a transcript that grew)
            continue
        update = pattern_service.record_pattern_evidence(
            vault, corpus, path, outcome=episode.outcome or "partial", episode=episode.title
        )
        titles.append(update.pattern.title)
    learned = learn_episode(vault, corpus, episode, today=today)
    after = [p.title for p in pattern_service.antipatterns(corpus)]
    return SessionEnd(
        episode=episode.title,
        episode_path=stored.path,
        outcome=episode.outcome,
        patterns=tuple(titles),
        tips=learned,
        new_antipatterns=tuple(title for title in after if title not in before),
        warnings=extracted.warnings,
        redacted=markers(extracted.episode),
    )


def _has_evidence(corpus: Corpus, path: str, episode: str) -> bool:
    for pattern in pattern_service.all_patterns(corpus):
        if pattern.path == path:
            return any(evidence.target == episode for evidence in pattern.evidence)
    return False


def _patterns_named_in(corpus: Corpus, text: str) -> list[str]:
    """Patterns whose title appears in the log (`PATTERN-x`, `[[PATTERN-x]]`)."""
    lowered = text.lower()
    return [
        note.path
        for note in corpus.of_type("pattern")
        if note.path and re.search(rf"(?<![\w-]){re.escape(note.title.lower())}(?![\w-])", lowered)
    ]
