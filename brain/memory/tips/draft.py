"""A tip before it has a title: what the rules (or a model) made of one subtask of an episode."""

from __future__ import annotations

from dataclasses import dataclass

from brain.memory.tips.wording import same


@dataclass(frozen=True)
class Attribution:
    immediate: str
    proximate: str | None
    root: str | None


@dataclass(frozen=True)
class Draft:
    """A tip before it has a title: what the rules (or a model) made of one segment."""

    category: str
    subtask: str
    trigger: str
    tip: str
    steps: tuple[str, ...]
    avoid: str
    purpose: str
    applies_when: str
    task_category: str
    priority: str
    evidence: str
    episode: str
    span: str | None
    attribution: Attribution | None = None
    name: str = ""  # what the title is made from when it is not the subtask (the subtask before it was said)


def distinct_causes(immediate: str, proximate: str | None, root: str | None) -> Attribution:
    """An attribution that names each cause once: a cause whose text is an earlier one's (compared
    without case, punctuation or spacing, or one the start of the other) is left out."""
    kept: list[str] = [immediate]
    named: list[str | None] = []
    for cause in (proximate, root):
        fresh = cause is not None and not any(same(cause, other) for other in kept)
        named.append(cause if fresh else None)
        kept += [cause] if cause is not None and fresh else []
    return Attribution(immediate, named[0], named[1])
