"""Agent transcripts on disk: which format a file is, and its records streamed one line at a time.

A transcript is JSON Lines. Claude Code writes `~/.claude/projects/<encoded-dir>/<session>.jsonl`
(subagents in `<session>/subagents/agent-*.jsonl`, folded into their parent); Codex CLI writes
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`; Gemini CLI `~/.gemini/tmp/<project>/chats/session-*.jsonl`.
The format is told per file from its first records (`--format` forces it). A line that is not a JSON object (a comment header, a line torn because the
agent is still writing, one nested too deep to parse) is skipped and counted; a record type brain
does not know is counted too; a value nested more than `brain.markdown.depth.MAX_DEPTH` levels is left
out of the record that holds it.
Nothing is held but the record being read, so memory stays bounded whatever the file's size.

Each agent's reader (a `TranscriptReader`: `claude_code`, `codex`, `gemini` beside this module, listed
in `readers.READERS`) turns records into `Act`s, the few things an episode is made from; the
functions here take the readers they tell apart, so this module knows no agent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast

from brain.errors import InvalidInput, UsageError
from brain.markdown.depth import MAX_DEPTH, pruned

AI_AGENTS = "ai-agents"  # the ai-agents session logs (JSON or markdown): read by this package itself
PREVIEW = 2000  # characters of a tool's output kept for the rules (error lines, test counts, commit lines)
REACH = 4096  # characters past a cut redacted with what is kept: more than one secret holds (a 4096-bit key ~3300)
_PROBE_LINES = 20
# Text the agent, its IDE or a hook puts in a user message: taken out; what remains may be a request.
_INJECTED_TAGS = (
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "ide_opened_file",
    "ide_selection",
    "system-reminder",
    "user-prompt-submit-hook",
    "environment_context",
    "user_instructions",
    "permissions instructions",
    "turn_aborted",
    "hook_context",  # Gemini CLI: a hook's additionalContext, put before the prompt
    "session_context",  # Gemini CLI: the working folder and its tree, the chat's first message
)


@cache
def _injected() -> re.Pattern[str]:
    """The blocks an IDE, a shell or a hook injects (compiled at first use: a hook imports this module)."""
    return re.compile(
        r"<(" + "|".join(map(re.escape, _INJECTED_TAGS)) + r")(?:\s[^>]*)?>.*?(?:</\1>|\Z)", re.DOTALL | re.IGNORECASE
    )


_NOT_A_REQUEST = (
    "Caveat: The messages below",
    "# AGENTS.md instructions",
    "This session is being continued from a previous conversation",
)


@dataclass(frozen=True, slots=True)
class Act:
    """One thing that happened in a session.

    kind: user (a person's message), agent (the agent's text), thinking, call (a tool call),
    result (a tool's result), usage (tokens), interrupt (the user stopped the agent), meta (session id, cwd).
    """

    kind: str
    timestamp: str | None = None
    text: str = ""
    name: str = ""
    call_id: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False
    agent: str = ""  # the subagent's id, "" for the main session
    rejected: bool = False  # a result: the user refused the tool call (an error, but not the tool's failure)
    tokens: tuple[int, int, int, int] | None = None  # input, output, cache read, cache creation
    cwd: str = ""  # a call: the folder the agent's shell was in when it made it, where the transcript says


@dataclass(frozen=True)
class TranscriptReader:
    """How one agent's transcripts are read: `detects` tells its records apart (given one of a file's
    first JSON objects), `read` streams a file's acts, `store(home)` is the folder where the agent
    keeps its sessions' transcripts (for a backfill). `agent` names the agent in messages, `label`
    in an extracted episode's context line."""

    format: str
    agent: str
    label: str
    detects: Callable[[dict[str, Any]], bool]
    read: Callable[[Path, ReadStats], Iterator[Act]]
    store: Callable[[Path], Path]


def formats(readers: Sequence[TranscriptReader]) -> tuple[str, ...]:
    """The formats a file may be given as: each reader's, then the ai-agents logs."""
    return (*(reader.format for reader in readers), AI_AGENTS)


@dataclass
class ReadStats:
    """What reading a transcript met: lines, records by type, lines skipped, types brain does not know."""

    files: int = 0
    lines: int = 0
    skipped_lines: int = 0
    records: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    unread: dict[str, int] = field(default_factory=dict)  # of `unknown`, those that may hold what brain reads
    session_id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None  # the branch the session started on, as the agent recorded it
    git_remote: str | None = None  # the repository's remote, where the agent records it (Codex)
    patterns_named: set[str] = field(default_factory=set)
    too_deep: int = 0  # lines (among `skipped_lines`) nested too deep for any JSON reader
    pruned: int = 0  # records read without their values nested more than MAX_DEPTH levels

    def count(self, kind: str, known: bool, may_hold_messages: bool = True) -> None:
        """Count a record; one of a type the reader does not know is `unknown`, and also `unread` (worth
        a warning) unless its shape shows it holds nothing brain reads (`may_hold_messages`)."""
        self.records[kind] = self.records.get(kind, 0) + 1
        if not known:
            self.unknown[kind] = self.unknown.get(kind, 0) + 1
            if may_hold_messages:
                self.unread[kind] = self.unread.get(kind, 0) + 1


def json_records(path: Path, stats: ReadStats) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSON Lines file, one at a time; other lines are counted in `stats.skipped_lines`."""

    named = re.compile(rb"\b(?:ANTI)?PATTERN-[A-Za-z0-9][\w-]*")
    try:
        handle = path.open("rb")
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror or error}") from None
    stats.files += 1
    with handle:
        for raw in handle:
            if not raw.strip():
                continue
            stats.lines += 1
            if b"PATTERN-" in raw:
                stats.patterns_named.update(match.decode("ascii", "replace") for match in named.findall(raw))
            try:
                record = json.loads(raw)
            except RecursionError:  # thousands of `[`: no record can be read from it
                stats.skipped_lines += 1
                stats.too_deep += 1
                continue
            except (ValueError, UnicodeDecodeError):
                stats.skipped_lines += 1
                continue
            if isinstance(record, dict):
                yield _within_depth(raw, record, stats)
            else:
                stats.skipped_lines += 1


def _within_depth(raw: bytes, record: dict[str, Any], stats: ReadStats) -> dict[str, Any]:
    """The record, its values nested more than MAX_DEPTH levels left out (counted): every walk over
    what a reader takes from it (redaction, the rules, JSON) stays within Python's recursion limit.
    A line with fewer `{` and `[` than that cannot nest so deep: most are not looked at."""
    if raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH:
        return record
    kept = pruned(record)
    if kept is not record:
        stats.pruned += 1
    return cast(dict[str, Any], kept)


def loads(text: str) -> Any:
    """`json.loads` for text inside a record (a tool's arguments, its output): a value nested too
    deep to parse is a ValueError like any text that is not JSON, and one that parses is kept
    within MAX_DEPTH levels (see `_within_depth`)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("nested too deep to read") from None
    return pruned(value) if text.count("{") + text.count("[") > MAX_DEPTH else value


def detect_format(path: Path, readers: Sequence[TranscriptReader]) -> str:
    """A reader's format or ai-agents, from the file's first records; an unknown file is a one-line error."""
    if path.suffix.lower() == ".md":
        return AI_AGENTS
    try:
        with path.open("rb") as handle:
            head = handle.read(1 << 16)
    except OSError as error:
        raise InvalidInput(f"cannot read {path}: {error.strerror or error}") from None
    if b"\0" in head:
        raise InvalidInput(f"{path} is a binary file, not a transcript or a session log")
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lines = [line for line in stripped.splitlines() if line.strip()][:_PROBE_LINES]
    for line in lines:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to parse
            continue
        if not isinstance(record, dict):
            continue
        for reader in readers:
            if reader.detects(record):
                return reader.format
        if isinstance(record.get("session"), dict):
            return AI_AGENTS
    if stripped.startswith(b"{") and path.suffix.lower() == ".json":
        return AI_AGENTS
    labels = ", ".join(reader.agent for reader in readers)
    raise InvalidInput(
        f"{path.name} is not a transcript brain knows ({labels}) nor an ai-agents session log; "
        f"give --format {'|'.join(formats(readers))} to force one"
    )


def subagent_files(path: Path) -> list[Path]:
    """Claude Code's subagent transcripts of a session: `<session>/subagents/agent-*.jsonl` beside it."""
    folder = path.with_suffix("") / "subagents"
    return sorted(folder.glob("agent-*.jsonl")) if folder.is_dir() else []


def transcript_files(paths: Sequence[str | Path]) -> list[Path]:
    """The files named: a file itself, or the transcripts and logs in a folder (subagent files are
    read with their parent, never on their own)."""
    found: list[Path] = []
    for given in paths:
        target = Path(given)
        if target.is_dir():
            inside = sorted(
                p
                for p in target.rglob("*")
                if p.is_file() and p.suffix.lower() in (".jsonl", ".json", ".md") and "subagents" not in p.parts
            )
            if not inside:
                raise InvalidInput(f"{given} holds no transcripts or session logs (.jsonl, .json, .md)")
            found += inside
        elif target.is_file():
            found.append(target)
        else:
            raise UsageError(f"'{given}' does not exist; give a transcript, a session log, or a folder of them")
    return list(dict.fromkeys(found))


def obj(value: Any) -> dict[str, Any]:
    """A record's field when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def request_text(text: str) -> str:
    """What a person wrote in a user message: the blocks an IDE, a shell or a hook put there taken out;
    '' when nothing is left or what is left is the harness's own text (a summary, AGENTS.md)."""
    text = _injected().sub("", text).strip()
    return "" if text.startswith(_NOT_A_REQUEST) else text


def preview(text: str, redact: Callable[[str], str]) -> str:
    """A tool output cut for the rules: its head and its tail (a test summary prints last). Each piece is
    redacted before it is cut, with `REACH` characters beyond the cut, so a secret there is replaced
    whole, never left in part."""
    if len(text) <= PREVIEW:
        return text
    half = PREVIEW // 2
    return redact(text[: half + REACH])[:half] + "\n...\n" + redact(text[-half - REACH :])[-half:]
