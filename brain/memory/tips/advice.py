"""What a tip tells the agent to do: the options it chooses and the ones it avoids.

"Choose raise over warn" and "Choose warn over raise" have the same words, so word overlap
calls them one tip; merging them would count the support of one piece of advice for its
opposite. Consolidation asks this module whether two tips advise opposite things: one chooses
what the other avoids, and avoids what the other chooses. Choices are read from the contrast
phrases tips are worded with ("X over Y", "X rather than Y", "X instead of Y"), and a tip's
`avoid` field counts as avoided.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brain.memory.tips.note import Tip
from brain.memory.tips.wording import words

_CONTRAST = re.compile(
    r"(?P<chosen>[^.;:\n]+?)\s+(?:over|rather than|instead of|not)\s+(?P<avoided>[^.;:\n]+)", re.IGNORECASE
)
_LEAD = re.compile(r"^\s*(?:\d+[.)]\s*)?(?:always\s+)?(?:choose|prefer|use|pick|take|go with)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Advice:
    """The content words of what a tip chooses and of what it avoids."""

    chosen: frozenset[str]
    avoided: frozenset[str]


def advice(tip: Tip) -> tuple[Advice, ...]:
    """Each choice a tip states (one per contrast phrase), plus its `avoid` field as avoided."""
    found = []
    for text in (tip.tip, *tip.steps):
        for match in _CONTRAST.finditer(text):
            chosen = words(_LEAD.sub("", match.group("chosen").split(",")[-1]))
            avoided = words(match.group("avoided"))
            if chosen and avoided:
                found.append(Advice(frozenset(chosen - avoided), frozenset(avoided - chosen)))
    avoid = frozenset(words(tip.avoid))
    if avoid:
        found.append(Advice(frozenset(), avoid))
    return tuple(found)


def opposite(a: Tip, b: Tip) -> bool:
    """Whether `a` chooses what `b` avoids and avoids what `b` chooses (or the other way round)."""
    first, second = advice(a), advice(b)
    a_chooses = frozenset().union(*(item.chosen for item in first))
    a_avoids = frozenset().union(*(item.avoided for item in first))
    b_chooses = frozenset().union(*(item.chosen for item in second))
    b_avoids = frozenset().union(*(item.avoided for item in second))
    return bool(a_chooses & b_avoids) and bool(b_chooses & a_avoids)
