"""Saved contexts: what an agent did or learned, with its action type, rationale and cause.

A context is a note of type `context` in `contexts/`: frontmatter `project`,
`action_type`, `caused_by` (one `[[Note]]` or a list of them) and `rationale`; the body is the
content. `caused_by` may name any note, of any type. Saving checks everything first (content,
action type, that every cause is one existing note, that the new note would not become its own
ancestor through a link that names it before it exists) and writes nothing when a check fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import PurePosixPath

from brain.errors import InvalidInput, Remedy, UsageError
from brain.markdown.model import ACTION_TYPES, Note
from brain.markdown.parse import link_targets
from brain.markdown.summary import causes_named, cut, first_line, note_summary, note_time, text_field
from brain.memory.causal.chains import ancestor_names
from brain.memory.corpus import Corpus, Resolver
from brain.memory.notes.service import write_note
from brain.memory.timeutil import parse_instant
from brain.vault.vault import TYPE_FOLDERS, Vault

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
TITLE_CHARS = 80


@dataclass(frozen=True)
class ContextEntry:
    path: str
    title: str
    project: str | None
    action_type: str | None
    created: str | None
    caused_by: tuple[str, ...]
    rationale: str | None
    summary: str


@dataclass(frozen=True)
class SavedContext:
    path: str
    title: str
    project: str
    action_type: str
    caused_by: tuple[str, ...]  # the paths of the notes named as causes


def context_entry(note: Note) -> ContextEntry:
    return ContextEntry(
        path=note.path or "",
        title=note.title,
        project=text_field(note, "project"),
        action_type=text_field(note, "action_type"),
        created=note_time(note),
        caused_by=causes_named(note),
        rationale=text_field(note, "rationale"),
        summary=note_summary(note),
    )


# ---------------------------------------------------------------- load


def load_contexts(corpus: Corpus, project: str, *, limit: int = DEFAULT_LIMIT) -> list[ContextEntry]:
    """A project's contexts, newest first (contexts without a time come last)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    wanted = _project(project)
    found = [
        note for note in corpus.of_type("context") if (text_field(note, "project") or "").lower() == wanted.lower()
    ]
    oldest = datetime.min.replace(tzinfo=UTC)
    found.sort(key=lambda note: (_instant(note_time(note)) or oldest, note.path or ""), reverse=True)
    return [context_entry(note) for note in found[:limit]]


def projects(corpus: Corpus) -> list[str]:
    """Every project named by a context, sorted."""
    return sorted({name for note in corpus.of_type("context") if (name := text_field(note, "project"))})


def _instant(value: str | None) -> datetime | None:
    try:
        return parse_instant(value, "created") if value else None
    except InvalidInput:
        return None


def _project(project: str) -> str:
    name = (project or "").strip()
    if not name:
        raise UsageError("a context needs a project (e.g. ", Remedy("project", example="refactor-auth"), ")")
    return name


# ---------------------------------------------------------------- save


def check_action_type(action_type: str) -> str:
    value = (action_type or "").strip()
    if not value:
        raise UsageError(f"a context needs an action type: one of {', '.join(ACTION_TYPES)}")
    if value not in ACTION_TYPES:
        raise UsageError(f"action type '{action_type}' is not one of {', '.join(ACTION_TYPES)}")
    return value


def save_context(
    corpus: Corpus,
    content: str,
    *,
    project: str,
    action_type: str,
    caused_by: list[str] | tuple[str, ...] = (),
    rationale: str | None = None,
    title: str | None = None,
) -> SavedContext:
    """Write a context note in `contexts/`; every check runs before anything is written."""
    vault = corpus.vault
    if not content or not content.strip():
        raise UsageError("a context needs content (the text to save); it is empty")
    project = _project(project)
    action_type = check_action_type(action_type)
    resolver = corpus.resolver()
    chosen_title = _free_title(resolver, vault, (title or "").strip() or _title_from(content))
    stem = vault.filename_for(chosen_title).removesuffix(".md")
    names = {
        name.lower() for name in (chosen_title, stem, f"{TYPE_FOLDERS['context']}/{stem}")
    }  # what a link to it may say
    causes: list[str] = []
    for name in caused_by:
        if not name or not str(name).strip():
            raise UsageError(
                Remedy("caused_by"), " holds an empty name; give the title, stem or path of the causing note"
            )
        if _bare(name).lower() in names:
            raise InvalidInput(f"'{chosen_title}' cannot be caused by itself; name the note that led to it")
        path = resolver.resolve(name)
        if path not in causes:
            causes.append(path)
    loop = sorted(name for name in ancestor_names(corpus, causes) if name.lower() in names)
    if loop:
        causing = ", ".join(resolver.titles.get(path, path) for path in causes)
        raise InvalidInput(
            Remedy("caused_by"),
            f" would make '{chosen_title}' its own ancestor: {causing} (or a note before it) names '{loop[0]}' as its cause",
        )
    # milliseconds: an agent saves several contexts a second, and load lists them newest first
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    fields: dict[str, object] = {"created": now, "project": project, "action_type": action_type}
    links = [_link(resolver, path) for path in causes]
    if links:
        fields["caused_by"] = links[0] if len(links) == 1 else links
    if rationale and rationale.strip():
        fields["rationale"] = " ".join(rationale.split())
    tags = ("context", *dict.fromkeys(tag for tag in (_tag(project), action_type) if tag))
    body = f"# {chosen_title}\n\n{content.strip()}\n"
    written = write_note(corpus, chosen_title, body, note_type="context", tags=tags, fields=fields)
    return SavedContext(written.path, chosen_title, project, action_type, tuple(causes))


def _bare(name: str) -> str:
    targets = link_targets(str(name))
    return (targets[0] if targets else str(name)).strip()


def _title_from(content: str) -> str:
    line = first_line(content) or content.strip().splitlines()[0]
    line = " ".join(line.replace("**", "").replace("`", "").split())
    return cut(line, TITLE_CHARS).removesuffix("...").rstrip(" .,:;") or "Context"


def _free_title(resolver: Resolver, vault: Vault, title: str) -> str:
    """The title, or `title 2`, `title 3` ... when a note already has it: saving never overwrites."""
    folder = TYPE_FOLDERS["context"]
    candidate, number = title, 1
    while resolver.candidates(candidate) or vault.safe_path(f"{folder}/{vault.filename_for(candidate)}").exists():
        number += 1
        candidate = f"{title} {number}"
    return candidate


def _link(resolver: Resolver, path: str) -> str:
    """`[[Title]]` when the title names only that note, else `[[folder/stem]]`."""
    title = resolver.titles.get(path, "")
    if title and resolver.candidates(title) == [path] and not any(char in title for char in "[]|#"):
        return f"[[{title}]]"
    return f"[[{PurePosixPath(path).with_suffix('')!s}]]"


def _tag(project: str) -> str:
    return re.sub(r"[^\w/-]+", "-", project.strip()).strip("-")
