"""Tips: learning by rules, the note format, list filters, guidelines (real model), feedback, consolidation."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from brain.cli import app
from brain.errors import InvalidInput, NoteNotFound
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.tips import service
from brain.memory.tips.consolidate import consolidate
from brain.memory.tips.learn import classify, draft_tips, segment
from brain.memory.tips.note import CATEGORIES, SourceRef, Tip, render_tip, tip_from_note
from brain.memory.tips.trajectory import trajectory_episode
from brain.memory.tips.wording import generalize
from brain.vault.vault import Vault
from tests.conftest import REPO

EXAMPLE = REPO / "vault-example"
STAMPEDE = "EPISODE-2026-03-25-session-14"


@pytest.fixture
def example(tmp_path) -> Vault:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".brain"))
    (root / ".brain" / "index").mkdir(parents=True)
    return Vault(root)


def _tip_files(vault: Vault) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((vault.root / "tips").glob("*.md"))}


# ---------------------------------------------------------------- learning by rules


def test_a_failed_incident_gives_recovery_tips_with_causes(example):
    episode = get_episode(Corpus(example), STAMPEDE)
    drafts = draft_tips(episode)
    first = drafts[0]
    assert (first.category, first.evidence, first.span) == ("recovery", "failure", "d001, e004, e005")
    assert first.avoid == (  # the failed approach, named once, and what followed it
        "Extend TTL on all keys. Last time: TTL check shows all 1.3M keys now share one expiry at 14:45, "
        "so the next wave will be bigger."
    )
    assert first.attribution is not None
    assert first.attribution.immediate == (  # the numbers are the point: kept
        "TTL check shows all 1.3M keys now share one expiry at 14:45, so the next wave will be bigger"
    )
    assert first.attribution.proximate == "Extend TTL on all keys"  # the decision that enabled it
    assert (
        first.attribution.root == "Deploy with new balance serialisation flushes balance keys"
    )  # where the chain starts
    assert "Immediate cause:" in first.purpose and "Root cause: Deploy with new balance serialisation" in first.purpose
    recovered = drafts[2]
    assert (recovered.category, recovered.evidence) == ("recovery", "both")
    assert recovered.tip == (  # what to do, what it was chosen over, and why
        "Randomise remaining TTLs with a one-off script rather than keep replica reads overnight or flush again. "
        "Why: Spreading expiries over 20 to 40 minutes breaks the wave until jitter and request coalescing are built."
    )
    assert first.tip == (  # nothing fixed it in its span: what not to do, what followed it, and the lesson
        "Do not extend TTL on all keys. Last time: TTL check shows all 1.3M keys now share one expiry at 14:45, "
        "so the next wave will be bigger. "
        "Lesson: Under pressure, the first mitigation repeated the root cause (a shared TTL); mitigation scripts need the same scrutiny as code."
    )


def test_a_clean_success_is_a_strategy_naming_rejected_options(example):
    drafts = draft_tips(get_episode(Corpus(example), "EPISODE-2026-03-27-session-15"))
    jitter = next(d for d in drafts if d.subtask == "Jittered Expiry")
    assert (jitter.category, jitter.evidence) == ("strategy", "success")
    assert "the rejected option: Fixed TTL" in jitter.avoid
    assert jitter.task_category == "caching"


def test_a_raw_trajectory_with_an_error_then_a_fix_is_a_recovery():
    steps = [
        {"thought": "Need the user's invoices", "action": "GET /api/v2/users/42/invoices", "result": "404 not found"},
        {
            "thought": "Maybe the id is the account id",
            "action": "Look up account id for john.doe@example.com",
            "result": "acct-7731",
        },
        {
            "thought": "Retry with the account id",
            "action": "GET /api/v2/accounts/7731/invoices",
            "result": "12 invoices",
        },
    ]
    episode = trajectory_episode(
        "EPISODE-2026-04-01-trajectory-1", "Fetch invoices for john.doe@example.com", steps, None, None
    )
    assert episode.outcome == "success" and [e.type for e in episode.events] == ["error", "milestone", "milestone"]
    drafts = draft_tips(episode)
    assert drafts[0].category == "recovery" and drafts[0].evidence == "both"
    assert "john.doe" not in " ".join(d.tip + d.trigger + d.applies_when for d in drafts)
    assert drafts[0].applies_when == "Fetch invoices for the address"


def test_repeated_steps_are_an_optimization():
    steps = [{"action": "Remove item from cart", "result": "ok"} for _ in range(3)] + [
        {"action": "Check out", "result": "ok"}
    ]
    episode = trajectory_episode("EPISODE-t", "Empty the cart and check out", steps, "success", None)
    seg = segment(episode)
    assert classify(seg[0], episode) == "strategy"  # one step alone is clean
    from brain.memory.tips.learn import Segment

    whole = Segment(decisions=[], events=list(episode.events))
    assert classify(whole, episode) == "optimization"


@settings(max_examples=60, deadline=None)
@given(
    st.emails(),
    st.integers(min_value=0, max_value=10**9),
    st.from_regex(r"[0-9a-f]{12}", fullmatch=True).filter(lambda sha: sha.isalnum() and not sha.isdigit()),
)
def test_generalize_strips_entities_and_keeps_numbers(email, number, sha):
    """Names of things go; numbers stay (in advice the number is the point), except a run's own counts."""
    if sha.isalpha():
        sha = "1" + sha[1:]
    text = f"Sent {number} reminders to {email} from src/app/mail.py after commit {sha} for #{number % 999} (3 failed, 2 passed)"
    assert (
        generalize(text, limit=400) == f"Sent {number} reminders to <email> from <file> after commit <sha> for <issue>"
    )


# ---------------------------------------------------------------- notes and CLI


def cli(vault: Vault, *args: str):
    return CliRunner().invoke(app, [*args, "--vault", str(vault.root)], catch_exceptions=False)


def test_learn_writes_tip_notes_with_every_field_and_is_idempotent(example):
    run = lambda *a: cli(example, *a)  # noqa: E731
    first = run("tip", "learn", STAMPEDE)
    assert first.exit_code == 0
    # two failures and their recoveries are tips at once; the strategy waits for a second session
    assert first.output.splitlines()[0] == (
        f"{STAMPEDE}: 2 new, 0 supported again, 1 held for a second session, 0 already learned"
    )
    note = parse_note((example.root / "tips" / "TIP-shed-load-from-the-primary.md").read_text(encoding="utf-8"))
    fm = note.frontmatter
    assert {
        "category",
        "trigger",
        "subtask",
        "task_category",
        "priority",
        "support",
        "evidence",
        "source_episodes",
        "helped",
        "hurt",
    } <= set(fm)
    assert fm["source_episodes"] == [f"[[{STAMPEDE}]] (d002, e006, e007)"]
    assert [s.heading for s in note.sections if s.level == 2] == ["Tip", "Purpose", "Steps", "Avoid", "Applies When"]
    again = run("tip", "learn", STAMPEDE)
    assert again.output.splitlines()[0] == (
        f"{STAMPEDE}: 0 new, 0 supported again, 0 held for a second session, 3 already learned"
    )


def test_tip_round_trip():
    tip = Tip(
        title="TIP-x",
        category="recovery",
        tip="Do y",
        trigger="When z",
        subtask="Handle z",
        task_category="ops",
        priority="high",
        support=2,
        evidence="both",
        source_episodes=(SourceRef("EPISODE-a", "e001-e003"), SourceRef("EPISODE-b")),
        helped=1,
        hurt=0,
        purpose="Because",
        steps=("one", "two, with a comma"),
        avoid="w",
        applies_when="always",
        replaces=("TIP-old",),
        tags=("tip",),
        created="2026-04-01",
    )
    back = tip_from_note(parse_note(render_tip(tip), "tips/TIP-x.md"))
    assert back == tip.__class__(**{**tip.__dict__, "path": "tips/TIP-x.md"})


def test_bad_input_is_one_line_and_writes_nothing(example):
    run = lambda *a: cli(example, *a)  # noqa: E731
    before = _tip_files(example)
    missing = run("tip", "learn", STAMPEDE, "EPISODE-nope")
    assert missing.exit_code == 1 and missing.stderr.startswith("error: no note named 'EPISODE-nope'")
    assert _tip_files(example) == before  # the good episode before it was not learned either
    not_tip = run("tip", "feedback", "PATTERN-canary-with-auto-rollback", "--helped")
    assert not_tip.stderr == "error: 'PATTERN-canary-with-auto-rollback' is a pattern note, not a tip\n"
    wrong = run("tip", "list", "--category", "tactics")
    assert wrong.exit_code == 2 and "tactics" in wrong.stderr
    with pytest.raises(InvalidInput, match="category 'tactics' is not one of strategy, recovery, optimization"):
        service.list_tips(Corpus(example), category="tactics")
    assert _tip_files(example) == before


def test_list_filters(example):
    corpus = Corpus(example)
    service.learn(corpus, [STAMPEDE, "EPISODE-2026-03-27-session-15"], today="2026-04-01")
    tips = service.list_tips(corpus)
    assert {t.category for t in tips} <= set(CATEGORIES)
    assert [t.title for t in service.list_tips(corpus, min_support=3)] == ["TIP-key-writes-before-enabling-retries"]
    assert all(t.evidence == "failure" for t in service.list_tips(corpus, evidence="failure"))
    assert {t.category for t in service.list_tips(corpus, category="recovery")} == {"recovery"}


# ---------------------------------------------------------------- guidelines (real model)


def test_guidelines_core_plus_strict_matches(example, embedder):
    corpus = Corpus(example)
    found = service.guidelines(
        corpus, "Database load spikes every five minutes after we flushed the cache", embedder=embedder
    )
    assert [g.tip.title for g in found.core] == ["TIP-key-writes-before-enabling-retries"]
    assert found.matches[0].tip.title == "TIP-recover-from-cache-stampede"
    unrelated = service.guidelines(corpus, "Bake a sourdough loaf with a crisp crust", embedder=embedder)
    assert unrelated.matches == ()  # loose matches are worse than none
    assert [g.tip.title for g in unrelated.core] == ["TIP-key-writes-before-enabling-retries"]
    loose = service.guidelines(
        corpus, "Bake a sourdough loaf with a crisp crust", threshold=-1.0, top_k=2, embedder=embedder
    )
    assert len(loose.matches) == 2


def test_cli_guidelines_json(example):
    out = cli(example, "tip", "guidelines", "Our CI tests fail at random and pass on rerun", "--json")
    data = json.loads(out.output)
    assert data["matches"][0]["title"] == "TIP-reproduce-flaky-tests-with-ci-seed"
    assert data["core"][0]["reason"] == "core" and data["threshold"] == service.DEFAULT_THRESHOLD


def test_feedback_moves_tips(example, embedder):
    corpus = Corpus(example)
    task = "Database load spikes every five minutes after we flushed the cache"
    service.learn(corpus, [STAMPEDE, "EPISODE-2026-03-27-session-15"], today="2026-04-01")
    before = {g.tip.title: g for g in service.guidelines(corpus, task, threshold=0.3, embedder=embedder).matches}
    helped, hurt = "TIP-request-coalescing", "TIP-recover-from-cache-stampede"
    run = lambda *a: cli(example, *a)  # noqa: E731
    for _ in range(3):
        assert run("tip", "feedback", helped, "--helped", "--episode", STAMPEDE).exit_code == 0
    assert run("tip", "feedback", hurt, "--hurt").output == f"{hurt}: helped 0, hurt 1\n"
    after = {g.tip.title: g for g in service.guidelines(corpus, task, threshold=0.3, embedder=embedder).matches}
    assert after[helped].score == pytest.approx(before[helped].score + 0.1 * 3 / 4, abs=1e-3)
    assert after[hurt].score == pytest.approx(before[hurt].score - 0.1 / 2, abs=1e-3)
    assert after[helped].similarity == before[helped].similarity  # feedback ranks; it never lets a loose match in
    text = (example.root / "tips" / f"{helped}.md").read_text(encoding="utf-8")
    assert f"## Feedback\n- helped [[{STAMPEDE}]] (" in text
    core = "TIP-key-writes-before-enabling-retries"
    run("tip", "feedback", core, "--hurt")
    assert core not in [g.tip.title for g in service.guidelines(corpus, task, embedder=embedder).core]
    both = run("tip", "feedback", core, "--helped", "--hurt")
    assert both.exit_code == 2 and "give exactly one of --helped or --hurt" in both.stderr
    with pytest.raises(NoteNotFound):
        service.record_feedback(corpus, core, helped=True, episode="EPISODE-nope")


# ---------------------------------------------------------------- consolidation (real model)


def _write_tip(
    vault: Vault,
    title: str,
    category: str,
    subtask: str,
    trigger: str,
    steps: tuple[str, ...],
    evidence: str,
    episode: str,
) -> None:
    tip = Tip(
        title=title,
        category=category,
        tip=f"{subtask}: {steps[0]}",
        trigger=trigger,
        subtask=subtask,
        support=1,
        evidence=evidence,
        source_episodes=(SourceRef(episode, "e001-e003"),),
        steps=steps,
        avoid=f"avoid {title}",
        created="2026-04-01",
    )
    (vault.root / "tips" / f"{title}.md").write_text(render_tip(tip), encoding="utf-8")


def test_consolidation_merges_only_what_agrees_beyond_similarity(example, embedder):
    steps = (
        "Confirm the miss rate peaks at a fixed period",
        "Randomise the remaining TTLs with a script",
        "Pause batch jobs",
    )
    _write_tip(
        example,
        "TIP-a",
        "recovery",
        "Mitigate a cache stampede",
        "Database load spikes in waves after a cache flush",
        steps,
        "failure",
        "EPISODE-x",
    )
    _write_tip(
        example,
        "TIP-b",
        "recovery",
        "Mitigate a cache stampede in production",
        "Database load spikes in regular waves after a cache flush",
        steps,
        "success",
        "EPISODE-y",
    )
    _write_tip(
        example,
        "TIP-c",
        "strategy",
        "Mitigate a cache stampede",
        "Database load spikes in waves after a cache flush",
        steps,
        "success",
        "EPISODE-z",
    )
    _write_tip(
        example,
        "TIP-d",
        "recovery",
        "Mitigate a cache stampede",
        "Database load spikes in waves after a cache flush",
        ("Fail over to the standby region", "Page the database owner"),
        "success",
        "EPISODE-w",
    )
    corpus = Corpus(example)
    before = _tip_files(example)
    plan = consolidate(corpus, dry_run=True, embedder=embedder)
    assert _tip_files(example) == before
    assert [(m.representative, m.members) for m in plan.merges] == [("TIP-b", ("TIP-a",))]  # success ranks first
    assert plan.rejected >= 2  # TIP-c (category) and TIP-d (steps) were candidates, not merged
    out = cli(example, "tip", "consolidate")
    assert "merged TIP-b + TIP-a -> TIP-b-merged (support 2, both)" in out.output
    merged = tip_from_note(parse_note((example.root / "tips" / "TIP-b-merged.md").read_text(encoding="utf-8")))
    assert (merged.support, merged.evidence, merged.replaces) == (2, "both", ("TIP-b", "TIP-a"))
    assert {s.episode for s in merged.source_episodes} == {"EPISODE-x", "EPISODE-y"}
    assert "avoid TIP-a" in merged.avoid and "avoid TIP-b" in merged.avoid
    for old in ("TIP-a", "TIP-b"):  # nothing deleted; each points at its replacement
        assert "merged_into: '[[TIP-b-merged]]'" in (example.root / "tips" / f"{old}.md").read_text(encoding="utf-8")
    listed = [t.title for t in service.list_tips(Corpus(example))]
    assert "TIP-b-merged" in listed and "TIP-a" not in listed and "TIP-c" in listed
    assert consolidate(Corpus(example), embedder=embedder).merges == ()


def test_the_tip_index_is_cached_until_a_tip_changes_and_the_core_is_capped(example, embedder):
    corpus = Corpus(example)
    first = service.tip_index(corpus, embedder)
    assert service.tip_index(corpus, embedder) is first  # one embedding of the task per call, nothing rebuilt
    for number in range(service.MAX_CORE + 2):
        tip = Tip(
            title=f"TIP-core-{number:02d}",
            category="strategy",
            tip=f"Core rule {number}",
            subtask=f"Core rule {number}",
            support=5,
        )
        (example.root / "tips" / f"{tip.title}.md").write_text(render_tip(tip), encoding="utf-8")
    rebuilt = service.tip_index(corpus, embedder)
    assert rebuilt is not first and len(rebuilt.paths) == len(first.paths) + service.MAX_CORE + 2
    found = service.guidelines(corpus, "Bake a sourdough loaf", embedder=embedder)
    assert len(found.core) == service.MAX_CORE  # the best supported first; `tip list --min-support` has them all
    assert [g.tip.support for g in found.core] == [5] * service.MAX_CORE


def test_a_tip_matches_on_the_task_it_was_learned_in(example, embedder):
    tip = Tip(
        title="TIP-odd-wording",
        category="strategy",
        tip="Pin the toolchain first",
        subtask="Pin the toolchain first",
        trigger="Builds differ between machines",
        applies_when="Upgrade the Rust compiler across every service repository",
    )
    (example.root / "tips" / f"{tip.title}.md").write_text(render_tip(tip), encoding="utf-8")
    found = service.guidelines(
        Corpus(example), "Upgrade the Rust compiler in all our service repositories", core_support=0, embedder=embedder
    )
    assert found.matches[0].tip.title == "TIP-odd-wording"
