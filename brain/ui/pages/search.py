"""Search: the CLI's hybrid search (`brain search`), its hits with their sections and snippets."""

from __future__ import annotations

from typing import Any

from brain.memory.search.service import MODES, SearchFilters, search_report
from brain.plain import plain
from brain.ui.viewer import Args, Viewer, number, text

LIMIT = 20


def search(viewer: Viewer, args: Args) -> dict[str, Any]:
    query, mode, kind = text(args, "q"), text(args, "mode") or "hybrid", text(args, "type")
    limit = number(args, "limit", LIMIT, 1, 100)
    asked = {"q": query, "mode": mode, "type": kind, "modes": list(MODES), "limit": limit}
    if query is None:
        return {**asked, "hits": [], "closest": [], "pending": 0, "min_score": None}
    index = viewer.memory.index
    filters = SearchFilters(types=(kind,) if kind else ())
    report = search_report(index, query, mode=mode, limit=limit, filters=filters, rerank=index.config.rerank)
    return {
        **asked,
        "hits": plain(report.hits),
        "closest": plain(report.closest),
        "pending": report.pending,
        "min_score": report.min_score,
    }


def warm(viewer: Viewer) -> None:
    """One search run (when the vault has an index): its embedder loaded, its vectors read, so the
    first search a person asks for costs what the next one does."""
    index = viewer.memory.existing_index()
    if index is not None:
        search_report(index, "warm", limit=1, rerank=index.config.rerank)
