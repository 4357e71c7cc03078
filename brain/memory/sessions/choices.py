"""A choice an agent states in its own words ("I'll use X rather than Y, because ..."), by rules.

The transcript rules read a decision from the agent's text: a sentence that states a choice, or,
right after a failure, one that changes approach. Chosen = the sentence without its lead ("I'll")
and its reason; options = the two sides of "X instead of / rather than / over Y"; rationale = the
reason in the agent's words, from that sentence or the one before or after that says "because" /
"since".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CHOICE = re.compile(
    r"\b(?:I'll|I will|I'm going to|let's|let me|we'll|going with|decided to|chose|choose|opt(?:ed)? for|prefer)\b"
    r".*?\b(?:instead of|rather than|over)\b"
    r"|\b(?:I'll|I will|let's) go with\b|\b(?:going|went) with (?:option|approach)\b",
    re.IGNORECASE,
)
_APPROACH_CHANGE = re.compile(
    r"\b(?:different approach|another approach|another way|alternative|instead|try (?:a|another)"
    r"|switch(?:ing)? to|fall back)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:so|ok|okay|now|then),?\s+)?(?:I'll|I will|I'm going to|let's|let me|we'll|we will)\s+(?:try\s+)?",
    re.IGNORECASE,
)
_COMPARISON = re.compile(r"^(.+?)\s+(?:instead of|rather than|over)\s+(.+)$", re.IGNORECASE)
_REASON = re.compile(r",?\s*\b(?:because|since|so that|as)\b\s+(.+)$", re.IGNORECASE)
_BECAUSE = re.compile(r"\b(?:because|since|so that)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Choice:
    chosen: str
    rationale: str | None
    options: tuple[str, str] | None


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s.strip()]


def states_a_choice(sentence: str) -> bool:
    return _CHOICE.search(sentence) is not None


def changes_approach(sentence: str) -> bool:
    return _APPROACH_CHANGE.search(sentence) is not None


def choice_in(sentences: list[str], position: int) -> Choice | None:
    """The choice the sentence at `position` states (None when it is too short to say one)."""
    sentence = sentences[position].strip(" -*:")
    if len(sentence) < 12:
        return None
    reason = _REASON.search(sentence)
    chosen = sentence[: reason.start()] if reason else sentence
    chosen = _LEAD.sub("", chosen).strip(" ,.:;")
    chosen = re.sub(
        r"^(?:a |an |another )?(?:different |new |other )?(?:approach|way|fix|option)\s*:\s*",
        "",
        chosen,
        flags=re.IGNORECASE,
    )
    chosen = chosen[:1].upper() + chosen[1:]
    rationale = reason.group(1).strip(" .") if reason else None
    if rationale is None:
        for near in (
            sentences[position - 1] if position else "",
            sentences[position + 1] if position + 1 < len(sentences) else "",
        ):
            if _BECAUSE.search(near):
                rationale = near.strip(" .")
                break
    comparison = _COMPARISON.match(chosen)
    options = (comparison.group(1).strip(" ,"), comparison.group(2).strip(" ,.")) if comparison else None
    return Choice(chosen, rationale, options)
