"""Which drafts become tips: the gate between what one session did and what is worth an agent's context.

- A failure followed by its recovery (a recovery draft whose evidence is `both`) is a tip at once.
- Anything else one session did (a strategy, an optimization, a failure it never recovered from) is
  a candidate: it becomes a tip only when another session did the same (its twin is a candidate of
  another episode, or a tip already). Candidates are kept in `.brain/tips/candidates.jsonl`, brain's
  own state (deleting it forgets them; no note refers to it), each with the day of its session:
  one held more than WAIT_DAYS before the session being learned from, or past the newest
  MOST_WAITING, is dropped, oldest first.
- A draft whose twin is a tip already adds its source to that tip (support + 1, evidence combined)
  instead of becoming a second tip: near-duplicates never become `-2`, `-3` copies.

Two drafts are twins when they are of one category and say the same when the same happens: the words
of content (names generalized, function words out) of their triggers overlap by at least TWIN_OVERLAP
(Jaccard), and so do those of trigger, subtask and advice together. The trigger is the failure's
signature for a recovery (the failing program or tool and the error's line): `pytest` failing with an
ImportError and with an AssertionError are two tips, though their advice reads alike. The title plays
no part: "Edit fails with X" learned twice is one tip.
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from datetime import date, timedelta
from pathlib import Path
from typing import NamedTuple

from brain.memory.tips.draft import Attribution, Draft
from brain.memory.tips.note import SourceRef, Tip, combine_evidence
from brain.memory.tips.wording import FUNCTION_WORDS, words
from brain.vault.atomic import PRIVATE, replace_file

TWIN_OVERLAP = 0.6
CANDIDATES = "tips/candidates.jsonl"  # under .brain/
# A candidate waits this long for its second session, from its session's day to the learned one's:
# a quarter, twice the six weeks of entireio/cli's history (whose 53 candidates all still wait at
# its end, see docs/benchmarks.md). What no session repeats in a quarter is no habit of the project.
WAIT_DAYS = 90
# And at most this many wait, the newest: nearly twenty times what those six weeks left, so a project
# does not reach it within WAIT_DAYS, while a vault fed a backlog of thousands of sessions at once
# keeps its file, and the comparison of each draft with every candidate, small.
MOST_WAITING = 1000


Content = tuple[str, frozenset[str], frozenset[str]]  # category, trigger's words, every word


def _words(*texts: str) -> frozenset[str]:
    return frozenset(word for text in texts for word in words(text) if word not in FUNCTION_WORDS and len(word) > 2)


def content(category: str, trigger: str, subtask: str, tip: str) -> Content:
    """What a tip says, as it is compared (see the module doc)."""
    return category, _words(trigger), _words(trigger, subtask, tip)


def draft_content(draft: Draft) -> Content:
    return content(draft.category, draft.trigger, draft.subtask, draft.tip)


def tip_content(tip: Tip) -> Content:
    return content(tip.category, tip.trigger, tip.subtask, tip.tip)


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    return len(a & b) >= TWIN_OVERLAP * len(a | b)


def twins(a: Content, b: Content) -> bool:
    return a[0] == b[0] and _overlap(a[1], b[1]) and _overlap(a[2], b[2])


def recovered(draft: Draft) -> bool:
    """A failure followed by its recovery: a tip from one session."""
    return draft.category == "recovery" and draft.evidence == "both"


def with_source(tip: Tip, draft: Draft) -> Tip:
    """The tip with one more source: the draft's episode and span."""
    source = SourceRef(draft.episode, draft.span)
    if source in tip.source_episodes:
        return tip
    return replace(
        tip,
        support=tip.support + 1,
        evidence=combine_evidence([tip.evidence, draft.evidence]),
        source_episodes=(*tip.source_episodes, source),
    )


class Waiting(NamedTuple):
    """A candidate: its draft, the day of the session that gave it, and what it says."""

    draft: Draft
    held: str  # YYYY-MM-DD
    said: Content


class Candidates:
    """The drafts one session gave that no other session has matched yet (see the module doc), as
    of `day` (YYYY-MM-DD, the day of the session being learned from): a candidate held more than
    WAIT_DAYS before it, or past the newest MOST_WAITING, is dropped, oldest first."""

    def __init__(self, brain_dir: Path, day: str):
        self.path = brain_dir / CANDIDATES
        self.day = day
        self.waiting: list[Waiting] = []
        self.changed = False
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    found = json.loads(line)
                    held = date.fromisoformat(str(found.pop("held", None) or day)[:10]).isoformat()
                    attribution = found.pop("attribution", None)
                    found["steps"] = tuple(found.get("steps") or ())
                    draft = Draft(**found, attribution=Attribution(**attribution) if attribution else None)
                except (ValueError, TypeError, AttributeError):
                    self.changed = True  # a torn or foreign line: that candidate is forgotten, nothing else
                    continue
                self.waiting.append(Waiting(draft, held, draft_content(draft)))
        self._expire()

    def _expire(self) -> None:
        since = (date.fromisoformat(self.day) - timedelta(days=WAIT_DAYS)).isoformat()
        kept = sorted((waiting for waiting in self.waiting if waiting.held >= since), key=lambda waiting: waiting.held)
        kept = kept[-MOST_WAITING:]
        self.changed = self.changed or len(kept) < len(self.waiting)
        self.waiting = kept

    def twin(self, draft: Draft) -> Draft | None:
        """A candidate of another episode that says what the draft says."""
        mine = draft_content(draft)
        return next(
            (
                waiting.draft
                for waiting in self.waiting
                if waiting.draft.episode.lower() != draft.episode.lower() and twins(mine, waiting.said)
            ),
            None,
        )

    def holds(self, draft: Draft) -> bool:
        return any(
            (waiting.draft.episode.lower(), waiting.draft.span) == (draft.episode.lower(), draft.span)
            for waiting in self.waiting
        )

    def add(self, draft: Draft) -> None:
        self.changed = True
        self.waiting.append(Waiting(draft, self.day, draft_content(draft)))
        self._expire()

    def drop(self, draft: Draft) -> None:
        self.changed = True
        self.waiting = [waiting for waiting in self.waiting if waiting.draft is not draft]

    def save(self) -> None:
        """Write the candidates whole, readable by their owner only (they hold what sessions did): a
        temp file renamed over the file (call it under the vault's write lock, which the read before
        it held too)."""
        text = "".join(
            json.dumps(asdict(waiting.draft) | {"held": waiting.held}, ensure_ascii=False) + "\n"
            for waiting in self.waiting
        )
        replace_file(self.path, text, mode=PRIVATE)
