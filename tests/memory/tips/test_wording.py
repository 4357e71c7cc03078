"""How rule-made tips are worded: what to do and why, not what the log said happened, as advice a
person would write (names in words, names of tips that end on a word of content, each cause once,
no redaction marker, `Applies When` the task's first clause); and which subtasks make no tip."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.markdown.model import Decision, Episode, Event
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.sessions.extract import extract_file
from brain.memory.sessions.protocol import end_session
from brain.memory.tips.draft import distinct_causes
from brain.memory.tips.learn import draft_tips
from brain.memory.tips.naming import CommandStep, command_name, command_step, slug, subject
from brain.memory.tips.note import Tip, tip_from_note
from brain.memory.tips.spoken import say
from brain.memory.tips.wording import FUNCTION_WORDS, base_form, generalize, imperative, quoted_code, same, strip_label
from brain.vault.vault import Vault
from tests.conftest import DATA, REPO, TRANSCRIPTS

EXAMPLE = REPO / "vault-example"
LOGS = DATA / "ai-agents" / "sessions" / "logs"


@pytest.mark.parametrize(
    "past, plain",
    [
        ("Chose", "Choose"),
        ("Verified", "Verify"),
        ("Stopped", "Stop"),
        ("Committed", "Commit"),
        ("Added", "Add"),
        ("Called", "Call"),
        ("Passed", "Pass"),
        ("Validated", "Validate"),
        ("Declined", "Decline"),
        ("Measured", "Measure"),
        ("Used", "Use"),
        ("Enabled", "Enable"),
        ("Changed", "Change"),
        ("Provided", "Provide"),
        ("Named", "Name"),
        ("Repaired", "Repair"),
        ("Explained", "Explain"),
        ("Monitored", "Monitor"),
        ("Mutation-tested", "Mutation-test"),
        ("Created", "Create"),
        ("randomised", "randomise"),
        ("Retyped", "Retype"),
        ("rewired", "rewire"),
    ],
)
def test_a_past_tense_verb_in_its_plain_form(past, plain):
    assert base_form(past) == plain


@pytest.mark.parametrize("word", ["Need", "Shed", "Red", "Jitter", "Canary", "Split"])
def test_words_that_are_not_a_past_tense_are_left_alone(word):
    assert base_form(word) is None


def test_labels_of_logged_steps_go_and_the_first_verb_becomes_an_instruction():
    assert imperative("fix: Added skip: merge to the hook") == "Add skip: merge to the hook"
    assert imperative("Phase <n>b: Fixed CI Test Failures") == "Fix CI Test Failures"
    assert strip_label("Tests Passed: <n>, Failed: <n>") == "Tests Passed: <n>, Failed: <n>"  # a sentence, not a label
    assert imperative("Jitter of plus or minus <n>") == "Jitter of plus or minus <n>"


@given(st.text(max_size=80))
def test_imperative_never_raises_and_keeps_the_rest_of_the_text(text):
    out = imperative(text)
    rest = strip_label(text).partition(" ")[2]
    assert out.endswith(rest)


@pytest.fixture
def example(tmp_path) -> Vault:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".brain"))
    return Vault(root)


def test_a_decision_titled_by_a_name_says_what_to_do_over_what_and_why(example):
    drafts = draft_tips(get_episode(Corpus(example), "EPISODE-2026-03-27-session-15"))
    jitter = drafts[0]
    assert jitter.subtask == "Jittered Expiry" and jitter.trigger == "Keys written together expire together"
    assert jitter.tip == (
        "Choose jitter of plus or minus 20 percent over fixed TTL or probabilistic early expiration. "
        "Why: Simplest change that spreads expiries; probabilistic early refresh was kept as a follow-up for the hottest keys."
    )
    # "Session started from the incident timeline and traces": a logged step that teaches nothing
    assert [d.subtask for d in drafts] == [
        "Jittered Expiry",
        "Request Coalescing",
        "Versioned Keys Instead of Flushes",
        "Rollout Path",
    ]


def test_a_logged_choice_becomes_an_instruction_with_its_rationale():
    episode = extract_file(LOGS / "2026-07-29-session-3591-windows-write-through.json").episode
    drafts = {d.span: d for d in draft_tips(episode)}
    raise_over_warn = drafts["d003-e004"]
    assert raise_over_warn.subtask == "Choose raise over warn for a failed move"
    assert raise_over_warn.tip == (
        "Choose raise over warn for a failed move, matching os.replace and diverging from _fsync_dir on purpose. "
        "Why: Every failure in _write_atomic up to and including this call leaves the destination untouched, so refusing costs "
        "the caller nothing. _fsync_dir warns because it runs after the entry is already."
    )
    assert drafts["d006, e010, e011"].subtask == "Mutation-test the suite rather than assuming it was load-bearing"


def _run(*events: Event, lessons: tuple[str, ...] = ()) -> Episode:
    return Episode(title="EPISODE-x", outcome="success", task="Tidy the release notes", events=events, lessons=lessons)


def test_a_run_of_logged_steps_makes_a_tip_only_when_verified_or_a_lesson_speaks_of_it():
    diary = (
        Event("Opened the release notes draft", id="e001", type="milestone"),
        Event("Rewrote the summary paragraph", id="e002", type="milestone"),
    )
    assert draft_tips(_run(*diary)) == []
    verified = draft_tips(_run(*diary, Event("Docs build passed", id="e003", type="test")))
    assert [d.tip for d in verified] == [
        "Open the release notes draft: rewrite the summary paragraph; then docs build passed."
    ]
    lesson = draft_tips(
        _run(*diary, lessons=("A summary paragraph rewritten last reads better than one drafted first",))
    )
    assert len(lesson) == 1 and lesson[0].tip.endswith(
        "Lesson: A summary paragraph rewritten last reads better than one drafted first."
    )
    decided = Episode(
        title="EPISODE-y",
        outcome="success",
        task="t",
        decisions=(
            Decision(
                id="d001",
                title="Format",
                context="Release notes need one format",
                options=("Markdown", "HTML"),
                chosen="Markdown",
            ),
        ),
    )
    assert [d.tip for d in draft_tips(decided)] == ["Choose markdown over HTML."]


AI_AGENTS = DATA / "ai-agents"
REAL_SESSIONS = (
    sorted(p for p in TRANSCRIPTS.rglob("*.jsonl") if "subagents" not in p.parts)
    + sorted(p for p in LOGS.glob("*.*") if not p.name.endswith(".schema.json"))
    + sorted((AI_AGENTS / "unseen" / "logs").glob("*.json"))
    + sorted((AI_AGENTS / "tips").glob("*.json"))
)


def test_tips_learned_from_every_real_session_read_like_advice():
    """Every tip the rules learn from the real transcripts (public samples and constructed ones) and
    the ai-agents logs: no number placeholder, no 'led to' fragment, no reason said twice, and a
    title named by its subject, not by a command line."""
    from brain.memory.sessions.ingest import extract_transcript
    from brain.memory.tips.service import tip_slug

    drafts = [draft for path in REAL_SESSIONS for draft in draft_tips(extract_transcript(path).episode)]
    assert len(drafts) > 100
    for draft in drafts:
        said = " | ".join([draft.subtask, draft.tip, draft.avoid, draft.trigger, draft.purpose, *draft.steps])
        assert "<n>" not in said and not re.search(r"\bled to\b", said), said
        assert not re.search(r"Why: because\b", draft.tip), draft.tip
        why = draft.tip.partition(" Why: ")[2].rstrip(".").lower()
        assert not why or why not in draft.tip.partition(" Why: ")[0].lower(), draft.tip
        slug = tip_slug(draft.subtask)
        assert not re.match(
            r"(?:[a-z]+-)?(?:ran|run)-(?:[a-z]+-){0,3}(?:uv|pytest|ruff|mypy|npm|git|python)\b", slug
        ), slug


def test_before_and_after_on_real_sessions():
    """Wordings that once read badly, on the sessions they came from."""
    from brain.memory.sessions.ingest import extract_transcript
    from brain.memory.tips.service import tip_slug

    claude = TRANSCRIPTS / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
    count = next(d for d in draft_tips(extract_transcript(claude).episode) if d.subtask == "Count attempts")
    assert count.tip.startswith("Count attempts, so the first call is attempt 1. Why:")  # was "attempt <n>"
    reproduce = draft_tips(
        extract_file(LOGS / "2026-06-27-session-2599-fix-issue-2759-neutralize-ambient.json").episode
    )
    assert tip_slug(reproduce[0].subtask) == "reproduce-fix-issue-2759-neutralize-ambient-lsp-guard"
    assert reproduce[0].tip.startswith(
        "Add autouse fixture _neutralize_lsp_guard_overrides to the file"
    )  # not "Fix: Added"
    babysit = draft_tips(extract_file(LOGS / "2026-07-03-session-2604-pr-2829-autoplan-babysitter.json").episode)
    assert babysit[0].tip == (  # the reason was said a second time as "Why: because ..."
        "Leave the orchestrator-retirement review thread unresolved because it is a user-owned design decision."
    )


def test_a_step_or_decision_told_by_its_command_line_is_named_by_the_task():
    from brain.memory.tips.service import tip_slug

    task = "Fix the count-ratchet base-ref verdict so it reports a measured count"
    run = Episode(
        title="EPISODE-c",
        outcome="success",
        task=task,
        events=(
            Event("Ran pytest over the six affected test modules", id="e001", type="milestone"),
            Event("All 41 tests passed", id="e002", type="test"),
        ),
    )
    assert [tip_slug(d.subtask) for d in draft_tips(run)] == ["run-the-test-suite-fix-the-count-ratchet"]
    decided = Episode(
        title="EPISODE-d",
        outcome="success",
        task="Clean up the lint findings",
        decisions=(
            Decision(
                id="d001",
                title="Run uv run ruff check",
                chosen="Run uv run ruff check rather than flake8",
                rationale="because ruff is what CI runs",
            ),
        ),
    )
    (draft,) = draft_tips(decided)
    assert draft.subtask == "Run the linter: clean up the lint findings"
    assert draft.tip == "Run uv run ruff check rather than flake8. Why: Ruff is what CI runs."  # not "Why: because"


def _titles(path: Path) -> dict[str | None, str]:
    from brain.memory.sessions.ingest import extract_transcript
    from brain.memory.tips.service import tip_slug

    return {d.span: f"TIP-{tip_slug(d.name or d.subtask)}" for d in draft_tips(extract_transcript(path).episode)}


def test_a_step_told_by_its_command_line_is_named_by_what_it_runs_on_real_logs():
    """'Run full repo pytest' made TIP-run-full-repo-pytest, and 'Run ruff check --fix'
    TIP-run-ruff-check-fix: titles named by a command line. They name what the step runs and the task."""
    round18 = _titles(AI_AGENTS / "tips" / "2026-05-10-session-1831-pr1979-round18-orphan-ref-self-block.json")
    assert (
        round18["e011-e012"] == "TIP-run-the-full-repo-test-suite-resolve-self"
    )  # the task: "PR #1979 round 18: resolve ..."
    threads = _titles(
        AI_AGENTS / "unseen" / "logs" / "2026-07-26-session-3347-resolve-remaining-3347-review-threads.json"
    )
    assert threads["e007-e009"] == "TIP-run-the-linter-resolve-remaining-review-threads"  # "Run ruff check --fix"
    assert threads["e018-e020"] == "TIP-check-live-merge-state-resolve-remaining-review-threads"  # "Checked live ..."
    assert threads["e024-e025"] == threads["e039-e040"] == "TIP-run-the-test-suite-resolve-remaining-review-threads"
    assert threads["e004-e006"] == "TIP-triage-the-3-unresolved-threads"  # told in words: as it was


@pytest.mark.parametrize(
    "step, expected",
    [
        ("Run full repo pytest", CommandStep(None, "full repo", "test suite")),
        ("Run ruff check --fix", CommandStep(None, "", "linter")),
        ("Ran LSP_DOWN=true uv run pytest tests/x -q", CommandStep(None, "", "test suite")),
        ("Reproduce: Ran uv run pytest tests/x", CommandStep("Reproduce", "", "test suite")),
        ("Validate deterministic behavior: Ruff passed", CommandStep("Validate deterministic behavior", "", "linter")),
        ("git push origin main", CommandStep(None, "", None)),
        ("mypy type-arg fix in dispatch test", None),  # the subject is a fix; mypy is a noun here
        ("Run the tests with pytest", None),  # told in words already
        ("Reproduce the silent git diff failure", None),
        ("Run and make sure the docs build", None),
    ],
)
def test_which_steps_are_told_by_a_command_line(step, expected):
    assert command_step(step) == expected


def test_the_subject_of_a_session_skips_a_heading():
    assert subject("PR #1979 round 18: resolve self-block on orphan-ref-validator gate (11 findings -> 0)") == (
        "resolve self-block on orphan-ref-validator gate"
    )
    assert subject("Fix #3301 (P1 data-corruption bug in the memory episode extractor). x: y") == (
        "Fix <issue> P1 data-corruption bug in the memory episode extractor"
    )
    assert subject("Tidy the release notes") == "Tidy the release notes"


_TOOLS = ("pytest", "ruff", "mypy", "uv", "npm", "git", "python3", "markdownlint-cli2")


@given(
    tool=st.sampled_from(_TOOLS),
    qualifiers=st.lists(st.sampled_from(["full", "repo", "scoped", "focused"]), max_size=3),
    args=st.lists(st.sampled_from(["--fix", "-q", "-x", "tests/", "src/a.py", "check", "run", "--base", "main~10"])),
    task=st.text(alphabet=st.characters(categories=("L", "Zs", "P")), min_size=1, max_size=120),
)
def test_a_command_step_is_never_named_by_its_command_line(tool, qualifiers, args, task):
    step = command_step(" ".join(["Run", *(qualifiers if tool in ("pytest", "ruff", "mypy") else []), tool, *args]))
    assert step is not None
    name = command_name(step, task)
    said = re.findall(r"\S+", name.lower())
    assert tool not in said or tool in task.lower()
    assert all(arg not in said or arg in task.lower() for arg in args if arg.startswith("-") or "/" in arg)


# ---------------------------------------------------------------- advice a person would write


CLAUDE = DATA / "transcripts" / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
CODEX = DATA / "transcripts" / "codex" / "2026" / "03" / "14"
AUTOFIX = DATA / "ai-agents" / "sessions" / "logs" / "2026-08-11-session-4728-pr-autofix.json"


def _learned(tmp_path: Path, session: Path) -> dict[str, Tip]:
    """The tips `brain session end` writes for a session into a copy of vault-example."""
    shutil.copytree(EXAMPLE, tmp_path / "vault")
    vault = Vault(tmp_path / "vault")
    ended = end_session(Corpus(vault), session, today="2026-11-26")
    return {tip.title: tip for tip in (tip_from_note(vault.read(path).note) for path in ended.tips.created)}


def _fields(tip: Tip) -> tuple:
    return (tip.category, tip.trigger, tip.tip, tip.steps, tip.avoid, tip.purpose, tip.applies_when)


def test_the_claude_code_session_gives_one_tip_per_recovered_failure_and_holds_its_choices(tmp_path):
    """The sample session once gave a tip per decision, its task in Applies When; now each failure it
    recovered from is a tip said as when and what to do, and its stated choices wait for a second session."""
    tips = _learned(tmp_path, CLAUDE)
    assert sorted(tips) == [
        "TIP-ruff-check-src-fails-with-f401-imported",
        "TIP-the-tests-fail-with-assertionerror-expected-3-attempts",
    ]
    failing = 'the tests fail with "AssertionError: expected 3 attempts, got 2"'
    assert _fields(tips["TIP-the-tests-fail-with-assertionerror-expected-3-attempts"]) == (
        "recovery",
        failing,
        f"When {failing}: edit the file it names, then run it again.",
        ("Edit the file it names, then run it again",),
        "",
        "The tests failed (AssertionError: expected 3 attempts, got 2): it passed after editing the file.",
        failing,
    )
    lint = '`ruff check src` fails with "F401 [*] the code imported but unused"'  # the place is this run's
    assert _fields(tips["TIP-ruff-check-src-fails-with-f401-imported"]) == (
        "recovery",
        lint,
        f"When {lint}: edit the file it names, then run it again.",
        ("Edit the file it names, then run it again",),
        "",
        "`ruff check src` failed (the file:1:8: F401 [*] the code imported but unused): it worked after editing the file.",
        lint,
    )


def test_the_codex_session_names_the_test_run_in_words(tmp_path):
    tips = _learned(tmp_path, next(CODEX.glob("rollout-*.jsonl")))
    assert list(tips) == ["TIP-the-tests-fail-with-assert-decimal-10-01"]
    failing = "the tests fail with \"assert Decimal('10.01') == Decimal('10.00')\""
    assert _fields(tips["TIP-the-tests-fail-with-assert-decimal-10-01"]) == (
        "recovery",
        failing,
        f"When {failing}: edit the file it names, then run it again.",
        ("Edit the file it names, then run it again",),
        "",
        "The tests failed (assert Decimal('10.01') == Decimal('10.00')): it passed after editing the file.",
        failing,
    )


def test_an_ai_agents_log_applies_to_its_task_not_its_heading():
    """'Resolve PR #4728 T4: Validate PR, ...': Applies When is the clause after the heading. (A run of
    work from one session is a candidate, not yet a tip: the draft is what is checked.)"""
    (draft,) = draft_tips(extract_file(AUTOFIX).episode)
    task = "Validate PR, address every review thread, and merge only after the completion gate passes"
    assert (draft.category, draft.trigger, draft.applies_when) == ("strategy", task, task)
    assert draft.tip == (
        "Address review findings: Mapped Run Python Tests to the file:test-result, pinned actual...: validate local"
        " changes: Focused pytest suites passed 327 tests; then correct PR validation: The first pushed run applied"
        " the 40-commit allowance but failed on stale PR-body file claims."
    )


def test_a_command_keeps_its_program_and_a_test_command_is_the_tests():
    assert quoted_code("uv run pytest -q tests/test_http.py") == "the tests"
    assert quoted_code("LSP_DOWN=true npm test") == "the tests"
    assert quoted_code("npm run build") == "`npm run build`"
    assert quoted_code("uv run ruff check --fix src/") == "`ruff check`"
    assert quoted_code("git push origin feature/x") == "`git push`"
    assert quoted_code("_durable_replace") == "<code>"
    assert generalize("Ran `pytest -x`: tests failed") == "Ran the tests: they failed"


def test_a_placeholder_is_said_as_what_it_stood_for_and_an_emptied_sentence_goes():
    assert say(generalize("Fix hooks blocking merge commits (#4313) in src/hooks/merge.py.")) == (
        "Fix hooks blocking merge commits in the file."
    )
    assert say(generalize("Edited src/a.py. Split the parser in two.")) == "Split the parser in two."
    assert say(generalize("Registered it in a.json and b.json; see PR #12")) == "Registered it in the files; see the PR"
    assert say(generalize("Wrote ADR-018 for an #12 on retries")) == "Wrote the ADR for an issue on retries"
    assert say(generalize("Wrote ADR-018 for #12")) == ""  # nothing but "wrote" once the names are out
    assert generalize("Add retry. The staging token is [REDACTED:github-token] if you need it.") == "Add retry."


_WORD = st.sampled_from(["the", "of", "and", "a", "retry", "cache", "<file>", "fix", "to", "parser", "that", "9", "x"])


@given(st.lists(_WORD, min_size=0, max_size=14), st.booleans())
def test_a_slug_never_ends_on_a_function_word_nor_a_cut_word(words, cut):
    text = " ".join(words) + ("..." if cut else "")
    name = slug(text)
    parts = name.split("-") if name else []
    assert not parts or parts[-1] not in FUNCTION_WORDS
    assert len(parts) <= 8
    whole_words = re.findall(r"[a-z0-9]+", re.sub(r"<\w+>", " ", " ".join(words)))
    assert parts == whole_words[: len(parts)]  # its words are the text's, in order
    if cut and len(whole_words) <= 8 and whole_words and not words[-1].startswith("<"):
        assert len(parts) < len(whole_words)  # the last word, cut by the log, is not in the name


_CAUSE = st.text(alphabet="ab .,", min_size=1, max_size=12).filter(lambda text: re.search(r"\w", text))


@given(_CAUSE, st.none() | _CAUSE, st.none() | _CAUSE)
def test_each_cause_is_named_once(immediate, proximate, root):
    causes = distinct_causes(immediate, proximate, root)
    named = [cause for cause in (causes.immediate, causes.proximate, causes.root) if cause is not None]
    assert causes.immediate == immediate
    assert not any(same(a, b) for i, a in enumerate(named) for b in named[i + 1 :])
    if proximate is not None and not same(proximate, immediate):
        assert causes.proximate == proximate


def test_tips_of_two_errors_of_one_program_are_named_apart_before_any_number():
    from brain.memory.tips.naming import titles

    subtask = "mise fails with missing cases in switch of type agent.Kind: KindCodex, KindGemini"
    base = "TIP-mise-fails-with-missing-cases-in-switch"
    assert titles(base, subtask, "edit the files it names, then run it again.") == [
        base,
        "TIP-mise-fails-with-missing-cases-in-switch-of-type-agent-kind-kindcodex",
        "TIP-mise-fails-with-missing-cases-in-switch-of-type-agent-kind-kindcodex-kindgemini",
        f"{base}-edit-the-files",
    ]
    short = "TIP-edit-fails-with-string-to-replace-not-found"  # a short subtask: only the advice tells two apart
    assert titles(short, "Edit fails with String to replace not found", "read the file first.") == [
        short,
        f"{short}-read-the-file-first",
    ]
