"""Which drafts become tips: the gate between what one session did and what is worth an agent's context.

- A failure followed by its recovery (a recovery draft whose evidence is `both`) is a tip at once.
- Anything else one session did (a strategy, an optimization, a failure it never recovered from) is
  a candidate: it becomes a tip only when another session did the same (its twin is a candidate of
  another episode, or a tip already). Candidates are kept in `.brain/tips/candidates.jsonl`, brain's
  own state (deleting it forgets them; no note refers to it).
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
from pathlib import Path

from brain.memory.tips.draft import Attribution, Draft
from brain.memory.tips.wording import FUNCTION_WORDS, words
from brain.notes.tip import SourceRef, Tip, combine_evidence

TWIN_OVERLAP = 0.6
CANDIDATES = "tips/candidates.jsonl"  # under .brain/


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


class Candidates:
    """The drafts one session gave that no other session has matched yet (see the module doc)."""

    def __init__(self, brain_dir: Path):
        self.path = brain_dir / CANDIDATES
        self.drafts: list[Draft] = []
        self.changed = False
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    found = json.loads(line)
                    attribution = found.pop("attribution", None)
                    found["steps"] = tuple(found.get("steps") or ())
                    self.drafts.append(Draft(**found, attribution=Attribution(**attribution) if attribution else None))
                except (ValueError, TypeError):
                    continue  # a torn or foreign line: that candidate is forgotten, nothing else
        self._content = [draft_content(draft) for draft in self.drafts]

    def twin(self, draft: Draft) -> Draft | None:
        """A candidate of another episode that says what the draft says."""
        mine = draft_content(draft)
        return next(
            (
                other
                for other, theirs in zip(self.drafts, self._content, strict=True)
                if other.episode.lower() != draft.episode.lower() and twins(mine, theirs)
            ),
            None,
        )

    def holds(self, draft: Draft) -> bool:
        return any((other.episode.lower(), other.span) == (draft.episode.lower(), draft.span) for other in self.drafts)

    def add(self, draft: Draft) -> None:
        self.changed = True
        self.drafts.append(draft)
        self._content.append(draft_content(draft))

    def drop(self, draft: Draft) -> None:
        self.changed = True
        keep = [i for i, other in enumerate(self.drafts) if other is not draft]
        self.drafts = [self.drafts[i] for i in keep]
        self._content = [self._content[i] for i in keep]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(asdict(draft), ensure_ascii=False) + "\n" for draft in self.drafts)
        self.path.write_text(text, encoding="utf-8")
