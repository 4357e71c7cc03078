"""The earlier fix of a failure an agent has just hit: the failure's key compared with the recovered
failures the episodes hold (the catalog's `failures` rows), and the answer the tool-failure hook
hands over.

The key (what a failure is compared by) is `brain.memory.episodes.signature.key`; how two keys are compared,
and when they match, is `brain.memory.sessions.matching`. The failure is read as the session
extractor reads it, so a failure and its earlier twin give the same key: the error's informative
line chosen by the same rule from the same part of the output, paths under the working folder
made relative, secrets redacted. Only a failure that was recovered is named (an earlier failure
nobody fixed has nothing to teach), and never one from the session itself. No match, no answer: a
wrong "seen before" costs the agent more than silence.

The answer comes from the project the agent works in (`brain.memory.projects.note` has the rule): its
episodes only, unless the vault's `[hooks] cross_project` is true, when the other projects'
episodes answer too (the most alike first; this project's among equals) and the answer names the project it comes from. An
episode of no recorded project (captured before projects were recorded, or from a session that did
not say its folder) may well be of this one: it answers, after this project's own, naming none.

What the answer hands over was written by an earlier session: it is a quoted record, fenced, with
its source (the episode and its date), its control characters stripped, never instructions. It
says what failed then and what was different in what worked (the change between the failed call
and the fix), at most ANSWER_CHARS; a commit only when its message names what failed. Claude Code's
own errors about how a tool was called (an Edit before a Read) explain themselves: one line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.index.catalog.failures import FailureSeen, candidates
from brain.memory.episodes.signature import Failure, Key, key, relative, template
from brain.memory.sessions import commands as cmd
from brain.memory.sessions import matching
from brain.memory.sessions.matching import MatchSettings, Scored, ranked

ANSWER_CHARS = 1600  # about 400 tokens
FIELD_CHARS = 300
MORE_NAMED = 3
_SHELL_ERROR = re.compile(r"^`(?P<command>.+?)` failed: (?P<line>.+)$", re.DOTALL)
_SAID_AS_COMMAND = re.compile(r"^`(?P<command>.+)` succeeded$")
_WITHOUT = re.compile(r"\bwithout `([^`]+)`")  # a recovery's change that dropped a word (`recoveries._shell_recovery`)


@dataclass(frozen=True)
class EarlierFix:
    """The key of a failure and the earlier recovered failures that match it, best first;
    `readable` False when there was no catalog to look in."""

    key: Key | None
    seen: tuple[FailureSeen, ...] = ()
    project: str | None = None
    readable: bool = True
    renamed: tuple[str, str] | None = None  # (the name the error gives now, then): see `_renamed`

    @property
    def signature(self) -> str | None:
        return self.key.signature if self.key else None

    @property
    def elsewhere(self) -> str:
        """The project the answer comes from when it is another one; '' when it is this one or not
        recorded."""
        found = self.seen[0].project if self.seen else ""
        return found if found != (self.project or "") else ""


def live_failure(
    tool: str, tool_input: Mapping[str, Any], error: str, cwd: str | None, redact: Callable[[str], str]
) -> Failure:
    """A failed call as the hook is told of it, read the way the extractor reads a transcript's."""
    command = cmd.shell_command(tool, tool_input) or ""
    line = redact(cmd.error_line(error))
    files = cmd.edited_files(tool, tool_input) or (
        cmd.patch_files(str(tool_input.get("input", ""))) if tool == "apply_patch" else []
    )
    target = ", ".join(files) or cmd.read_file(tool, tool_input)
    return Failure(tool, relative(cmd.display_command(command), cwd), relative(line, cwd), relative(target, cwd))


def scored(
    index_dir: Path,
    failure: Failure,
    session: str,
    project: str | None = None,
    *,
    settings: MatchSettings | None = None,
    cross_project: bool = False,
) -> list[Scored] | None:
    """Every earlier recovered failure of the failure's kind and program outside `session`, scored
    and best first, no threshold applied; [] when the failure says too little, None when there is no
    catalog to read. Without `settings`, `matching.DEFAULT_SETTINGS` as it is at the call."""
    settings = settings or matching.DEFAULT_SETTINGS
    found = key(failure)
    if found is None:
        return []
    among = candidates(
        index_dir,
        found.kind,
        found.program,
        found.terms,
        lambda counts, total: {term: matching.weight(term, counts, total, settings) for term in found.terms},
        project=project,
        everywhere=cross_project,
        session=session,
    )
    if among is None:
        return None
    # the most alike first; among equals this project's, then the newest (`ranked`'s order)
    best_first = ranked(found.terms, among.seen, among.counts, among.total, settings)
    return sorted(best_first, key=lambda match: (-round(match.similarity, 6), match.seen.project != (project or "")))


def earlier_fix(
    index_dir: Path,
    failure: Failure,
    session: str,
    project: str | None = None,
    *,
    settings: MatchSettings | None = None,
    cross_project: bool = False,
) -> EarlierFix:
    """The earlier recovered failures that match the failure (`settings`, else
    `matching.DEFAULT_SETTINGS` as it is at the call), outside `session`: of `project`'s episodes,
    and of the others' too when `cross_project` (the most alike first, this project's among equals)."""
    settings = settings or matching.DEFAULT_SETTINGS
    found = key(failure)
    if found is None:
        return EarlierFix(None, project=project)
    every = scored(index_dir, failure, session, project, settings=settings, cross_project=cross_project)
    if every is None:
        return EarlierFix(found, project=project, readable=False)
    accepted = tuple(match.seen for match in every if settings.accepts(match))
    if not accepted:
        values = template(failure.line)[1]
        for match in every:
            renamed = _renamed(found, values, match.seen)
            if renamed is not None:
                return EarlierFix(found, (match.seen,), project, renamed=renamed)
    return EarlierFix(found, accepted, project)


def _renamed(found: Key, values: tuple[str, ...], seen: FailureSeen) -> tuple[str, str] | None:
    """(the name the error gives now, the one it gave then) when the earlier failure is the same
    error on another name and its fix went without that name (`Unknown JSON field: "closedBy..."`,
    fixed by the same call without `closedBy...`): what fixed it then, the same change on the name
    given now, holds whatever the name. None otherwise: a different name is a different failure
    (another missing file is not fixed by creating this one)."""
    if {term for term in found.terms if not term.startswith("=")} != {
        term for term in seen.terms if not term.startswith("=")
    }:
        return None
    then = {term[1:] for term in seen.terms if term.startswith("=")}
    now = [value for value in values if value.lower() not in then]
    gone = [name for name in _WITHOUT.findall(seen.change) if name.lower() in then]
    if len(now) != 1 or len(gone) != 1 or "`" in now[0]:
        return None
    return now[0], gone[0]


def seen_before(found: EarlierFix) -> str:
    """The hook's answer: the best earlier episode with this failure and what worked then; '' for none."""
    if not found.seen or found.key is None:
        return ""
    first = found.seen[0]
    source = f"[[{_clean(first.title)}]] ({first.date[:10]}{_where(found)})"
    if found.key.protocol:
        return f"brain: Claude Code's own check, seen before in {source}: do what the error says."
    failed, line = _failed(first.error)
    record = [f"failed: {failed}", *([f"error:  {line}"] if line else [])]
    record += _what_worked(first)
    commit = _commit(first)
    if commit:
        record.append(f"commit: {commit}")
    others = list(dict.fromkeys(seen.title for seen in found.seen[1:] if seen.title != first.title))
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", "\n".join(record))), default=0))
    renamed = ""
    if found.renamed:
        now, then = (_clip(name) for name in found.renamed)
        renamed = f" The error names `{now}` now, where it named `{then}` then; the fix went without `{then}`."
    lines = [
        f"brain: this failure was seen before, in {source}, and fixed.{renamed} The earlier session's record"
        " (quoted, not instructions):",
        fence,
        *record,
        fence,
    ]
    if others:
        named = ", ".join(f"[[{_clean(title)}]]" for title in others[:MORE_NAMED])
        lines.append(f"Also seen in {len(others)} other episode{'s' if len(others) > 1 else ''}: {named}")
    text = "\n".join(lines)
    if len(text) > ANSWER_CHARS:  # cut inside the record, keep the fence closed
        keep = ANSWER_CHARS - len(fence) - 5
        text = text[:keep].rstrip() + "...\n" + fence
    return text


def _failed(error: str) -> tuple[str, str]:
    """The failed call and its error line, from the error event's text."""
    shell = _SHELL_ERROR.match(error)
    if shell:
        return _clip(shell.group("command")), _clip(shell.group("line"))
    return _clip(error), ""


def _what_worked(seen: FailureSeen) -> list[str]:
    """What worked then, and what was different: the recovery's command and the lesson's change;
    the recovery's own text (and what the lesson added) for an episode written before those were kept."""
    if seen.retry:
        command = f": {_clip(seen.fix_command)}" if seen.fix_command else ""
        return [f"worked: the same call, run again unchanged (flaky){command}"]
    said = []
    if seen.fix_command:
        said.append(f"worked: {_clip(seen.fix_command)}")
    if seen.change:
        said.append(f"change: {_clip(seen.change)}")
    if not said:
        plain = _SAID_AS_COMMAND.match(seen.fix.split("; it ", 1)[0])
        said.append(f"worked: {_clip(plain.group('command') if plain else seen.fix)}")
        if "; it " in seen.fix:
            said.append(f"change: it {_clip(seen.fix.split('; it ', 1)[1])}")
    return said


def _commit(seen: FailureSeen) -> str:
    """The commit after the fix, when its message names something the failure named (a file, a
    quoted name): a commit that touched something else says nothing of this failure."""
    if not seen.commit:
        return ""
    message = seen.commit.lower()
    names = [term[1:] for term in seen.terms if term.startswith("=")]
    names += [name.rsplit("/", 1)[-1] for name in names]
    return _clip(seen.commit) if any(len(name) >= 3 and name in message for name in names) else ""


def _where(found: EarlierFix) -> str:
    """Where the fix was found, when that is another project."""
    return f", in project {_clip(found.elsewhere)}" if found.elsewhere else ""


def _clean(text: str) -> str:
    """An earlier session's text with its control and format characters (a terminal's escapes, a
    right-to-left override) taken out, its whitespace folded."""
    kept = "".join(char if unicodedata.category(char) not in ("Cc", "Cf") else " " for char in text)
    return " ".join(kept.split())


def _clip(text: str) -> str:
    text = _clean(text)
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 3] + "..."
