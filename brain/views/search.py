"""Search hits as lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from brain.errors import Remedy

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.index.search import SearchHit


def hit_lines(number: int, hit: SearchHit) -> list[str]:
    """`n. title [type] path score`, the matching section, then the snippet (score: relative to the best hit, 1.00)."""
    lines = [f"{number:2}. {hit.title}  [{hit.type}]  {hit.path}  score {hit.score:.2f}"]
    if hit.section:
        lines.append(f"    § {hit.section}")
    lines.append(f"    {hit.snippet}")
    return lines


def search_lines(hits: list[SearchHit]) -> list[str]:
    if not hits:
        return ["no notes match"]
    return [line for number, hit in enumerate(hits, start=1) for line in hit_lines(number, hit)]


def pending_line(pending: int, wordings: Mapping[str, str]) -> str:
    """Said beside the hits when changed notes wait for vectors (search embeds only a bounded number);
    `wordings` is the front end's for remedies (cli/remedies.py, mcp/remedies.py)."""
    return f"{pending} changed notes are not in vector search yet; {Remedy('embed_pending').worded(wordings)}"
