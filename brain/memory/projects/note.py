"""Which project a note belongs to: its `project` frontmatter, and the rule of a project's scope.

A captured episode says where its session ran:

    project: github.com/acme/shop     # the git remote, normalised; else the repository's root folder
    branch: feature/login             # the branch the session was on (when known)
    project_folder: services/api      # the working folder, relative to the repository's root (absent at the root)

A remote is said one way whatever its spelling: `git@github.com:acme/shop.git`,
`https://github.com/acme/shop`, `ssh://git@github.com:22/acme/shop.git` are all `github.com/acme/shop`
(user names, passwords and ports dropped, the host in lower case, `.git` and trailing slashes gone).

The scope of project P is about what brain captures and learns: episodes, patterns and tips. It
holds those whose `project` is P, and the patterns and tips that have none (written by hand or
learned before projects were recorded: shared by every project). An episode without a `project`
(captured before projects were recorded, or written by hand) is of no known project: it is read
only where the whole vault is (`--all-projects`, or the fallback when P has no episode at all).
Every other note (facts, saved contexts, notes written by hand) is in every scope.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

PROJECT_KEYS = ("project", "branch", "project_folder")
SCOPED_TYPES = frozenset({"episode", "pattern", "tip"})
_SCP_LIKE = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?!//)(?P<path>.+)$")  # git@host:owner/repo.git
_URL = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?:[^@/]*@)?(?P<host>[^/:]*)(?::\d*)?(?P<path>/.*)?$", re.I)


def normalise_remote(url: str) -> str:
    """A git remote as `host/owner/repo` (a local path remote stays a path, without `.git`)."""
    text = url.strip()
    found = _URL.match(text)
    if found and found["scheme"].lower() == "file":
        return _bare(found["path"] or "/")
    if found:
        host, path = found["host"].lower(), found["path"] or ""
    elif (scp := _SCP_LIKE.match(text)) and len(scp["host"]) > 1 and not text.startswith(("/", ".")):
        host, path = scp["host"].lower(), scp["path"]
    else:
        return _bare(text)
    path = _bare(path).strip("/")
    return f"{host}/{path}" if path else host


def _bare(path: str) -> str:
    path = path.rstrip("/")
    return (path.removesuffix(".git").rstrip("/") or path) if path else "/"


def project_of(frontmatter: Mapping[str, Any]) -> str | None:
    """The note's project, or None when it has none."""
    value = frontmatter.get("project")
    if value is None:
        return None
    return str(value).strip() or None


def in_scope(note_type: str, frontmatter: Mapping[str, Any], project: str | None) -> bool:
    """Whether a note is read in the scope of `project` (None: the whole vault). See the module doc."""
    if project is None or note_type not in SCOPED_TYPES:
        return True
    own = project_of(frontmatter)
    if own is None:
        return note_type != "episode"
    return own == project
