"""The failures the episodes hold, read straight from the catalog file, read-only, for the
tool-failure hook, which answers while the agent waits (`read_only.read_with`: a catalog that is
missing, of another schema, or cannot be read gives None, nothing to look in). The `failures` rows
are written with their episode's row (`Catalog.put`), so `brain index`, `brain watch` and brain's
own writes (a session's extraction) keep them current.

One read gives what matching needs (`brain.memory.sessions.matching`): how many of the catalog's
failures hold each of the live failure's terms (`failure_terms`) and how many there are; then the
recovered failures of the same kind and program (of `project`'s episodes and those of no recorded
project, or of every project when
`everywhere`), those that share the most weight with the live failure first (the caller weighs the
terms by those counts), then this project's, then the newest, at most `limit`, each with its terms;
and the counts of their terms too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from brain.index.catalog.read_only import read_rows, read_with

_FRONTMATTER = "COALESCE(CAST(json_extract(n.frontmatter, '$.{key}') AS TEXT), {default})"
_SEEN = (
    "WITH asked(term, weight) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(:weights)) "
    "SELECT n.path, n.title, {date}, {session}, f.error, f.fix, f.commit_text, {project}, "
    "f.fix_command, f.change, f.retry, f.terms "
    "FROM failures f JOIN notes n ON n.id = f.note_id "
    "WHERE f.kind = :kind AND f.program = :program AND f.fix != '' "
    "AND (:session = '' OR {session} != :session) AND (:everywhere OR {project} = :project OR {project} = '') "
    "ORDER BY (SELECT TOTAL(a.weight) FROM failure_terms t JOIN asked a ON a.term = t.term "
    "WHERE t.note_id = f.note_id AND t.event = f.event) DESC, "
    "({project} = :project) DESC, 3 DESC, n.path LIMIT :limit"
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
    return [_held(row) for row in rows]


def _held(row: tuple[object, ...]) -> FailureHeld:
    path, title, date, session, error, fix, commit, project = (str(value or "") for value in row[1:9])
    return FailureHeld(
        str(row[0]), FailureSeen(path, title, date, session, error, fix, commit, project), str(row[9] or "")
    )


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
    weigh: Callable[[Mapping[str, int], int], Mapping[str, float]],
    *,
    project: str | None = None,
    everywhere: bool = False,
    session: str = "",
    limit: int = 200,
) -> Candidates | None:
    """The recovered failures of `kind` and `program` outside `session` that share the most with
    `terms` (`weigh(counts, total)` gives each term's weight), see the module's docstring; None when
    the catalog cannot be read."""
    asked = sorted(set(terms))

    def reading(db: sqlite3.Connection) -> Candidates:
        counts = _counts(db, asked)
        total = db.execute("SELECT COUNT(*) FROM failures").fetchone()[0]
        weights = json.dumps(sorted(weigh(counts, total).items()))
        where: dict[str, object] = {"kind": kind, "program": program, "session": session, "project": project or ""}
        where |= {"everywhere": int(everywhere), "limit": limit, "weights": weights}
        seen = tuple(_seen(row) for row in db.execute(_SEEN, where))
        counts |= _counts(db, sorted({term for found in seen for term in found.terms} - set(asked)))
        return Candidates(seen, counts, total)

    return read_with(index_dir, reading)


def _counts(db: sqlite3.Connection, terms: list[str]) -> dict[str, int]:
    """How many of the catalog's failures hold each term (those none holds are left out)."""
    counts: dict[str, int] = {}
    for start in range(0, len(terms), _CHUNK):
        chunk = terms[start : start + _CHUNK]
        query = f"SELECT term, COUNT(*) FROM failure_terms WHERE term IN ({','.join('?' * len(chunk))}) GROUP BY term"
        counts.update(db.execute(query, chunk).fetchall())
    return counts


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
