"""The index's state for an agent: how many notes, how fresh, what waits to be indexed."""

from __future__ import annotations

from mcp.types import CallToolResult

from brain.index.status import index_status as status_of
from brain.index.view import status_json, status_lines
from brain.mcp.common import ServerState, result, tool

GROUP = "core"


@tool(title="The search index's state", read_only=True)
def index_status(state: ServerState) -> CallToolResult:
    """How the vault's search index stands: note files, notes indexed by type, whether it is up to
    date (files changed since the last index, notes waiting for their vectors, vectors missing or
    extra), when it was last updated, whether a watcher keeps it current, and the embedder in use.

    Use it when search misses notes you know exist, says notes wait for vectors, or an error says the
    vault must be (re)indexed. Structured content holds every figure, `fresh` (true when nothing
    waits) and the files left out of the index with why.
    """
    found = status_of(state.vault, state.corpus.existing_index())
    return result("\n".join(status_lines(found, state.wordings)), status_json(found))
