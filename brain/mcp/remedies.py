"""Each remedy as the MCP server words it for an agent: the tool or argument it can use, or, where
no tool does the step, what to ask of the vault's owner. Never a CLI command: an agent has none.

The library names a remedy by its key (`brain.errors.Remedy`); this table is the one place the
server words it, used by the error translation in `mcp/common.py` (and by any tool result that names
a remedy). The CLI words the same keys in `brain/cli/remedies.py`.
"""

from __future__ import annotations

MCP_WORDINGS: dict[str, str] = {
    # steps
    "reindex": "the vault's owner must reindex the vault (no tool does)",
    "embed_pending": "they are embedded as the vault is indexed; search again shortly",
    "supersede_fact": "supersede_fact",
    "invalidate_fact": "invalidate_fact",
    "release_hold": "only the vault owner can lift a hold",
    "list_runs": "recall_runs finds a tenant's runs by their query",
    "restore_note": "restore_note",
    "purge_note": "a person can purge it",
    # arguments to give
    "tenant": "tenant",
    "namespace": "namespaces",
    "valid_from": "valid_from",
    "rerank": "rerank",
    "trigger_and_action": "trigger and action",
    "project": "project: {example}",
}
