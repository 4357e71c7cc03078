"""Search hits as lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.index.search import SearchHit


def hit_lines(number: int, hit: SearchHit) -> list[str]:
    """`n. title [type] path score`, the matching section, then the snippet."""
    lines = [f"{number:2}. {hit.title}  [{hit.type}]  {hit.path}  score {hit.score:.4g}"]
    if hit.section:
        lines.append(f"    § {hit.section}")
    lines.append(f"    {hit.snippet}")
    return lines


def search_lines(hits: list[SearchHit]) -> list[str]:
    if not hits:
        return ["no notes match"]
    return [line for number, hit in enumerate(hits, start=1) for line in hit_lines(number, hit)]


def pending_line(pending: int) -> str:
    """Said beside the hits when changed notes wait for vectors (search embeds only a bounded number)."""
    return f"{pending} changed notes are not in vector search yet; `brain index` (or `brain watch`) embeds them"
