"""Tips, guidelines, learning and consolidation results as lines and JSON rows, for the CLI and MCP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.memory.tips.note import Tip

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.tips.consolidate import ConsolidationPlan
    from brain.memory.tips.service import Guideline, Guidelines, LearnResult


def tip_summary(tip: Tip) -> dict[str, Any]:
    return {
        "title": tip.title,
        "path": tip.path,
        "category": tip.category,
        "subtask": tip.subtask,
        "trigger": tip.trigger,
        "tip": tip.tip,
        "priority": tip.priority,
        "support": tip.support,
        "evidence": tip.evidence,
        "helped": tip.helped,
        "hurt": tip.hurt,
        "source_episodes": [source.render() for source in tip.source_episodes],
        "merged_into": tip.merged_into,
    }


def tip_line(tip: Tip) -> str:
    return f"{tip.category:12} support {tip.support:<3} {tip.evidence:8} {tip.title}  {tip.subtask}"


def guideline_row(guideline: Guideline) -> dict[str, Any]:
    row = tip_summary(guideline.tip)
    row.update(
        reason=guideline.reason,
        similarity=guideline.similarity,
        score=guideline.score,
        steps=list(guideline.tip.steps),
        avoid=guideline.tip.avoid,
    )
    return row


def guidelines_json(found: Guidelines) -> dict[str, Any]:
    return {
        "task": found.task,
        "threshold": found.threshold,
        "core": [guideline_row(g) for g in found.core],
        "matches": [guideline_row(g) for g in found.matches],
    }


def guideline_lines(found: Guidelines) -> list[str]:
    """Each tip as an instruction an agent can follow: the tip, its steps, what to avoid."""
    if not found.all:
        return [f"no tips above similarity {found.threshold} for this task"]
    lines: list[str] = []
    for guideline in found.all:
        tip = guideline.tip
        label = "core" if guideline.reason == "core" else f"{guideline.similarity:.2f}"
        lines.append(f"[{label}] {tip.title} ({tip.category}, support {tip.support}, {tip.evidence})")
        lines.append(f"  {_one_line(tip.tip)}")
        lines += [f"  {number}. {_one_line(step)}" for number, step in enumerate(tip.steps[:5], 1)]
        if tip.avoid:
            lines.append(f"  avoid: {_one_line(tip.avoid)}")
    return lines


def _one_line(text: str) -> str:
    return " ".join(text.split())


def learn_json(result: LearnResult) -> dict[str, Any]:
    return {
        "episode": result.episode,
        "created": list(result.created),
        "unchanged": list(result.unchanged),
        "supported": list(result.supported),
        "held": list(result.held),
        "tips": [
            {"category": d.category, "subtask": d.subtask, "span": d.span, "evidence": d.evidence, "tip": d.tip}
            for d in result.drafts
        ],
        "warnings": list(result.warnings),
    }


def learned_counts(result: LearnResult) -> str:
    """'1 new, 1 supported again, 2 held for a second session, 0 already learned'."""
    return (
        f"{len(result.created)} new, {len(result.supported)} supported again, "
        f"{len(result.held)} held for a second session, {len(result.unchanged)} already learned"
    )


def learn_lines(result: LearnResult) -> list[str]:
    lines = [f"{result.episode}: {learned_counts(result)}"]
    lines += [f"  created {path}" for path in result.created]
    lines += [f"  supported {path}" for path in result.supported]
    return lines


def plan_json(plan: ConsolidationPlan) -> dict[str, Any]:
    """A consolidation plan (brain.memory.tips.consolidate.ConsolidationPlan)."""
    return {
        "dry_run": plan.dry_run,
        "candidates": plan.candidates,
        "rejected": plan.rejected,
        "merges": [
            {
                "title": m.title,
                "path": m.path,
                "representative": m.representative,
                "members": list(m.members),
                "support": m.support,
                "evidence": m.evidence,
            }
            for m in plan.merges
        ],
        "conflicts": [list(pair) for pair in plan.conflicts],
    }


def plan_lines(plan: ConsolidationPlan) -> list[str]:
    verb = "would merge" if plan.dry_run else "merged"
    lines = [
        f"{plan.candidates} candidate pairs, {plan.rejected} rejected (category, steps or advice differ), {len(plan.merges)} merges"
    ]
    for merge in plan.merges:
        lines.append(
            f"{verb} {merge.representative} + {', '.join(merge.members)} -> {merge.title} (support {merge.support}, {merge.evidence})"
        )
    for first, second in plan.conflicts:
        lines.append(f"conflict: {first} and {second} give opposite advice; kept apart (review them)")
    return lines
