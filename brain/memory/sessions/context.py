"""The context brain hands an agent: lines for each kind of memory, packed into a token budget.

`bootstrap` (the session protocol) and the hooks of every agent build their text from here: recent
failures, antipattern warnings, the facts valid now, the patterns and the tips for a task, each a
section of one-line items, packed in priority order by `pack`. A fact subject is named by a task by its
words or their common abbreviations (`db-pool-size` in "tune the database pool size": `facts.naming`).

Each takes `project`: the episodes, patterns and tips of that project's scope (`brain.memory.projects.note`;
None: the whole vault). Facts are read by namespace, not by project.

For an agent's hooks: `session_start` (no task is known yet: recent failures, antipatterns, the facts
valid now in the chosen namespaces, the core tips) and `first_prompt` (the facts the prompt names, the
patterns and the tips for it; the core tips were given at the start).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from brain.index.catalog import summaries
from brain.markdown.model import Note
from brain.memory.causal.neighbourhood import CHARS_PER_TOKEN
from brain.memory.corpus import Corpus
from brain.memory.facts import naming
from brain.memory.facts.note import Fact, canonical_json, fact_from_note, format_time
from brain.memory.patterns.note import pattern_counts, pattern_from_note
from brain.memory.projects.note import project_of
from brain.memory.similarity import cosine, text_vectors
from brain.memory.tips.service import Guidelines

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder
    from brain.markdown.model import Episode, Pattern

DEFAULT_DAYS = 7
PATTERN_THRESHOLD = 0.45  # a pattern's name and trigger together; a little looser than tips, as context not instruction
MAX_PATTERNS = 5
MAX_FACT_SUBJECTS = 5
FACTS_PER_SUBJECT = 3
FACT_VALUE_CHARS = 160
SESSION_FACTS = 8
CORE_TIPS = 10


def failure_lines(failures: list[Episode]) -> list[str]:
    return [
        f"- {e.title} ({(e.date or '')[:10]}): {e.task or ''}" + (f" Lesson: {e.lessons[0]}" if e.lessons else "")
        for e in failures
    ]


def antipattern_lines(found: list[Pattern]) -> list[str]:
    return [_antipattern_line(p.title, p.success_rate or 0, p.occurrences, p.trigger) for p in found]


def _antipattern_line(title: str, success: float, occurrences: int | None, trigger: str | None) -> str:
    return f"- {title} ({success:.0%} over {occurrences}): {trigger or ''}".rstrip(": ")


def session_start(
    corpus: Corpus,
    *,
    budget: int,
    days: int = DEFAULT_DAYS,
    caller: str = "hook",
    namespaces: tuple[str, ...] = (),
    project: str | None = None,
) -> str:
    """The text for the start of a session, or '' when the vault has nothing to say."""
    from brain.memory.episodes.service import list_episodes
    from brain.memory.facts.recall import recall_facts
    from brain.memory.tips.service import list_tips

    now = datetime.now(UTC)
    since = (now - timedelta(days=days)).isoformat()
    facts = recall_facts(corpus, None, namespaces=namespaces or None, limit=SESSION_FACTS, caller=caller, now=now)
    sections = {
        "Recent failures": failure_lines(
            list_episodes(corpus, outcome="failure", since=since, until=now.isoformat(), limit=10, project=project)
        ),
        "Antipattern warnings": antipattern_warnings(corpus, project=project),
        "Facts valid now": [fact_line(hit.fact) for hit in facts.hits],
        "Core tips": [
            f"- {tip.title} [{tip.category}]: {tip.tip}" + (f" Avoid: {tip.avoid}" if tip.avoid else "")
            for tip in list_tips(corpus, min_support=3, limit=CORE_TIPS, project=project)
        ],
    }
    if not any(sections.values()):
        return ""
    text, _, _ = pack("this session (from brain, the team's memory)", sections, budget)
    return text


def first_prompt(
    corpus: Corpus,
    prompt: str,
    *,
    budget: int,
    caller: str = "hook",
    similar: bool = True,
    namespaces: tuple[str, ...] = (),
    project: str | None = None,
    given: Collection[str] = (),
) -> str:
    """The text for a session's first prompt, or '' when nothing in the vault is close to it.
    `similar=False` leaves out what needs the vault's patterns and tips embedded (facts only); the
    notes titled in `given` (handed to the session already, at its start) are left out."""
    from brain.memory.tips.service import guidelines

    sections = {
        "Facts valid now": facts_named_in(corpus, prompt, namespaces=namespaces or None, caller=caller, given=given)
    }
    if similar:
        sections["Patterns for this task"] = relevant_patterns(corpus, prompt, None, project=project, given=given)
        found = guidelines(corpus, prompt, project=project)
        sections["Tips for this task"] = tip_lines(
            replace(found, core=(), matches=tuple(g for g in found.matches if g.tip.title not in given))
        )
    if not any(sections.values()):
        return ""
    text, _, _ = pack(" ".join(prompt.split())[:120], sections, budget)
    return text


def relevant_patterns(
    corpus: Corpus, task: str, embedder: Embedder | None, *, project: str | None = None, given: Collection[str] = ()
) -> list[str]:
    candidates = [
        found[:5]
        for found in corpus.summaries(CANDIDATES, "pattern", _candidate, _is_candidate)
        if found is not None and (project is None or found[5] in (None, project)) and found[0] not in given
    ]
    if not candidates:
        return []
    candidates.sort(key=lambda c: (-c[1], -(c[2] or 0), c[0]))  # as list_patterns orders them
    vectors = text_vectors(corpus, embedder)
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


ANTIPATTERN_FIGURES = "session-antipattern-figures-1"  # the name of `_antipattern_figures`' values on disk


def antipattern_warnings(corpus: Corpus, *, project: str | None = None) -> list[str]:
    """`antipattern_lines(patterns.antipatterns(corpus, project=project))`, from the figures of each
    pattern note kept on disk (`Corpus.summaries`): a session start decodes no pattern note (at
    50,000 notes, decoding the 1,700 antipatterns was a third of the hook's time)."""
    from brain.config import load_config

    config = load_config(corpus.vault.brain_dir)
    rate, least = config.antipattern_max_success_rate, config.antipattern_min_occurrences
    found = [
        figures
        for figures in corpus.summaries(ANTIPATTERN_FIGURES, "pattern", _antipattern_figures, _is_antipattern_figures)
        if figures is not None
        and figures[1] <= rate
        and figures[2] >= least
        and (project is None or figures[4] in (None, project))
    ]
    found.sort(key=lambda figures: (figures[1], -figures[2], figures[0]))
    return [
        _antipattern_line(title, success, occurrences, trigger) for title, success, occurrences, trigger, _ in found
    ]


def _antipattern_figures(note: Note) -> list[Any] | None:
    """[title, success rate, occurrences, trigger, project] of a pattern note, from its frontmatter
    alone (as `pattern_from_note` reads them); None without both numbers (never an antipattern)."""
    success, occurrences = pattern_counts(note.frontmatter)
    if success is None or occurrences is None:
        return None
    trigger = note.frontmatter.get("trigger")
    return [
        note.title,
        success,
        occurrences,
        str(trigger) if isinstance(trigger, (str, int, float)) else None,
        project_of(note.frontmatter),
    ]


def _is_antipattern_figures(value: Any) -> bool:
    return summaries.has_shape(value, (str, float, int, str | None, str | None), or_none=True)


CANDIDATES = "bootstrap-pattern-candidates-2"  # the name of `_candidate`'s values on disk


def _candidate(note: Note) -> list[Any] | None:
    """A pattern worth suggesting for a task (it works more often than not, and has a trigger) as
    what the task is compared with: [title, success rate, occurrences, trigger, action, project]."""
    pattern = pattern_from_note(note)
    if (pattern.success_rate or 0) <= 0.3 or not pattern.trigger:
        return None
    action = " ".join(pattern.action.split())
    return [
        pattern.title,
        pattern.success_rate,
        pattern.occurrences,
        pattern.trigger,
        action,
        project_of(note.frontmatter),
    ]


def _is_candidate(value: Any) -> bool:
    return summaries.has_shape(value, (str, float, int | None, str, str, str | None), or_none=True)


def _name_words(title: str) -> str:
    """'PATTERN-jittered-ttl-and-request-coalescing' -> 'jittered ttl and request coalescing'."""
    return re.sub(r"^(ANTI)?PATTERN-", "", title).replace("-", " ")


def tip_lines(found: Guidelines) -> list[str]:
    lines = []
    for guideline in found.all:
        tip = guideline.tip
        line = f"- {tip.title} [{tip.category}]: {tip.tip}"
        if tip.avoid:
            line += f" Avoid: {tip.avoid}"
        lines.append(line)
    return lines


def _fact_subjects(corpus: Corpus) -> dict[str, dict[str, frozenset[str]]]:
    """namespace -> subject -> its words, for every subject with a fact."""
    subjects: dict[str, dict[str, frozenset[str]]] = {}
    for namespace, subject in corpus.summaries(
        "fact-subjects-1", "fact", _namespace_and_subject, _is_namespace_and_subject
    ):
        subjects.setdefault(namespace, {}).setdefault(subject, naming.words(subject))
    return subjects


def _is_namespace_and_subject(value: Any) -> bool:
    return summaries.has_shape(value, (str, str))


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
    given: Collection[str] = (),
) -> list[str]:
    """Lines for the facts valid now about the subjects the task names (see the module doc), but the
    facts titled in `given`."""
    from brain.memory.facts.recall import recall_facts
    from brain.memory.facts.settings import load_settings

    chosen = list(dict.fromkeys(namespaces or [load_settings(corpus.vault).default_namespace]))
    known = _fact_subjects(corpus)
    task_words = naming.words(task)
    named: dict[str, int] = {}
    for namespace in chosen:
        for subject, subject_words in known.get(namespace, {}).items():
            shared = naming.names(subject_words, task_words)
            if shared:
                named[subject] = max(named.get(subject, 0), shared)
    lines: list[str] = []
    for subject in sorted(named, key=lambda name: (-named[name], name))[:MAX_FACT_SUBJECTS]:
        found = recall_facts(
            corpus, subject=subject, namespaces=chosen, limit=FACTS_PER_SUBJECT, caller=caller, now=now
        )
        lines += [fact_line(hit.fact) for hit in found.hits if hit.fact.title not in given]
    return lines


def fact_line(fact: Fact) -> str:
    value = fact.value if isinstance(fact.value, str) else canonical_json(fact.value)
    value = " ".join(value.split())
    if len(value) > FACT_VALUE_CHARS:
        value = value[: FACT_VALUE_CHARS - 3] + "..."
    since = format_time(fact.valid_from)[:10]
    marks = " [value edited by hand]" if fact.tampered else ""
    return f"- {fact.subject} ({fact.kind}, {fact.namespace}, since {since}): {value} [[{fact.title}]]{marks}"


def pack(task: str, sections: dict[str, list[str]], budget: int) -> tuple[str, int, int]:
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
