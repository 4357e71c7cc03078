"""The index's status and an indexing run's report as lines, shared by the CLI (`brain status`,
`brain index`) and the MCP server (index_status, reindex)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from brain.errors import MergeConflict, Remedy
from brain.plain import counted

if TYPE_CHECKING:  # the index's types, for annotations: a view loads nothing
    from brain.index.status import IndexStatus
    from brain.index.sync.sync import IndexReport
    from brain.index.vectors.segments import Segment


def status_lines(found: IndexStatus, wordings: Mapping[str, str]) -> list[str]:
    """What `brain status` prints; `wordings` is the front end's for remedies (cli/remedies.py,
    mcp/remedies.py): how to bring the index up to date, where the skipped files are listed."""
    index_it = Remedy("index").worded(wordings)
    lines = [f"vault     {found.vault}: {counted(found.notes, 'note file')}"]
    if not found.indexed:
        return [
            *lines,
            f"index     none yet; {index_it}",
            f"embedder  {found.embedder}",
            f"model     {found.embedder_source}",
        ]
    types = ", ".join(f"{name} {count}" for name, count in found.by_type.items())
    lines.append(f"notes     by type: {types}" if types else "notes     none")
    freshness = (
        "up to date"
        if found.fresh
        else f"{counted(found.changed_files, 'file')} changed and {counted(found.pending_vectors, 'note')} without "
        f"vectors since the last index; {index_it}"
    )
    if found.vectors_missing or found.vectors_extra:
        wrong = (
            [
                f"lacks {found.vectors_missing} of {counted(found.chunks, 'chunk')} "
                f"({counted(found.vectors_missing_notes or 0, 'note')})"
            ]
            if found.vectors_missing
            else []
        )
        wrong += (
            [f"holds {counted(found.vectors_extra, 'chunk')} the catalog does not know"] if found.vectors_extra else []
        )
        freshness = f"the vector store {' and '.join(wrong)}; {index_it} to repair it"
    if found.other_embedder:
        freshness = (
            f"the vectors were made by {found.vectors_embedder}, not by {found.embedder} in use; "
            f"{Remedy('reindex').worded(wordings)} to rebuild them"
        )
    if found.read_only:
        freshness = f"read-only disk, read as it is (cannot be refreshed here); {freshness.split(';')[0]}"
    lines.append(
        f"index     {freshness} (last updated {found.updated_at or 'never'}{'; watcher running' if found.watcher else ''})"
    )
    written_by = (
        f"; written by {found.vectors_embedder}"
        if found.vectors_embedder and found.vectors_embedder != found.embedder
        else ""
    )
    lines += [
        f"vectors   {vector_count(found)} in {found.vector_store}{written_by}"
        + (
            f" ({found.pending_vectors:,} notes not yet)"
            if found.pending_vectors and found.planned_chunks is None
            else ""
        ),
        f"embedder  {found.embedder}",
        f"model     {found.embedder_source}",
    ]
    if found.vectors_behind:
        lines.insert(
            -2,
            f"          Chroma lacks {counted(found.vectors_behind, 'chunk')} written since (brain's snapshot holds "
            f"them; searches use it); {Remedy('catch_up').worded(wordings)} to write them now",
        )
    if found.skipped:
        lines.append(f"skipped   {counted(len(found.skipped), 'file')}; {Remedy('list_skipped').worded(wordings)}")
    return lines


def vector_count(found: IndexStatus) -> str:
    """How far embedding has come: "1,234 of 5,000 chunks embedded" while notes wait (the total is the
    one the last `brain index` set out to reach), else "5,000 chunks"."""
    if not found.pending_vectors:
        return counted(found.chunks, "chunk")
    if found.planned_chunks is not None:
        return f"{found.embedded_chunks:,} of {found.planned_chunks:,} chunks embedded"
    return f"{found.embedded_chunks:,} chunks embedded"


def interrupted_line(embedded: int, planned: int | None) -> str:
    """What `brain index` says when it is stopped (Ctrl-C): what is kept, and that the next run goes on."""
    done = f"{embedded:,} of {planned:,} chunks embedded" if planned is not None else f"{embedded:,} chunks embedded"
    return f"interrupted: {done}; `brain index` goes on from there, embedding only the rest"


def status_json(found: IndexStatus) -> dict[str, Any]:
    """Every figure of the status, and whether the index is fresh (`brain status --json`)."""
    return {**found.__dict__, "fresh": found.fresh}


def index_report_line(report: IndexReport) -> str:
    """One indexing run in a line: what the scan found, what was embedded (`brain index`, reindex)."""
    scan = report.scan
    parts = [
        f"{len(scan.added)} added",
        f"{len(scan.changed)} changed",
        f"{len(scan.moved)} moved",
        f"{len(scan.removed)} removed",
    ]
    line = f"{counted(report.notes, 'note')}: " + ", ".join(parts) + f" ({scan.parsed} parsed in {scan.seconds:.1f} s)"
    if report.embed is None:
        return line + "; embeddings skipped"
    embed = report.embed
    line += (
        f"; vectors: {counted(embed.embedded, 'chunk')} embedded, {embed.kept} unchanged, {embed.deleted} deleted "
        f"({report.embedder})"
    )
    if embed.reused:
        line += f"; {counted(embed.reused, 'chunk')} taken from the shared vector store, not embedded again"
    if report.lost_vectors:
        line += f"; {report.lost_vectors} of them had been lost from the vector store"
    if report.caught_up is not None:
        caught = report.caught_up
        line += f"; Chroma caught up: {caught.upserted} written, {caught.deleted} deleted"
        if caught.lost:
            line += f" ({counted(caught.lost, 'note')} to embed again: their vectors were lost)"
    return line


def conflict_lines(report: IndexReport, wordings: Mapping[str, str]) -> list[str]:
    """A line for each note git left conflict markers in: what the index did with it, and what to do."""
    return [MergeConflict(path, skip.reason).worded(wordings) for path, skip in report.conflicts.items()]


def index_report_json(report: IndexReport) -> dict[str, Any]:
    """The run's counts (not its paths: a rebuild of a large vault names every note)."""
    scan, embed = report.scan, report.embed
    return {
        "notes": report.notes,
        "added": len(scan.added),
        "changed": len(scan.changed),
        "moved": len(scan.moved),
        "removed": len(scan.removed),
        "conflicts": list(report.conflicts),
        "skipped": len(scan.skipped),
        "embedded": embed.embedded if embed else None,
        "kept": embed.kept if embed else None,
        "reused": embed.reused if embed else None,
        "deleted": embed.deleted if embed else None,
        "lost_vectors": report.lost_vectors,
        "embedder": report.embedder,
    }


def _size(count: int) -> str:
    return f"{count / 2**20:.1f} MiB" if count >= 2**20 else f"{count / 1024:.1f} KiB"


def segment_lines(found: list[Segment]) -> list[str]:
    """What `brain doctor` says of each vector segment of the embedded store: its size and its bound."""
    lines = []
    for segment in found:
        held = f"{_size(segment.on_disk)} on disk ({_size(segment.apparent)} apparent)"
        if not segment.collection:
            lines.append(f"vectors: segment {segment.id}: {held}, left by no collection")
            continue
        elements = "none persisted yet" if segment.elements is None else f"{segment.elements} elements persisted"
        lines.append(
            f"vectors: segment {segment.id} ({segment.records} records, {elements}): {held}, "
            f"bound {_size(segment.bound)} and {segment.allowed_elements} elements"
            + ("" if segment.in_bounds else "; OUT OF BOUNDS")
        )
    return lines


def segments_json(found: list[Segment]) -> list[dict[str, Any]]:
    return [
        {
            "segment": segment.id,
            "collection": segment.collection,
            "records": segment.records,
            "elements": segment.elements,
            "bytes_on_disk": segment.on_disk,
            "bytes_apparent": segment.apparent,
            "bound_bytes": segment.bound,
            "bound_elements": segment.allowed_elements,
            "in_bounds": segment.in_bounds,
        }
        for segment in found
    ]
