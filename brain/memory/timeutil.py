"""Instants from the many ISO-8601 spellings found in real data."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time

from brain.errors import InvalidInput, Remedy, UsageError

_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


def parse_instant(value: str, what: str | Remedy, *, end_of_day: bool = False) -> datetime:
    """A timezone-aware datetime; a value without a zone is taken as UTC, a bare date as its start (or end).

    `what` names the value in the error: a field of a document (`"timestamp"`: an `InvalidInput`), or
    an argument the caller gave, as a `Remedy` each front end words (`Remedy("since")`: a `UsageError`).
    """
    text = str(value).strip()
    try:
        if len(text) == 10:
            day = datetime.fromisoformat(text).date()
            return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        # Python reads at most six fractional digits; real data has seven.
        parsed = datetime.fromisoformat(_LONG_FRACTION.sub(r"\1", text).replace("Z", "+00:00"))
    except ValueError:
        refused = UsageError if isinstance(what, Remedy) else InvalidInput
        raise refused(
            what, f" '{value}' is not an ISO date or timestamp (e.g. 2026-01-21 or 2026-01-21T10:30:00Z)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
