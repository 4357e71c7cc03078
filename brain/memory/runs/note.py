"""The run note: one recorded agent run (the seed's SnapshotEntry) as markdown a person can read.

The snapshot is kept exactly as it was recorded, as a fenced JSON block under `## Snapshot`:
that block is the source of truth, and `json.loads` of it gives back every value with its type
(an int stays an int, nested evidence stays nested). The readable sections above it (query,
answer, a decisions table with the evidence, the tool calls with their previews, the
narrative) are generated from the same data. Identity, outcome labels, the embedder and the
expiry live in the frontmatter, where a person can set `accepted: true` in Obsidian.

Notes written before this layout kept the run in the frontmatter in snake_case (see
vault-example/runs/): they are read too, into the same camelCase snapshot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from brain.markdown import frontmatter_yaml
from brain.markdown.depth import TooDeep, load_json
from brain.markdown.model import Note

RUNS_FOLDER = "runs"
Projection = Literal["decisions", "commits", "narrative", "full"]  # what of a run recall shows
PROJECTIONS: tuple[Projection, ...] = get_args(Projection)
DEFAULT_PROJECTION: Projection = "decisions"
PREVIEW_LIMIT = 500
SNAPSHOT_HEADING = "Snapshot"
GOOD_SCORE = 0.5  # an eval score at or above this counts as a good run when no other label decides
_LINE_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_FENCE = re.compile(r"^```json[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
# A line that markdown would read as a heading, fence or rule (also inside a list item or a quote).
_STRUCTURE = re.compile(r"^([ \t>*+-]*(?:\d+[.)][ \t]*)?)(#|```|~~~|---|===|___)", re.MULTILINE)


@dataclass(frozen=True)
class RunScope:
    """Who the run belongs to: the tenant that isolates it, and the principal and conversation."""

    tenant: str
    principal: str | None = None
    conversation: str | None = None


@dataclass(frozen=True)
class RunLabels:
    """Outcome labels, set when the run is recorded or later by a person. None: not labelled."""

    accepted: bool | None = None
    overridden: bool | None = None
    escalated: bool | None = None
    score: float | None = None

    def verdict(self) -> bool | None:
        """Good (True), bad (False) or unknown (None): overridden, escalated or not accepted is bad;
        accepted is good; otherwise an eval score decides (>= GOOD_SCORE)."""
        if self.overridden or self.escalated or self.accepted is False:
            return False
        if self.accepted:
            return True
        if self.score is not None:
            return self.score >= GOOD_SCORE
        return None

    def preference(self) -> tuple[int, float] | None:
        """An order between runs for preference pairs: the verdict first, then the score."""
        verdict = self.verdict()
        if verdict is None:
            return None
        return (int(verdict), self.score if self.score is not None else float(verdict))


@dataclass(frozen=True)
class TruncatedPreview:
    """A tool call whose resultPreview was cut to PREVIEW_LIMIT characters; `chars` is how long it was."""

    call: int
    chars: int


@dataclass(frozen=True)
class Run:
    title: str
    scope: RunScope
    snapshot: dict[str, Any]
    created: str
    labels: RunLabels = field(default_factory=RunLabels)
    embedder: str | None = None
    expires: str | None = None
    truncated: tuple[TruncatedPreview, ...] = ()
    path: str | None = None
    problems: tuple[str, ...] = ()

    @property
    def in_flight(self) -> bool:
        """No final answer recorded yet: the run was recorded while still going."""
        return not isinstance(self.snapshot.get("finalContent"), str)

    @property
    def query(self) -> str:
        value = self.snapshot.get("query")
        return value if isinstance(value, str) else ""

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return [d for d in self.snapshot.get("decisions") or [] if isinstance(d, dict)]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return [c for c in self.snapshot.get("toolCalls") or [] if isinstance(c, dict)]


# ---------------------------------------------------------------- compact text of values


def value_text(value: Any) -> str:
    """A JSON value on one line, as JSON (so a person sees 580 and "580" apart)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def evidence_text(evidence: Any) -> str:
    """`creditScore=580, threshold=600` for an object; other JSON as it is."""
    if isinstance(evidence, dict):
        return ", ".join(f"{key}={value_text(value)}" for key, value in evidence.items())
    return "" if evidence is None else value_text(evidence)


def decision_line(decision: dict[str, Any]) -> str:
    """`stage → chosen (rule): evidence`: one decision, compact (it is what DECISIONS puts in a prompt)."""
    line = f"{decision.get('stageId', '?')} → {_scalar(decision.get('chosen'))}"
    if decision.get("rule") is not None:
        line += f" ({_scalar(decision.get('rule'))})"
    evidence = evidence_text(decision.get("evidence"))
    return line + (f": {evidence}" if evidence else "")


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else value_text(value)


# ---------------------------------------------------------------- projections (text for a prompt)


def project(snapshot: dict[str, Any], projection: str) -> str:
    """The slice of a snapshot that goes into a prompt, as the seed defines the four projections."""
    decisions = [d for d in snapshot.get("decisions") or [] if isinstance(d, dict)]
    if projection == "decisions":
        return "\n".join(decision_line(d) for d in decisions) or "(no decisions recorded)"
    if projection == "commits":
        return (
            "\n".join(f"{d.get('stageId', '?')}: chose {value_text(d.get('chosen'))}" for d in decisions)
            or "(no decisions recorded)"
        )
    if projection == "narrative":
        narrative = snapshot.get("narrative")
        return narrative if isinstance(narrative, str) and narrative else "(no narrative recorded)"
    if projection == "full":
        return json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
    raise ValueError(projection)


# ---------------------------------------------------------------- rendering


def run_frontmatter(run: Run) -> dict[str, Any]:
    fm: dict[str, Any] = {
        "title": run.title,
        "type": "run",
        "tags": ["run"],
        "permalink": f"{RUNS_FOLDER}/{run.scope.tenant}/{run.title.lower()}",
        "created": run.created,
    }
    fm.update(managed_frontmatter(run))
    return {key: value for key, value in fm.items() if value is not None}


def managed_frontmatter(run: Run) -> dict[str, Any]:
    """The frontmatter keys brain owns in a run note (None: the key is absent)."""
    scope = {"tenant": run.scope.tenant}
    scope.update({k: v for k, v in (("principal", run.scope.principal), ("conversation", run.scope.conversation)) if v})
    return {
        "query": run.query,
        "scope": scope,
        "embedder": run.embedder,
        "status": "in-flight" if run.in_flight else "done",
        "accepted": run.labels.accepted,
        "overridden": run.labels.overridden,
        "escalated": run.labels.escalated,
        "score": run.labels.score,
        "expires": run.expires,
        "truncated_previews": [{"call": t.call, "chars": t.chars} for t in run.truncated] or None,
    }


def render_run(run: Run) -> str:
    """Markdown for a new run note."""
    sections = "\n".join(f"## {heading}\n{content}" for heading, content in managed_sections(run).items())
    return f"---\n{frontmatter_yaml.dump(run_frontmatter(run))}---\n\n# {run.title}\n\n{sections}"


def managed_sections(run: Run) -> dict[str, str]:
    """Heading -> content of every section brain writes, the readable ones first, then the snapshot."""
    snapshot = run.snapshot
    answer = snapshot.get("finalContent")
    sections = {
        "Query": _prose(run.query),
        "Answer": _prose(answer) if isinstance(answer, str) else "_In flight: no final answer recorded yet._\n",
        "Decisions": _decisions_table(run.decisions),
        "Tool Calls": _tool_calls(run),
        "Narrative": _prose(snapshot.get("narrative")) if isinstance(snapshot.get("narrative"), str) else "",
    }
    usage = raw_usage if isinstance(raw_usage := snapshot.get("tokenUsage"), dict) else {}
    facts = [
        f"iterations {value_text(snapshot['iterations'])}" if "iterations" in snapshot else "",
        f"{value_text(snapshot['durationMs'])} ms" if "durationMs" in snapshot else "",
        f"tokens in {value_text(usage['input'])}" if "input" in usage else "",
        f"tokens out {value_text(usage['output'])}" if "output" in usage else "",
    ]
    facts_line = ", ".join(fact for fact in facts if fact)
    block = snapshot_json(snapshot)
    sections[SNAPSHOT_HEADING] = (
        (f"{facts_line}.\n\n" if facts_line else "")
        + "The run exactly as recorded; the sections above are generated from it.\n\n"
        + f"```json\n{block}\n```\n"
    )
    return sections


def snapshot_json(snapshot: dict[str, Any]) -> str:
    """Indented JSON whose lines are the file's lines: characters Python or an editor would take
    for a line break (U+2028, U+2029, NEL) are escaped, as JSON allows, instead of written raw."""
    text = json.dumps(snapshot, ensure_ascii=False, indent=2)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\u0085")


def _prose(text: str | None) -> str:
    """Free text as note content, for reading only: odd line breaks become newlines, control
    characters are dropped, and a line that would start a heading, fence or rule is escaped."""
    if not text:
        return ""
    text = _LINE_BREAKS.sub("\n", text)
    text = _CONTROL.sub("", text).rstrip("\n")
    return _STRUCTURE.sub(lambda m: m.group(1) + "\\" + m.group(2), text) + "\n" if text else ""


def _cell(text: str) -> str:
    return _CONTROL.sub("", " ".join(text.split())).replace("|", "\\|")


def _decisions_table(decisions: list[dict[str, Any]]) -> str:
    if not decisions:
        return ""
    rows = ["| Stage | Chosen | Rule | Evidence |", "| --- | --- | --- | --- |"]
    for d in decisions:
        cells = (
            _scalar(d.get("stageId")),
            _scalar(d.get("chosen")),
            _scalar(d.get("rule")) if d.get("rule") is not None else "",
            evidence_text(d.get("evidence")),
        )
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def _tool_calls(run: Run) -> str:
    truncated = {t.call: t.chars for t in run.truncated}
    lines = []
    for number, call in enumerate(run.tool_calls):
        args = call.get("args")
        arguments = evidence_text(args) if isinstance(args, dict) else value_text(args)
        line = f"{number + 1}. `{_cell(_scalar(call.get('name')))}`({_cell(arguments)})"
        if call.get("errored"):
            line += " **errored**"
        lines.append(line)
        preview = call.get("resultPreview")
        if preview is not None:
            lines.append(f"   - result: {_cell(_scalar(preview))}")
        if number in truncated:
            lines.append(f"   - preview truncated to {PREVIEW_LIMIT} of {truncated[number]:,} characters")
    return "\n".join(lines) + "\n" if lines else ""


# ---------------------------------------------------------------- reading


def run_from_note(note: Note) -> Run:
    """A `Run` from a run note. Never raises: what cannot be read is listed in `problems`."""
    fm = note.frontmatter
    problems: list[str] = []
    scope_data = raw_scope if isinstance(raw_scope := fm.get("scope"), dict) else {}
    scope = RunScope(
        tenant=str(scope_data.get("tenant") or ""),
        principal=_text(scope_data.get("principal")),
        conversation=_text(scope_data.get("conversation")),
    )
    if not scope.tenant:
        problems.append("no scope.tenant in the frontmatter: the run belongs to no tenant and is never recalled")
    snapshot = _snapshot_block(note, problems)
    if snapshot is None:
        snapshot = _legacy_snapshot(note)
    score = fm.get("score")
    labels = RunLabels(
        accepted=_flag(fm.get("accepted")),
        overridden=_flag(fm.get("overridden")),
        escalated=_flag(fm.get("escalated")),
        score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
    )
    truncated = tuple(
        TruncatedPreview(int(item["call"]), int(item["chars"]))
        for item in fm.get("truncated_previews") or []
        if isinstance(item, dict) and isinstance(item.get("call"), int) and isinstance(item.get("chars"), int)
    )
    return Run(
        title=note.title,
        scope=scope,
        snapshot=snapshot,
        created=str(fm.get("created") or ""),
        labels=labels,
        embedder=_text(fm.get("embedder")),
        expires=_text(fm.get("expires")),
        truncated=truncated,
        path=note.path,
        problems=tuple(problems),
    )


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _snapshot_block(note: Note, problems: list[str]) -> dict[str, Any] | None:
    """The JSON of the last `## Snapshot` section (brain writes it last, after all free text)."""
    sections = [s for s in note.sections if s.level == 2 and s.heading.strip().lower() == SNAPSHOT_HEADING.lower()]
    if not sections:
        return None
    found = _FENCE.search(sections[-1].content)
    if found is None:
        problems.append("the Snapshot section holds no ```json block")
        return None
    try:
        value = load_json(found.group(1), "the Snapshot JSON")
    except json.JSONDecodeError as error:
        problems.append(f"the Snapshot JSON does not parse ({error.msg} at line {error.lineno})")
        return None
    except TooDeep as error:
        problems.append(str(error))
        return None
    if not isinstance(value, dict):
        problems.append("the Snapshot JSON is not an object")
        return None
    return value


def _legacy_snapshot(note: Note) -> dict[str, Any]:
    """The seed's camelCase snapshot from a run kept in snake_case frontmatter (the older layout)."""
    fm = note.frontmatter
    snapshot: dict[str, Any] = {"query": fm.get("query")}
    answer = note.section_text("Answer").strip()
    snapshot["finalContent"] = answer or None
    for key, camel in (("iterations", "iterations"), ("duration_ms", "durationMs"), ("token_usage", "tokenUsage")):
        if key in fm:
            snapshot[camel] = fm[key]
    snapshot["decisions"] = [
        {"stageId": d.get("stage_id"), "chosen": d.get("chosen"), "rule": d.get("rule"), "evidence": d.get("evidence")}
        for d in fm.get("decisions") or []
        if isinstance(d, dict)
    ]
    snapshot["toolCalls"] = [
        {
            "name": c.get("name"),
            "args": c.get("args"),
            "resultPreview": c.get("result_preview"),
            "errored": bool(c.get("errored")),
        }
        for c in fm.get("tool_calls") or []
        if isinstance(c, dict)
    ]
    narrative = note.section_text("Narrative").strip()
    if narrative:
        snapshot["narrative"] = narrative
    return snapshot
