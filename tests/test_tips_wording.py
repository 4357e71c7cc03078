"""How rule-made tips are worded: what to do and why, not what the log said happened; and which subtasks make no tip."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.sessions.extract import extract_file
from brain.memory.tips.learn import draft_tips
from brain.memory.tips.wording import base_form, imperative, strip_label
from brain.notes.model import Decision, Episode, Event
from brain.vault import Vault

EXAMPLE = Path(__file__).resolve().parents[1] / "vault-example"
LOGS = Path(__file__).parent / "data" / "ai-agents" / "sessions" / "logs"


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
        "Choose jitter of plus or minus <n> over fixed TTL or probabilistic early expiration. "
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
