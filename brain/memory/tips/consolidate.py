"""Consolidation: merge tips that say the same thing, losing no source.

Similarity alone is not enough (unrelated notes can score above 0.85 with their nearest
neighbour while real rewrites score 0.78 to 0.87), so similarity of trigger and subtask (the
mean of the two, with the vectors guidelines already use) only makes *candidates*; a candidate
is merged only when it also has the same category and its steps agree: the words of the two
tips' steps overlap by at least STEPS_AGREE (Jaccard), and the two do not advise opposite things
(one chooses what the other avoids: `advice.opposite`); such a pair is kept apart and reported
as a conflict. Steps are concrete actions, so a rewrite
keeps their words while a different procedure for the same situation does not.

A merge writes a new tip holding every source: support adds up, evidence combines (success +
failure = both), helped/hurt add up, avoid lines are kept, and the representative (the tip
from the most successful work, then the best supported) gives the wording. Each merged tip
stays on disk with `merged_into` pointing at the new one, which lists them under `replaces`.
No file is deleted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

import numpy as np

from brain.markdown.edit import set_frontmatter
from brain.memory.corpus import Corpus
from brain.memory.tips.advice import opposite
from brain.memory.tips.note import Tip, combine_evidence, render_tip
from brain.memory.tips.service import active_tips, tip_index
from brain.memory.tips.wording import words
from brain.vault.vault import TYPE_FOLDERS

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder

CANDIDATE_SIMILARITY = 0.8
STEPS_AGREE = 0.5
_EVIDENCE_RANK = {"success": 0, "both": 1, "failure": 2}
_BLOCK = 1024


@dataclass(frozen=True)
class Merge:
    title: str
    path: str | None
    representative: str
    members: tuple[str, ...]
    support: int
    evidence: str


@dataclass(frozen=True)
class ConsolidationPlan:
    candidates: int  # pairs similar enough to look at
    rejected: int  # candidate pairs that differ in category or steps, or give opposite advice
    merges: tuple[Merge, ...]
    dry_run: bool
    conflicts: tuple[tuple[str, str], ...] = ()  # similar tips that advise the opposite: kept apart


def _step_words(tip: Tip) -> frozenset[str]:
    return frozenset(words(" ".join(tip.steps) or tip.tip))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def consolidate(
    corpus: Corpus, *, dry_run: bool = False, embedder: Embedder | None = None, today: str | None = None
) -> ConsolidationPlan:
    vault = corpus.vault
    table = tip_index(corpus, embedder)
    by_path = {tip.path: tip for tip in active_tips(corpus)}  # merging reads every part of every tip
    tips, subtasks, triggers = [by_path[path] for path in table.paths], table.column(0), table.column(1)
    if len(tips) < 2:
        return ConsolidationPlan(0, 0, (), dry_run)
    steps = [_step_words(tip) for tip in tips]
    order = sorted(
        range(len(tips)), key=lambda i: (_EVIDENCE_RANK.get(tips[i].evidence, 3), -tips[i].support, tips[i].title)
    )
    rank = {tip: position for position, tip in enumerate(order)}
    categories = np.array([tip.category for tip in tips])
    partners: dict[int, list[int]] = {}
    conflicts: list[tuple[str, ...]] = []
    candidates = rejected = 0
    for start in range(0, len(tips), _BLOCK):
        block = (subtasks[start : start + _BLOCK] @ subtasks.T + triggers[start : start + _BLOCK] @ triggers.T) / 2
        for offset, row in enumerate(block):
            i = start + offset
            near = np.nonzero(row >= CANDIDATE_SIMILARITY)[0]
            near = near[near > i]
            if near.size == 0:
                continue
            candidates += int(near.size)
            same = near[categories[near] == categories[i]]
            similar = [j for j in same.tolist() if _jaccard(steps[i], steps[j]) >= STEPS_AGREE]
            clashing = [j for j in similar if opposite(tips[i], tips[j])]
            conflicts += [tuple(sorted((tips[i].title, tips[j].title))) for j in clashing]
            agree = np.array([j for j in similar if j not in clashing], dtype=int)
            rejected += int(near.size - agree.size)
            for j in agree.tolist():
                partners.setdefault(i, []).append(j)
                partners.setdefault(j, []).append(i)
    taken: set[int] = set()
    merges: list[Merge] = []
    pending: list[str] = []
    clash = {frozenset(pair) for pair in conflicts}
    for best in order:  # the best tip of each group represents it; members must agree with it, no chaining
        if best in taken or best not in partners:
            continue
        members: list[int] = []
        for j in sorted((j for j in partners[best] if j not in taken), key=rank.__getitem__):
            # a member never joins a group holding a tip that advises its opposite
            if not any(frozenset((tips[j].title, tips[k].title)) in clash for k in (best, *members)):
                members.append(j)
        if not members:
            continue
        group = [best, *members]
        taken.update(group)
        merged = _merged_tip(corpus, [tips[i] for i in group], pending, today)
        path = f"{TYPE_FOLDERS['tip']}/{vault.filename_for(merged.title)}"
        pending.append(merged.title.lower())
        merges.append(
            Merge(
                merged.title,
                path,
                tips[best].title,
                tuple(tips[i].title for i in members),
                merged.support,
                merged.evidence,
            )
        )
        if not dry_run:
            _write_merge(corpus, merged, path, [tips[i] for i in group])
    found = tuple(sorted({(pair[0], pair[1]) for pair in conflicts}))
    return ConsolidationPlan(candidates, rejected, tuple(merges), dry_run, found)


def _merged_tip(corpus: Corpus, group: list[Tip], pending: list[str], today: str | None) -> Tip:
    vault = corpus.vault
    best = group[0]
    sources = list(dict.fromkeys(source for tip in group for source in tip.source_episodes))
    avoid = list(dict.fromkeys(part.strip() for tip in group for part in tip.avoid.split(";") if part.strip()))
    base = best.title.removesuffix("-merged")
    title, number = f"{base}-merged", 1
    while (
        corpus.resolver().candidates(title)
        or title.lower() in pending
        or (vault.root / TYPE_FOLDERS["tip"] / vault.filename_for(title)).exists()
    ):
        number += 1
        title = f"{base}-merged-{number}"
    return Tip(
        title=title,
        category=best.category,
        tip=best.tip,
        trigger=best.trigger,
        subtask=best.subtask,
        task_category=best.task_category,
        priority=best.priority,
        support=sum(tip.support for tip in group),
        evidence=combine_evidence([tip.evidence for tip in group]),
        source_episodes=tuple(sources),
        helped=sum(tip.helped for tip in group),
        hurt=sum(tip.hurt for tip in group),
        purpose=best.purpose,
        steps=best.steps,
        avoid="; ".join(avoid),
        applies_when=best.applies_when,
        replaces=tuple(tip.title for tip in group),
        tags=best.tags,
        created=today or date.today().isoformat(),
    )


def _write_merge(corpus: Corpus, merged: Tip, path: str, group: list[Tip]) -> None:
    vault = corpus.vault
    vault.write(path, render_tip(merged), create=True)
    for tip in group:
        if tip.path is None:
            continue
        vault.update(tip.path, lambda note: set_frontmatter(note.text, {"merged_into": f"[[{merged.title}]]"}))
