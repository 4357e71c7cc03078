"""Each remedy as the CLI words it: the `brain` command to run, or the `--option` to give.

The library names a remedy by its key (`brain.errors.Remedy`); this table is the one place the CLI
words it, used by the error translation in `cli/group.py` (and by any line a command prints that
names a remedy). The MCP server words the same keys in `brain/mcp/remedies.py`.
"""

from __future__ import annotations

CLI_WORDINGS: dict[str, str] = {
    # steps
    "reindex": "run `brain reindex`",
    "index": "run `brain index`",
    "list_skipped": "`brain doctor` lists them",
    "embed_pending": "`brain index` (or `brain watch`) embeds them",
    "catch_up": "`brain index --vectors` (or an idle `brain watch`)",
    "min_score": "`--min-score 0` shows every hit",
    "supersede_fact": "`brain fact supersede`",
    "invalidate_fact": "`brain fact invalidate`",
    "supersede_subject": "run `brain fact supersede {subject} VALUE --namespace {namespace}`, or record it with --supersede",
    "release_hold": "`brain fact release` lifts a hold",
    "list_runs": "`brain run list --tenant T` lists them",
    "restore_note": "`brain note restore {path!r}`",
    "purge_note": "`brain note delete {path!r} --purge`",
    "init_vault": "`brain init {path}`",
    "rebuild_index": "delete {folder} (the index, rebuilt from the notes) and run `brain index`",
    # arguments to give, or named where a value is refused
    "vault": "--vault PATH",
    "vault_path": "--vault",
    "overwrite": "--overwrite",
    "since": "--since",
    "until": "--until",
    "caused_by": "--caused-by",
    "section": "--section",
    "find": "--find",
    "count": "--count {count}",
    "replace_all": "--all",
    "chroma_url": "--chroma-url",
    "tenant": "--tenant",
    "namespace": "--namespace",
    "subject_namespace": "--namespace",
    "valid_from": "--valid-from",
    "rerank": "--rerank",
    "trigger_and_action": "--trigger and --action",
    "project": "--project {example}",
}
