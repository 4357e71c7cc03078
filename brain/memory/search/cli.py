"""`brain search`: thin over brain.memory.search."""

from __future__ import annotations

from typing import Annotated

import typer

from brain.cli.common import (
    AllProjectsOption,
    ChromaOption,
    JsonOption,
    ProjectOption,
    VaultOption,
    emit_json,
    open_vault,
    project_scope,
)
from brain.errors import UsageError
from brain.memory.search.service import MAX_LIMIT, SearchMode


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
    from brain.memory.search.service import SearchFilters, search_report
    from brain.memory.search.view import pending_line, search_lines

    fields = []
    for item in field or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--field '{item}' is not key=value, e.g. --field outcome=success")
        fields.append((key.strip(), value.strip()))
    memory = open_vault(vault, chroma_url=chroma_url)
    scope = project_scope(memory, project, all_projects)
    filters = SearchFilters(
        tuple(type_ or ()), tuple(folder or ()), tuple(tag or ()), tuple(fields), since, until, scope.project
    )
    report = search_report(
        memory.index, query, mode=mode, limit=limit, filters=filters, rerank=rerank, min_score=min_score
    )
    if report.pending:
        typer.echo(pending_line(report.pending, CLI_WORDINGS), err=True)
    if as_json:
        emit_json(report.hits)
        return
    typer.echo("\n".join(search_lines(report, query, CLI_WORDINGS)))
