"""All the notes of a vault, parsed once, and name resolution over them.

`Corpus` is what the services read. When the vault has an index (`brain index` made
`.brain/index/catalog.sqlite3`), notes come from the catalog: each call first brings the catalog
up to date with the files (`index.fresh.ensure_fresh`: nothing while a watcher runs, the paths
file events reported in a process that reads repeatedly, else a stat scan) and then loads just
the rows that changed since the last call, so no file is re-read or re-parsed for a read. Notes
are loaded by type as a service asks for them, so a command about patterns never decodes the
episodes. A vault without an index is read the old way (stat every file, re-parse what changed,
in memory), and reading never creates an index.
"""

from __future__ import annotations

import difflib
import gc
import logging
import os
import posixpath
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from brain.errors import AmbiguousName, NoteNotFound
from brain.markdown.model import Note, NoteHeader
from brain.markdown.parse import parse_wikilink
from brain.vault.note_files import parse_bytes
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from brain.index.catalog.catalog import Catalog
    from brain.index.engine import Index
    from brain.index.vault_index import VaultIndex

log = logging.getLogger(__name__)
T = TypeVar("T")
FREEZE_FROM = 1000  # notes loaded at once


def _clean_name(name: str) -> str:
    name = name.strip()
    if name.startswith("[[") and name.endswith("]]"):
        name = parse_wikilink(name[2:-2]).target
    return name


def _key(name: str) -> str:
    """How names are compared: case-insensitively, and in NFC, so `Café` finds a note whichever
    way its é was typed (macOS and some editors write file names in NFD)."""
    return unicodedata.normalize("NFC", name).lower()


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
        self._keys: dict[str, tuple[str, ...]] = {}  # path -> the name keys it was filed under
        self.titles: dict[str, str] = {}
        # path in NFC -> the paths on disk: more than one is a name written in two Unicode forms
        # (`Café` typed as NFC and NFD), two files that look like one name. doctor reports them.
        self._forms: dict[str, set[str]] = defaultdict(set)
        for note in notes:
            self.add(note)

    @property
    def twins(self) -> list[list[str]]:
        return sorted(sorted(paths) for paths in self._forms.values() if len(paths) > 1)

    def add(self, note: Note) -> None:
        path = note.path
        if path is None:
            return
        if path in self._keys:
            self.remove(path)
        lowered = _key(path)
        self._paths[lowered] = path
        self._paths[lowered.removesuffix(".md")] = path
        self._forms[unicodedata.normalize("NFC", path)].add(path)
        self.titles[path] = note.title
        stem = posixpath.splitext(posixpath.basename(path))[
            0
        ]  # PurePosixPath(path).stem, without a path object per note
        keys = tuple({_key(str(key).strip()) for key in (note.title, stem, note.permalink, *_aliases(note)) if key})
        for key in keys:
            self._names[key].add(path)
        self._keys[path] = keys

    def remove(self, path: str) -> None:
        for key in self._keys.pop(path, ()):
            paths = self._names.get(key)
            if paths is not None:
                paths.discard(path)
                if not paths:
                    del self._names[key]
        lowered = _key(path)
        for key in (lowered, lowered.removesuffix(".md")):
            if self._paths.get(key) == path:
                del self._paths[key]
        form = unicodedata.normalize("NFC", path)
        self._forms[form].discard(path)
        if not self._forms[form]:
            del self._forms[form]
        else:  # its twin answers for the name now
            other = min(self._forms[form])
            self._paths.setdefault(lowered, other)
            self._paths.setdefault(lowered.removesuffix(".md"), other)
        self.titles.pop(path, None)

    def candidates(self, name: str) -> list[str]:
        cleaned = _clean_name(name)
        if cleaned in self.titles:  # a path exactly as it is on disk
            return [cleaned]
        key = _key(cleaned).replace("\\", "/")
        if not key:
            return []
        if key in self._paths:
            return [self._paths[key]]
        found = self._names.get(key) or (self._names.get(key[:-3]) if key.endswith(".md") else None)
        if found:  # `[[Old.md]]` names the note `Old`, as in Obsidian
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
        close = difflib.get_close_matches(_key(_clean_name(name)), list(self._names), n=3, cutoff=0.6)
        # each as the note's title is written, not as the key it is looked up by (`Alpha`, not `alpha`)
        titles = dict.fromkeys(self.titles[path] for key in close for path in sorted(self._names[key]))
        hint = f"; did you mean {', '.join(repr(c) for c in titles)}?" if titles else "; check the name or use its path"
        raise NoteNotFound(f"no note named '{_clean_name(name)}'{hint}")

    def try_resolve(self, name: str) -> str | None:
        found = self.candidates(name)
        return found[0] if len(found) == 1 else None


class Corpus:
    """The notes of a vault as the services read them.

    From a catalog, notes are loaded by type as they are asked for (`of_type` loads one type,
    `notes` all of them) and kept current: every read first catches up the loaded notes with the
    rows changed since the last one. `select` decodes only the notes of a type that a filter on
    their header keeps, when that type is not loaded yet: a hook that wants the failed episodes of
    3,000 parses those alone."""

    def __init__(self, vault: Vault, vault_index: VaultIndex | None = None):
        self.vault = vault
        self._vault_index = vault_index  # the open vault's (a Memory's), else this corpus's own, made at first use
        self._cache: dict[str, tuple[tuple[int, int] | int, Note]] = {}  # path -> (stat or catalog gen, note)
        self._signature: object = None
        self._generation: int | None = None
        self._types: frozenset[str] | None = frozenset()  # the types whose notes are all loaded; None: every note
        self._catalog: Any = None  # the catalog the notes came from, while they do
        self._list: list[Note] | None = None  # the loaded notes by path
        self._by_type: dict[str, list[Note]] = {}
        self._resolver: Resolver | None = None
        self.derived: dict[str, Any] = {}  # caches built from the notes (e.g. the causal graph)
        # what a domain keeps for the life of the open vault, not cleared by a change (the run
        # vectors, the facts journal's end); dropped by `close`
        self.kept: dict[str, Any] = {}
        self._memos: dict[str, dict[str, tuple[Note, object]]] = {}  # see `memo`
        self._checks_held = 0  # inside `checked_once`
        self._checked = False
        self._checked_index: Index | None = None  # the index whose reads took this block's look

    def notes(self) -> list[Note]:
        """Every note in the vault as it is on disk now (see the module doc for how that stays cheap)."""
        self._sync(None)
        return list(self._sorted())  # the caller's to change

    def of_type(self, note_type: str) -> list[Note]:
        """The notes of one type, as they are on disk now; from a catalog, only that type is loaded."""
        self._sync(frozenset({note_type}))
        return list(self._held(note_type))

    def _held(self, note_type: str) -> list[Note]:
        found = self._by_type.get(note_type)
        if found is None:
            found = self._by_type[note_type] = [note for note in self._sorted() if note.type == note_type]
        return found

    def select(
        self,
        note_type: str,
        keep: Callable[[NoteHeader], bool],
        *,
        first: tuple[Callable[[NoteHeader], Any], int] | None = None,
        equal: tuple[str, str] | None = None,
    ) -> list[Note]:
        """The notes of a type whose header (path, title, frontmatter) `keep` accepts, by path; with
        `first=(key, n)`, the first n of them by `key` of their header, in that order. Before that
        type is loaded from a catalog, only the notes returned are decoded, and they are not kept:
        what a one-shot reader (a hook, a CLI command) needs of a large vault. `equal=(key, value)`
        says that `keep` accepts only notes whose frontmatter `key` reads as `value` (`str(value)`):
        the catalog then decodes the headers of those alone (at 50,000 notes, the failed episodes
        of 15,000)."""
        self.refresh()
        if not self.holds(note_type):  # from the catalog (a vault read from its files holds every type)
            rows = self._catalog.load_where(note_type, keep, first, equal)
            return [note for _, note in rows.values()]
        found = [note for note in self._held(note_type) if keep(note.header)]
        if first is not None:
            key, count = first
            found = sorted(found, key=lambda note: key(note.header))[:count]
        return found

    def has_value(self, note_type: str, key: str, value: str) -> bool:
        """Whether a note of the type has `value` under the frontmatter `key` (compared as text);
        from the catalog, without decoding any note."""
        self.refresh()
        if not self.holds(note_type):
            found: bool = self._catalog.has_value(note_type, key, value)
            return found
        return any(str(note.frontmatter.get(key)) == value for note in self._held(note_type))

    def holds(self, note_type: str) -> bool:
        """Whether the notes of a type are in memory and kept current, so that a cache built from them
        may live in `derived` (a change of one of them clears it). Values built from `select` or
        `summaries` of a type not held must not: nothing would clear them."""
        return self._types is None or note_type in self._types

    def refresh(self) -> None:
        """Bring the notes loaded so far up to date with the vault (clearing `derived` on a
        change), loading no others: for readers of a `derived` cache."""
        self._sync(frozenset())

    @contextmanager
    def checked_once(self) -> Iterator[Corpus]:
        """Reads inside check the vault's files once, at the first: for an answer made of several
        reads (a hook's context), which a stat scan per read would slow down on a large vault and
        could answer from two states of the vault."""
        self._checks_held += 1
        try:
            yield self
        finally:
            self._checks_held -= 1
            if not self._checks_held:
                self._checked = False
                if self._checked_index is not None:
                    self._checked_index.reads.checked, self._checked_index = None, None

    def _sync(self, types: frozenset[str] | None) -> None:
        index = self._index()
        if index is None or not self._from_catalog(index, types):
            self._from_files()

    def _sorted(self) -> list[Note]:
        if self._list is None:
            self._list = [entry[1] for _, entry in sorted(self._cache.items())]
        return self._list

    @property
    def vault_index(self) -> VaultIndex:
        """The vault's index as this open vault holds it (see index/engine.py)."""
        if self._vault_index is None:
            from brain.index.vault_index import VaultIndex  # the index package is optional for a plain read

            self._vault_index = VaultIndex(self.vault)
        return self._vault_index

    def open_index(self) -> Index:
        """The vault's Index, created if it has none (search, `brain index`)."""
        return self.vault_index.open()

    def existing_index(self) -> Index | None:
        """The vault's Index if it has one (readers and brain's own writes never create one)."""
        return self.vault_index.existing()

    def close(self) -> None:
        """Release what this corpus holds: its index (when it opened its own, or was given one to
        close with it) and what the domains kept."""
        self.kept.clear()
        if self._vault_index is not None:
            self._vault_index.close()

    def _index(self) -> Index | None:
        try:
            return self.existing_index()
        except (sqlite3.Error, OSError) as error:
            log.warning("index unusable (%s); reading the notes from their files", _why(error, self.vault))
            return None

    def _from_catalog(self, index: Index, types: frozenset[str] | None) -> bool:
        from brain.index.watch.fresh import ensure_fresh

        if index.read_only:  # a catalog that cannot be refreshed: the files themselves are exact
            return False
        if not index.watched_here and index.watcher_alive() and not index.watcher_current():
            # a watcher holds the index but is suspended or busy (it may hold the index lock for a
            # long batch): the files themselves are exact, and reading them waits for no one
            return False
        try:
            if not self._checked:
                watched = ensure_fresh(index)
                self._checked = self._checks_held > 0
                if self._checked:  # the command's other reads of this index (a search) take this look too
                    index.reads.checked, self._checked_index = watched, index
            if self._signature != "catalog" or self._generation is None:
                self._cache, self._types, self._generation = {}, frozenset(), -1
                self._changed()
            catalog = self._catalog = index.catalog
            if catalog.generation() != self._generation:
                self._catch_up(catalog, self._generation)
            missing = _missing(self._types, types)
            if missing != frozenset():
                self._load_types(catalog, missing)
            self._signature = "catalog"
            return True
        except (sqlite3.Error, OSError) as error:
            log.warning("index unusable (%s); reading the notes from their files", _why(error, self.vault))
            self._catalog = None
            return False

    def _catch_up(self, catalog: Catalog, known: int) -> None:
        """Reload the loaded notes whose rows changed after generation `known` (the last read); drop the removed ones."""
        types = self._types
        if types == frozenset():  # nothing loaded: nothing to catch up
            self._generation = catalog.generation()
            return
        generation, changed, count = catalog.changes_since(known, types)
        added = sum(1 for path in changed if path not in self._cache)
        if count == len(self._cache) + added:  # nothing removed: the changed rows are all there is to do
            versions, gone = changed, []
        else:
            versions = catalog.note_versions(types)
            gone = [path for path in self._cache if path not in versions]
        stale = [path for path, gen in versions.items() if self._cache.get(path, ((), None))[0] != gen]
        if stale or gone:
            loaded = catalog.load_rows(None, types=types) if len(stale) > count // 2 else catalog.load_rows(stale)
            for path in gone:
                del self._cache[path]
            reloaded = []
            for path in stale:
                if path in loaded:
                    self._cache[path] = loaded[path]
                    reloaded.append(loaded[path][1])
                elif self._cache.pop(path, None) is not None:  # removed since its row was listed
                    gone.append(path)
            self._changed(gone, reloaded)
            _freeze_if_many(len(reloaded))
        self._generation = generation

    def _load_types(self, catalog: Catalog, missing: frozenset[str] | None) -> None:
        """Add the notes of the types not loaded yet (None: of every type not loaded yet). Notes
        added are no change of what was loaded: `derived` and the memos stay, unless a loaded note
        is among them under another type (another process changed its type since the catch-up)."""
        if missing is None:
            rows = catalog.load_rows(None, other_than=self._types or frozenset())
        else:
            rows = catalog.load_rows(None, types=missing)
        retyped = [row[1] for path, row in rows.items() if path in self._cache and self._cache[path][0] != row[0]]
        self._cache.update(rows)
        self._types = None if missing is None else (self._types or frozenset()) | missing
        self._list, self._by_type = None, {}
        if retyped:
            self._changed((), retyped)  # updates the resolver with them too
        if self._resolver is not None:
            for _, note in rows.values():
                self._resolver.add(note)
        _freeze_if_many(len(rows))

    def _from_files(self) -> None:
        """Stat every file, re-parse those whose size or mtime changed."""
        self._catalog = None
        seen: dict[str, tuple[tuple[int, int] | int, Note]] = {}
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
        self._cache, self._types = seen, None
        if signature != self._signature:
            self._signature = signature
            self._generation = None
            self._changed()

    def _changed(self, gone: Iterable[str] | None = None, loaded: Iterable[Note] | None = None) -> None:
        """Forget what was built from the notes. When the caller says which notes went and which
        were (re)loaded, the resolver is updated in place and `memo` keeps the other notes' values:
        after an edit of one note in 10,000, rebuilding those was most of a read's cost."""
        self._list, self._by_type = None, {}
        self.derived.clear()
        if gone is None or loaded is None:
            self._resolver = None
            self._memos.clear()
            return
        for memo in self._memos.values():
            for path in gone:
                memo.pop(path, None)
        if self._resolver is not None:
            for path in gone:
                self._resolver.remove(path)
            for note in loaded:
                self._resolver.add(note)

    def memo(self, key: str, note: Note, compute: Callable[[Note], T]) -> T:
        """`compute(note)`, remembered for as long as this note is unchanged (the corpus keeps the
        same Note object until its file changes), so caches rebuilt after an edit redo one note."""
        memo = self._memos.setdefault(key, {})
        seen = memo.get(note.path or "")
        if seen is not None and seen[0] is note:
            return cast(T, seen[1])  # what `compute` made for this key: one key, one kind of value
        value = compute(note)
        memo[note.path or ""] = (note, value)
        return value

    def summaries(
        self, name: str, note_type: str, compute: Callable[[Note], T], fits: Callable[[Any], bool]
    ) -> list[T]:
        """`compute(note)` for every note of a type, by path. From a catalog whose notes of that
        type are not loaded, the values are kept on disk by the hash of each note's file
        (`index.summaries`), so a later process decodes only the notes changed since: the
        first-prompt hook ranks 2,500 patterns without parsing one. `compute` must return JSON
        (lists for tuples), and `fits` accept exactly what it returns: a value read back that it
        refuses is computed again. Change `name` when what it computes changes."""
        self.refresh()
        if self.holds(note_type):  # in memory (a vault read from its files holds every type)
            return [self.memo(name, note, compute) for note in self._held(note_type)]
        from brain.index.catalog import summaries

        path = summaries.summary_path(self.vault.index_dir, name)
        stored = summaries.load(path, fits)
        # the hashes and the notes computed from are read in one snapshot of the catalog: a value is
        # never filed under the hash of another version of its note
        hashes, rows = self._catalog.hashed_rows(
            note_type, lambda hashes: [key for key, sha in hashes.items() if stored.get(key, [None])[0] != sha]
        )
        kept = {key: stored[key] for key, sha in hashes.items() if key in stored and stored[key][0] == sha}
        fresh = {key: [hashes[key], compute(note)] for key, (_, note) in rows.items()}
        if fresh or len(kept) != len(stored):
            summaries.save(path, kept | fresh)
        values = kept | fresh
        return [values[key][1] for key in sorted(values)]

    def resolver(self) -> Resolver:
        notes = self.notes()
        if self._resolver is None:
            self._resolver = Resolver(notes)
        return self._resolver

    def get(self, name: str) -> Note:
        """The note a name resolves to (path, title, stem or permalink)."""
        path = self.resolver().resolve(name)
        return self._cache[path][1]


def _missing(loaded: frozenset[str] | None, wanted: frozenset[str] | None) -> frozenset[str] | None:
    """The types still to load (None: every type not loaded yet; empty: none)."""
    if loaded is None:
        return frozenset()
    if wanted is None:
        return None
    return wanted - loaded


def _freeze_if_many(count: int) -> None:
    if count >= FREEZE_FROM:
        # Many notes just loaded will live as long as the corpus. Moving them out of the cyclic
        # collector's reach spares every later full collection a walk over them (60+ ms at
        # 10,000 notes, at random moments after an edit). They are still freed by reference
        # counting when replaced.
        gc.freeze()


def _why(error: Exception, vault: Vault) -> object:
    """What made the index unusable, in brain's words when it is a fault of the disk (SQLite says
    "disk I/O error" for a full one)."""
    from brain.errors import storage_error

    translated = storage_error(error, disk=str(vault.root))
    return str(translated).split(";")[0] if translated is not None else error
