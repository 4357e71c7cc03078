"""What a coding agent is handed by brain's hooks: at session start, and with the first prompt.

Session start (no task is known yet): recent failure episodes, antipattern warnings, the facts valid
now in the namespaces chosen at install (default: the vault's default one; most relevant first, as
`fact recall` ranks them), and the core tips (support >= 3). First prompt: the facts the prompt
names, the patterns and the tips for that prompt (the core tips were given at the start). Both are
packed in that order into a token budget.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from brain.memory.corpus import Corpus
from brain.memory.sessions import protocol

SESSION_FACTS = 8
CORE_TIPS = 10


def session_start(
    corpus: Corpus,
    *,
    budget: int,
    days: int = protocol.DEFAULT_DAYS,
    caller: str = "hook",
    namespaces: tuple[str, ...] = (),
) -> str:
    """The text for the start of a session, or '' when the vault has nothing to say."""
    from brain.memory.episodes.service import list_episodes
    from brain.memory.patterns import service as patterns
    from brain.memory.tips.service import list_tips

    now = datetime.now(UTC)
    sections: dict[str, list[str]] = {}
    failures = list_episodes(
        corpus, outcome="failure", since=(now - timedelta(days=days)).isoformat(), until=now.isoformat(), limit=10
    )
    sections["Recent failures"] = [
        f"- {e.title} ({(e.date or '')[:10]}): {e.task or ''}" + (f" Lesson: {e.lessons[0]}" if e.lessons else "")
        for e in failures
    ]
    sections["Antipattern warnings"] = [
        f"- {p.title} ({(p.success_rate or 0):.0%} over {p.occurrences}): {p.trigger or ''}".rstrip(": ")
        for p in patterns.antipatterns(corpus)
    ]
    sections["Facts valid now"] = _facts_now(corpus, caller, now, namespaces)
    sections["Core tips"] = [
        f"- {tip.title} [{tip.category}]: {tip.tip}" + (f" Avoid: {tip.avoid}" if tip.avoid else "")
        for tip in list_tips(corpus, min_support=3, limit=CORE_TIPS)
    ]
    if not any(sections.values()):
        return ""
    text, _, _ = protocol._pack("this session (from brain, the team's memory)", sections, budget)
    return text


def first_prompt(
    corpus: Corpus,
    prompt: str,
    *,
    budget: int,
    caller: str = "hook",
    similar: bool = True,
    namespaces: tuple[str, ...] = (),
) -> str:
    """The text for a session's first prompt, or '' when nothing in the vault is close to it.
    `similar=False` leaves out what needs the vault's patterns and tips embedded (facts only)."""
    from brain.memory.tips.service import guidelines

    sections = {
        "Facts valid now": protocol.facts_named_in(corpus, prompt, namespaces=namespaces or None, caller=caller)
    }
    if similar:
        sections["Patterns for this task"] = protocol._relevant_patterns(corpus, prompt, None)
        sections["Tips for this task"] = protocol._tip_lines(_matches_only(guidelines(corpus, prompt)))
    if not any(sections.values()):
        return ""
    text, _, _ = protocol._pack(" ".join(prompt.split())[:120], sections, budget)
    return text


def _matches_only(found):
    from dataclasses import replace

    return replace(found, core=())


def _facts_now(corpus: Corpus, caller: str, now: datetime, namespaces: tuple[str, ...]) -> list[str]:
    from brain.memory.facts.recall import recall_facts

    found = recall_facts(
        corpus.vault, corpus, None, namespaces=namespaces or None, limit=SESSION_FACTS, caller=caller, now=now
    )
    return [protocol._fact_line(hit.fact) for hit in found.hits]
