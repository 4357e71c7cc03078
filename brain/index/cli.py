"""`brain index`, `reindex`, `status` and `watch`: thin over brain.index."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from brain.cli.common import (
    ChromaOption,
    JsonOption,
    VaultOption,
    emit_json,
    open_vault,
    progress_bars,
    warn,
)

if TYPE_CHECKING:
    from brain.index.watch.watch import Batch

NoEmbedOption = Annotated[
    bool, typer.Option("--no-embed", help="Update the catalog and full-text index only; skip embeddings.")
]
VectorsOption = Annotated[
    bool,
    typer.Option(
        "--vectors",
        help="Then write to the embedded Chroma store every vector written behind (brain index does it on its own once they pile up; brain watch when idle).",
    ),
]
PruneOption = Annotated[
    bool,
    typer.Option(
        "--prune",
        help="Then delete from the Chroma server's shared collection the chunks no note of this clone uses (run it in a clone up to date with the others).",
    ),
]


def _index(
    vault: Path | None,
    no_embed: bool,
    chroma_url: str | None,
    rebuild: bool,
    prune: bool = False,
    catch_up: bool = False,
) -> None:
    from brain.cli.remedies import CLI_WORDINGS
    from brain.index.status import embedding_progress
    from brain.index.sync.sync import index_vault, reindex_vault
    from brain.index.view import conflict_lines, index_report_line

    memory = open_vault(vault, chroma_url=chroma_url)
    vault_, index = memory.vault, memory.index
    stages = {"notes": ("scanning", "notes"), "chunking": ("chunking", "notes"), "embedding": ("embedding", "chunks")}
    try:
        with progress_bars(stages) as progress:
            if rebuild:
                report = reindex_vault(index, embed=not no_embed, progress=progress)
            else:
                report = index_vault(index, embed=not no_embed, progress=progress, catch_up=catch_up)
    except KeyboardInterrupt:  # Ctrl-C: every window written so far stays; the next run goes on from there
        from brain.index.view import interrupted_line

        typer.echo(interrupted_line(*embedding_progress(index)), err=True)
        raise typer.Exit(130) from None
    scan = report.scan
    typer.echo(index_report_line(report))
    for line in conflict_lines(report, CLI_WORDINGS):
        warn(line)
    if scan.skipped:
        typer.echo(f"{len(scan.skipped)} files skipped; `brain doctor` lists them")
    if prune:
        from brain.index.sync.sync import prune_shared

        if not index.vectors.shared:
            typer.echo("nothing to prune: the vectors are not on a Chroma server")
        else:
            from brain.plain import counted

            typer.echo(
                f"shared vectors: {counted(prune_shared(index), 'chunk')} no note here uses deleted from the server"
            )
    from brain.memory.notes.history import prune_history

    pruned = prune_history(vault_)
    if pruned.versions:
        typer.echo(f"history: {pruned.versions} old versions pruned ([history] keep_days / max_versions)")


def index(
    vault: VaultOption = None,
    no_embed: NoEmbedOption = False,
    chroma_url: ChromaOption = None,
    prune: PruneOption = False,
    vectors: VectorsOption = False,
) -> None:
    """Bring the indexes up to date: re-parse and re-embed only what changed."""
    _index(vault, no_embed, chroma_url, rebuild=False, prune=prune, catch_up=vectors)


def reindex(vault: VaultOption = None, no_embed: NoEmbedOption = False, chroma_url: ChromaOption = None) -> None:
    """Rebuild the indexes from the notes alone (after changing the embedder, or to start clean)."""
    _index(vault, no_embed, chroma_url, rebuild=True)


def status(vault: VaultOption = None, chroma_url: ChromaOption = None, as_json: JsonOption = False) -> None:
    """Counts by note type, how fresh the index is, and the embedder in use with where its model came from."""
    from brain.cli.remedies import CLI_WORDINGS
    from brain.index.status import index_status
    from brain.index.view import status_json, status_lines

    memory = open_vault(vault, chroma_url=chroma_url)
    found = index_status(memory.vault, memory.existing_index())
    if as_json:
        emit_json(status_json(found))
        return
    typer.echo("\n".join(status_lines(found, CLI_WORDINGS)))


def watch(vault: VaultOption = None, no_embed: NoEmbedOption = False, chroma_url: ChromaOption = None) -> None:
    """Keep the indexes current while notes change in any editor, until Ctrl-C."""
    from brain.index.watch.watch import Watcher
    from brain.plain import counted

    memory = open_vault(vault, chroma_url=chroma_url)
    vault_, index = memory.vault, memory.index

    def report(batch: Batch) -> None:
        if batch.changes or batch.errors:
            typer.echo(
                f"updated {counted(batch.changes, 'note')}"
                + (f"; {counted(len(batch.errors), 'problem')}: {'; '.join(batch.errors)}" if batch.errors else ""),
                err=True,
            )

    with Watcher(index, embed=not no_embed, on_batch=report) as watcher:
        typer.echo(f"watching {vault_.root} (Ctrl-C to stop)", err=True)
        try:
            watcher.wait()
        except KeyboardInterrupt:
            pass
