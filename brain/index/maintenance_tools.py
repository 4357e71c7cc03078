"""Maintenance tools, served only when asked for (`--tools all` or `--tools maintenance`): they
rebuild what the vault's owner otherwise rebuilds, and take the index for as long as that lasts."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from brain.index.sync.sync import index_vault, reindex_vault
from brain.index.view import conflict_lines, index_report_json, index_report_line
from brain.mcp.common import ServerState, result, tool
from brain.mcp.remedies import MAINTENANCE_GROUP

GROUP = MAINTENANCE_GROUP


@tool(title="Index the vault", read_only=False, destructive=False, idempotent=True)
def reindex(
    state: ServerState,
    full: Annotated[
        bool,
        Field(
            description="Rebuild the index from the notes alone, every note parsed and embedded again: after the "
            "embedder changed, or when an error says the index must be rebuilt. Default: only what changed."
        ),
    ] = False,
) -> CallToolResult:
    """Bring the search index up to date with the notes: parse what changed on disk and embed what
    waits for vectors (what `full` rebuilds from scratch). Notes are never changed, only the index.

    Use it when index_status says the index is not fresh, or an error says the vault must be indexed.
    Other calls wait while it runs: seconds for a few changed notes, minutes for a full rebuild of a
    large vault. Returns what was added, changed, moved, removed and embedded.
    """
    index = state.corpus.open_index()
    report = (reindex_vault if full else index_vault)(index)
    warnings = [f"warning: {line}" for line in conflict_lines(report, state.wordings)]
    return result("\n".join([index_report_line(report), *warnings]), {"full": full, **index_report_json(report)})
