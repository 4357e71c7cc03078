"""Tips from an episode by rules, no language model: segment, generalize, classify, attribute.

1. Segment. Each decision anchors a subtask: the decision and the events it caused (its Effects,
   and what those caused in turn, except a later milestone, which is the next step). Events no decision claims
   are cut into runs of work: a run ends after a commit or a passing test, or after three
   milestones; an error keeps the run open until a passing test or a fix.
2. Generalize. Entity names are stripped from descriptions: emails, URLs, paths, commit SHAs,
   issue/PR numbers, ids, quoted code and numbers become placeholders.
3. Classify. recovery: the segment holds an error or a decision that failed (the tip names the
   failed approach as what to avoid); optimization: it succeeded with waste (a step repeated,
   retries, or a rejected first attempt); strategy: a clean success.
4. Attribute. For a failure: immediate cause (the error or failed outcome itself), proximate
   cause (the nearest decision up its `caused_by` / `leads_to` / Effects chain, else the event
   just before it), root cause (the first cause recorded at the top of that chain).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from brain.notes.model import Decision, Episode, Event

MAX_RUN_MILESTONES = 3
_GENERALIZE = (
    (re.compile(r"[^\s@<>()\[\]]+@[^\s@<>()\[\]]+\.[^\s@<>()\[\]]+"), "<email>"),
    (re.compile(r"https?://\S+"), "<url>"),
    (re.compile(r"`[^`\n]+`"), "<code>"),
    (re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+"), "<path>"),
    (re.compile(r"\b[\w-]+\.(?:py|ps1|psm1|md|json|ya?ml|toml|ts|js|sh|txt)\b"), "<file>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b"), "<sha>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<id>"),
    (re.compile(r"(?:\b(?:PR|issue|pull)\s*)?#\d+", re.IGNORECASE), "<issue>"),
    (re.compile(r"\b(?:ADR|RFC|CVE|JIRA)-\d+\b"), "<doc>"),
    (re.compile(r"\b[a-z]\d{3}\b"), "<ref>"),
    (re.compile(r"\b\d+(?:[.,:]\d+)*(?:[kKMB%]|\s?(?:ms|s|min|h|x|KB|MB|GB|percent)\b)?"), "<n>"),
)
_RETRY = re.compile(r"\b(retr(?:y|ied|ies)|again|re-?ran|re-?run|second attempt|another attempt|redo|redid|repeated)\b", re.IGNORECASE)
_FIX = re.compile(r"\b(fix(?:ed|es)?|repair(?:ed)?|recover(?:ed)?|resolv(?:ed|es)|corrected|revert(?:ed)?|passed|green)\b", re.IGNORECASE)
_FAILED_OUTCOME = ("failure", "failed", "fail")
_STOP = set("the a an and or of to in on for with by from at as is was were be been it its this that these those into".split())


def generalize(text: str, limit: int = 160) -> str:
    """Text with entity names replaced by placeholders, one line, at most `limit` characters."""
    out = " ".join(text.split())
    for pattern, placeholder in _GENERALIZE:
        out = pattern.sub(placeholder, out)
    out = re.sub(r"(<\w+>)(?:[\s,/]+\1)+", r"\1", out)  # "<n>, <n>, <n>" -> "<n>"
    if len(out) > limit:
        cut = out[:limit].rsplit(" ", 1)[0]
        out = cut.rstrip(",;:") + "..."
    return out


def first_clause(text: str, limit: int = 90) -> str:
    """The first sentence or clause, for a short subtask description."""
    head = re.split(r"(?<=[.!?;:])\s|\s[-–]\s|\(", text.strip(), maxsplit=1)[0].rstrip(".;:, ")
    return generalize(head, limit)


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if w not in _STOP}


@dataclass
class Segment:
    """A run of an episode's steps that forms one subtask."""

    decisions: list[Decision] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        ordered = [d.id for d in self.decisions] + [e.id for e in self.events if e.id]
        return ordered

    def span(self) -> str | None:
        ids = self.ids
        if not ids:
            return None
        return ids[0] if len(ids) == 1 else f"{ids[0]}-{ids[-1]}" if len(ids) == 2 or _sequential(ids) else ", ".join(ids)


def _sequential(ids: list[str]) -> bool:
    return all(a[0] == b[0] for a, b in zip(ids, ids[1:]))


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


def segment(episode: Episode) -> list[Segment]:
    """Split an episode into subtasks (rule 1 of the module doc)."""
    events = list(episode.events)
    by_id = {event.id: event for event in events if event.id}
    children: dict[str, list[str]] = defaultdict(list)
    for event in events:
        for cause in event.caused_by:
            children[cause].append(event.id or "")
        for effect in event.leads_to:
            children[event.id or ""].append(effect)
    claimed: set[str] = set()
    segments: list[Segment] = []
    for decision in episode.decisions:
        seg = Segment(decisions=[decision])
        direct = list(dict.fromkeys(list(decision.effects or ()) + list(children.get(decision.id, ()))))
        queue = [(ref, True) for ref in direct]
        while queue:
            ref, is_direct = queue.pop(0)
            event = by_id.get(ref)
            # the walk follows what the step caused (errors, tests, commits, tool calls), not the
            # next step of the session: a milestone is the decision's only when it names it
            if event is None or ref in claimed or (event.type == "milestone" and not is_direct):
                continue
            claimed.add(ref)
            seg.events.append(event)
            queue += [(child, False) for child in children.get(ref, ())]
        seg.events.sort(key=events.index)
        segments.append(seg)
    run = Segment()
    open_error = False
    milestones = 0
    for event in events:
        if event.id in claimed:
            continue
        if event.type == "milestone" and milestones >= MAX_RUN_MILESTONES and not open_error:
            segments.append(run)
            run, milestones = Segment(), 0
        run.events.append(event)
        if event.type == "error":
            open_error = True
        milestones += event.type == "milestone"
        closes = event.type == "commit" or (event.type == "test" and not open_error)
        if event.type == "test" or (event.type == "milestone" and _FIX.search(event.text)):
            open_error = False
        if closes and not open_error:
            segments.append(run)
            run, milestones = Segment(), 0
    if run.events:
        segments.append(run)
    return [seg for seg in segments if seg.decisions or any(e.type != "commit" for e in seg.events)]


def _failed(decision: Decision) -> bool:
    return (decision.outcome or "").strip().lower() in _FAILED_OUTCOME


def classify(seg: Segment, episode: Episode) -> str:
    """strategy | recovery | optimization (rule 3 of the module doc)."""
    if any(e.type == "error" for e in seg.events) or any(_failed(d) for d in seg.decisions):
        return "recovery"
    if any(d.type == "recovery" for d in seg.decisions) and episode.outcome != "success":
        return "recovery"
    texts = [generalize(e.text) for e in seg.events if e.type in ("milestone", "tool_call")]
    repeated = len(texts) != len(set(texts)) or any(
        len(words(a) & words(b)) >= 0.8 * max(len(words(a)), 1) for a, b in zip(texts, texts[1:]) if len(words(a)) >= 3
    )
    retried = any(_RETRY.search(e.text) for e in seg.events) or any(_RETRY.search(d.chosen or "") for d in seg.decisions)
    return "optimization" if repeated or retried else "strategy"


def attribute(seg: Segment, episode: Episode) -> Attribution | None:
    """Immediate, proximate and root cause of the segment's first failure (rule 4)."""
    error = next((e for e in seg.events if e.type == "error"), None)
    failed = next((d for d in seg.decisions if _failed(d)), None)
    if error is None and failed is None:
        return None
    nodes: dict[str, str] = {e.id: e.text for e in episode.events if e.id}
    nodes.update({d.id: d.chosen or d.title for d in episode.decisions})
    parents: dict[str, list[str]] = defaultdict(list)
    for event in episode.events:
        for cause in event.caused_by:
            parents[event.id or ""].append(cause)
        for effect in event.leads_to:
            parents[effect].append(event.id or "")
    for decision in episode.decisions:
        for effect in decision.effects or ():
            parents[effect].append(decision.id)
    start = error.id if error is not None else failed.id
    immediate = error.text if error is not None else f"{failed.chosen or failed.title} ended in {failed.outcome}"
    chain, seen = [], {start}
    node = next(iter(parents.get(start or "", ())), None)
    while node and node not in seen:  # up the caused_by chain to the first cause recorded
        chain.append(node)
        seen.add(node)
        node = next(iter(parents.get(node, ())), None)
    decision_ids = {d.id for d in episode.decisions}
    # proximate: the nearest decision that enabled the failure (else the event just before it)
    proximate_id = next((n for n in chain if n in decision_ids), chain[0] if chain else None)
    if proximate_id is None and error is not None and seg.decisions:
        proximate_id = seg.decisions[0].id
    root_id = chain[-1] if chain else None
    return Attribution(
        immediate=generalize(immediate),
        proximate=generalize(nodes[proximate_id]) if proximate_id in nodes else None,
        root=generalize(nodes[root_id]) if root_id in nodes and root_id != proximate_id else None,
    )


def task_category(episode: Episode) -> str:
    skip = {"episodic", "extracted", "episode"}
    for tag in episode.tags:
        if tag not in skip and not re.match(r"session-?\d+", tag):
            return tag
    kinds = [d.type for d in episode.decisions if d.type]
    return max(set(kinds), key=kinds.count) if kinds else "general"


def draft_tips(episode: Episode) -> list[Draft]:
    """Every tip the rules find in an episode, one per subtask."""
    drafts = []
    for seg in segment(episode):
        drafts.append(_draft(seg, episode))
    return drafts


def _lead(seg: Segment) -> str:
    if seg.decisions:
        d = seg.decisions[0]
        return d.context or d.title or d.chosen or ""
    first = next((e for e in seg.events if e.type == "milestone"), None) or seg.events[0]
    return first.text


def _draft(seg: Segment, episode: Episode) -> Draft:
    category = classify(seg, episode)
    cause = attribute(seg, episode) if category == "recovery" else None
    good = [d for d in seg.decisions if not _failed(d)]
    bad = [d for d in seg.decisions if _failed(d)]
    subtask = first_clause(seg.decisions[0].title if seg.decisions and seg.decisions[0].title else _lead(seg))
    if len(subtask.split()) < 3 and episode.task and not seg.decisions:  # a step called "Reproduce": say of what
        subtask = f"{subtask}: {first_clause(episode.task, 70)}"
    if seg.decisions and seg.decisions[0].context:
        trigger = generalize(seg.decisions[0].context, 140)
    elif cause is not None:  # a run of work that hit an error: the error is when this applies
        trigger = first_clause(cause.immediate, 140)
    else:  # a run of work in a session: it applies to the same kind of task
        trigger = generalize(episode.task or _lead(seg), 140)
    steps = [generalize(d.chosen or d.title, 140) for d in good]
    steps += [generalize(e.text, 140) for e in seg.events if e.type in ("milestone", "tool_call", "test", "handoff")]
    steps = _distinct(steps)[:6]
    task = generalize(episode.task or "", 160)
    avoid_parts: list[str] = []
    if category == "recovery":
        avoid_parts += [generalize(d.chosen or d.title) for d in bad]
        if cause:
            avoid_parts.append(f"what led to: {cause.immediate}")
    elif category == "optimization":
        avoid_parts += [generalize(e.text) for e in seg.events if _RETRY.search(e.text)][:2] or ["repeating the same step instead of changing approach"]
    else:
        for d in good:
            avoid_parts += [f"the rejected option: {generalize(o)}" for o in d.options or () if o != d.chosen][:2]
    lessons = [lesson for lesson in episode.lessons if words(lesson) & words(" ".join(steps + [subtask, trigger]))]
    purpose_parts = [generalize(d.rationale, 200) for d in seg.decisions if d.rationale]
    if cause:
        purpose_parts.append(
            f"Immediate cause: {cause.immediate}"
            + (f" Proximate cause: {cause.proximate}" if cause.proximate else "")
            + (f" Root cause: {cause.root}" if cause.root else "")
        )
    purpose_parts += [generalize(lesson, 200) for lesson in lessons[:2]]
    if not purpose_parts:
        purpose_parts.append(f"Worked in a {episode.outcome or 'recorded'} session: {task}")
    fixed = category == "recovery" and (good or any(e.type == "test" for e in seg.events) or episode.outcome == "success")
    if category == "recovery":
        evidence = "both" if fixed else "failure"
        failed_approach = generalize(bad[0].chosen or bad[0].title, 100) if bad else None
        fix = _fix_step(seg, good)
        if fix:
            tip = f"{subtask}: {fix}" + (f" (not: {failed_approach})" if failed_approach else "")
        else:
            tip = f"{subtask}: do not {_lower(failed_approach or 'repeat the failing step')}; it led to {_lower(cause.immediate if cause else trigger)}"
    elif category == "optimization":
        evidence = "success" if episode.outcome == "success" else "both"
        tip = f"{subtask}: go straight to {_lower(steps[-1]) if steps else 'the step that worked'} without repeating attempts"
    else:
        evidence = "success" if episode.outcome in ("success", None) else "both"
        doing = [step for step in steps if not _same(step, subtask)][:2]
        tip = f"{subtask}: {'; then '.join(doing)}" if doing else subtask
    priority = "high" if category == "recovery" else "medium" if steps else "low"
    return Draft(
        category=category,
        subtask=subtask,
        trigger=trigger,
        tip=generalize(tip, 240),
        steps=tuple(steps),
        avoid="; ".join(dict.fromkeys(avoid_parts)),
        purpose=" ".join(purpose_parts),
        applies_when=task,
        task_category=task_category(episode),
        priority=priority,
        evidence=evidence,
        episode=episode.title,
        span=seg.span(),
        attribution=cause,
    )


def _same(a: str, b: str) -> bool:
    """One text is the other, or starts like it (a cut-down title of the same step)."""
    a, b = " ".join(re.findall(r"\w+", a.lower())), " ".join(re.findall(r"\w+", b.lower()))
    short = min(len(a), len(b), 60)
    return a[:short] == b[:short]


def _distinct(texts: list[str]) -> list[str]:
    kept: list[str] = []
    for text in texts:
        if text and not any(_same(text, other) for other in kept):
            kept.append(text)
    return kept


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _fix_step(seg: Segment, good: list[Decision]) -> str | None:
    """What fixed the failure: a decision that did not fail, else the first step after the error."""
    if good:
        return generalize(good[0].chosen or good[0].title, 140)
    after_error = False
    for event in seg.events:
        if event.type == "error":
            after_error = True
        elif after_error and event.type in ("milestone", "tool_call", "test"):
            return generalize(event.text, 140)
    return None


def trajectory_episode(title: str, task: str, steps: list[dict], outcome: str | None, date: str | None) -> Episode:
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
        failed_last = bool(re.search(r"\b(error|exception|failed|failure|traceback|denied|not found|refused|timed? ?out)\b", result, re.IGNORECASE))
        event_id = f"e{len(events) + 1:03d}"
        decision_id = f"d{number:03d}"
        events.append(Event(text=action + (f" -> {result}" if result else ""), id=event_id, type="error" if failed_last else "milestone", caused_by=(decision_id,)))
        decisions.append(
            Decision(id=decision_id, title=first_clause(action, 72), context=thought or None, chosen=action, outcome="failure" if failed_last else "success", effects=(event_id,))
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
