"""One hierarchy for every error brain reports to a user.

The library raises these; each front end (CLI, MCP) translates them once. A message
says what is wrong and, where it can, what to do about it.
"""


class BrainError(Exception):
    """Base of every error brain raises on purpose."""


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
    """A command was called wrongly (options that do not go together, a required one missing): exit code 2."""


class IndexMismatch(BrainError):
    """The index was written by another embedder or a newer brain; `brain reindex` rebuilds it."""


class IndexBusy(BrainError):
    """Another brain process held the index lock for too long."""


class IndexUnavailable(BrainError):
    """The vector store (a Chroma server) cannot be reached or read."""
