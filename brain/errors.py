"""One hierarchy for every error brain reports to a user.

The library raises these; each front end (CLI, MCP) translates them once. A message
says what is wrong and, where it can, what to do about it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# ---------------------------------------------------------------- remedies, worded by each front end
#
# A message that says what to do names the step as a `Remedy`: a key and its arguments, never the
# words. Each front end words every key once: the CLI as a `brain` command or `--option`
# (brain/cli/remedies.py), the MCP server as the tool or argument an agent can use, or what to ask
# of the vault's owner where no tool does it (brain/mcp/remedies.py). `str(error)` words it with
# `PLAIN`, the library's own names (the function or keyword argument a Python caller uses): the
# library cannot know which front end, if any, shows an error (a log line, a warning, a Python
# caller), and it names none of their commands. tests/mcp/test_remedies.py checks that every key
# has a wording in each of the three.

PLAIN: dict[str, str] = {
    # steps
    "reindex": "reindex the vault",
    "index": "index the vault",
    "list_skipped": "IndexStatus.skipped lists them",
    "embed_pending": "indexing the vault embeds them",
    "catch_up": "index_vault(index, catch_up=True)",
    "min_score": "min_score=0 shows every hit",
    "supersede_fact": "supersede_fact",
    "invalidate_fact": "invalidate_fact",
    "supersede_subject": "supersede_fact(corpus, {subject!r}, value, namespace={namespace!r}), or record_fact(..., supersede=True)",
    "release_hold": "set_hold with hold=False lifts a hold",
    "list_runs": "list_runs lists a tenant's runs",
    "restore_note": "restore_note",
    "purge_note": "purge_note",
    "init_vault": "init_vault({path!r})",
    "rebuild_index": "delete {folder} (the index, rebuilt from the notes) and index the vault again",
    # arguments to give, or named where a value is refused
    "vault": "the vault's path",
    "vault_path": "the vault path",
    "overwrite": "overwrite=True",
    "since": "since",
    "until": "until",
    "caused_by": "caused_by",
    "section": "section",
    "find": "find",
    "count": "expected_count={count}",
    "replace_all": "replace_all=True",
    "chroma_url": "chroma_url",
    "tenant": "tenant",
    "namespace": "namespace",
    "subject_namespace": "namespace",
    "valid_from": "valid_from",
    "rerank": "rerank",
    "trigger_and_action": "trigger and action",
    "project": "project={example!r}",
}


@dataclass(frozen=True, init=False)
class Remedy:
    """A step that mends an error, or the argument to give: a key of `PLAIN` and its arguments
    (`Remedy("restore_note", path="notes/Plan.md")`), worded by whoever shows the error."""

    key: str
    args: tuple[tuple[str, str], ...]

    def __init__(self, key: str, /, **args: str) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "args", tuple(sorted(args.items())))

    def worded(self, wordings: Mapping[str, str]) -> str:
        """The remedy in one front end's words: its wording of the key, the arguments filled in."""
        return wordings[self.key].format(**dict(self.args))


class BrainError(Exception):
    """Base of every error brain raises on purpose.

    The message is text and remedies in reading order, e.g.
    `InvalidInput("the new value would start too early; give a later ", Remedy("valid_from"))`:
    `worded(wordings)` is it in a front end's words, `str(error)` in the library's (`PLAIN`).
    """

    def __init__(self, *message: str | Remedy) -> None:
        super().__init__(*message)

    @property
    def remedies(self) -> tuple[Remedy, ...]:
        return tuple(part for part in self.args if isinstance(part, Remedy))

    def worded(self, wordings: Mapping[str, str]) -> str:
        return "".join(part.worded(wordings) if isinstance(part, Remedy) else str(part) for part in self.args)

    def __str__(self) -> str:
        return self.worded(PLAIN)


class VaultNotFound(BrainError):
    """No vault at the given place, or none found upwards from the current folder."""


class NoteNotFound(BrainError):
    """A name matched no note."""


class AmbiguousName(BrainError):
    """A name matched several notes."""

    def __init__(self, name: str, candidates: list[str]):
        self.name = name
        self.candidates = candidates
        shown = ", ".join(candidates[:8]) + (" ..." if len(candidates) > 8 else "")
        super().__init__(f"'{name}' matches {len(candidates)} notes ({shown}); use a path to pick one")


class UnsafePath(BrainError):
    """A title or path would escape the vault or use a reserved name."""


class WriteConflict(BrainError):
    """The file changed on disk after brain read it; the write was refused."""


class WriteFailed(BrainError):
    """The disk refused a write (full, read-only, an I/O error); what it was for is not acknowledged."""


class NoteExists(BrainError):
    """A new note would overwrite an existing file."""


class InvalidInput(BrainError):
    """An argument or a document does not have the shape brain needs."""


class UsageError(InvalidInput):
    """A call was wrong: an argument out of its range or not one of its choices, a path given that names
    nothing, arguments that do not go together, a required one missing. The CLI exits with 2."""


class VaultPathMissing(VaultNotFound, UsageError):
    """The vault a path names (an argument, $BRAIN_VAULT) is not a folder: the call is wrong, not the vault."""


class IndexMismatch(BrainError):
    """The index was written by another embedder or a newer brain; `brain reindex` rebuilds it."""


class IndexBusy(BrainError):
    """Another brain process held the index lock for too long."""


class MergeConflict(BrainError):
    """A note holds git's merge-conflict markers. Reported, not raised, by `index` (one line per note) and
    `doctor`: the index keeps the note's last indexed version (a note it never indexed stays out) until
    the conflict is resolved, rather than index a broken episode or fact as a plain note."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}; resolve the conflict, then ", Remedy("index"))


def conflict_reason(line: int, kept: bool | None) -> str:
    """What a note with conflict markers is, and what the index did with it (`MergeConflict`'s middle):
    kept its last version, left a note it never had out, or (None) there is no index and brain reads
    the file as it is."""
    done = {
        True: "the index keeps its last indexed version",
        False: "left out of the index",
        None: "read as a plain note",
    }[kept]
    return f"git merge conflict (markers from line {line}); {done} until it is resolved"


CONFLICT_FIX = "resolve the conflict (keep one side, or join both), then run `brain index`"


class PortTaken(BrainError):
    """The port `brain mcp --http` is to listen on is held by another program (another server, `chroma run`)."""

    def __init__(self, host: str, port: int, free: int | None) -> None:
        near = f" ({free} is free)" if free is not None else ""
        super().__init__(f"port {port} on {host} is taken by another program; serve on another with --port{near}")


class IndexUnavailable(BrainError):
    """The vector store (a Chroma server) cannot be reached or read."""


# ---------------------------------------------------------------- faults of the disk
#
# One translation, used wherever brain does IO and once more by each front end for what got
# past: an OSError or a storage engine's error (SQLite, Chroma) that means "the disk is full",
# "the disk is read-only", "the disk failed" or "the path is too long" becomes one of these,
# with a message that says what happened and what to do. Anything else is not a fault of the
# disk and is left alone (`storage_error` returns None).


class StorageFull(BrainError):
    """The disk (or the user's quota, or the file size limit) has no room for a write."""


class ReadOnlyStorage(BrainError):
    """The vault, or brain's state in it, is on a read-only disk or in a folder brain may not write."""


class StorageFailed(BrainError):
    """The disk reported an input/output error."""


class PathTooLong(InvalidInput):
    """A path is longer than the system allows."""


_FULL_ERRNOS = {28, 122, 27}  # ENOSPC, EDQUOT, EFBIG (a file size limit: the same for a write)
_READ_ONLY_ERRNOS = {30}  # EROFS
_DENIED_ERRNOS = {13, 1}  # EACCES, EPERM
_IO_ERRNOS = {5}  # EIO
_TOO_LONG_ERRNOS = {36}  # ENAMETOOLONG
_FULL_TEXT = ("database or disk is full", "no space left on device", "disk quota exceeded", "file too large")
_READ_ONLY_TEXT = ("readonly database", "read-only file system", "read-only database")
_IO_TEXT = ("disk i/o error",)
FULL_HINT = "free some space, then run the command again"
READ_ONLY_HINT = "writes need a writable vault; reads still work"


def storage_error(error: BaseException, where: str | None = None, disk: str | None = None) -> BrainError | None:
    """The brain error a fault of the disk is, or None when `error` (and what caused it) is not one.

    `where` names what was being written (a vault-relative path, or a description such as
    "the index"); without it, the path the error carries is used. `disk` is a folder on the
    disk in use (the vault): SQLite reports a full disk as "disk I/O error" when its shared
    memory or journal cannot grow, so an I/O error on a disk with no free block is a full disk.
    """
    for cause in _chain(error):
        if isinstance(cause, BrainError):
            return None
        code = getattr(cause, "errno", None) if isinstance(cause, OSError) else None
        text = str(cause).lower()
        place = where or _shown(getattr(cause, "filename", None) if isinstance(cause, OSError) else None)
        at = f" ({place})" if place else ""
        io_error = code in _IO_ERRNOS or any(part in text for part in _IO_TEXT)
        if code in _FULL_ERRNOS or any(part in text for part in _FULL_TEXT) or (io_error and _no_room(disk)):
            return StorageFull(f"the disk is full{at}; the write was not made and what was there is kept: {FULL_HINT}")
        if code in _TOO_LONG_ERRNOS:
            return PathTooLong(f"a path is too long for this system{at}; choose a shorter name or folder")
        if code in _READ_ONLY_ERRNOS or any(part in text for part in _READ_ONLY_TEXT):
            return ReadOnlyStorage(f"brain cannot write here{at}: the disk or folder is read-only; {READ_ONLY_HINT}")
        if code in _DENIED_ERRNOS:
            return ReadOnlyStorage(
                f"permission denied{at}: brain may not use this file or folder; check its owner and mode"
            )
        if io_error:
            return StorageFailed(
                f"the disk reported an input/output error{at}; check the disk (dmesg, fsck), then run the command again"
            )
    return None


def _no_room(disk: str | None) -> bool:
    import os

    try:
        info = os.statvfs(disk) if disk else None
    except OSError:
        return False
    return info is not None and (info.f_bavail == 0 or info.f_favail == 0)


def _chain(error: BaseException) -> list[BaseException]:
    """The error and what caused it (a storage engine often wraps the OSError or SQLite error)."""
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in found and len(found) < 8:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _shown(filename: object) -> str | None:
    """A path for a one-line message: line breaks escaped, the middle of a long one left out."""
    if filename is None:
        return None
    text = filename.decode("utf-8", "replace") if isinstance(filename, bytes) else str(filename)
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]}"


def one_line(message: str) -> str:
    """A message as one line: a line break inside it (a name that held one) shown as `\\n`."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


class ModelBuildError(BrainError):
    """An embedding model's files could not be read or built (the message says why; brain falls back)."""
