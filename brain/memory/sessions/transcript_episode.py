"""A transcript's acts -> an episode, by rules (no language model); every value comes from the transcript.

- task: the first real request of the person (not a slash command, a hook's or the harness's text;
  blocks an IDE, a shell or a hook put in the message taken out).
- session, date, duration_minutes: the transcript's session id; its first timestamp; first to last.
- metrics: tool_calls of the session and its subagents, once per call id (a resumed or forked
  transcript replays earlier calls); errors = error results; recoveries = errors followed by a later
  call that succeeded on what failed or supplied what it lacked (`recoveries` has the rules);
  commits = `git commit` runs that succeeded; files_changed = distinct files written or edited (an
  edit tool, or a shell's plain redirection); input/output/cache tokens as the agent reported them.
- every text cut short (task, command, error line, decision, plan, tool output) is redacted first (`clip`).
- events: edits (consecutive edits of one file are one event), test runs (passed / failed, with the
  runner's counts), commits, errors and their recoveries (linked by caused_by / leads_to), user
  corrections (a message that says no / stop / instead / undo ..., an interrupt, a rejected tool call).
- decisions: the agent states a choice ("I'll use X instead of Y", "going with", "rather than",
  "option"), a plan the user approved or rejected (Claude Code's ExitPlanMode), the agent changing
  approach after a failure. Chosen = the agent's sentence, rationale = its own "because ..." words,
  outcome = failure when an error after it stayed unrecovered (a failed look, a read or an `ls` of
  what is not there, does not count), else success.
- lessons: one per error -> recovery pair: what failed, then what was different in what worked
  ("`cat a.yaml` failed (cat: a.yaml: No such file or directory): `a.yaml` did not exist; `touch a.yaml`
  created it"); a retry that worked unchanged says so (flaky).
- outcome: failure when a test, build, lint or typecheck run failed and never passed after, or the
  session ends on failing tests or an error result (an earlier failed `ls` does not count); partial
  when it ends with open todo items or the user rejecting, correcting or interrupting; else success.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import NotRequired, TypedDict, Unpack

from brain.markdown.model import Decision, Episode, Event
from brain.memory.episodes.service import episode_title
from brain.memory.episodes.signature import blanked, relative
from brain.memory.sessions import choices, recoveries
from brain.memory.sessions import commands as cmd
from brain.memory.sessions.recoveries import Attempt, Found, Lack
from brain.memory.sessions.transcripts.files import PREVIEW, Act, preview, request_text

MAX_EVENTS = 300
MAX_DECISIONS = 20
_CORRECTION = re.compile(
    r"^\W*(?:no\b|nope\b|don'?t\b|do not\b|stop\b|wait\b|actually\b|instead\b|wrong\b|that'?s (?:not|wrong)\b|"
    r"revert\b|undo\b|never ?mind\b|not what\b|why did you\b|please don'?t\b)",
    re.IGNORECASE,
)
_UNFINISHED = frozenset({"pending", "in_progress", "in-progress"})


@dataclass
class _Call:
    name: str
    when: str | None
    command: str | None
    files: list[str]
    key: str
    plan: str = ""
    check: str | None = None  # a test, build, lint or typecheck run: its command key
    read: str = ""  # the file a read tool read
    attempt: Attempt | None = None  # the call as recovery reads it
    call_id: str = ""


@dataclass
class _Open:
    event: int  # index of the error event
    text: str
    detail: str = ""  # the line of the output that names the error
    fixes: list[str] = field(default_factory=list)  # what was done since that may have fixed it
    command: str | None = None  # the shell command that failed
    attempt: Attempt = field(default_factory=lambda: Attempt("", None))
    lack: Lack = field(default_factory=Lack)
    call_id: str = ""


class _EventRecord(TypedDict):
    """An event as it is recorded (its id is renumbered in time order when the episode is made)."""

    id: str
    type: str
    text: str
    when: str | None
    caused_by: list[str]
    leads_to: list[str]
    files: NotRequired[str]  # an edit's files, while its repeats are counted into one event
    count: NotRequired[int]


class _Choice(TypedDict):
    kind: str
    title: str
    chosen: str
    rationale: str | None
    options: tuple[str, ...] | None
    context: str | None
    when: str | None


class _DecisionRecord(_Choice):
    after: int  # how many events were recorded before it


@dataclass
class Builder:
    """Consumes acts one by one; `episode()` makes the episode. Holds only what the episode needs."""

    session_id: str
    cwd: str | None = None
    redact: Callable[[str], str] = field(default=lambda text: text, repr=False)
    tool_calls: int = 0
    errors: int = 0
    recoveries: int = 0
    task: str | None = None
    first: datetime | None = None
    last: datetime | None = None
    first_text: str | None = None
    tokens: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    commits: list[str] = field(default_factory=list)
    files: dict[str, None] = field(default_factory=dict)
    events: list[_EventRecord] = field(default_factory=list)
    omitted_events: int = 0
    decisions: list[_DecisionRecord] = field(default_factory=list)
    lessons: list[str] = field(default_factory=list)
    pending: dict[str, _Call] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)  # every call id seen: a replayed call counts once
    # by the failed call's key and its error line: the same call failing again the same way is one
    # failure (the first is the one to recover); another error of the same command is another
    open_errors: dict[tuple[str, str], _Open] = field(default_factory=dict)
    last_test_failed: bool | None = None
    failed_checks: dict[str, None] = field(default_factory=dict)  # checks whose last run failed, by command
    last_result_error: bool = False
    open_todos: int = 0
    user_stopped: bool = False
    after_error: bool = False

    def feed(self, acts: Iterable[Act]) -> Builder:
        for act in acts:
            self._clock(act.timestamp)
            handler = getattr(self, f"_on_{act.kind}", None)
            if handler is not None:
                handler(act)
        return self

    def _clock(self, when: str | None) -> None:
        if not when:
            return
        try:
            moment = datetime.fromisoformat(when.replace("Z", "+00:00"))
        except ValueError:
            return
        if moment.tzinfo is None:
            return
        if self.first is None or moment < self.first:
            self.first, self.first_text = moment, when
        if self.last is None or moment > self.last:
            self.last = moment

    # ------------------------------------------------------------ acts

    def clip(self, text: str, limit: int) -> str:
        """`text` cut to `limit` characters ("..." marks the cut), redacted before it is cut so that a secret
        at the cut is replaced whole, never left in part. Text that fits is redacted with the whole episode."""
        if len(text) <= limit:
            return text
        text = self.redact(text)
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def _on_user(self, act: Act) -> None:
        text = request_text(act.text)
        if not text:
            return
        if self.task is None:
            self.task = self.clip(" ".join(text.split()), 300)
            return
        if _CORRECTION.search(text[:80]):
            self._event("correction", f"User correction: {self.clip(cmd.first_line(text), 200)}", act.timestamp)
            self.user_stopped = True
        else:
            self.user_stopped = False

    def _on_interrupt(self, act: Act) -> None:
        self._event("correction", f"User {act.text}", act.timestamp)
        self.user_stopped = True

    def _on_agent(self, act: Act) -> None:
        sentences = choices.sentences(act.text)
        if self.after_error:
            self.after_error = False
            for position, sentence in enumerate(sentences):
                if choices.changes_approach(sentence):
                    self._decision(
                        "recovery",
                        "Change of approach after a failure",
                        sentences,
                        position,
                        act,
                        self._last_error_text(),
                    )
                    return
        for position, sentence in enumerate(sentences):
            if choices.states_a_choice(sentence):
                self._decision("implementation", "Choice stated by the agent", sentences, position, act, None)
                return

    def _on_call(self, act: Act) -> None:
        if act.call_id:
            if act.call_id in self.called:
                return  # the transcript replays a call it holds already (a resumed or forked session)
            self.called.add(act.call_id)
        self.tool_calls += 1
        command = cmd.shell_command(act.name, act.args)
        files = cmd.edited_files(act.name, act.args) or (
            cmd.patch_files(act.args.get("input", "")) if act.name == "apply_patch" else []
        )
        if command:
            files = files or (cmd.patch_files(command) if "apply_patch" in command else cmd.redirected_files(command))
        same = cmd.command_key(command) if command else None
        read = cmd.read_file(act.name, act.args)
        workdir = act.args.get("workdir")
        cwd = act.cwd or (workdir if isinstance(workdir, str) else "") or self.cwd or ""
        attempt = Attempt.of(act.name, command, cwd, files, act.args)
        key = f"{act.agent}:{act.name}:" + (same or ",".join(files) or read or attempt.target)
        plan = str(act.args.get("plan", "")) if act.name in cmd.PLAN_TOOLS else ""
        check = same if command and cmd.is_check(command) else None
        self.pending[act.call_id] = _Call(
            act.name, act.timestamp, command, files, key, plan, check, read, attempt, act.call_id
        )
        if act.name in cmd.TODO_TOOLS:
            items = act.args.get("todos", act.args.get("plan", []))
            if isinstance(items, list):
                self.open_todos = sum(
                    1 for item in items if isinstance(item, dict) and str(item.get("status", "")).lower() in _UNFINISHED
                )

    def _on_result(self, act: Act) -> None:
        call = self.pending.pop(act.call_id, None)
        if call is None:
            return
        whole = act.text  # the error line is read from it (a failing test's name prints mid-way)
        if len(act.text) > PREVIEW:
            act = replace(act, text=preview(act.text, self.redact))
        self.last_result_error = act.is_error and not call.plan
        if call.plan:
            self._plan(call, act)
            return
        if act.rejected:
            self.errors += 1  # an error result all the same; the reader marked the rejection itself
            self.last_result_error = False
            return
        self._outcome(call, act, whole)
        self._attempt(call, act)

    def _outcome(self, call: _Call, act: Act, whole: str) -> None:
        """What the result makes of the call; `whole`, its output before the preview cut it."""
        tests = call.command is not None and cmd.is_test_run(call.command) and not cmd.never_ran(act.text)
        failed = cmd.tests_failed(act.text, act.is_error) if tests else act.is_error
        if call.check is not None and failed:  # the outcome's rule: a check that failed and never passed again
            self.failed_checks[call.check] = None
        elif call.check is not None:
            self.failed_checks.pop(call.check, None)
        if call.command and tests:
            self.last_test_failed = failed
            counts = cmd.test_counts(act.text)
            verdict = "failed" if failed else "passed"
            text = f"Ran `{self._command(call.command)}`: tests {verdict}" + (f" ({counts})" if counts else "")
            if act.is_error or failed:
                self._error(call, act, text, self._error_line(whole))
            else:
                self._success(call, act, "test", text)
            return
        if act.is_error:
            on = call.files or ([call.read] if call.read else [])  # the file, as the failure hook names it
            what = f"`{self._command(call.command)}`" if call.command else f"{call.name} {', '.join(on)}".strip()
            line = self._error_line(whole)
            self._error(call, act, f"{what} failed: {line}" if line else f"{what} failed", line)
            return
        if call.command and cmd.is_commit(call.command):
            sha, message = cmd.commit_made(act.text)
            message = message or cmd.commit_message(call.command) or ""
            self.commits.append(sha or message or call.command)
            self._success(call, act, "commit", f"Commit {sha or '(sha not printed)'}: {message}".rstrip(": "))
            return
        if call.files:
            for name in call.files:
                self.files.setdefault(name, None)
            self._success(call, act, "edit", None)
            return
        self._success(call, act, None, None)

    def _attempt(self, call: _Call, act: Act) -> None:
        """What the agent did while errors were open that may have fixed them: files edited, commands
        that change something (never an `ls` or a `git status`, nor a call that failed), files read
        (for a failed edit or read: reading is what an edit on stale text lacked)."""
        if act.is_error:
            return
        if call.files:
            done = [f"editing {name}" for name in call.files]
        elif call.command:
            done = (
                [f"running `{self._command(call.command, 80)}`"] if recoveries.changes_something(call.command) else []
            )
        else:
            done = [f"reading {call.read}"] if call.read else []
        for (key, _), error in self.open_errors.items():
            if key == call.key or error.call_id == call.call_id:
                continue
            fresh = [step for step in done if step not in error.fixes]
            if error.command:  # a command that failed is not fixed by reading a file
                fresh = [step for step in fresh if not step.startswith("reading ")]
            error.fixes += fresh[: max(0, 5 - len(error.fixes))]

    def _on_usage(self, act: Act) -> None:
        for index, value in enumerate(act.tokens or ()):
            self.tokens[index] += value

    # ------------------------------------------------------------ rules

    def _error_line(self, whole: str) -> str:
        return self.clip(cmd.error_line(whole), 160)

    def _error(self, call: _Call, act: Act, text: str, line: str) -> None:
        self.errors += act.is_error  # the metric counts error results; a failing run that exited 0 is an event only
        self.after_error = True
        index = self._event("error", text, act.timestamp)
        failure = (call.key, blanked(line))
        if failure not in self.open_errors:  # a repeat of the same failure keeps the first as the one to recover
            detail = line or "an error"
            attempt = call.attempt or Attempt(call.name, call.command)
            lack = recoveries.lack(attempt, act.text)
            self.open_errors[failure] = _Open(index, text, detail, [], call.command, attempt, lack, call.call_id)

    def _success(self, call: _Call, act: Act, kind: str | None, text: str | None) -> None:
        self.user_stopped = False
        recovered = self._recovered(call, kind == "test")
        if kind == "edit" and recovered and call.command:
            kind = None  # a command that wrote files and recovered a failure: the event names the command
        if kind == "edit":
            name = ", ".join(call.files)
            last = self.events[-1] if self.events else None
            if last and last["type"] == "edit" and last.get("files") == name and not recovered:
                last["count"] += 1
                last["text"] = f"Edited {name} ({last['count']} edits)"
                return
            index = self._event("edit", f"Edited {name}", act.timestamp)
            if index >= 0:
                self.events[index]["files"] = name
                self.events[index]["count"] = 1
        elif kind is not None and text is not None:
            index = self._event(kind, text, act.timestamp)
        elif recovered:
            target = call.attempt.target if call.attempt else ""
            what = f"`{self._command(call.command)}`" if call.command else f"{call.name} {target}".strip()
            index = self._event("recovery", f"{what} succeeded", act.timestamp)
        else:
            return
        for opened, found in recovered:
            self.recoveries += 1
            if index >= 0 and opened.event >= 0:
                self.events[index]["caused_by"].append(self.events[opened.event]["id"])
                self.events[opened.event]["leads_to"].append(self.events[index]["id"])
            if opened.command:  # the lesson names the run that failed
                subject = f"`{self._command(opened.command, 80)}`"
            else:
                on = ", ".join(opened.attempt.files) or cmd.read_file(
                    opened.attempt.tool, {"path": opened.attempt.target}
                )
                subject = f"{opened.attempt.tool} on {on}" if on else opened.attempt.tool
            self.lessons.append(f"{subject} failed ({opened.detail}): {self.clip(found.change, 400)}.")

    def _recovered(self, call: _Call, test: bool) -> list[tuple[_Open, Found]]:
        """The open errors this successful call recovers, with what was different (`recoveries`)."""
        if call.attempt is None:
            return []
        found = []
        for key, error in list(self.open_errors.items()):
            recovery = recoveries.recovery(error.attempt, error.lack, call.attempt, error.fixes, test=test)
            if recovery is not None:
                found.append((self.open_errors.pop(key), recovery))
        return found

    def _plan(self, call: _Call, act: Act) -> None:
        approved = not act.is_error
        feedback = "" if approved else self.clip(cmd.first_line(act.text), 200)
        self._decision_record(
            kind="design",
            title="Plan " + ("approved" if approved else "rejected") + " by the user",
            chosen="approved the plan" if approved else "rejected the plan",
            rationale=feedback or None,
            options=("approve", "reject"),
            context=self.clip(cmd.first_line(call.plan), 200) or None,
            when=act.timestamp,
        )
        if not approved:
            self._event("correction", "User rejected the plan" + (f": {feedback}" if feedback else ""), act.timestamp)
            self.user_stopped = True

    def _decision(
        self, kind: str, title: str, sentences: list[str], position: int, act: Act, context: str | None
    ) -> None:
        found = choices.choice_in(sentences, position)
        if found is None:
            return
        self._decision_record(
            kind=kind,
            title=self._short(found.options[0] if found.options else found.chosen) or title,
            chosen=self.clip(found.chosen, 300),
            rationale=self.clip(found.rationale, 300) if found.rationale else None,
            options=found.options,
            context=context,
            when=act.timestamp,
        )

    def _decision_record(self, **choice: Unpack[_Choice]) -> None:
        if len(self.decisions) < MAX_DECISIONS:
            self.decisions.append(_DecisionRecord(**choice, after=len(self.events)))

    def _command(self, command: str, limit: int = 120) -> str:
        return self.clip(relative(cmd.display_command(command), self.cwd), limit)

    def _short(self, text: str) -> str:
        """A decision's heading: its chosen option's first clause ('Count attempts, so ...' -> 'Count attempts')."""
        return self.clip(re.split(r"[,;:(]| - ", text, maxsplit=1)[0].strip(" ."), 72)

    def _last_error_text(self) -> str | None:
        for event in reversed(self.events):
            if event["type"] == "error":
                return event["text"]
        return None

    def _event(self, kind: str, text: str, when: str | None) -> int:
        if len(self.events) >= MAX_EVENTS:
            self.omitted_events += 1
            return -1
        number = len(self.events) + 1
        self.events.append(
            _EventRecord(id=f"e{number:03d}", type=kind, text=text, when=when, caused_by=[], leads_to=[])
        )
        return len(self.events) - 1

    # ------------------------------------------------------------ the episode

    def outcome(self) -> str:
        if self.failed_checks or self.last_test_failed or self.last_result_error:
            return "failure"
        if self.open_todos or self.user_stopped:
            return "partial"
        return "success"

    def names(self) -> list[str]:
        """The names the episode may take, shortest first: `EPISODE-<date>-<the id's first 8 characters>`, then
        longer parts of the id (up to each `-`), then all of it, the name a new note takes: the session id is
        unique, so two machines sharing the vault never write one file. The shorter ones are what older
        brains named a note, which keeps its name (`ingest.named_for_session` picks one)."""
        date = self.first.date().isoformat() if self.first else None
        clean = re.sub(r"[^A-Za-z0-9-]", "", self.session_id)
        cuts = [8, *(dash.start() for dash in re.finditer("-", clean) if dash.start() > 8), len(clean)]
        parts = dict.fromkeys(clean[:cut].strip("-") or "session" for cut in cuts)
        return [f"EPISODE-{date}-{part}" if date else f"EPISODE-{part}" for part in parts]

    def episode(self) -> Episode:
        sid = self.names()[-1].removeprefix("EPISODE-")
        unrecovered = {error.event for error in self.open_errors.values() if not recoveries.looks(error.attempt)}
        decisions = []
        ordered = sorted(self.events, key=lambda e: _instant(e["when"]))  # subagents' events among their parent's
        renamed = {e["id"]: f"e{number:03d}" for number, e in enumerate(ordered, 1)}
        for number, values in enumerate(self.decisions, 1):
            failed = any(index >= values["after"] for index in unrecovered)
            decisions.append(
                Decision(
                    id=f"d{number:03d}",
                    title=values["title"],
                    timestamp=values["when"],
                    type=values["kind"],
                    context=values["context"],
                    options=values["options"],
                    chosen=values["chosen"],
                    rationale=values["rationale"],
                    outcome="failure" if failed else "success",
                    effects=tuple(renamed[i] for i in self._effects(values)) or None,
                )
            )
        events = [
            Event(
                text=self._relative(e["text"]),
                timestamp=e["when"],
                id=renamed[e["id"]],
                type=e["type"],
                caused_by=tuple(renamed[i] for i in e["caused_by"]),
                leads_to=tuple(renamed[i] for i in e["leads_to"]),
            )
            for e in ordered
        ]
        minutes = round((self.last - self.first).total_seconds() / 60, 1) if self.first and self.last else None
        metrics = {"tool_calls": self.tool_calls, "errors": self.errors, "recoveries": self.recoveries}
        metrics |= {"commits": len(self.commits), "files_changed": len(self.files)}
        kinds = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens")
        metrics |= dict(zip(kinds, self.tokens, strict=True))
        return Episode(
            title=episode_title(f"episode-{sid}", sid, self.first_text),
            outcome=self.outcome(),
            task=self.task or f"session {self.session_id} (no request from the user found)",
            session=self.session_id,
            date=self.first_text,
            episode_id=f"episode-{sid}",
            duration_minutes=minutes,
            metrics=metrics,
            decisions=tuple(
                replace(d, chosen=self._relative(d.chosen or ""), context=d.context and self._relative(d.context))
                for d in decisions
            ),
            events=tuple(events),
            lessons=tuple(dict.fromkeys(self._relative(lesson) for lesson in self.lessons)),
            tags=("episodic", "extracted", "transcript"),
        )

    def _effects(self, values: _DecisionRecord) -> list[str]:
        """What a change of approach led to: the events from it up to the recovery of the error it answered."""
        if values["kind"] != "recovery":
            return []
        before = [e for e in self.events[: values["after"]] if e["type"] == "error"]
        if not before or not before[-1]["leads_to"]:
            return []
        last = next((n for n, e in enumerate(self.events) if e["id"] == before[-1]["leads_to"][0]), -1)
        return [e["id"] for e in self.events[values["after"] : last + 1]]

    def _relative(self, text: str) -> str:
        """Paths under the session's working folder said relative to it, as the agent's user would."""
        return relative(text, self.cwd)


def _instant(when: str | None) -> datetime:
    """An event's time for ordering; an event without one keeps its place after the timed ones."""
    try:
        moment = datetime.fromisoformat((when or "").replace("Z", "+00:00"))
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
