"""Consolidation compares what tips advise, not only their words: "Choose
raise over warn" and "Choose warn over raise" are kept apart and reported as a conflict, while
a rewrite of the same advice still merges."""

from __future__ import annotations

from brain.index.embedders.embedders import LexicalFallbackEmbedder
from brain.memory.corpus import Corpus
from brain.memory.tips.advice import opposite
from brain.memory.tips.consolidate import consolidate
from brain.memory.tips.note import Tip, render_tip, tip_from_note

TRIGGER = "a config value is invalid at load time"
SUBTASK = "Handle an invalid config value"


def tip(title: str, step: str, support: int = 1) -> Tip:
    return Tip(
        title=title,
        category="strategy",
        tip=f"{SUBTASK}: {step}",
        trigger=TRIGGER,
        subtask=SUBTASK,
        support=support,
        steps=(step, "Name the key and the allowed values in the message"),
    )


def test_opposite_advice_is_recognised():
    assert opposite(tip("a", "Choose raise over warn"), tip("b", "Choose warn over raise"))
    assert not opposite(tip("a", "Choose raise over warn"), tip("c", "Prefer raise rather than warn, always"))
    assert not opposite(tip("a", "Choose raise over warn"), tip("d", "Log the value"))


def test_consolidation_keeps_opposite_tips_apart(vault, brain):
    for made in (
        tip("TIP-raise", "Choose raise over warn", support=3),
        tip("TIP-warn", "Choose warn over raise", support=2),
        tip("TIP-raise-again", "Prefer raise rather than warn"),
    ):
        (vault.root / "tips" / f"{made.title}.md").write_text(render_tip(made), encoding="utf-8")
    plan = consolidate(Corpus(vault), embedder=LexicalFallbackEmbedder(), today="2026-11-25")
    assert plan.conflicts == (("TIP-raise", "TIP-warn"), ("TIP-raise-again", "TIP-warn"))
    assert [(m.representative, m.members, m.support) for m in plan.merges] == [("TIP-raise", ("TIP-raise-again",), 4)]
    corpus = Corpus(vault)
    assert tip_from_note(corpus.get("TIP-warn")).merged_into is None
    assert tip_from_note(corpus.get("TIP-raise-merged")).support == 4
