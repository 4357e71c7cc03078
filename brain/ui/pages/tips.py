"""Tips with their evidence (the episodes they were learned from) and feedback (helped, hurt)."""

from __future__ import annotations

from typing import Any

from brain.memory.tips.note import CATEGORIES
from brain.memory.tips.service import list_tips
from brain.memory.tips.view import tip_summary
from brain.ui.viewer import Args, Viewer, paged, text


def tips(viewer: Viewer, args: Args) -> dict[str, Any]:
    category = text(args, "category")
    found = list_tips(viewer.memory.corpus, category=category, include_merged=True)
    shown, page = paged(found, args)
    return {
        "categories": list(CATEGORIES),
        "category": category,
        "tips": [{**tip_summary(tip), "steps": list(tip.steps), "avoid": tip.avoid} for tip in shown],
        "page": page,
    }
