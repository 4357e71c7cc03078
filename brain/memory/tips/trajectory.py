"""A trajectory an agent reports (thought, action, result per step) as an episode, so tips can be learned from it."""

from __future__ import annotations

import re
from typing import Any

from brain.markdown.model import Decision, Episode, Event
from brain.memory.tips.wording import first_clause


def trajectory_episode(
    title: str, task: str, steps: list[dict[str, Any]], outcome: str | None, date: str | None
) -> Episode:
    """An episode from a raw trajectory: each step {thought, action, result} becomes a decision
    (thought -> context, action -> chosen) and a milestone, an error event when its result reports
    one. The outcome, when not given, is success unless the last step failed."""
    from brain.errors import InvalidInput

    decisions: list[Decision] = []
    events: list[Event] = []
    failed_last = False
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or not str(step.get("action") or "").strip():
            raise InvalidInput(f"step {number} needs an 'action' (and optionally 'thought' and 'result')")
        action, thought, result = (str(step.get(key) or "").strip() for key in ("action", "thought", "result"))
        failed_last = bool(
            re.search(
                r"\b(error|exception|failed|failure|traceback|denied|not found|refused|timed? ?out)\b",
                result,
                re.IGNORECASE,
            )
        )
        event_id = f"e{len(events) + 1:03d}"
        decision_id = f"d{number:03d}"
        events.append(
            Event(
                text=action + (f" -> {result}" if result else ""),
                id=event_id,
                type="error" if failed_last else "milestone",
                caused_by=(decision_id,),
            )
        )
        decisions.append(
            Decision(
                id=decision_id,
                title=first_clause(action, 72),
                context=thought or None,
                chosen=action,
                outcome="failure" if failed_last else "success",
                effects=(event_id,),
            )
        )
    return Episode(
        title=title,
        outcome=outcome or ("failure" if failed_last else "success"),
        task=task,
        date=date,
        session=title.removeprefix("EPISODE-"),
        decisions=tuple(decisions),
        events=tuple(events),
        tags=("episodic", "trajectory"),
        metrics={"tool_calls": len(steps), "errors": sum(e.type == "error" for e in events)},
    )
