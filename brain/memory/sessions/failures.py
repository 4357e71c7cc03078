"""The earlier fix of a failure an agent has just hit: its signature looked up among the failures
the episodes hold (the catalog's `failures` rows), and the answer the tool-failure hook hands over.

The signature (what "the same failure" means) is `brain.notes.failures`. The failure is read as
the session extractor reads it, so a failure and its earlier twin give the same signature: the
error's informative line chosen by the same rule from the same preview of the output, paths under
the working folder made relative, secrets redacted. Only a failure that was recovered is named (an
earlier failure nobody fixed has nothing to teach), and never one from the session itself. No
match, no answer: a wrong "seen before" costs the agent more than silence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from brain.index.catalog.failures import FailureSeen, failures_seen
from brain.memory.sessions import commands as cmd
from brain.memory.sessions.transcripts import preview
from brain.notes.failures import Failure, relative, signature

ANSWER_CHARS = 1600  # about 400 tokens
FIELD_CHARS = 300
MORE_NAMED = 3


@dataclass(frozen=True)
class EarlierFix:
    """The signature of a failure and the earlier recovered failures of that signature (newest first)."""

    signature: str | None
    seen: tuple[FailureSeen, ...] = ()


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


def earlier_fix(index_dir: Path, failure: Failure, session: str) -> EarlierFix:
    key = signature(failure)
    if key is None:
        return EarlierFix(None)
    seen = tuple(found for found in failures_seen(index_dir, key) if not session or found.session != session)
    return EarlierFix(key, seen)


def seen_before(found: EarlierFix) -> str:
    """The hook's answer: the newest earlier episode with this failure and what fixed it; '' for none."""
    if not found.seen:
        return ""
    first = found.seen[0]
    lines = [
        f"brain: this failure was seen before, in [[{first.title}]] ({first.date[:10]}), and fixed.",
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


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= FIELD_CHARS else text[: FIELD_CHARS - 3] + "..."
