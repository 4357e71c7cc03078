"""Each remedy as the MCP server words it for an agent: the tool or argument it can use, or, where
no tool served does the step, what to ask of the vault's owner. Never a CLI command: an agent has none.

The library names a remedy by its key (`brain.errors.Remedy`); this table is the one place the
server words it, used by the error translation in `mcp/common.py` (and by any tool result that names
a remedy). The CLI words the same keys in `brain/cli/remedies.py`. A server that serves the
maintenance group (`reindex`) words the index's steps as that tool: `wordings_for`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MAINTENANCE_GROUP = "maintenance"

MCP_WORDINGS: dict[str, str] = {
    # steps
    "reindex": "the vault's owner must reindex the vault (no tool served here does)",
    "index": "the vault's owner must index the vault (no tool served here does)",
    "list_skipped": "index_status's structured content lists them",
    "embed_pending": "they are embedded as the vault is indexed; search again shortly",
    "catch_up": "the server writes them when it is idle",
    "min_score": "min_score: 0 shows every hit",
    "supersede_fact": "supersede_fact",
    "invalidate_fact": "invalidate_fact",
    "supersede_subject": "call supersede_fact with fact '{subject}' and namespace '{namespace}', or record_fact with supersede: true",
    "release_hold": "only the vault owner can lift a hold",
    "list_runs": "recall_runs finds a tenant's runs by their query",
    "restore_note": "restore_note",
    "purge_note": "a person can purge it",
    "init_vault": "the vault's owner must create the vault first",
    "rebuild_index": "the vault's owner must delete {folder} and index the vault again (no tool does)",
    # arguments to give, or named where a value is refused
    "vault": "the vault's path in the server's configuration",
    "vault_path": "the vault's path",
    "overwrite": "overwrite: true",
    "since": "since",
    "until": "until",
    "caused_by": "caused_by",
    "section": "section",
    "find": "find",
    "count": "expected_count: {count}",
    "replace_all": "replace_all: true",
    "chroma_url": "chroma_url (in the vault's config)",
    "tenant": "tenant",
    "namespace": "namespaces",
    "subject_namespace": "namespace",
    "valid_from": "valid_from",
    "rerank": "rerank",
    "trigger_and_action": "trigger and action",
    "project": "project: {example}",
}

# The steps the maintenance group's reindex tool takes, where the server serves it.
MAINTENANCE_WORDINGS: dict[str, str] = {
    "reindex": "call reindex with full: true",
    "index": "call reindex",
}


def wordings_for(groups: Iterable[str]) -> Mapping[str, str]:
    """The wordings of a server serving these tool groups."""
    return {**MCP_WORDINGS, **MAINTENANCE_WORDINGS} if MAINTENANCE_GROUP in groups else MCP_WORDINGS
