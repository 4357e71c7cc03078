"""Any note: read, write, edit, move, delete. Typed services build on the same vault calls."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from brain.errors import BrainError, InvalidInput, Remedy, UsageError
from brain.memory.corpus import Corpus, Resolver
from brain.memory.facts.holds import held_titles
from brain.notes import frontmatter_yaml
from brain.notes.edit import EDIT_OPERATIONS, apply_edit, set_frontmatter
from brain.notes.fact import changed_managed_keys
from brain.notes.lines import line_ending, require_one_line, split_lines, with_ending
from brain.notes.links import rewrite_links
from brain.notes.model import Note
from brain.notes.parse import parse_note
from brain.vault import TYPE_FOLDERS

DEFAULT_FOLDER = "notes"


@dataclass(frozen=True)
class Written:
    path: str
    title: str
    created: bool


def read_note(corpus: Corpus, name: str) -> Note:
    return corpus.get(name)


def _folder(folder: str | None, note_type: str | None) -> str:
    chosen = folder if folder is not None else TYPE_FOLDERS.get(note_type or "", DEFAULT_FOLDER)
    return chosen.strip().rstrip("/")


def write_note(
    corpus: Corpus,
    title: str,
    body: str,
    *,
    folder: str | None = None,
    note_type: str | None = None,
    tags: tuple[str, ...] = (),
    fields: dict[str, Any] | None = None,
    overwrite: bool = False,
) -> Written:
    """Create a note (or, with `overwrite`, replace the body of the note with that title)."""
    vault = corpus.vault
    title = unicodedata.normalize("NFC", title.strip())
    if not title:
        raise UsageError("a note needs a title")
    require_one_line(title, "title")
    fields = dict(fields or {})
    reserved = {"title", "type", "tags", "permalink"} & set(fields)
    if reserved:
        raise UsageError(f"set {', '.join(sorted(reserved))} with their own options, not as fields")
    folder_path = _folder(folder, note_type)
    relative = str(PurePosixPath(folder_path) / vault.filename_for(title)) if folder_path else vault.filename_for(title)
    vault.safe_path(relative)  # refuse a hostile folder before anything else
    existing = corpus.resolver().try_resolve(relative) or (relative if vault.safe_path(relative).exists() else None)
    titled = _titled(corpus, title) if existing is None else []
    if len(titled) > 1:
        raise InvalidInput(f"notes titled '{title}' already exist ({', '.join(titled)}); edit one of them")
    existing = existing or (titled[0] if titled else None)
    if existing is not None:
        if not overwrite:
            raise InvalidInput(
                f"'{existing}' already exists; give ", Remedy("overwrite"), " to replace its body, or edit it"
            )
        updates = {**fields, **({"type": note_type} if note_type else {}), **({"tags": list(tags)} if tags else {})}

        def new_body(note: Note) -> str:
            head = "".join(split_lines(note.text)[: note.body_start])
            text = head + with_ending(_body(body), line_ending(note.text))
            text = set_frontmatter(text, updates) if updates else text
            _keep_fact_immutable(note, text)
            return text

        vault.update(existing, new_body)
        return Written(existing, title, created=False)
    fm: dict[str, Any] = {"title": title}
    if note_type:
        fm["type"] = note_type
    fm["tags"] = list(tags)
    fm["permalink"] = relative.removesuffix(".md").lower().replace(" ", "-")
    fm["created"] = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    fm.update(fields)
    vault.write(relative, f"---\n{frontmatter_yaml.dump(fm)}---\n\n{_body(body)}", create=True)
    return Written(relative, title, created=True)


def _titled(corpus: Corpus, title: str) -> list[str]:
    """The notes in any folder already titled `title` (a second one would make the name ambiguous)."""
    resolver = corpus.resolver()
    wanted = title.casefold()
    return [path for path in resolver.candidates(title) if resolver.titles.get(path, "").casefold() == wanted]


def _body(body: str) -> str:
    return body.strip("\n") + "\n" if body.strip() else ""


def edit_note(
    corpus: Corpus,
    name: str,
    operation: str,
    *,
    content: str = "",
    section: str | None = None,
    find: str | None = None,
    expected_count: int | None = None,
    frontmatter: dict[str, Any] | None = None,
    replace_all: bool = False,
) -> Written:
    """Change one part of a note; everything else stays byte for byte.

    find_replace replaces the one occurrence of `find`; when it occurs more often, the caller
    says how many (`expected_count`) or `replace_all`, else nothing changes."""
    vault = corpus.vault
    if operation not in EDIT_OPERATIONS:
        raise InvalidInput(f"unknown edit operation '{operation}'; use one of {', '.join(EDIT_OPERATIONS)}")
    path = corpus.resolver().resolve(name)

    def edited(note: Note) -> str:
        text = apply_edit(
            note.text,
            operation,
            content=content,
            section=section,
            find=find,
            expected_count=expected_count,
            frontmatter=frontmatter,
            where=path,
            replace_all=replace_all,
        )
        if text != note.text:
            _keep_fact_immutable(note, text)
        return text

    done = vault.update(path, edited)
    return Written(path, done.before.title, created=False)


def _keep_fact_immutable(before: Note, text: str) -> None:
    """A fact's managed keys and type change only through the fact commands: a new value is a
    supersession, and no note tool can lift a legal hold, move a delete date or make it a plain note."""
    changed = changed_managed_keys(before, parse_note(text, before.path))
    if changed:
        raise InvalidInput(
            f"{before.path} is a fact; the note tools do not change its {', '.join(changed)}. Record a new value with ",
            Remedy("supersede_fact"),
            ", close it with ",
            Remedy("invalidate_fact"),
        )


@dataclass(frozen=True)
class Moved:
    path: str
    title: str
    moved_from: str
    links: int  # links rewritten
    notes: tuple[str, ...]  # notes whose links were rewritten
    failed: tuple[str, ...] = ()  # notes whose links could not be rewritten, each with why


def move_note(corpus: Corpus, name: str, destination: str, *, update_links: bool = True) -> Moved:
    """Move a note to a folder (keeping its file name) or to a path ending in .md.

    Every wikilink to it in every note is rewritten to still reach it (unless `update_links` is
    False), each rewrite a version in the history; the title follows a new file name unless the
    note's title was set to something other than its old file name.
    """
    vault = corpus.vault
    resolver = corpus.resolver()
    source = resolver.resolve(name)
    destination = destination.strip()
    if not destination:
        raise InvalidInput("give a destination folder or path")
    target = (
        destination
        if destination.lower().endswith(".md")
        else f"{destination.rstrip('/')}/{PurePosixPath(source).name}"
    )
    note = corpus.get(source)
    old_stem, new_stem = PurePosixPath(source).stem, PurePosixPath(target).stem
    renamed = old_stem != new_stem
    follows = renamed and str(note.frontmatter.get("title", "")).strip() in ("", old_stem)
    linking = _linking(corpus, source) if update_links else {}
    vault.move(source, target)
    title = note.title
    if follows and "title" in note.frontmatter:
        vault.update(target, lambda moved: set_frontmatter(moved.text, {"title": new_stem}))
        title = new_stem
    elif follows and note.title == old_stem:
        title = new_stem
    rename = _renamer(resolver, source, target, note, title, renamed)
    links, changed, failed = 0, [], []
    for path in sorted(linking):
        where = target if path == source else path
        count = [0]
        change = functools.partial(_rewritten, targets=frozenset(linking[path]), rename=rename, count=count)
        try:
            vault.update(where, change)
        except BrainError as error:
            failed.append(f"{where}: {error}")
            continue
        if count[0]:
            links += count[0]
            changed.append(where)
    return Moved(target, title, source, links, tuple(changed), tuple(failed))


def _rewritten(note: Note, *, targets: frozenset[str], rename: Callable[[str], str], count: list[int]) -> str:
    """`note`'s text with its links to the moved note (written as one of `targets`) renamed; `count[0]` how many."""
    text, count[0] = rewrite_links(note.text, lambda target: rename(target) if target in targets else None)
    return text


def _linking(corpus: Corpus, source: str) -> dict[str, set[str]]:
    """Each note that links `source`, with the link targets (as written) that reach it."""
    resolver = corpus.resolver()
    found: dict[str, set[str]] = {}
    for note in corpus.notes():
        for link in note.links:
            if resolver.candidates(link.target) == [source]:
                found.setdefault(note.path or "", set()).add(link.target)
    return found


def _renamer(
    resolver: Resolver, source: str, target: str, note: Note, title: str, renamed: bool
) -> Callable[[str], str]:
    """How a link target that reached `source` is written to reach `target`: a path stays a path
    (`[[folder/Old]]` -> `[[new/New]]`), a name that was the file name or a title that changed
    becomes the new name, or the new path when another note has that name; a permalink, an alias
    or an unchanged title still reach the note and stay."""
    new_path = target.removesuffix(".md")
    stem = PurePosixPath(target).stem
    taken = [path for path in resolver.candidates(stem) if path != source]
    new_name = new_path if taken else stem

    def rename(written: str) -> str:
        key = written.casefold().replace("\\", "/")
        if "/" in key:
            return target if key.endswith(".md") else new_path
        if key.removesuffix(".md") == PurePosixPath(source).stem.casefold():
            return new_name if renamed or taken else written
        if key == note.title.casefold() and title != note.title:
            return new_name
        return written

    return rename


def delete_note(corpus: Corpus, name: str) -> Written:
    vault = corpus.vault
    source = corpus.resolver().resolve(name)
    if corpus.get(source).type == "fact":
        raise InvalidInput(
            f"{source} is a fact, and a fact is never deleted: close it with ",
            Remedy("invalidate_fact"),
            "; only the retention sweep hard-deletes facts",
        )
    title = corpus.resolver().titles.get(source, "")
    if title.lower() in held_titles(vault):  # a held fact whose note was edited into another type
        raise InvalidInput(
            f"{source} is under a legal hold (the hold register names {title}); it is not deleted. ",
            Remedy("release_hold"),
        )
    vault.delete(source)
    return Written(source, title, created=False)


def parse_fields(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs; the value is read as YAML so numbers, booleans and lists keep their type."""
    fields: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not re.match(r"^[A-Za-z_][\w-]*$", key.strip()):
            raise UsageError(f"'{pair}' is not key=value (a key is letters, digits, '_' or '-')")
        loaded, problem = frontmatter_yaml.load(f"v: {value}" if value.strip() else "v: ''")
        fields[key.strip()] = value if problem else loaded.get("v")
    return fields
