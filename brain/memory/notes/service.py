"""Any note: read, write, edit, move, delete. Typed services build on the same vault calls."""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import Any

from brain.errors import InvalidInput, NoteExists, Remedy, UsageError
from brain.markdown import frontmatter_yaml
from brain.markdown.edit import EDIT_OPERATIONS, apply_edit, set_frontmatter
from brain.markdown.lines import line_ending, require_one_line, split_lines, with_ending
from brain.markdown.links import markdown_links
from brain.markdown.model import Note
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus, Resolver
from brain.memory.facts.holds import held_titles
from brain.memory.facts.note import changed_managed_keys
from brain.memory.notes import move_journal
from brain.memory.notes.move_journal import Moved
from brain.vault.vault import TYPE_FOLDERS, Vault

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


def move_note(corpus: Corpus, name: str, destination: str, *, update_links: bool = True) -> Moved:
    """Move a note to a folder (keeping its file name) or to a path ending in .md.

    Every link to it in every note (wikilinks, and markdown links to its file) is rewritten to
    still reach it (unless `update_links` is False), each rewrite a version in the history; the
    title follows a new file name unless the note's title was set to something other than its
    old file name. The whole move is written down first (`move_journal`), so a move killed
    part-way is finished by the next brain command. A new file name another note already has is
    refused: the links to that note would become ambiguous; so is a path where a file is already.
    A move onto the note's own path changes nothing (and `Moved.moved` says so).
    """
    vault = corpus.vault
    with move_journal.locked(vault):
        move_journal.finish_pending(vault)  # one killed before: finished first, on the notes as it left them
        resolver = corpus.resolver()
        source = resolver.resolve(name)
        target = _destination(source, destination)
        note = corpus.get(source)
        if vault.safe_path(target) == vault.safe_path(source):
            return Moved(source, note.title, source, 0, ())
        _refuse_taken_file(vault, source, target)
        _refuse_taken_name(resolver, source, target)
        plan, title = _plan(corpus, source, target, note, update_links)
        move_journal.write_plan(vault, plan)
        return move_journal.carry_out(vault, plan, title, planned_now=True)


def _refuse_taken_file(vault: Vault, source: str, target: str) -> None:
    """A file is there already (a note, or a file brain does not read as one): nothing moves onto
    it. The same file under another case, on a disk that ignores case, is a rename of the note."""
    there, mine = vault.safe_path(target), vault.safe_path(source)
    if there.exists() and not (mine.exists() and os.path.samefile(mine, there)):
        raise NoteExists(f"'{target}' exists already; move the note to another name")


def _destination(source: str, destination: str) -> str:
    destination = destination.strip()
    if not destination:
        raise InvalidInput("give a destination folder or path")
    if destination.lower().endswith(".md"):
        return destination
    return f"{destination.rstrip('/')}/{PurePosixPath(source).name}"


def _refuse_taken_name(resolver: Resolver, source: str, target: str) -> None:
    """A note may not take a name another note answers to: `[[Name]]` would match both."""
    stem = PurePosixPath(target).stem
    found = resolver.candidates(stem)
    same_file = unicodedata.normalize("NFC", target)  # a twin in another Unicode form: `Vault.move` refuses it
    others = [path for path in found if path != source and unicodedata.normalize("NFC", path) != same_file]
    if others and source not in found:
        raise NoteExists(
            f"{', '.join(others)} already answers to '{stem}'; moving {source} to {target} would make "
            f"[[{stem}]] match two notes. Choose another file name"
        )


def _plan(
    corpus: Corpus, source: str, target: str, note: Note, update_links: bool
) -> tuple[move_journal.MovePlan, str]:
    """The whole move, and the note's title after it."""
    old_stem, new_stem = PurePosixPath(source).stem, PurePosixPath(target).stem
    written_title = str(note.frontmatter.get("title", "")).strip()
    follows = old_stem != new_stem and written_title in ("", old_stem)
    title = new_stem if follows and (note.title == old_stem or "title" in note.frontmatter) else note.title
    retitle = new_stem if follows and "title" in note.frontmatter else None
    wikilinks: dict[str, dict[str, str]] = {}
    paths: dict[str, dict[str, str]] = {}
    if update_links:
        resolver = corpus.resolver()
        rename = _renamer(resolver, source, target, note, title, old_stem != new_stem)
        for path, targets in _linking(corpus, source).items():
            renamed = {written: rename(written) for written in targets}
            wikilinks[path] = {old: new for old, new in renamed.items() if old != new}
        for linking in corpus.notes():
            moved_paths = _markdown_renames(resolver, linking, source, target)
            if moved_paths:
                paths[linking.path or ""] = moved_paths
    plan = move_journal.MovePlan(
        source, target, retitle, written_title, {path: links for path, links in wikilinks.items() if links}, paths
    )
    return plan, title


def _markdown_renames(resolver: Resolver, note: Note, source: str, target: str) -> dict[str, str]:
    """Each markdown link path in `note` that reaches `source` (relative to the note's folder,
    from the vault's root, or by file name alone), with the path that reaches `target` written
    the same way."""
    if "](" not in note.text:
        return {}
    here = posixpath.dirname(note.path or "")
    found: dict[str, str] = {}
    for written in markdown_links(note.text):
        relative = posixpath.normpath(posixpath.join(here, written))
        if "/" not in written and resolver.candidates(written.removesuffix(".md")) == [source]:
            found[written] = PurePosixPath(target).name  # by file name alone, as Obsidian writes it
        elif relative == source:
            found[written] = posixpath.relpath(target, here or ".")
        elif written == source:
            found[written] = target
    return found


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
    (`[[folder/Old]]` -> `[[new/New]]`), a name that was the file name (`[[Old]]`, `[[Old.md]]`)
    or a title that changed becomes the new name; a permalink, an alias or an unchanged title
    still reach the note and stay."""
    new_path = target.removesuffix(".md")
    stem = PurePosixPath(target).stem
    taken = [path for path in resolver.candidates(stem) if path != source]  # an ambiguity there was before
    new_name = new_path if taken else stem

    def rename(written: str) -> str:
        key = written.casefold().replace("\\", "/")
        suffix = ".md" if key.endswith(".md") else ""
        if "/" in key:
            return new_path + suffix
        if key.removesuffix(".md") == PurePosixPath(source).stem.casefold():
            return new_name + suffix if renamed or taken else written
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
