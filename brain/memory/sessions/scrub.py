"""Scrub secrets out of a vault after the fact (`brain redact`): every place a note's text lands.

Secrets are found with the extractor's redactor (`sessions.redact`, the vault's `[redact]
patterns` too) and replaced with the same `[REDACTED:<kind>]` markers, in:

- the notes (rewritten through `Vault.update_many`: under the write lock, refused when an editor
  saves meanwhile, each rewrite a version in the history);
- the history: every stored version that holds a secret is replaced by its redacted bytes in
  every log that names it, and the old bytes are deleted; a stored version no log names that
  holds one (a redaction killed part-way leaves them) is deleted;
- the index: the rewritten notes' catalog rows, full-text entries and vectors (the chunks that
  changed are embedded again, the old ones deleted), then the catalog file compacted so no free
  page or old full-text segment keeps the old text;
- the embedded vector store: a chunk's metadata holds its section (a heading), and Chroma keeps
  every write's metadata in its own log (`embeddings_queue`) until its vector index is written
  out; when either holds a secret, each of the vault's collections is made again (Chroma drops a
  collection's log with it) and `chroma.sqlite3` compacted;
- the summaries cache (`.brain/index/summaries/`): an entry holding a secret, or computed from a
  note that was rewritten, is dropped (it is computed again from the redacted note);
- the logs under `.brain/logs/` (the hooks log and its rotated `hooks.log.1`), line by line, no line
  a hook appends meanwhile lost;
- the tip candidates (`.brain/tips/candidates.jsonl`, drafts waiting for a second session), each
  value of each line;
- the recall journal: a returned fact value holding a secret is purged (its hashes kept, so the
  chain still verifies), under the name of the receipt, which lists the fact.

A fact's value is redacted like any text, and its `value_hash` follows the redacted value.

A dry run (the default) reads everything and changes no file. Applied, it writes a receipt to
`.brain/journal/redactions/` that names where each secret was (store, note, version, line, kind),
never what it was, nor a hash of it (a hash of a short secret can be guessed back).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from brain.errors import InvalidInput
from brain.index.catalog import summaries
from brain.index.engine import Index
from brain.index.vectors import segments
from brain.markdown.edit import set_frontmatter
from brain.markdown.parse import parse_note
from brain.memory.facts import journal
from brain.memory.facts.note import fact_from_note
from brain.memory.notes.receipts import write_receipt
from brain.memory.sessions.redact import Redactor, Span, redactor_for
from brain.memory.tips.admit import CANDIDATES
from brain.vault.append_log import AppendLog, as_text, lock_beside
from brain.vault.atomic import PRIVATE, replace_file
from brain.vault.vault import Vault

LOGS_DIR = "logs"  # under .brain/: the hooks log, and hooks.log.1 its older half
CHROMA_FILE = ".brain/index/chroma/chroma.sqlite3"  # a metadata string no note's path goes with


@dataclass(frozen=True)
class Place:
    """Where one secret is: its store (note, history, catalog, summaries, log, journal), the note or file,
    the line (1-based, in the text of that store), the version (history) and its kind."""

    store: str
    path: str
    kind: str
    line: int | None = None
    version: int | None = None
    file: str | None = None  # summaries: the cache file the entry is in


@dataclass(frozen=True)
class Redaction:
    applied: bool  # False: a dry run, nothing written
    places: tuple[Place, ...]
    notes: tuple[str, ...]  # the notes rewritten (or that would be)
    versions: int  # history versions rewritten (or that would be)
    reindexed: tuple[str, ...]  # notes whose catalog row, full text and vectors are made again
    vectors: bool  # whether the vault has vectors (embedded again for `reindexed`)
    skipped: tuple[tuple[str, str], ...] = ()  # (note, why) notes brain cannot rewrite
    receipt: str | None = None
    interrupted: bool = False  # an earlier `--apply` was cut short (applied: this run finished it)


def pending_path(vault: Vault) -> Path:
    """Written before an applied redaction changes anything, removed once it is done: a redaction cut
    short leaves text no search finds (the catalog's free pages, Chroma's log), which the next
    `--apply` removes even when no secret is left to find."""
    return vault.brain_dir / "journal" / journal.REDACTIONS_DIR / "PENDING"


def redact_vault(vault: Vault, index: Index | None, *, apply: bool = False) -> Redaction:
    """Find every secret in the vault's notes, history, index, summaries cache, logs, tip candidates
    and recall journal; with `apply`, replace each with its marker and write a receipt. When nothing
    is found and no earlier redaction was cut short, nothing is written (no receipt either).
    `index`: the open vault's, None when it has none."""
    redactor = redactor_for(vault.brain_dir)  # a bad `[redact] pattern` is a one-line error, nothing read
    interrupted = pending_path(vault).is_file()
    notes, skipped = _note_places(vault, redactor)
    catalog = _catalog_places(index, redactor) if index is not None else []
    kept = _vector_places(index, redactor) if index is not None else []
    history, replacements = _history_places(vault, redactor)
    history += _unnamed_places(vault, redactor)
    others = list(_summary_places(vault, redactor)) + list(_log_places(vault, redactor))
    others += _candidate_places(vault, redactor)
    recalled, facts = _journal_places(vault, redactor)
    places = tuple(notes + history + catalog + kept + others + recalled)
    rewritten = tuple(sorted({place.path for place in notes} - {path for path, _ in skipped}))
    reindexed = tuple(sorted({place.path for place in notes + catalog})) if index is not None else ()
    vectors = index is not None and index.has_vectors()
    if not apply or not (places or interrupted):
        versions = len(_logged(vault, replacements)) + len(_unrecorded(vault, rewritten))
        return Redaction(False, places, rewritten, versions, reindexed, vectors, skipped, interrupted=interrupted)
    replace_file(pending_path(vault), b"{}\n", mode=PRIVATE)
    done = _rewrite_notes(vault, redactor, rewritten)
    with vault.locked():
        history, replacements = _history_places(vault, redactor)  # the versions the rewrites stored first too
        versions = vault.history.rewrite_versions(replacements)
        for place in _unnamed_places(vault, redactor):  # left by a redaction killed part-way
            (vault.root / place.path).unlink(missing_ok=True)
    if index is not None:
        _reindex(index, reindexed, rebuild_vectors=bool(kept) or interrupted)
    _scrub_summaries(vault, redactor, set(reindexed))
    _scrub_logs(vault, redactor)
    _scrub_candidates(vault, redactor)
    places = tuple(notes + history + catalog + kept + others + recalled)
    found = Redaction(True, places, done, versions, reindexed, vectors, skipped, interrupted=interrupted)
    if places:
        receipt = write_receipt(vault, journal.REDACTIONS_DIR, "REDACT", _receipt_body(found, facts))
        # after the receipt: a value the journal marks purged is verified against the receipt naming it
        journal.purge_values(vault, facts, PurePosixPath(receipt).stem)
        found = replace(found, receipt=receipt)
    pending_path(vault).unlink()
    return found


# ---------------------------------------------------------------- finding


def _lines(text: str, spans: list[Span]) -> Iterator[tuple[int, str]]:
    """(line, kind) of each span (in order): the line its first character is on."""
    line, counted = 1, 0
    for span in spans:
        line += text.count("\n", counted, span.start)
        counted = span.start
        yield line, span.kind


def _note_places(vault: Vault, redactor: Redactor) -> tuple[list[Place], tuple[tuple[str, str], ...]]:
    places: list[Place] = []
    skipped: list[tuple[str, str]] = []
    for path in vault.iter_files():
        try:
            data = vault.read_bytes(path)
        except (InvalidInput, OSError):
            continue  # gone meanwhile, or a folder
        text = data.decode("utf-8", "replace")
        spans = redactor.spans(text)
        if not spans:
            continue
        places += [Place("note", path, kind, line) for line, kind in _lines(text, spans)]
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            skipped.append((path, "not UTF-8 text; brain does not rewrite it: remove the secret in an editor"))
    return places, tuple(skipped)


def _history_places(vault: Vault, redactor: Redactor) -> tuple[list[Place], dict[str, bytes]]:
    """Each stored version's secrets, and the redacted bytes of every version that holds one."""
    places: list[Place] = []
    replacements: dict[str, bytes] = {}
    clean: set[str] = set()
    for _, entries in vault.history.logs():
        for entry in entries:
            digest = entry.sha256
            if digest is None or digest in clean:
                continue
            try:
                data = vault.history.version_bytes(digest)
            except InvalidInput:
                continue  # missing or damaged: `brain doctor` reports the history
            text = data.decode("utf-8", "surrogateescape")  # every other byte stays as it was
            spans = redactor.spans(text)
            if not spans:
                clean.add(digest)
                continue
            places += [Place("history", entry.path, kind, line, entry.v) for line, kind in _lines(text, spans)]
            redacted = _rehashed(text, redactor.text(text), entry.path)
            replacements[digest] = redacted.encode("utf-8", "surrogateescape")
    return places, replacements


def _unnamed_places(vault: Vault, redactor: Redactor) -> list[Place]:
    """Secrets in stored versions no log names (a redaction killed between rewriting the logs and
    deleting the old bytes leaves them): each is named by its file under the history."""
    places: list[Place] = []
    for digest in vault.history.unnamed():
        try:
            text = vault.history.version_bytes(digest).decode("utf-8", "surrogateescape")
        except InvalidInput:
            continue  # damaged: `brain doctor` reports the history
        where = vault.history.object_path(digest).relative_to(vault.root).as_posix()
        places += [Place("history", where, kind, line) for line, kind in _lines(text, redactor.spans(text))]
    return places


def _logged(vault: Vault, replacements: dict[str, bytes]) -> list[tuple[str, int]]:
    """(note, version) of every log line naming one of the versions to replace."""
    return [
        (entry.path, entry.v)
        for _, entries in vault.history.logs()
        for entry in entries
        if entry.sha256 in replacements
    ]


def _unrecorded(vault: Vault, paths: tuple[str, ...]) -> list[str]:
    """The notes whose bytes the history does not hold yet (saved in an editor): rewriting one
    stores them first, a version that is then redacted too."""
    if vault.history.root is None:  # a plain folder used as a vault keeps no history
        return []
    unrecorded = []
    for path in paths:
        last = vault.history.last(path)
        if last is None or last.sha256 != hashlib.sha256(vault.read_bytes(path)).hexdigest():
            unrecorded.append(path)
    return unrecorded


def _catalog_places(index: Index, redactor: Redactor) -> list[Place]:
    """Secrets in the catalog's copy of each note's text (the full text and the chunks are made from
    it), and in its chunks' sections (headings) as the note's vectors were last made."""
    db = index.catalog.db
    rows = db.execute("SELECT path, text FROM notes ORDER BY path").fetchall()
    places = [
        Place("catalog", path, kind, line) for path, text in rows for line, kind in _lines(text, redactor.spans(text))
    ]
    sections = db.execute(
        "SELECT DISTINCT n.path, c.section FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE c.section IS NOT NULL AND c.section != '' ORDER BY n.path"
    ).fetchall()
    return places + [Place("catalog", path, span.kind) for path, text in sections for span in redactor.spans(text)]


def _vector_places(index: Index, redactor: Redactor) -> list[Place]:
    """Secrets in what the embedded vector store keeps of the notes (a chunk's section, its heading),
    its records' metadata and Chroma's own log of its writes; each text once per note."""
    if index.chroma_url or not index.has_vectors():
        return []
    places: list[Place] = []
    seen: set[tuple[str | None, str]] = set()
    for path, text in segments.kept_strings(index.vectors.path):
        if (path, text) not in seen:
            seen.add((path, text))
            places += [Place("vectors", path or CHROMA_FILE, span.kind) for span in redactor.spans(text)]
    return places


def _summary_files(vault: Vault) -> list[Path]:
    return sorted((vault.index_dir / "summaries").glob("*.json"))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)


def _any_value(value: Any) -> bool:
    """Every cached value, whatever its set's shape: a secret may be in any of them."""
    return True


def _summary_places(vault: Vault, redactor: Redactor) -> Iterator[Place]:
    for file in _summary_files(vault):
        name = file.relative_to(vault.root).as_posix()
        for path, entry in summaries.load(file, _any_value).items():
            for text in _strings(entry[1]):
                yield from (Place("summaries", path, span.kind, file=name) for span in redactor.spans(text))


def _journal_places(vault: Vault, redactor: Redactor) -> tuple[list[Place], set[str]]:
    """Secrets in the values the recall journal returned, and the facts whose values hold one."""
    path = journal.journal_path(vault)
    if not path.is_file():
        return [], set()
    name = path.relative_to(vault.root).as_posix()
    places: list[Place] = []
    facts: set[str] = set()
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            record = journal.parse_record(line)
            for result in (record or {}).get("results") or ():
                found = [span for text in _strings(result.get("value")) for span in redactor.spans(text)]
                places += [Place("journal", name, span.kind, number) for span in found]
                if found:
                    facts.add(str(result.get("id")))
    return places, facts


def _log_files(vault: Vault) -> list[Path]:
    """The logs, not their locks and temp files (hidden)."""
    return sorted(
        path for path in (vault.brain_dir / LOGS_DIR).glob("*") if path.is_file() and not path.name.startswith(".")
    )


def _log_places(vault: Vault, redactor: Redactor) -> Iterator[Place]:
    for file in _log_files(vault):
        name = file.relative_to(vault.root).as_posix()
        text = file.read_text(encoding="utf-8", errors="replace")
        yield from (Place("log", name, kind, line) for line, kind in _lines(text, redactor.spans(text)))


def _candidates_file(vault: Vault) -> Path:
    return vault.brain_dir / CANDIDATES


def _candidate_places(vault: Vault, redactor: Redactor) -> Iterator[Place]:
    """Secrets in the tip candidates (drafts waiting for a second session), line by line: in each
    value of a line's JSON, or in the line's text when it is not JSON."""
    path = _candidates_file(vault)
    if not path.is_file():
        return
    name = path.relative_to(vault.root).as_posix()
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            texts = _json_strings(line)
            for text in [line] if texts is None else texts:
                yield from (Place("candidates", name, span.kind, number) for span in redactor.spans(text))


def _json_strings(line: str) -> list[str] | None:
    """Every string (keys too) of a JSON line, or None when the line is not JSON."""
    try:
        return list(_strings(json.loads(line)))
    except (ValueError, RecursionError):
        return None


# ---------------------------------------------------------------- replacing


def _rewrite_notes(vault: Vault, redactor: Redactor, paths: tuple[str, ...]) -> tuple[str, ...]:
    """Rewrite the notes that hold a secret. The first refusal (an editor saving meanwhile, a note
    grown past the edit limit) stops with its one-line error; the notes before it are rewritten."""
    done = vault.update_many({path: _redacting(redactor, path) for path in paths})
    os.sync()  # update_many does not sync each file: once, here
    if done.error is not None:
        raise done.error
    return tuple(sorted(done.changed))


def _redacting(redactor: Redactor, path: str) -> Callable[[str], str]:
    return lambda text: _rehashed(text, redactor.text(text), path)


def _rehashed(before: str, after: str, path: str) -> str:
    """`after`, and for a fact whose value held a secret, its `value_hash` made from the redacted
    value (else `brain doctor` takes the redaction for a hand edit, and the note keeps a hash of
    the secret). A fact whose value already did not match its hash keeps its hash as it was."""
    note = parse_note(after, path)
    if note.type != "fact" or after == before:
        return after
    if fact_from_note(parse_note(before, path)).tampered:
        return after
    fact = fact_from_note(note)
    return set_frontmatter(after, {"value_hash": fact.actual_hash}) if fact.tampered else after


def _reindex(index: Index, paths: tuple[str, ...], *, rebuild_vectors: bool = False) -> None:
    """The catalog rows, full text and vectors of `paths` made again from the redacted notes (the
    changed chunks embedded, the old ones deleted), then no old text left in the catalog's file.
    `rebuild_vectors`: the embedded store kept a secret (in a chunk's metadata, or in Chroma's log
    of its writes, which Chroma empties only when its vector index is next written out): each of
    the vault's collections is made again from brain's vectors and the catalog, and the file compacted."""
    from brain.index.catalog.compact import compact
    from brain.index.sync.disk_bound import rebuild_every_collection
    from brain.index.sync.embedding import embed_pending
    from brain.index.sync.sync import update_paths

    if paths:
        update_paths(index, paths, embed=index.has_vectors())
    if index.has_vectors():
        embed_pending(index)  # notes a redaction killed part-way rewrote: their chunks' sections too
    if rebuild_vectors:
        with index.locked():
            rebuild_every_collection(index)  # its metadata from the catalog's chunks, current now
        embed_pending(index)  # a note brain's copy of the vectors lacked waits to be embedded: now
    with index.locked():  # last: no write after it leaves old text in the file or its log
        compact(index.catalog)


def _scrub_summaries(vault: Vault, redactor: Redactor, reindexed: set[str]) -> None:
    """Drop every cached value that holds a secret or was computed from a note indexed again."""
    for file in _summary_files(vault):
        stored = summaries.load(file, _any_value)
        kept = {
            path: entry
            for path, entry in stored.items()
            if path not in reindexed and not any(redactor.spans(text) for text in _strings(entry[1]))
        }
        if len(kept) != len(stored):
            summaries.save(file, kept)


def _scrub_logs(vault: Vault, redactor: Redactor) -> None:
    """Each log rewritten redacted, no line a hook appends meanwhile lost (`AppendLog.rewrite`)."""
    for file in _log_files(vault):
        _private(file).rewrite(as_text(redactor.text))


def _scrub_candidates(vault: Vault, redactor: Redactor) -> None:
    """The candidates rewritten with each value redacted, under the vault's write lock (which
    learning tips holds to read and write them)."""

    def redacted(text: str) -> str:
        return "".join(_redacted_line(line, redactor) for line in text.splitlines(keepends=True))

    with vault.locked():
        _private(_candidates_file(vault)).rewrite(as_text(redacted))


def _private(file: Path) -> AppendLog:
    """A file of brain's own that hooks append to, kept private (`agents/hooks_log.py`)."""
    return AppendLog(file, mode=PRIVATE, private=True, lock=lock_beside(file))


def _redacted_line(line: str, redactor: Redactor) -> str:
    """A JSON line with its values redacted (written as the candidates are), else its text redacted."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return redactor.text(line)
    after = redactor.value(value)
    return line if after == value else json.dumps(after, ensure_ascii=False) + "\n"


def _receipt_body(found: Redaction, journal_facts: set[str]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for place in found.places:
        counts[place.store] = counts.get(place.store, 0) + 1
    return {
        "counts": counts,
        "notes_rewritten": list(found.notes),
        "history_versions_rewritten": found.versions,
        "reindexed": {
            "notes": list(found.reindexed),
            "stores": ["catalog", "full-text"] + (["vectors"] if found.vectors else []),
        },
        "places": [{key: value for key, value in asdict(place).items() if value is not None} for place in found.places],
        "skipped": [{"path": path, "why": why} for path, why in found.skipped],
        "journal_facts": sorted(journal_facts),  # their values purged from the recall journal, their hashes kept
    }
