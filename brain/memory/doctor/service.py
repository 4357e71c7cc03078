"""What `brain doctor` reports: unreadable notes, broken and ambiguous links, causal cycles."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from brain.errors import CONFLICT_FIX, conflict_reason
from brain.markdown.model import Note
from brain.markdown.summary import causes_named
from brain.memory.causal.graph import find_cycles
from brain.memory.causal.stats import causal_findings
from brain.memory.corpus import Corpus
from brain.memory.episodes.note import episode_from_note, local_ids
from brain.memory.facts.note import fact_from_note
from brain.memory.finding import Finding
from brain.memory.patterns.note import pattern_from_note
from brain.memory.runs.note import run_from_note
from brain.memory.tips.note import tip_from_note
from brain.plain import counted
from brain.vault.note_files import SkipKind, conflict_line, other_files
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from brain.index.engine import Index


class _Attachments:
    """The vault's files that are not notes, listed at the first link no note answers (most vaults
    have none), found as Obsidian finds an attachment: by its name anywhere, or by its path."""

    def __init__(self, root: Path):
        self.root = root
        self._names: set[str] | None = None
        self._paths: list[str] = []

    def has(self, target: str) -> bool:
        if self._names is None:
            self._paths = [path.casefold() for path in other_files(self.root)]
            self._names = {path.rsplit("/", 1)[-1] for path in self._paths}
        wanted = target.strip().replace("\\", "/").lstrip("/").casefold()
        if "/" not in wanted:
            return wanted in self._names
        return any(path == wanted or path.endswith("/" + wanted) for path in self._paths)


def _broken(path: str, target: str) -> Finding:
    """A link no note answers; one that names a file by its extension (`diagram.png`) no file either."""
    if PurePosixPath(target).suffix.lower() not in ("", ".md"):
        return Finding(
            "broken-link",
            path,
            f"[[{target}]] matches no note or file",
            "put the file in the vault or correct the link",
        )
    return Finding("broken-link", path, f"[[{target}]] matches no note", "create the note or correct the link")


def typed_problems(note: Note) -> tuple[str, ...]:
    """Parse problems plus what the note's type finds wrong (an outcome or success rate out of range)."""
    if note.type == "episode":
        return episode_from_note(note).problems
    if note.type == "pattern":
        return pattern_from_note(note).problems
    if note.type == "fact":
        return fact_from_note(note).problems
    if note.type == "run":
        return note.problems + run_from_note(note).problems
    if note.type == "tip":
        return tip_from_note(note).problems  # its parse problems included
    return note.problems


def check_notes(corpus: Corpus) -> list[Finding]:
    findings: list[Finding] = []
    resolver = corpus.resolver()
    attachments = _Attachments(corpus.vault.root)
    for note in corpus.notes():
        path = note.path or ""
        conflict = conflict_line(note.text)  # read from its file (no index), or indexed by an older brain
        if conflict is not None:
            findings.append(Finding("merge-conflict", path, conflict_reason(conflict, None), CONFLICT_FIX))
            continue
        for problem in typed_problems(note):
            findings.append(
                Finding("malformed", path, problem, "fix the note in an editor; brain reads the rest of it")
            )
        own = local_ids(note) | {name.lower() for name in causes_named(note)}  # causes: reported below, once
        for target in dict.fromkeys(link.target for link in note.links):
            if target.lower() in own:
                continue
            found = resolver.candidates(target)
            if not found and attachments.has(target):
                continue  # an embed or link of a file that is there (`![[diagram.png]]`), as Obsidian finds it
            if not found:
                findings.append(_broken(path, target))
            elif len(found) > 1:
                findings.append(
                    Finding(
                        "ambiguous-link",
                        path,
                        f"[[{target}]] matches {', '.join(found)}",
                        "link by path, e.g. [[folder/Title]]",
                    )
                )
    for twins in resolver.twins:
        findings.append(
            Finding(
                "duplicate-name",
                twins[0],
                f"{' and '.join(repr(path) for path in twins)} are one name written in two Unicode forms (NFC and NFD)",
                "merge them into one note (read each by its exact path), then delete the other",
            )
        )
    for cycle in find_cycles(corpus):
        titles = [resolver.titles.get(node, node.removeprefix("missing:")) for node in cycle]
        findings.append(
            Finding(
                "cycle",
                cycle[0],
                "causal cycle: " + " -> ".join(titles + titles[:1]),
                "fine if intended; paths and chains stop at repeats",
            )
        )
    findings += [Finding(*finding) for finding in causal_findings(corpus)]
    return findings


_SKIP_FIXES = {
    SkipKind.OUTSIDE_SYMLINK: "move the note into the vault, or replace the link with a copy",
    SkipKind.SYMLINK_TO_NON_NOTE: "remove the link; brain reads only .md files outside hidden and tool folders",
    SkipKind.BINARY: "remove the file, or rename it so it does not end in .md",
    SkipKind.UNREADABLE: "fix the file (its permissions, or a link that loops), then run `brain index`",
}


def check_index(vault: Vault, index: Index | None) -> list[Finding]:
    """Files left out of the index, and an index that lags behind the files or the embedder."""
    from brain.index.status import (
        index_status,  # the index package loads only for doctor
        vector_segments,
    )

    status = index_status(vault, index, with_embedder=False)
    findings = []
    for path, skip in sorted(status.skipped.items()):
        if skip.kind is not SkipKind.MERGE_CONFLICT:  # `check_conflicts`, once the notes are read
            findings.append(Finding("skipped", path, skip.reason, _SKIP_FIXES[skip.kind]))
    for segment in vector_segments(index):
        if not segment.in_bounds:
            findings.append(
                Finding(
                    "vector-store",
                    f".brain/index/chroma/{segment.id}",
                    segment.why(),
                    "run `brain index`: it rebuilds the segment from brain's own vectors (or deletes it)",
                )
            )
    if not status.indexed:
        return findings
    where = ".brain/index"
    if status.changed_files:
        findings.append(
            Finding(
                "stale-index",
                where,
                f"{counted(status.changed_files, 'note file')} changed since the last index",
                "run `brain index`, or keep `brain watch` running",
            )
        )
    if status.vectors_embedder and status.pending_vectors:
        findings.append(
            Finding(
                "stale-index",
                where,
                f"{counted(status.pending_vectors, 'note')} without vectors yet",
                "run `brain index`",
            )
        )
    if status.vectors_missing:
        findings.append(
            Finding(
                "stale-index",
                where,
                f"the vector store lacks {status.vectors_missing} of {counted(status.chunks, 'chunk')} "
                f"({counted(status.vectors_missing_notes or 0, 'note')}): vector search cannot find them",
                "run `brain index` to embed them again",
            )
        )
    if status.vectors_extra:
        findings.append(
            Finding(
                "stale-index",
                where,
                f"the vector store holds {counted(status.vectors_extra, 'chunk')} the catalog does not know",
                "run `brain index` to drop them",
            )
        )
    if status.vectors_embedder and index is not None:
        embedder = index.embedder
        if embedder.id != status.vectors_embedder:
            findings.append(
                Finding(
                    "stale-index",
                    where,
                    f"vectors were made by '{status.vectors_embedder}' but the embedder is '{embedder.id}'",
                    "run `brain reindex`",
                )
            )
    return findings


def check_conflicts(index: Index | None) -> list[Finding]:
    """The notes git left conflict markers in, as the index found them: call it after reading the notes
    (`check_notes`), which brings the index up to date with a pull."""
    if index is None:
        return []
    return [
        Finding("merge-conflict", path, skip.reason, CONFLICT_FIX)
        for path, skip in sorted(index.catalog.skipped().items())
        if skip.kind is SkipKind.MERGE_CONFLICT
    ]


def check_facts(corpus: Corpus) -> list[Finding]:
    """Facts whose value was edited by hand (it no longer matches its hash), or that carry no hash."""
    from brain.memory.facts.service import all_facts

    findings = []
    for fact in all_facts(corpus):
        if fact.tampered:
            findings.append(
                Finding(
                    "tampered-fact",
                    fact.path or "",
                    f"the value of {fact.title} was edited in place (it no longer matches value_hash)",
                    "restore the value, then record the change with `brain fact supersede`",
                )
            )
        elif fact.value_hash is None:
            findings.append(
                Finding(
                    "unhashed-fact",
                    fact.path or "",
                    f"{fact.title} has no value_hash, so an edit to its value cannot be detected",
                    f"add `value_hash: {fact.actual_hash}` to its frontmatter if the value is right",
                )
            )
    return findings


def check_journal(vault: Vault) -> list[Finding]:
    """The recall journal's hash chain: a gap, an edit or a reordering is reported by line."""
    from brain.memory.facts.journal import journal_path
    from brain.memory.facts.journal_check import verify

    check = verify(vault)
    where = journal_path(vault).relative_to(vault.root).as_posix()
    return [
        Finding(
            "journal",
            f"{where}:{problem.line}" if problem.line else where,
            problem.message,
            "run `brain doctor --fix` to anchor it as it is now (check it first)"
            if "no anchor" in problem.message
            else "the journal was changed outside brain; restore it from a backup",
        )
        for problem in check.problems
    ]


def check_history(vault: Vault) -> list[Finding]:
    """History logs with lines cut short, and a move that is still written down (it could not be finished)."""
    from brain.memory.notes import move_journal

    findings = [
        Finding(
            "history-torn",
            log.relative_to(vault.root).as_posix(),
            f"{torn} line{'s' if torn > 1 else ''} of this note's history log {'are' if torn > 1 else 'is'} not a whole "
            "entry (a write cut short by a crash or a full disk); brain reads the other lines",
            "run `brain doctor --fix` to drop them",
        )
        for log, torn in vault.history.torn()
    ]
    if move_journal.pending_path(vault).is_file():
        findings.append(
            Finding(
                "interrupted-move",
                move_journal.pending_path(vault).relative_to(vault.root).as_posix(),
                "a note move was interrupted and could not be finished yet: links may still name the old path",
                "run `brain doctor --fix` to finish it (once the vault is writable)",
            )
        )
    return findings


def fix_history(vault: Vault) -> list[str]:
    """Drop the torn lines of the history logs, and finish an interrupted move; one line per repair."""
    from brain.memory.notes import move_journal

    done = []
    if vault.history.torn():
        with vault.locked():
            for log, torn in vault.history.repair_torn():
                done.append(
                    f"dropped {torn} torn line{'s' if torn > 1 else ''} of {log.relative_to(vault.root).as_posix()}"
                )
    plan = move_journal.read_plan(vault)
    if plan is not None:
        with move_journal.locked(vault):
            moved = move_journal.carry_out(vault, plan)
        done.append(f"finished the interrupted move of {moved.moved_from} to {moved.path}")
    return done
