"""Tips read like advice a person would write: names in words, names of tips that end on a word of
content, each cause once, no redaction marker, and `Applies When` the task's first clause."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from brain.agents.registry import READERS
from brain.memory.corpus import Corpus
from brain.memory.sessions.protocol import end_session
from brain.memory.tips.draft import distinct_causes
from brain.memory.tips.naming import slug
from brain.memory.tips.spoken import say
from brain.memory.tips.wording import FUNCTION_WORDS, generalize, quoted_code, same
from brain.notes.tip import Tip, tip_from_note
from brain.vault import Vault
from tests.conftest import DATA, REPO

EXAMPLE = REPO / "vault-example"
CLAUDE = DATA / "transcripts" / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
CODEX = DATA / "transcripts" / "codex" / "2026" / "03" / "14"
AUTOFIX = DATA / "ai-agents" / "sessions" / "logs" / "2026-08-11-session-4728-pr-autofix.json"


def _learned(tmp_path: Path, session: Path) -> dict[str, Tip]:
    """The tips `brain session end` writes for a session into a copy of vault-example."""
    shutil.copytree(EXAMPLE, tmp_path / "vault")
    vault = Vault(tmp_path / "vault")
    ended = end_session(Corpus(vault), session, readers=READERS, today="2026-11-26")
    return {tip.title: tip for tip in (tip_from_note(vault.read(path).note) for path in ended.tips.created)}


def _fields(tip: Tip) -> tuple:
    return (tip.category, tip.trigger, tip.tip, tip.steps, tip.avoid, tip.purpose, tip.applies_when)


def test_the_claude_code_session_gives_advice_without_placeholders_or_the_token(tmp_path):
    """The session the issue quoted: 'Ran <code>: tests failed', another decision's lesson in Purpose,
    and the whole prompt (with its redacted token) in Applies When."""
    tips = _learned(tmp_path, CLAUDE)
    task = "Add retry with exponential backoff to the HTTP client in the file and make the tests pass"
    assert sorted(tips) == ["TIP-count-attempts", "TIP-use-exponential-backoff-with-jitter"]
    assert _fields(tips["TIP-count-attempts"]) == (
        "strategy",
        "Ran the tests: they failed",
        "Count attempts, so the first call is attempt 1. Why: The test fails because the loop counts retries, not attempts.",
        ("Count attempts, so the first call is attempt 1", "Run the tests: they passed"),
        "",
        "The test fails because the loop counts retries, not attempts. The tests failed (AssertionError: expected 3"
        " attempts, got 2); it passed after editing the file.",
        task,
    )
    assert _fields(tips["TIP-use-exponential-backoff-with-jitter"]) == (
        "strategy",
        task,
        "Use exponential backoff with jitter rather than a fixed delay. Why: Fixed delays make every client retry in lockstep.",
        ("Use exponential backoff with jitter rather than a fixed delay",),
        "",
        "Fixed delays make every client retry in lockstep.",  # the pytest lesson is the other decision's
        task,
    )


def test_the_codex_session_names_the_test_run_in_words(tmp_path):
    tips = _learned(tmp_path, next(CODEX.glob("rollout-*.jsonl")))
    assert list(tips) == ["TIP-round-with-decimal-quantize-and-round-half-even"]
    assert _fields(tips["TIP-round-with-decimal-quantize-and-round-half-even"]) == (
        "strategy",
        "Ran the tests: they failed",
        "Round with Decimal.quantize and ROUND_HALF_EVEN instead of float round(). Why: Float rounding is what drifts by a cent.",
        ("Round with Decimal.quantize and ROUND_HALF_EVEN instead of float round()", "Run the tests: they passed"),
        "",
        "Float rounding is what drifts by a cent. The tests failed (assert Decimal('10.01') == Decimal('10.00')); it"
        " passed after editing the file.",
        "Fix the rounding bug in cart totals",
    )


def test_an_ai_agents_log_applies_to_its_task_not_its_heading(tmp_path):
    """'Resolve PR #4728 T4: Validate PR, ...': Applies When is the clause after the heading."""
    tips = _learned(tmp_path, AUTOFIX)
    assert list(tips) == ["TIP-address-review-findings-mapped-run-python-tests"]
    tip = tips["TIP-address-review-findings-mapped-run-python-tests"]
    task = "Validate PR, address every review thread, and merge only after the completion gate passes"
    assert _fields(tip) == (
        "strategy",
        task,
        "Address review findings: Mapped Run Python Tests to the file:test-result, pinned actual...: validate local"
        " changes: Focused pytest suites passed 327 tests; then correct PR validation: The first pushed run applied"
        " the 40-commit allowance but failed on stale PR-body file claims.",
        (
            "Address review findings: Mapped Run Python Tests to the file:test-result, pinned actual validation actions"
            " in mutation controls, and required...",
            "Validate local changes: Focused pytest suites passed 327 tests.",
            "Correct PR validation: The first pushed run applied the 40-commit allowance but failed on stale PR-body"
            " file claims.",
        ),
        "",
        f"Worked in a partial session: {task}",
        task,
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
