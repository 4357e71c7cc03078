"""The earlier fix of a failure an agent has just hit: its signature looked up among the failures
the episodes hold (the catalog's `failures` rows), and the answer the tool-failure hook hands over.

The signature (what "the same failure" means) is `brain.memory.episodes.signature`. The failure is read as
the session extractor reads it, so a failure and its earlier twin give the same signature: the
error's informative line chosen by the same rule from the same preview of the output, paths under
the working folder made relative, secrets redacted. Only a failure that was recovered is named (an
earlier failure nobody fixed has nothing to teach), and never one from the session itself. No
match, no answer: a wrong "seen before" costs the agent more than silence.

The answer is for the project the agent works in (`brain.memory.projects.note` has the rule): the earlier
failures of that project's episodes, when it has any of this signature; else those of the whole
vault (other projects' episodes, and those of no recorded project), and the answer then names the
other project it comes from. This falls back per failure, not only while the project has no episode
(as the context hooks' scope does): a fix from another project still helps (editing before reading
fails the same way everywhere), though one from the same project is nearer to the agent's work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.index.catalog.failures import FailureSeen, failures_seen
from brain.memory.episodes.signature import Failure, relative, signature
from brain.memory.sessions import commands as cmd
from brain.memory.sessions.transcripts.files import preview

ANSWER_CHARS = 1600  # about 400 tokens
FIELD_CHARS = 300
MORE_NAMED = 3


@dataclass(frozen=True)
class EarlierFix:
    """The signature of a failure and the earlier recovered failures of that signature that answer
    for `project` (newest first); `readable` False when there was no catalog to look in."""

    signature: str | None
    seen: tuple[FailureSeen, ...] = ()
    project: str | None = None
    readable: bool = True

    @property
    def elsewhere(self) -> str:
        """The project the answer comes from when it is another one; '' when it is this one or not
        recorded (an episode captured before projects were recorded may well be of this one)."""
        found = self.seen[0].project if self.seen else ""
        return found if found != (self.project or "") else ""


def live_failure(
    tool: str, tool_input: Mapping[str, Any], error: str, cwd: str | None, redact: Callable[[str], str]
) -> Failure:
    """A failed call as the hook is told of it, read the way the extractor reads a transcript's."""
    command = cmd.shell_command(tool, tool_input) or ""
    line = redact(cmd.error_line(preview(error, redact)))
    files = cmd.edited_files(tool, tool_input) or (
        cmd.patch_files(str(tool_input.get("input", ""))) if tool == "apply_patch" else []
    )
    target = ", ".join(files) or cmd.read_file(tool, tool_input)
    return Failure(tool, relative(cmd.display_command(command), cwd), relative(line, cwd), relative(target, cwd))


def earlier_fix(index_dir: Path, failure: Failure, session: str, project: str | None = None) -> EarlierFix:
    """The earlier recovered failures of the failure's signature outside `session`: those of
    `project`'s episodes when it has any, else those of the whole vault."""
    key = signature(failure)
    if key is None:
        return EarlierFix(None, project=project)
    found = failures_seen(index_dir, key, project=project, session=session)
    if found is None:
        return EarlierFix(key, project=project, readable=False)
    own = tuple(seen for seen in found if project and seen.project == project)
    return EarlierFix(key, own or tuple(found), project)


def seen_before(found: EarlierFix) -> str:
    """The hook's answer: the newest earlier episode with this failure and what fixed it; '' for none."""
    if not found.seen:
        return ""
    first = found.seen[0]
    lines = [
        f"brain: this failure was seen before, in [[{first.title}]] ({first.date[:10]}{_where(found)}), and fixed.",
        f"- Then: {_clip(first.error)}",
        f"- What fixed it: {_clip(first.fix)}",
    ]
    if first.commit:
        lines.append(f"- {_clip(first.commit)}")
    others = list(dict.fromkeys(seen.title for seen in found.seen[1:] if seen.title != first.title))
    if others:
        named = ", ".join(f"[[{title}]]" for title in others[:MORE_NAMED])
        lines.append(f"- Also seen in {len(others)} other episode{'s' if len(others) > 1 else ''}: {named}")
    return "\n".join(lines)[:ANSWER_CHARS]


def _where(found: EarlierFix) -> str:
    """Where the fix was found, when that is another project."""
    return f", in project {_clip(found.elsewhere)}" if found.elsewhere else ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 3] + "..."
