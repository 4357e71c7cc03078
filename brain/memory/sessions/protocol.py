"""The session protocol: a compact context to start a task with, and the end of a session.

Start (`bootstrap`): recent failure episodes (7 days by default), antipattern warnings, the
facts valid now about the subjects the task names, the patterns whose trigger is close to the
task, and the tips for the task (guidelines), packed in that order of priority into a token
budget (the lines and the packing are `context`'s). The facts come from the facts service's
recall, so they are the ones valid now, in the namespaces given (default: the configured one), and
each recall is journaled like any other.

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

from brain.errors import UsageError
from brain.memory.causal.neighbourhood import MAX_BUDGET, MIN_BUDGET
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import list_episodes
from brain.memory.patterns import service as pattern_service
from brain.memory.sessions import context
from brain.memory.tips.service import LearnResult, guidelines, learn_episode

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder

DEFAULT_BUDGET = 1500
DEFAULT_DAYS = context.DEFAULT_DAYS


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
    project: str | None = None,
) -> Bootstrap:
    """The session's starting context. `now` is the clock for recent failures and for the facts'
    validity; `namespaces` and `caller` go to the facts recall (and so to its journal); `project`
    keeps the episodes, patterns and tips of its scope (None: the whole vault)."""
    if not task.strip():
        raise UsageError("give the task the session is about to start")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise UsageError(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET} tokens, got {budget}")
    if days < 0:
        raise UsageError(f"days must be 0 or more, got {days}")
    now = now or datetime.now(UTC)
    try:
        since = (now - timedelta(days=days)).isoformat()
    except OverflowError:  # more days than there are since year 1: every episode
        since = datetime.min.replace(tzinfo=UTC).isoformat()
    found = guidelines(corpus, task, embedder=embedder, project=project)
    sections = {
        "Recent failures": context.failure_lines(
            list_episodes(corpus, outcome="failure", since=since, until=now.isoformat(), limit=20, project=project)
        ),
        "Antipattern warnings": context.antipattern_lines(pattern_service.antipatterns(corpus, project=project)),
        "Facts valid now": context.facts_named_in(corpus, task, namespaces=namespaces, caller=caller, now=now),
        "Patterns for this task": context.relevant_patterns(corpus, task, embedder, project=project),
        "Tips": context.tip_lines(found),
    }
    text, used, omitted = context.pack(task, sections, budget)
    return Bootstrap(task, budget, text, used, {k: v for k, v in sections.items() if v}, omitted)


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
    corpus: Corpus,
    session_log: str | Path,
    *,
    patterns: Sequence[str] = (),
    today: str | None = None,
    format: str | None = None,
) -> SessionEnd:
    """Extract (a transcript, read by the reader of its format, or a log), redact, store, record pattern
    evidence once per episode, learn tips, report new antipatterns."""
    vault = corpus.vault
    from brain.memory.sessions.ingest import (
        TranscriptExtracted,
        extract_transcript,
        redacted,
        store_named,
    )
    from brain.memory.sessions.redact import markers, redactor_for

    if not Path(session_log).is_file():
        raise UsageError(
            f"session log '{session_log}' does not exist; give the transcript or log of the session that ended"
        )
    redactor = redactor_for(vault.brain_dir)
    extracted = redacted(extract_transcript(session_log, format, redactor), redactor)
    named = [pattern_service.find_pattern(corpus, name) or corpus.resolver().resolve(name) for name in patterns]
    if isinstance(extracted, TranscriptExtracted):  # the reader saw every PATTERN- name as it streamed the file
        text = " ".join(extracted.patterns_named)
    else:
        text = Path(session_log).read_text(encoding="utf-8-sig")
    used = list(dict.fromkeys(named + _patterns_named_in(corpus, text)))
    before = {p.title for p in pattern_service.antipatterns(corpus)}
    extracted, stored = store_named(corpus, extracted)
    episode = extracted.episode
    titles = []
    for path in used:
        if _has_evidence(corpus, path, episode.title):  # the same session ended again (a transcript that grew)
            continue
        update = pattern_service.record_pattern_evidence(
            corpus, path, outcome=episode.outcome or "partial", episode=episode.title
        )
        titles.append(update.pattern.title)
    project = extracted.project.project if isinstance(extracted, TranscriptExtracted) and extracted.project else None
    learned = learn_episode(corpus, episode, today=today, project=project)
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
