"""Tips from an episode by rules, no language model: segment, generalize, classify, attribute.

1. Segment. Each decision anchors a subtask: the decision and the events it caused (its Effects,
   and what those caused in turn, except a later milestone, which is the next step). Events no decision claims
   are cut into runs of work: a run ends after a commit or a passing test, or after three
   milestones; an error keeps the run open until a passing test or a fix.
2. Generalize. Entity names are stripped from descriptions: emails, URLs, paths, commit SHAs,
   issue/PR numbers, ids and quoted code become placeholders. Numbers stay: in advice the number is
   usually the point (attempt 1, a 500-line limit, 30 to 90 minutes); a run's own counts ("(3
   failed, 2 passed)") are dropped.
3. Classify. recovery: the segment holds an error or a decision that failed (the tip names the
   failed approach as what to avoid); optimization: it succeeded with waste (a step repeated,
   retries, or a rejected first attempt); strategy: a clean success.
4. Attribute. For a failure: immediate cause (the error or failed outcome itself), proximate
   cause (the nearest decision up its `caused_by` / `leads_to` / Effects chain, else the event
   just before it), root cause (the first cause recorded at the top of that chain).
5. Word. A tip says what to do and why: a decision's chosen option as an instruction (a log's
   "Chose X over Y" becomes "Choose X over Y"; an option that is a noun becomes "Choose X over
   the rejected options"), then its rationale (else a lesson of the episode that shares at least
   two content words with it). A subtask that teaches nothing is dropped: a run of logged steps
   with no decision, error or waste makes a tip only when it was verified (a test, a check that
   passed) or a lesson speaks of it, a run of plain tool calls (files edited, tests run, a commit,
   an error) never does (the errors it recovered from are `recovery`'s tips), nor a user's verdict
   on a plan, and a step that only restates its subtask is no tip. A failure the session
   recovered from is told by its recovery tip (`recovery`), not by its run.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field

from brain.markdown.model import Decision, Episode, Event
from brain.memory.tips.draft import Attribution, Draft, distinct_causes
from brain.memory.tips.naming import command_name, command_step, contentless, named_words, narrated, subject, whole
from brain.memory.tips.recovery import recovery_drafts
from brain.memory.tips.spoken import said
from brain.memory.tips.wording import first_clause, generalize, imperative, is_instruction, strip_label, words
from brain.memory.tips.wording import lower_first as _lower
from brain.memory.tips.wording import same as _same

MAX_RUN_MILESTONES = 3
_RETRY = re.compile(
    r"\b(retr(?:y|ied|ies)|again|re-?ran|re-?run|second attempt|another attempt|redo|redid|repeated)\b", re.IGNORECASE
)
_FIX = re.compile(
    r"\b(fix(?:ed|es)?|repair(?:ed)?|recover(?:ed)?|resolv(?:ed|es)|corrected|revert(?:ed)?|passed|green)\b",
    re.IGNORECASE,
)
_FAILED_OUTCOME = ("failure", "failed", "fail")
_CONTRAST = re.compile(r"\b(over|rather than|instead of|not)\b", re.IGNORECASE)
_VERIFIED = re.compile(r"\b(test(?:s|ed)?|verif(?:y|ied)|passe[sd]|green)\b", re.IGNORECASE)
# the event types of a transcript's plain tool calls, and of the person stopping one
_TOOL_EVENTS = {"edit", "test", "commit", "recovery", "error", "correction"}
_PLAN_VERDICT = re.compile(r"^Plan (?:approved|rejected) by the user$")
_GENERIC_TITLES = {"decision", "choice", "chosen", "step", "phase", "n", "next", "todo"}


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
        return (
            ids[0] if len(ids) == 1 else f"{ids[0]}-{ids[-1]}" if len(ids) == 2 or _sequential(ids) else ", ".join(ids)
        )


def _sequential(ids: list[str]) -> bool:
    return all(a[0] == b[0] for a, b in itertools.pairwise(ids))


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
            linked = by_id.get(ref)
            # the walk follows what the step caused (errors, tests, commits, tool calls), not the
            # next step of the session: a milestone is the decision's only when it names it
            if linked is None or ref in claimed or (linked.type == "milestone" and not is_direct):
                continue
            claimed.add(ref)
            seg.events.append(linked)
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
        len(words(a) & words(b)) >= 0.8 * max(len(words(a)), 1)
        for a, b in itertools.pairwise(texts)
        if len(words(a)) >= 3
    )
    retried = any(_RETRY.search(e.text) for e in seg.events) or any(
        _RETRY.search(d.chosen or "") for d in seg.decisions
    )
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
    if error is not None:
        start, immediate = error.id, error.text
    else:
        assert failed is not None  # one of the two is set, checked above
        start, immediate = failed.id, f"{failed.chosen or failed.title} ended in {failed.outcome}"
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
    return distinct_causes(
        generalize(immediate),
        generalize(nodes[proximate_id]) if proximate_id in nodes else None,
        generalize(nodes[root_id]) if root_id in nodes and root_id != proximate_id else None,
    )


def task_category(episode: Episode) -> str:
    skip = {"episodic", "extracted", "episode"}
    for tag in episode.tags:
        if tag not in skip and not re.match(r"session-?\d+", tag):
            return tag
    kinds = [d.type for d in episode.decisions if d.type]
    return max(set(kinds), key=kinds.count) if kinds else "general"


def draft_tips(episode: Episode) -> list[Draft]:
    """Every tip the rules find in an episode: one per failure the session recovered from, as its
    extraction recorded it (`recovery`), then one per other subtask that teaches something (rule 5)."""
    drafts = [spoken for draft in recovery_drafts(episode) if (spoken := said(draft)) is not None]
    told = {span.split("-", 1)[0] for span in (draft.span or "" for draft in drafts)}
    segments = segment(episode)
    for seg, lessons in zip(segments, owned_lessons(segments, episode), strict=True):
        if not seg.decisions and any(event.id in told for event in seg.events):
            continue  # its failure is told by its recovery tip
        draft = _draft(seg, episode, lessons)
        if _teaches(draft, seg, lessons) and (spoken := said(draft)) is not None:
            drafts.append(spoken)
    return drafts


def owned_lessons(segments: list[Segment], episode: Episode) -> list[list[str]]:
    """Each segment's lessons: a lesson belongs to the one segment it shares the most content words
    with (at least two); a lesson two segments share as much is left out of both."""
    texts = [
        _content_words(
            " ".join(
                [
                    *(f"{d.title} {d.chosen} {d.context} {d.rationale}" for d in seg.decisions),
                    *(e.text for e in seg.events),
                ]
            )
        )
        for seg in segments
    ]
    owned: list[list[str]] = [[] for _ in segments]
    for lesson in episode.lessons:
        shared = [len(text & _content_words(lesson)) for text in texts]
        best = max(shared, default=0)
        if best >= 2 and shared.count(best) == 1:
            owned[shared.index(best)].append(lesson)
    return owned


def _teaches(draft: Draft, seg: Segment, lessons: list[str]) -> bool:
    """Rule 5: a subtask makes a tip only when it says something to do. A decision does (what was
    chosen), and so does a recovery or an optimization; a run of logged steps with no decision,
    error or waste is a diary entry unless it was verified (a test, a check that passed) or a
    lesson of the episode speaks of it."""
    if not any(not _same(step, draft.subtask) for step in draft.steps) and not seg.decisions:
        return False
    if not seg.decisions and all(e.type in _TOOL_EVENTS for e in seg.events):
        return False  # files edited, tests run, a commit: what every session does (its recoveries are `recovery`'s)
    if seg.decisions and all(_PLAN_VERDICT.match(d.title or "") for d in seg.decisions):
        return False  # the user approved or rejected a plan: a verdict on that plan, no advice
    if seg.decisions or draft.category != "strategy":
        return True
    verified = any(e.type == "test" or _VERIFIED.search(e.text) for e in seg.events)
    return verified or bool(lessons)


def _lead(seg: Segment) -> str:
    if seg.decisions:
        d = seg.decisions[0]
        return d.context or d.title or d.chosen or ""
    first = next((e for e in seg.events if e.type == "milestone"), None) or seg.events[0]
    return first.text


def _content_words(text: str) -> set[str]:
    return {word for word in words(text) if len(word) >= 4}


def _related_lessons(lessons: list[str], text: str) -> list[str]:
    """The lessons that share at least two content words with a text."""
    mine = _content_words(text)
    return [lesson for lesson in lessons if len(_content_words(lesson) & mine) >= 2]


def _subtask(seg: Segment, episode: Episode) -> str:
    """A short, general name for the subtask: a decision's title (said as an action when the log's
    title is a sentence), else the first step of the run, with the task when that alone says little."""
    if seg.decisions:
        d = seg.decisions[0]
        title = strip_label(d.title or "")
        if not title or set(words(title)) <= _GENERIC_TITLES:  # "Decision", "Step 3": name it by what was chosen
            title = d.chosen or d.context or d.title or ""
        title = whole(title, d.context or d.chosen or "")
        head = first_clause(title, 120)
        label = re.match(r"([^:]{1,40}):\s+(?=\S)", title)
        if label and head == label.group(1) and contentless(head):  # "Fix: compare ...": the label and what it says
            head = f"{head}: {first_clause(title[label.end() :], 120)}"
        told = d.chosen or ""
        if narrated(head) and is_instruction(told) and not _same(told, head):  # "Round 10 found ...": what was done
            head = first_clause(whole(told, d.context or ""), 120)
        second = head.split()[1:2]
        if second and (
            second[0][:1].islower() or second[0].startswith("<")
        ):  # a log's sentence ("Chose raise over ...", "Wrote <doc>"), not a name ("Jittered Expiry")
            head = imperative(head)
        before_comma = head.split(", ", 1)[0]
        name = generalize(before_comma if len(before_comma.split()) >= 4 else head, 90)
        command = command_step(name)
        if command and episode.task:  # "Run uv run ruff check": named by what it runs and the subject
            return command_name(command, episode.task)
        return _with_subject(name, episode) if "<" in name or contentless(name) else name  # "Jittered Expiry" is one
    labelled = command_step(_lead(seg))
    if labelled and episode.task:  # "Reproduce: Ran LSP_DOWN=true uv run pytest ...": named by its subject
        return command_name(labelled, episode.task)
    lead = strip_label(_lead(seg))
    sentence = re.split(r"(?<=[.!?;])\s|\s[-–]\s|\(", lead, maxsplit=1)[0].rstrip(".;:, ")
    subtask = generalize(imperative(sentence) if len(sentence.split()) >= 3 else first_clause(_lead(seg)), 90)
    return _with_subject(subtask, episode)


def _with_subject(subtask: str, episode: Episode) -> str:
    """A name that says little once its entities are placeholders ("Reproduce", "Write <doc>") or at
    all ("Round 10", "Fix") gets the subject of the session after it, so the title names what it is about."""
    if (named_words(subtask) >= 3 and not contentless(subtask)) or not episode.task:
        return subtask
    return f"{subtask}: {_lower(subject(episode.task).rstrip('.'))}"


def decision_action(d: Decision) -> str:
    """What to do, from a decision: the option chosen, said as an instruction, and what it was chosen over."""
    chosen = generalize(d.chosen or d.title, 200)
    contrasted = bool(_CONTRAST.search(chosen))
    rejected = [generalize(o, 80) for o in rejected_options(d)]
    verb = is_instruction(chosen)
    if verb:
        action = imperative(chosen)
    elif rejected:
        action = f"Choose {_lower(chosen)}"
    else:
        action = chosen
    if rejected and not contrasted:
        action += (" rather than " if verb else " over ") + " or ".join(_lower(option) for option in rejected[:2])
    return action.rstrip(". ")


def rejected_options(d: Decision) -> list[str]:
    """The options a decision did not take (a log's options are often both parts of its chosen sentence: none)."""
    chosen = (d.chosen or "").lower()
    return [o for o in d.options or () if not _same(o, d.chosen or "") and o.lower() not in chosen]


def _why(seg: Segment, said: str) -> str:
    """' Why: <the rationale>', unless the advice already says it (a log's "X because Y" gives Y twice)."""
    reasons = [generalize(d.rationale, 200) for d in seg.decisions if d.rationale and not _failed(d)]
    reasons = [reason for reason in reasons if not _says(said, reason)]
    if not reasons:
        return ""
    reason = re.sub(r"^(?:because|since)\s+", "", reasons[0], flags=re.IGNORECASE)  # "Why: because X" -> "Why: X"
    return f" Why: {_sentence(reason[:1].upper() + reason[1:])}"


def _says(text: str, reason: str) -> bool:
    """Whether a text already holds a reason: its first words, in order (the text may be cut short),
    or all its content words."""
    flat = " ".join(re.findall(r"\w+", text.lower()))
    bare = re.findall(r"\w+", re.sub(r"^\s*(?:because|since|as)\b", "", reason.lower()))
    return bool(bare) and (" ".join(bare[:6]) in flat or _content_words(reason) <= _content_words(text))


def _sentence(text: str) -> str:
    """One sentence with one full stop (a cut text's '...' included)."""
    return text.rstrip(". ") + "."


def _draft(seg: Segment, episode: Episode, lessons: list[str] | None = None) -> Draft:
    """One segment's tip; `lessons` are the segment's own (`owned_lessons`), else the episode's."""
    category = classify(seg, episode)
    cause = attribute(seg, episode) if category == "recovery" else None
    good = [d for d in seg.decisions if not _failed(d)]
    bad = [d for d in seg.decisions if _failed(d)]
    subtask = _subtask(seg, episode)
    if seg.decisions and seg.decisions[0].context:
        trigger = generalize(seg.decisions[0].context, 140)
    elif cause is not None:  # a run of work that hit an error: the error is when this applies
        trigger = first_clause(cause.immediate, 140)
    else:  # a run of work in a session: it applies to the same kind of task
        trigger = subject(episode.task, 140) if episode.task else generalize(_lead(seg), 140)
    steps = [decision_action(d) for d in good]
    steps += [
        generalize(imperative(e.text), 140)
        for e in seg.events
        if e.type in ("milestone", "tool_call", "test", "handoff")
    ]
    steps = _distinct(steps)[:6]
    task = subject(episode.task, 160) if episode.task else ""  # the task's first clause, not the whole prompt
    avoid_parts: list[str] = []
    if category == "recovery":
        avoid_parts += [generalize(d.chosen or d.title) for d in bad]
        if cause and cause.proximate and not _same(cause.proximate, cause.immediate):
            # the failed approach named once, with what followed it
            avoid_parts = [part for part in avoid_parts if not _same(part, cause.proximate)]
            avoid_parts.append(_sentence(cause.proximate) + " Last time: " + _sentence(cause.immediate))
    elif category == "optimization":
        avoid_parts += [generalize(e.text) for e in seg.events if _RETRY.search(e.text)][:2] or [
            "repeating the same step instead of changing approach"
        ]
    else:
        for d in good:
            avoid_parts += [f"the rejected option: {generalize(o)}" for o in rejected_options(d)][:2]
    lessons = _related_lessons(
        list(episode.lessons if lessons is None else lessons), " ".join([*steps, subtask, trigger])
    )
    purpose_parts = [generalize(d.rationale, 200) for d in seg.decisions if d.rationale]
    if cause:
        purpose_parts.append(
            _sentence(f"Immediate cause: {cause.immediate}")
            + (" " + _sentence(f"Proximate cause: {cause.proximate}") if cause.proximate else "")
            + (" " + _sentence(f"Root cause: {cause.root}") if cause.root else "")
        )
    purpose_parts += [generalize(lesson, 200) for lesson in lessons[:2]]
    purpose_parts = [_sentence(part[:1].upper() + part[1:]) for part in purpose_parts]
    if not purpose_parts:
        purpose_parts.append(f"Worked in a {episode.outcome or 'recorded'} session: {task}")
    lesson = " Lesson: " + _sentence(generalize(lessons[0], 160)) if lessons else ""
    fixed = category == "recovery" and (
        good or any(e.type == "test" for e in seg.events) or episode.outcome == "success"
    )
    if category == "recovery":
        evidence = "both" if fixed else "failure"
        failed_approach = generalize(bad[0].chosen or bad[0].title, 100) if bad else None
        fix = decision_action(good[0]) if good else _fix_step(seg)
        if fix:
            said = _sentence(fix + (f", not {_lower(failed_approach)}" if failed_approach else ""))
            tip = said + (_why(seg, said) or lesson)
        else:
            led_to = cause.immediate if cause else trigger
            tip = (
                _sentence(f"Do not {_lower(failed_approach or 'repeat the failing step')}")
                + " Last time: "
                + _sentence(led_to)
                + lesson
            )
    elif category == "optimization":
        evidence = "success" if episode.outcome == "success" else "both"
        doing = decision_action(seg.decisions[0]) if seg.decisions else subtask
        last = steps[-1] if steps and not _same(steps[-1], doing) else None
        said = _sentence(f"{doing}: go straight to {_lower(last)}" if last else doing)
        tip = said + " Do it once instead of repeating attempts." + (_why(seg, said) or lesson)
    else:
        evidence = "success" if episode.outcome in ("success", None) else "both"
        if seg.decisions:
            said = _sentence(decision_action(seg.decisions[0]))
            tip = said + (_why(seg, said) or lesson)
        else:
            taken = [step.rstrip(". ") for step in steps if not _same(step, subtask)][:3]
            tip = _sentence(f"{subtask}: {'; then '.join(_lower(step) for step in taken)}") + lesson
    priority = "high" if category == "recovery" else "medium" if steps else "low"
    return Draft(
        category=category,
        subtask=subtask,
        trigger=trigger,
        tip=generalize(tip, 320),
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


def _distinct(texts: list[str]) -> list[str]:
    kept: list[str] = []
    for text in texts:
        if text and not any(_same(text, other) for other in kept):
            kept.append(text)
    return kept


def _fix_step(seg: Segment) -> str | None:
    """What fixed the failure when no decision says it: the first step after the error."""
    after_error = False
    for event in seg.events:
        if event.type == "error":
            after_error = True
        elif after_error and event.type in ("milestone", "tool_call", "test"):
            return generalize(imperative(event.text), 140)
    return None
