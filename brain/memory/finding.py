"""One thing `brain doctor` reports, whichever domain found it (memory/health.py, facts/health.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    kind: str  # malformed | duplicate-name | broken-link | ambiguous-link | cycle | broken-caused-by | unknown-action-type | skipped | stale-index | vector-store | tampered-fact | unhashed-fact | journal
    path: str
    message: str
    fix: str
