"""Every agent's transcript reader: the one list the sessions domain reads transcripts with.

A new agent's reader is a module beside this one that builds a `TranscriptReader` named READER,
added here; the hooks that capture its sessions go in `brain/agents/`.
"""

from __future__ import annotations

from brain.errors import UsageError
from brain.memory.sessions.transcripts import claude_code, codex, gemini
from brain.memory.sessions.transcripts.files import TranscriptReader

READERS: tuple[TranscriptReader, ...] = (claude_code.READER, codex.READER, gemini.READER)


def reader_named(name: str) -> TranscriptReader:
    """The reader of an agent (`claude-code`, `codex`, `gemini`: each reader's format is its agent's name)."""
    for reader in READERS:
        if reader.format == name:
            return reader
    raise UsageError(f"agent '{name}' is not one of: {', '.join(reader.format for reader in READERS)}")
