"""Search hits as lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from brain.errors import Remedy

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.search.service import SearchHit, SearchReport

QUERY_CHARS = 80


def hit_lines(number: int, hit: SearchHit) -> list[str]:
    """`n. title [type] path score`, the matching section, then the snippet (score: the hit's relevance, 0..1)."""
    lines = [f"{number:2}. {hit.title}  [{hit.type}]  {hit.path}  score {hit.score:.2f}"]
    if hit.section:
        lines.append(f"    § {hit.section}")
    lines.append(f"    {hit.snippet}")
    return lines


def search_lines(report: SearchReport, query: str, wordings: Mapping[str, str]) -> list[str]:
    """The hits; or that no note matches, with the closest titles under the floor, marked as such
    (`wordings`: the front end's, for how to see them)."""
    if report.hits:
        return [line for number, hit in enumerate(report.hits, start=1) for line in hit_lines(number, hit)]
    shown = query if len(query) <= QUERY_CHARS else query[: QUERY_CHARS - 3] + "..."
    if not report.closest:
        return [f"no note matches '{shown}'"]
    closest = ", ".join(f"{hit.title} ({hit.score:.2f})" for hit in report.closest)
    return [
        f"no note matches '{shown}'; closest titles: {closest}",
        f"(all under the floor, {report.min_score:.2f}; {Remedy('min_score').worded(wordings)})",
    ]


def pending_line(pending: int, wordings: Mapping[str, str]) -> str:
    """Said beside the hits when notes wait for vectors (a first index under way, notes changed: search
    embeds only a bounded number itself) and are found by their words meanwhile; `wordings` is the
    front end's for remedies (cli/remedies.py, mcp/remedies.py)."""
    return (
        f"{pending} notes are not in vector search yet (found by their words only); "
        f"{Remedy('embed_pending').worded(wordings)}"
    )
