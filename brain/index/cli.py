"""`brain index`, `reindex`, `status`, `watch` and `search`: thin over brain.index."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import (
    AllProjectsOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    emit_json,
    open_vault,
    progress_bars,
    project_scope,
)
from brain.errors import UsageError
from brain.memory.search.service import MAX_LIMIT, SearchMode

if TYPE_CHECKING:
    from brain.index.watch.watch import Batch

ChromaOption = Annotated[
    str | None,
    typer.Option(
        "--chroma-url",
        help="Keep the vectors on this Chroma server (default: config, then the embedded store).",
        show_default=False,
    ),
]
NoEmbedOption = Annotated[
    bool, typer.Option("--no-embed", help="Update the catalog and full-text index only; skip embeddings.")
]


def _index(vault: Path | None, no_embed: bool, chroma_url: str | None, rebuild: bool) -> None:
    from brain.index.engine import open_index
    from brain.index.sync.sync import index_vault, reindex_vault
    from brain.index.view import index_report_line

    vault_ = open_vault(vault).vault
    index = open_index(vault_, chroma_url=chroma_url)
    with progress_bars({"notes": "notes", "embedding": "chunks"}) as progress:
        run = reindex_vault if rebuild else index_vault
        report = run(index, embed=not no_embed, progress=progress)
    scan = report.scan
    typer.echo(index_report_line(report))
    if scan.skipped:
        typer.echo(f"{len(scan.skipped)} files skipped; `brain doctor` lists them")
    from brain.memory.notes.history import prune_history

    pruned = prune_history(vault_)
    if pruned.versions:
        typer.echo(f"history: {pruned.versions} old versions pruned ([history] keep_days / max_versions)")


def index(vault: VaultOption = None, no_embed: NoEmbedOption = False, chroma_url: ChromaOption = None) -> None:
    """Bring the indexes up to date: re-parse and re-embed only what changed."""
    _index(vault, no_embed, chroma_url, rebuild=False)


def reindex(vault: VaultOption = None, no_embed: NoEmbedOption = False, chroma_url: ChromaOption = None) -> None:
    """Rebuild the indexes from the notes alone (after changing the embedder, or to start clean)."""
    _index(vault, no_embed, chroma_url, rebuild=True)


def status(vault: VaultOption = None, chroma_url: ChromaOption = None, as_json: JsonOption = False) -> None:
    """Counts by note type, how fresh the index is, and the embedder in use with where its model came from."""
    from brain.cli.remedies import CLI_WORDINGS
    from brain.index.status import index_status
    from brain.index.view import status_json, status_lines

    found = index_status(open_vault(vault).vault, chroma_url=chroma_url)
    if as_json:
        emit_json(status_json(found))
        return
    typer.echo("\n".join(status_lines(found, CLI_WORDINGS)))


def watch(vault: VaultOption = None, no_embed: NoEmbedOption = False, chroma_url: ChromaOption = None) -> None:
    """Keep the indexes current while notes change in any editor, until Ctrl-C."""
    from brain.index.engine import open_index
    from brain.index.watch.watch import Watcher

    vault_ = open_vault(vault).vault
    index = open_index(vault_, chroma_url=chroma_url)

    def report(batch: Batch) -> None:
        if batch.changes or batch.errors:
            typer.echo(
                f"updated {batch.changes} notes"
                + (f"; {len(batch.errors)} problems: {'; '.join(batch.errors)}" if batch.errors else ""),
                err=True,
            )

    with Watcher(index, embed=not no_embed, on_batch=report) as watcher:
        typer.echo(f"watching {vault_.root} (Ctrl-C to stop)", err=True)
        try:
            watcher.wait()
        except KeyboardInterrupt:
            pass


def search(
    query: Annotated[str, typer.Argument(help="What to look for, in words or by meaning.")],
    mode: Annotated[
        SearchMode, typer.Option(help="hybrid (meaning and words), text (BM25) or vector (meaning).")
    ] = "hybrid",
    type_: Annotated[list[str] | None, typer.Option("--type", help="Only notes of this type (repeatable).")] = None,
    folder: Annotated[
        list[str] | None, typer.Option(help="Only notes in this folder or below it (repeatable).")
    ] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="Only notes with this tag (repeatable: all must match).")
    ] = None,
    field: Annotated[
        list[str] | None, typer.Option(help="Only notes whose frontmatter KEY equals VALUE, as key=value (repeatable).")
    ] = None,
    since: Annotated[str | None, typer.Option(help="Only notes dated on or after this day (YYYY-MM-DD).")] = None,
    until: Annotated[str | None, typer.Option(help="Only notes dated on or before this day (YYYY-MM-DD).")] = None,
    limit: Annotated[int, typer.Option(min=1, max=MAX_LIMIT, help="How many notes to show.")] = 10,
    project: ProjectOption = None,
    all_projects: AllProjectsOption = False,
    min_score: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Hide hits scoring under this relevance, 0-1 (default: [search] min_score in config, else the mode's: 0.15 in hybrid, 0.1 in vector, 0 in text with the default model).",
        ),
    ] = None,
    rerank: Annotated[
        bool | None,
        typer.Option(
            "--rerank/--no-rerank",
            help="Re-order the top hits with a cross-encoder (needs reranker_model; default: rerank under [search] in config).",
        ),
    ] = None,
    vault: VaultOption = None,
    chroma_url: ChromaOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find notes by meaning and by words; each hit shows the note, the matching section, a snippet and its score.

    A score is the hit's relevance, from 0 to 1. Hits under a floor are not shown; when none is
    left, the closest titles are named instead."""
    from brain.cli.remedies import CLI_WORDINGS
    from brain.index.engine import open_index
    from brain.memory.search.service import SearchFilters, search_report
    from brain.memory.search.view import pending_line, search_lines

    fields = []
    for item in field or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--field '{item}' is not key=value, e.g. --field outcome=success")
        fields.append((key.strip(), value.strip()))
    memory = open_vault(vault)
    scope = project_scope(memory, project, all_projects)
    filters = SearchFilters(
        tuple(type_ or ()), tuple(folder or ()), tuple(tag or ()), tuple(fields), since, until, scope.project
    )
    vault_ = memory.vault
    index = open_index(vault_, chroma_url=chroma_url)
    rerank = index.config.rerank if rerank is None else rerank
    report = search_report(index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score)
    if report.pending:
        typer.echo(pending_line(report.pending, CLI_WORDINGS), err=True)
    if as_json:
        emit_json(report.hits)
        return
    typer.echo("\n".join(search_lines(report, query, CLI_WORDINGS)))
