"""Patterns and the causal paths between them as rows and lines, shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from brain.markdown.model import Pattern

if TYPE_CHECKING:  # the services' types, for annotations: a view loads no service
    from brain.memory.causal.graph import CausalPath
    from brain.memory.patterns.service import PatternUpdate


def pattern_summary(pattern: Pattern) -> dict[str, Any]:
    """One row of a pattern listing."""
    return {
        "title": pattern.title,
        "path": pattern.path,
        "success_rate": pattern.success_rate,
        "occurrences": pattern.occurrences,
        "trigger": pattern.trigger,
        "last_validated": pattern.last_validated,
    }


def pattern_row(pattern: Pattern) -> str:
    """`rate xN  title  trigger`, the rate as a percentage ('?' when unknown)."""
    rate = "  ?" if pattern.success_rate is None else f"{pattern.success_rate:4.0%}"
    return f"{rate} x{pattern.occurrences or 0:<4} {pattern.title}  {pattern.trigger or ''}".rstrip()


def pattern_update_line(update: PatternUpdate) -> str:
    verb = "created" if update.created else "updated"
    pattern = update.pattern
    return f"{verb} {update.path}: success_rate {pattern.success_rate:.2f} over {pattern.occurrences} occurrences"


def causal_path_lines(found: CausalPath) -> list[str]:
    """The start note, one line per hop with its type, weight and evidence, then hops and reliability."""
    lines = [found.titles[0]]
    for hop, title in zip(found.hops, found.titles[1:], strict=True):
        detail = ", ".join(
            part
            for part in (
                f"weight {hop.weight:g}" if hop.weight is not None else "",
                f"evidence {hop.evidence}" if hop.evidence is not None else "",
            )
            if part
        )
        lines.append(f"  --{hop.type}{f' ({detail})' if detail else ''}--> {title}")
    lines.append(f"{len(found.hops)} hops, reliability {found.reliability:.2f}")
    return lines


def no_path_line(source: str, target: str, max_depth: int, reverse_exists: bool) -> str:
    hint = " (there is one the other way round)" if reverse_exists else ""
    return f"no causal path from '{source}' to '{target}' within {max_depth} hops{hint}"
