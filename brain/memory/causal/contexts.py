"""Saved contexts: what an agent did or learned, with its action type, rationale and cause.

A context is a note of type `context` in `contexts/` (see DESIGN.md): frontmatter `project`,
`action_type`, `caused_by` (one `[[Note]]` or a list of them) and `rationale`; the body is the
content. `caused_by` may name any note, of any type. Saving checks everything first (content,
action type, that every cause is one existing note, that the new note would not become its own
ancestor through a link that names it before it exists) and writes nothing when a check fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePosixPath

from brain.errors import InvalidInput
from brain.memory.corpus import Corpus, Resolver
from brain.memory.notes.service import write_note
from brain.memory.timeutil import parse_instant
from brain.notes.model import Note
from brain.notes.parse import link_targets, parse_wikilink
from brain.vault import TYPE_FOLDERS, Vault

ACTION_TYPES = ("conversation", "decision", "file_edit", "tool_use", "research")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100
TITLE_CHARS = 80
SUMMARY_CHARS = 160
# Frontmatter keys that date a note, most telling first, for notes of any type.
TIME_KEYS = ("created", "date", "timestamp", "recorded_at", "valid_from")
# The frontmatter key that says in one line what a note of each type is about.
_SUMMARY_KEYS = {"episode": "task", "run": "query", "tip": "trigger", "pattern": "trigger"}


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


# ---------------------------------------------------------------- reading any note


def text_field(note: Note, key: str) -> str | None:
    value = note.frontmatter.get(key)
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    text = str(value).strip()
    return text or None


def note_time(note: Note) -> str | None:
    return next((value for key in TIME_KEYS if (value := text_field(note, key))), None)


def causes_named(note: Note) -> tuple[str, ...]:
    """The names in a note's `caused_by`, as written (one link, a list, or a bare name)."""
    value = note.frontmatter.get("caused_by")
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    names: list[str] = []
    for item in items:
        plain = _single_link(item)
        names += [plain] if plain is not None else link_targets(item)
    return tuple(names)


def _single_link(value: object) -> str | None:
    """The target of a value that is exactly one `[[link]]`: the common case, without the link scanner."""
    if isinstance(value, str) and value.startswith("[[") and value.endswith("]]") and value.count("[[") == 1 and value[2:-2].strip():
        return parse_wikilink(value[2:-2]).target
    return None


def note_summary(note: Note, limit: int = SUMMARY_CHARS) -> str:
    """One line saying what a note is about, taken from the note (never made up)."""
    key = _SUMMARY_KEYS.get(note.type)
    text = text_field(note, key) if key else None
    if note.type == "fact" and text_field(note, "subject"):
        value = note.frontmatter.get("value")
        text = f"{text_field(note, 'subject')} = {value}"
    if not text:
        text = _first_line(note.body) or note.title
    return _first_sentence(" ".join(text.split()), limit)


def _first_line(body: str) -> str:
    """The first paragraph of prose (headings, code fences, tables and rules skipped), lines joined."""
    lines: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "```", "---", "|")):
            if lines:
                break
            continue
        lines.append(re.sub(r"^([-*+]|\d+\.)\s+", "", stripped) if not lines else stripped)
        if re.match(r"^([-*+]|\d+\.)\s+", stripped):
            break  # a list item is a line of its own
    return " ".join(lines)


def _first_sentence(text: str, limit: int) -> str:
    """The first sentence when it fits, else the text cut at a word."""
    end = re.search(r"[.!?](\s|$)", text)
    if end and 20 <= end.end() <= limit:
        return text[: end.end()].strip()
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 3].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "..."


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
        raise InvalidInput(f"limit must be between 1 and {MAX_LIMIT}, got {limit}")
    wanted = _project(project)
    found = [note for note in corpus.of_type("context") if (text_field(note, "project") or "").lower() == wanted.lower()]
    oldest = datetime.min.replace(tzinfo=timezone.utc)
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
        raise InvalidInput("a context needs a project (e.g. --project refactor-auth)")
    return name


# ---------------------------------------------------------------- save


def check_action_type(action_type: str) -> str:
    value = (action_type or "").strip()
    if not value:
        raise InvalidInput(f"a context needs an action type: one of {', '.join(ACTION_TYPES)}")
    if value not in ACTION_TYPES:
        raise InvalidInput(f"action type '{action_type}' is not one of {', '.join(ACTION_TYPES)}")
    return value


def save_context(
    vault: Vault,
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
    from brain.memory.causal.chains import ancestor_names  # chains reads contexts' helpers; import here to keep one direction

    if not content or not content.strip():
        raise InvalidInput("a context needs content (the text to save); it is empty")
    project = _project(project)
    action_type = check_action_type(action_type)
    resolver = corpus.resolver()
    chosen_title = _free_title(resolver, vault, (title or "").strip() or _title_from(content))
    stem = vault.filename_for(chosen_title).removesuffix(".md")
    names = {name.lower() for name in (chosen_title, stem, f"{TYPE_FOLDERS['context']}/{stem}")}  # what a link to it may say
    causes: list[str] = []
    for name in caused_by:
        if not name or not str(name).strip():
            raise InvalidInput("caused_by holds an empty name; give the title, stem or path of the causing note")
        if _bare(name).lower() in names:
            raise InvalidInput(f"'{chosen_title}' cannot be caused by itself; name the note that led to it")
        path = resolver.resolve(name)
        if path not in causes:
            causes.append(path)
    loop = sorted(name for name in ancestor_names(corpus, causes) if name.lower() in names)
    if loop:
        causing = ", ".join(resolver.titles.get(path, path) for path in causes)
        raise InvalidInput(f"caused_by would make '{chosen_title}' its own ancestor: {causing} (or a note before it) names '{loop[0]}' as its cause")
    # milliseconds: an agent saves several contexts a second, and load lists them newest first
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    fields: dict[str, object] = {"created": now, "project": project, "action_type": action_type}
    links = [_link(resolver, path) for path in causes]
    if links:
        fields["caused_by"] = links[0] if len(links) == 1 else links
    if rationale and rationale.strip():
        fields["rationale"] = " ".join(rationale.split())
    tags = ("context", *dict.fromkeys(tag for tag in (_tag(project), action_type) if tag))
    body = f"# {chosen_title}\n\n{content.strip()}\n"
    written = write_note(vault, corpus, chosen_title, body, note_type="context", tags=tags, fields=fields)
    return SavedContext(written.path, chosen_title, project, action_type, tuple(causes))


def _bare(name: str) -> str:
    targets = link_targets(str(name))
    return (targets[0] if targets else str(name)).strip()


def _title_from(content: str) -> str:
    line = _first_line(content) or content.strip().splitlines()[0]
    line = " ".join(line.replace("**", "").replace("`", "").split())
    return _cut(line, TITLE_CHARS).removesuffix("...").rstrip(" .,:;") or "Context"


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
    return f"[[{str(PurePosixPath(path).with_suffix(''))}]]"


def _tag(project: str) -> str:
    return re.sub(r"[^\w/-]+", "-", project.strip()).strip("-")
