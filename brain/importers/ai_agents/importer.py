"""`brain import ai-agents`: find the JSON files, read them, plan every note, then write.

The plan is made against the vault as it is (read once: thousands of notes must not mean
thousands of vault scans), compares what each note must say with what it says now, and writes
only what differs. So a second import of the same data writes nothing, and a newer version of
the data changes only the keys and sections the import manages; prose a person added stays.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brain.errors import InvalidInput, UsageError, WriteConflict
from brain.importers.ai_agents.checks import check_graph
from brain.importers.ai_agents.common import GRAPH_META_KEY, GRAPH_NOTE_TITLE, META_KEY, same
from brain.importers.ai_agents.episodes import episode_import, is_episode
from brain.importers.ai_agents.graph import (
    NoteParts,
    graph_note_text,
    is_graph,
    node_parts,
    pattern_parts,
    split_graph,
    title_candidates,
)
from brain.markdown.edit import replace_section, set_frontmatter
from brain.markdown.model import Note
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.episodes.note import managed_frontmatter, managed_sections
from brain.memory.episodes.service import update_episode_text
from brain.vault.history import acting_as
from brain.vault.vault import TYPE_FOLDERS, Vault

Progress = Callable[[str, int, int], None]  # (phase, done, total)
_NOT_EITHER = (
    "neither an ai-agents episode (an object with an id or session and an outcome, task, decisions or events) "
    "nor a causal graph (an object with nodes, edges or patterns)"
)
_LINK_UNSAFE = re.compile(r"[\[\]|#^\n]")
# Where a missing managed section goes in a pattern note.
_PATTERN_AFTER = {"Trigger": ("Context",), "Action": ("Trigger",), "Causal Relationships": ("Observations", "Action")}


@dataclass(frozen=True)
class Source:
    path: Path
    kind: str  # "episode" | "graph"
    data: dict[str, Any]


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class PlannedWrite:
    path: str
    action: str  # "create" | "update"


@dataclass(frozen=True)
class ImportResult:
    sources: tuple[Source, ...]
    writes: tuple[PlannedWrite, ...]
    unchanged: int
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...]
    counts: dict[str, int] = field(default_factory=dict)  # episodes, graphs, nodes, edges, patterns, kept_verbatim
    dry_run: bool = False


def find_files(path: Path) -> list[Path]:
    """The JSON files to import: the file itself, or every *.json under a folder (hidden ones aside)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise UsageError(f"'{path}' does not exist; give a folder of ai-agents JSON files or one such file")
    files = sorted(
        found
        for found in path.rglob("*.json")
        if found.is_file() and not any(part.startswith(".") for part in found.relative_to(path).parts)
    )
    if not files:
        raise InvalidInput(
            f"'{path}' holds no .json files; expected episode-*.json and/or causal-graph.json"
            " (in an ai-agents checkout they are under .agents/memory)"
        )
    return files


def read_source(path: Path) -> Source | Skipped:
    """One file as an episode or a graph, or the reason it is neither."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # PowerShell writes a BOM
    except UnicodeDecodeError as error:
        return Skipped(str(path), f"not UTF-8 text (byte {error.start})")
    except json.JSONDecodeError as error:
        return Skipped(str(path), f"not JSON ({error.msg} at line {error.lineno}, column {error.colno})")
    except OSError as error:
        return Skipped(str(path), f"cannot be read ({error.strerror})")
    if is_graph(data):
        return Source(path, "graph", data)
    if is_episode(data):
        return Source(path, "episode", data)
    what = f"a JSON {type(data).__name__}" if not isinstance(data, dict) else "a JSON object"
    return Skipped(str(path), f"{what}, {_NOT_EITHER}")


def import_ai_agents(
    vault: Vault, path: Path, *, dry_run: bool = False, progress: Progress | None = None
) -> ImportResult:
    """Import every episode and graph under `path`. A file that cannot be imported is skipped, with its reason."""
    files = find_files(path)
    report = progress or (lambda phase, done, total: None)
    workspace = _Workspace(vault)
    sources: list[Source] = []
    skipped: list[Skipped] = []
    warnings: list[str] = []
    counts = dict.fromkeys(("episodes", "graphs", "nodes", "edges", "patterns", "kept_verbatim"), 0)
    for number, file in enumerate(files, 1):
        found = read_source(file)
        if isinstance(found, Skipped):
            skipped.append(found)
        else:
            plan = _plan_episode if found.kind == "episode" else _plan_graph
            try:
                messages = plan(workspace, found.data, counts)
            except InvalidInput as error:  # the file has the shape but not what a note needs
                skipped.append(Skipped(str(file), str(error)))
            else:
                sources.append(found)
                counts["episodes" if found.kind == "episode" else "graphs"] += 1
                warnings += [f"{file}: {message}" for message in messages]
        report("reading", number, len(files))
    if counts["graphs"] > 1:
        warnings.append(
            f"{path}: {counts['graphs']} causal graphs were merged into one vault graph (same id, same note; the later file wins)"
        )
    writes = tuple(
        PlannedWrite(name, "create" if name in workspace.created else "update") for name in sorted(workspace.texts)
    )
    if not dry_run:
        with acting_as("importer", "import ai-agents"):  # the history names the importer as their writer
            workspace.write(writes, report)
    return ImportResult(
        tuple(sources), writes, len(workspace.touched) - len(writes), tuple(skipped), tuple(warnings), counts, dry_run
    )


# ---------------------------------------------------------------- planning


def _plan_episode(workspace: _Workspace, raw: dict[str, Any], counts: dict[str, int]) -> list[str]:
    found = episode_import(raw)
    episode = found.episode
    path = workspace.identity.get(f"episode:{(episode.episode_id or '').lower()}") if episode.episode_id else None
    path = path or workspace.identity.get(f"episode-title:{episode.title.lower()}")
    if path is None:
        path = f"{TYPE_FOLDERS['episode']}/{Vault.filename_for(episode.title)}"
        there = workspace.note_at(path)
        if there is not None and there.type != "episode":
            raise InvalidInput(f"'{path}' exists and is a {there.type} note, not an episode; it was left alone")
    managed = managed_frontmatter(episode)
    frontmatter = {key: value for key, value in managed.items() if value is not None}
    removed = [key for key, value in managed.items() if value is None]
    if found.meta:
        frontmatter[META_KEY] = found.meta
    else:
        removed.append(META_KEY)
    sections = tuple(managed_sections(episode).items())

    def update(text: str) -> str:
        text = update_episode_text(text, episode, {META_KEY: found.meta} if found.meta else None)
        return text if found.meta else set_frontmatter(text, {}, remove=(META_KEY,))

    workspace.put(path, NoteParts(frontmatter, tuple(removed), sections, found.text), update=update)
    workspace.claim(path, episode.title, episode.episode_id, episode.session)
    workspace.identity.setdefault(f"episode-title:{episode.title.lower()}", path)
    if episode.episode_id:
        workspace.identity.setdefault(f"episode:{episode.episode_id.lower()}", path)
    return list(found.warnings)


def _plan_graph(workspace: _Workspace, raw: dict[str, Any], counts: dict[str, int]) -> list[str]:
    warnings = check_graph(raw)
    parts = split_graph(raw)
    graph_path = workspace.identity.get("graph") or _new_name(workspace, "graph", _graph_titles())[0]
    paths: dict[str, str] = {}
    titles: dict[str, str] = {}
    for item in parts.items:  # notes this graph made before keep their names
        path = workspace.identity.get(item.identity)
        if path is not None:
            paths[item.identity], titles[item.identity] = path, workspace.link_name(path)
            workspace.claim(path, workspace.title_of(path))
    for item in parts.items:
        if item.identity not in paths:
            paths[item.identity], titles[item.identity] = _new_name(workspace, item.identity, title_candidates(item))
    for item in parts.items:
        edges = parts.edges.get(item.identity, [])
        if item.kind == "node":
            workspace.put(paths[item.identity], node_parts(item, titles[item.identity], edges, titles))
        else:
            note, messages = pattern_parts(item, titles[item.identity], edges, titles)
            workspace.put(paths[item.identity], note, after=_PATTERN_AFTER)
            warnings += [f"patterns ({item.key}): {message}" for message in messages]
    meta = parts.meta
    workspace.put(graph_path, NoteParts({GRAPH_META_KEY: meta}, (), (), graph_note_text(meta)))
    counts["nodes"] += sum(1 for item in parts.items if item.kind == "node")
    counts["patterns"] += sum(1 for item in parts.items if item.kind == "pattern")
    counts["edges"] += sum(len(edges) for edges in parts.edges.values())
    counts["kept_verbatim"] += parts.kept_verbatim
    if parts.kept_verbatim:
        warnings.append(
            f"{parts.kept_verbatim} item(s) no note can stand for; kept verbatim in {graph_path} ({GRAPH_META_KEY}.verbatim)"
        )
    return warnings


def _new_name(workspace: _Workspace, identity: str, titles: Iterable[str]) -> tuple[str, str]:
    """The first free title (and its path) for a note the vault does not have yet."""
    folder = TYPE_FOLDERS["pattern" if identity.startswith("pattern:") else "causal"]
    for title in titles:
        path = f"{folder}/{title}.md"
        if not workspace.is_taken(title, path):
            workspace.claim(path, title)
            workspace.identity[identity] = path
            return path, title
    raise InvalidInput(f"no free note name for {identity!r}")


def _graph_titles() -> Iterator[str]:
    yield GRAPH_NOTE_TITLE
    yield from (f"{GRAPH_NOTE_TITLE} {number}" for number in range(2, 100))


class _Workspace:
    """The vault as this import sees it: the notes on disk, read once, and the notes planned so far."""

    def __init__(self, vault: Vault):
        self.vault = vault
        corpus = Corpus(vault)
        notes = corpus.notes()
        self.resolver = corpus.resolver()
        self.existing: dict[str, Note] = {note.path: note for note in notes if note.path}
        self.texts: dict[str, str] = {}  # path -> text to write (a new note, or an update)
        self.created: set[str] = set()
        self.touched: set[str] = set()
        self.titles: dict[str, str] = {}
        self.identity: dict[str, str] = {}  # "node:<id>", "pattern:<id>", "episode:<id>", "graph" -> path
        self.claimed: dict[str, str] = {}  # lower-cased name -> path, for notes planned in this run
        for path, note in self.existing.items():
            for key in _identities(note):
                self.identity.setdefault(key, path)

    def note_at(self, path: str) -> Note | None:
        if path in self.texts:
            return parse_note(self.texts[path], path)
        return self.existing.get(path)

    def title_of(self, path: str) -> str:
        return self.titles.get(path) or self.existing[path].title

    def link_name(self, path: str) -> str:
        """What `[[...]]` should say to reach an existing note: its title, or its path if the title will not do."""
        title = self.title_of(path)
        if path in self.existing and (_LINK_UNSAFE.search(title) or self.resolver.candidates(title) != [path]):
            return path.removesuffix(".md")
        return title

    def claim(self, path: str, *names: str | None) -> None:
        for name in names:
            if name:
                self.claimed.setdefault(name.lower(), path)
        if names and names[0] and path not in self.existing:
            self.titles.setdefault(path, names[0])

    def is_taken(self, name: str, path: str) -> bool:
        """Is `name` (or the file `path` it would get) already some note's, on disk or planned?"""
        return name.lower() in self.claimed or bool(self.resolver.candidates(name)) or path in self.existing

    def put(
        self,
        path: str,
        parts: NoteParts,
        *,
        update: Callable[[str], str] | None = None,
        after: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        """Plan a note: a new one is rendered whole, an existing one changes only where it differs."""
        self.touched.add(path)
        if path in self.created or path not in self.existing:
            self.texts[path] = parts.text
            self.created.add(path)
            return
        text = self.texts.get(path, self.existing[path].text)
        note = parse_note(text, path) if path in self.texts else self.existing[path]
        if _says(note, parts):
            return
        if update is not None:
            updated = update(text)
            if updated != text:
                self.texts[path] = updated
            return
        changed = {key: value for key, value in parts.frontmatter.items() if not _has(note.frontmatter, key, value)}
        updated = set_frontmatter(text, changed, remove=tuple(key for key in parts.removed if key in note.frontmatter))
        for heading, content in parts.sections:
            if not _section_says(note, heading, content):
                updated = replace_section(updated, heading, content, after=(after or {}).get(heading, ()))
        if updated != text:
            self.texts[path] = updated

    def _unchanged_then(self, path: str, text: str, note: Note) -> str:
        if note.text != self.existing[path].text:
            raise WriteConflict(f"'{path}' changed on disk during the import; it was not written. Run the import again")
        return text

    def write(self, writes: tuple[PlannedWrite, ...], report: Progress) -> None:
        with self.vault.batched_changes():  # an index learns of every written note in one update
            for number, planned in enumerate(writes, 1):
                text = self.texts[planned.path]
                if planned.action == "create":
                    self.vault.write(planned.path, text, create=True, sync=False)
                else:
                    self.vault.update(
                        planned.path, functools.partial(self._unchanged_then, planned.path, text), sync=False
                    )
                report("writing", number, len(writes))
        if writes and hasattr(os, "sync"):
            os.sync()  # one flush for the whole batch instead of one fsync per note


def _identities(note: Note) -> list[str]:
    fm = note.frontmatter
    keys = []
    if isinstance(fm.get(GRAPH_META_KEY), dict):
        keys.append("graph")
    if note.type == "episode":
        if fm.get("episode_id") is not None:
            keys.append(f"episode:{str(fm['episode_id']).lower()}")
        keys.append(f"episode-title:{note.title.lower()}")
    elif note.type == "causal" and isinstance(fm.get("node_id"), str):
        keys.append(f"node:{fm['node_id']}")
    elif note.type == "pattern":
        if isinstance(fm.get("pattern_id"), str):
            keys.append(f"pattern:{fm['pattern_id']}")
        elif isinstance(fm.get("name"), str):
            keys.append(f"pattern:name:{fm['name']}")
    return keys


def _has(frontmatter: dict[str, Any], key: str, value: Any) -> bool:
    return key in frontmatter and same(frontmatter[key], value)


def _says(note: Note, parts: NoteParts) -> bool:
    """Does the note already say all that the import manages (values compared, not YAML text)?"""
    if any(not _has(note.frontmatter, key, value) for key, value in parts.frontmatter.items()):
        return False
    if any(key in note.frontmatter for key in parts.removed):
        return False
    return all(_section_says(note, heading, content) for heading, content in parts.sections)


def _section_says(note: Note, heading: str, content: str) -> bool:
    section = note.section(heading)
    if section is None:
        return not content.strip()
    return section.content.replace("\r\n", "\n").strip("\n") == content.strip("\n")
