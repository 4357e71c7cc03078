"""All the notes of a vault, parsed once, and name resolution over them.

`Corpus` is what the services read. It re-parses a file only when its size or mtime changed,
so a long-lived process (the MCP server, the watcher) pays for unchanged notes once.
"""

from __future__ import annotations

import difflib
import os
from collections import defaultdict
from collections.abc import Iterable
from pathlib import PurePosixPath

from brain.errors import AmbiguousName, NoteNotFound
from brain.notes.model import Note
from brain.notes.parse import parse_wikilink
from brain.vault import Vault, parse_bytes


def _clean_name(name: str) -> str:
    name = name.strip()
    if name.startswith("[[") and name.endswith("]]"):
        name = parse_wikilink(name[2:-2]).target
    return name


def _aliases(note: Note) -> list[str]:
    """Obsidian's `aliases`, and an episode's ai-agents id and session, as further names."""
    raw = note.frontmatter.get("aliases")
    names = [raw] if isinstance(raw, str) else [str(item) for item in raw] if isinstance(raw, list) else []
    if note.type == "episode":
        names += [str(note.frontmatter[key]) for key in ("episode_id", "session") if note.frontmatter.get(key)]
    return names


class Resolver:
    """Finds notes by path, title, file stem or permalink, case-insensitively.

    A name that matches several notes is ambiguous and reported as such, never guessed.
    """

    def __init__(self, notes: Iterable[Note]):
        self._paths: dict[str, str] = {}
        self._names: dict[str, set[str]] = defaultdict(set)
        self.titles: dict[str, str] = {}
        for note in notes:
            if note.path is None:
                continue
            path = note.path
            self._paths[path.lower()] = path
            self._paths[path.lower().removesuffix(".md")] = path
            self.titles[path] = note.title
            stem = PurePosixPath(path).stem
            for key in (note.title, stem, note.permalink, *_aliases(note)):
                if key:
                    self._names[str(key).strip().lower()].add(path)

    def candidates(self, name: str) -> list[str]:
        key = _clean_name(name).lower().replace("\\", "/")
        if not key:
            return []
        if key in self._paths:
            return [self._paths[key]]
        found = self._names.get(key)
        if found:
            return sorted(found)
        if "/" in key:  # [[folder/Title]]: a path suffix
            tail = "/" + key.removesuffix(".md")
            return sorted({path for lowered, path in self._paths.items() if lowered.endswith(tail)})
        return []

    def resolve(self, name: str) -> str:
        found = self.candidates(name)
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousName(_clean_name(name), found)
        close = difflib.get_close_matches(_clean_name(name).lower(), list(self._names), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; check the name or use its path"
        raise NoteNotFound(f"no note named '{_clean_name(name)}'{hint}")

    def try_resolve(self, name: str) -> str | None:
        found = self.candidates(name)
        return found[0] if len(found) == 1 else None


class Corpus:
    def __init__(self, vault: Vault):
        self.vault = vault
        self._cache: dict[str, tuple[tuple[int, int], Note]] = {}
        self._signature: tuple | None = None
        self._resolver: Resolver | None = None
        self.derived: dict[str, object] = {}  # caches built from the notes (e.g. the causal graph)

    def notes(self) -> list[Note]:
        """Every note in the vault, re-reading only files whose size or mtime changed."""
        seen: dict[str, tuple[tuple[int, int], Note]] = {}
        for relative in self.vault.iter_files():
            try:
                info = os.stat(self.vault.root / relative)
            except OSError:
                continue
            key = (info.st_mtime_ns, info.st_size)
            cached = self._cache.get(relative)
            if cached is not None and cached[0] == key:
                seen[relative] = cached
                continue
            try:
                data = (self.vault.root / relative).read_bytes()
            except OSError:
                continue
            seen[relative] = (key, parse_bytes(data, relative))
        signature = tuple(sorted((path, entry[0]) for path, entry in seen.items()))
        if signature != self._signature:
            self._signature = signature
            self._resolver = None
            self.derived.clear()
        self._cache = seen
        return [entry[1] for _, entry in sorted(seen.items())]

    def of_type(self, note_type: str) -> list[Note]:
        return [note for note in self.notes() if note.type == note_type]

    def resolver(self) -> Resolver:
        notes = self.notes()
        if self._resolver is None:
            self._resolver = Resolver(notes)
        return self._resolver

    def get(self, name: str) -> Note:
        """The note a name resolves to (path, title, stem or permalink)."""
        path = self.resolver().resolve(name)
        return self._cache[path][1]
