"""The failures the episodes hold, looked up by signature straight from the catalog file, read-only.

For the tool-failure hook, which answers while the agent waits (`read_only.read_rows`: a catalog
that is missing, of another schema, or cannot be read gives None, nothing to look in). The
`failures` rows are written with their episode's row (`Catalog.put`), so `brain index`, `brain
watch` and brain's own writes (a session's extraction) keep them current.

One query answers for a project: the failures of the episodes whose frontmatter `project` is the
one asked for come first (read from the episode's row, so the `failures` rows need no project of
their own), then the others, each part newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from brain.index.catalog.read_only import read_rows

_FRONTMATTER = "COALESCE(CAST(json_extract(n.frontmatter, '$.{key}') AS TEXT), {default})"
_SEEN = (
    "SELECT n.path, n.title, {date}, {session}, f.error, f.fix, f.commit_text, {project} "
    "FROM failures f JOIN notes n ON n.id = f.note_id "
    "WHERE f.signature = :signature AND f.fix != '' AND (:session = '' OR {session} != :session) "
    "ORDER BY (:project != '' AND {project} = :project) DESC, 3 DESC, n.path LIMIT :limit"
).format(
    date=_FRONTMATTER.format(key="date", default="n.date"),
    session=_FRONTMATTER.format(key="session", default="''"),
    project=_FRONTMATTER.format(key="project", default="''"),
)
_ALL = (
    "SELECT f.signature, n.path, n.title, {date}, {session}, f.error, f.fix, f.commit_text, {project}, f.event "
    "FROM failures f JOIN notes n ON n.id = f.note_id ORDER BY f.signature, 4 DESC, n.path, f.event"
).format(
    date=_FRONTMATTER.format(key="date", default="n.date"),
    session=_FRONTMATTER.format(key="session", default="''"),
    project=_FRONTMATTER.format(key="project", default="''"),
)


@dataclass(frozen=True)
class FailureSeen:
    """One earlier failure of a signature, in the episode that holds it ('' for a project not recorded)."""

    path: str
    title: str
    date: str
    session: str
    error: str
    fix: str
    commit: str
    project: str = ""


def failures_seen(
    index_dir: Path, signature: str, *, project: str | None = None, session: str = "", limit: int = 20
) -> list[FailureSeen] | None:
    """The recovered failures of this signature outside `session`: those of `project`'s episodes
    first, then the others, each newest first (at most `limit`). None when the catalog cannot be read."""
    asked = {"signature": signature, "session": session, "project": project or "", "limit": limit}
    rows = read_rows(index_dir, _SEEN, asked)
    if rows is None:
        return None
    return [FailureSeen(*(str(value or "") for value in row)) for row in rows]


@dataclass(frozen=True)
class FailureHeld:
    """A failure an episode holds, with its signature and its event's id (`fix` '' when it was never
    recovered)."""

    signature: str
    seen: FailureSeen
    event: str


def all_failures(index_dir: Path) -> list[FailureHeld] | None:
    """Every failure the episodes hold, by signature, each signature's newest first. None when the
    catalog cannot be read."""
    rows = read_rows(index_dir, _ALL)
    if rows is None:
        return None
    return [
        FailureHeld(str(row[0]), FailureSeen(*(str(value or "") for value in row[1:9])), str(row[9] or ""))
        for row in rows
    ]
