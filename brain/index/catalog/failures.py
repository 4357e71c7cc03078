"""The failures the episodes hold, read straight from the catalog file, read-only, for the
tool-failure hook, which answers while the agent waits (`read_only.read_with`: a catalog that is
missing, of another schema, or cannot be read gives None, nothing to look in). The `failures` rows
are written with their episode's row (`Catalog.put`), so `brain index`, `brain watch` and brain's
own writes (a session's extraction) keep them current.

One read gives what matching needs (`brain.memory.sessions.matching`): the recovered failures of one
kind and program (those of `project`'s episodes, else of every project when `everywhere`), newest
first, each with its terms; and for those terms and the live failure's, how many of the catalog's
failures hold each (`failure_terms`), with the number of failures in all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from brain.index.catalog.read_only import read_with

_FRONTMATTER = "COALESCE(CAST(json_extract(n.frontmatter, '$.{key}') AS TEXT), {default})"
_SEEN = (
    "SELECT n.path, n.title, {date}, {session}, f.error, f.fix, f.commit_text, {project}, "
    "f.fix_command, f.change, f.retry, f.terms "
    "FROM failures f JOIN notes n ON n.id = f.note_id "
    "WHERE f.kind = :kind AND f.program = :program AND f.fix != '' "
    "AND (:session = '' OR {session} != :session) AND (:everywhere OR {project} = :project) "
    "ORDER BY ({project} = :project) DESC, 3 DESC, n.path LIMIT :limit"
).format(
    date=_FRONTMATTER.format(key="date", default="n.date"),
    session=_FRONTMATTER.format(key="session", default="''"),
    project=_FRONTMATTER.format(key="project", default="''"),
)
_CHUNK = 500  # terms counted per query (SQLite's limit on variables is 32766, or 999 before 3.32)


@dataclass(frozen=True)
class FailureSeen:
    """One earlier recovered failure, in the episode that holds it ('' for a project not recorded)."""

    path: str
    title: str
    date: str
    session: str
    error: str  # the error event's text: "`cmd` failed: line"
    fix: str  # the recovery's text and what the lesson adds
    commit: str
    project: str = ""
    fix_command: str = ""
    change: str = ""
    retry: bool = False
    terms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidates:
    """The earlier failures a live one may match, and how common each of their terms is."""

    seen: tuple[FailureSeen, ...]
    counts: dict[str, int]  # term -> the catalog's failures holding it
    total: int  # the catalog's failures


def candidates(
    index_dir: Path,
    kind: str,
    program: str,
    terms: Iterable[str],
    *,
    project: str | None = None,
    everywhere: bool = False,
    session: str = "",
    limit: int = 200,
) -> Candidates | None:
    """The recovered failures of `kind` and `program` outside `session` (see the module's docstring),
    or None when the catalog cannot be read."""
    asked = {
        "kind": kind,
        "program": program,
        "session": session,
        "project": project or "",
        "everywhere": int(everywhere),
        "limit": limit,
    }

    def reading(db: sqlite3.Connection) -> Candidates:
        seen = tuple(_seen(row) for row in db.execute(_SEEN, asked))
        wanted = sorted({*terms, *(term for found in seen for term in found.terms)})
        counts: dict[str, int] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            query = (
                f"SELECT term, COUNT(*) FROM failure_terms WHERE term IN ({','.join('?' * len(chunk))}) GROUP BY term"
            )
            counts.update(db.execute(query, chunk).fetchall())
        total = db.execute("SELECT COUNT(*) FROM failures").fetchone()[0]
        return Candidates(seen, counts, total)

    return read_with(index_dir, reading)


def _seen(row: tuple[object, ...]) -> FailureSeen:
    *texts, retry, terms = row
    path, title, date, session, error, fix, commit, project, fix_command, change = (str(v or "") for v in texts)
    return FailureSeen(
        *(path, title, date, session, error, fix, commit, project),
        fix_command=fix_command,
        change=change,
        retry=bool(retry),
        terms=tuple(term for term in str(terms or "").split("\n") if term),
    )
