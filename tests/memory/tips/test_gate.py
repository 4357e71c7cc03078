"""Which drafts become tips (`brain.memory.tips.admit`): a failure and its recovery at once, anything
else one session did only once a second session does the same; near-duplicates add evidence to one
tip, never `-2`, `-3` copies; a tip says when and what to do, never the task."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brain.cli import app
from brain.memory.corpus import Corpus
from brain.memory.sessions.protocol import end_session
from brain.memory.tips.note import SourceRef, tip_from_note
from brain.vault.vault import Vault
from tests.conftest import REPO, TRANSCRIPTS

SPOTTER = TRANSCRIPTS / "public/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
GOLDEN = TRANSCRIPTS / "public/kvsankar-claude_golden.jsonl"
CACHING = "EPISODE-2026-03-27-session-15"


def fresh_vault(tmp_path: Path) -> Vault:
    assert CliRunner().invoke(app, ["init", str(tmp_path / "vault")]).exit_code == 0
    return Vault(tmp_path / "vault")


def tips_of(vault: Vault) -> dict[str, tuple]:
    found = (tip_from_note(note) for note in Corpus(vault).of_type("tip"))
    return {tip.title: (tip.tip, tip.support, tip.evidence, tip.source_episodes) for tip in found}


def test_the_spotter_session_gives_one_tip_per_failure_it_recovered_from(tmp_path: Path) -> None:
    vault = fresh_vault(tmp_path)
    ended = end_session(Corpus(vault), SPOTTER, today="2026-11-28")
    episode = "EPISODE-2026-02-12-ae4a77f8-aedd-4bc1-888f-c94edc91af04"
    assert tips_of(vault) == {
        "TIP-edit-fails-with-string-to-replace-not-found": (
            'When Edit fails with "String to replace not found in file.": '
            "read the file, then edit it again with its current text.",
            2,  # the session hit it twice: one tip, two sources
            "both",
            (SourceRef(episode, "e004-e005"), SourceRef(episode, "e040-e041")),
        ),
        "TIP-git-commit-fails-with-pre-commit-validation-failed": (
            'When `git commit` fails with "Pre-commit validation failed": run `mix format` first, then run it again.',
            1,
            "both",
            (SourceRef(episode, "e020-e021"),),
        ),
        # the same failure fixed another way: a tip of its own, named by what to do (the commit failed, not the add)
        "TIP-git-commit-fails-with-pre-commit-validation-failed-edit-the-files": (
            'When `git commit` fails with "Pre-commit validation failed": edit the files it names, then run it again.',
            1,
            "both",
            (SourceRef(episode, "e037-e055"),),
        ),
    }  # the failed Read of test/support/conn_case.ex was followed by a Read of another file: no recovery, no tip
    # the failed test run's error is a place and a function name only, which names no failure: no tip
    # its two stated choices wait for a second session; its runs of edits and passing tests are no lesson
    assert [held.split(" ")[-1] for held in ended.tips.held] == ["(d001)", "(d002)"]
    for tip in Corpus(vault).of_type("tip"):  # the task is never quoted (the project, its folder, is named)
        said = "\n".join(line for line in tip.text.lower().splitlines() if not line.startswith("project:"))
        assert "spotter-4te" not in said and "work on bead" not in said
    # the same session ending again learns nothing more
    again = end_session(Corpus(vault), SPOTTER, today="2026-11-28")
    assert (again.tips.created, again.tips.supported, again.tips.held) == ((), (), ())


def test_a_session_of_routine_reads_edits_and_passing_tests_gives_no_tip(tmp_path: Path) -> None:
    vault = fresh_vault(tmp_path)
    ended = end_session(Corpus(vault), GOLDEN, today="2026-11-28")
    assert ended.tips.created == () and tips_of(vault) == {}


def test_what_one_session_did_becomes_a_tip_when_a_second_session_does_it(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns(".brain", "tips"))
    (root / ".brain").mkdir()
    (root / "tips").mkdir()
    text = (root / f"episodes/{CACHING}.md").read_text(encoding="utf-8")
    (root / "episodes/EPISODE-2026-04-02-session-99.md").write_text(
        text.replace(CACHING, "EPISODE-2026-04-02-session-99").replace("session-15", "session-99"), encoding="utf-8"
    )

    def learn(episode: str) -> list[str]:
        done = CliRunner().invoke(app, ["tip", "learn", episode, "--vault", str(root)], catch_exceptions=False)
        assert done.exit_code == 0, done.output
        return done.output.splitlines()

    first = learn(CACHING)
    assert first == [
        f"{CACHING}: 1 new, 0 supported again, 3 held for a second session, 0 already learned",
        "  created tips/TIP-request-coalescing.md",  # a failure and its recovery
    ]
    second = learn("EPISODE-2026-04-02-session-99")
    assert second == [
        "EPISODE-2026-04-02-session-99: 3 new, 1 supported again, 0 held for a second session, 0 already learned",
        "  created tips/TIP-jittered-expiry.md",
        "  created tips/TIP-versioned-keys-instead-of-flushes.md",
        "  created tips/TIP-rollout-path.md",
        "  supported tips/TIP-request-coalescing.md",
    ]
    tips = tips_of(Vault(root))
    assert {title: support for title, (_, support, _, _) in tips.items()} == {
        "TIP-jittered-expiry": 2,
        "TIP-request-coalescing": 2,
        "TIP-rollout-path": 2,
        "TIP-versioned-keys-instead-of-flushes": 2,
    }
    for *_, sources in tips.values():
        assert [source.episode for source in sources] == [CACHING, "EPISODE-2026-04-02-session-99"]
    candidates = root / ".brain/tips/candidates.jsonl"
    assert candidates.read_text(encoding="utf-8") == ""  # the first session's candidates became tips


def test_a_failure_is_known_by_its_program_or_tool_and_its_first_informative_line() -> None:
    from brain.memory.tips.recovery import error_line, failing_step

    assert failing_step('`git add -A && git commit -m "feat: x"`') == "`git commit`"
    assert failing_step("`uv run pytest -q tests/a.py`") == "the tests"
    assert failing_step("`mix test --seed 0 2>&1 | tail -30`") == "the tests"
    assert failing_step("`./scripts/release.sh --dry-run`") == "`release.sh`"
    assert failing_step("Edit on lib/a.ex") == "Edit"
    assert error_line("Exit code 1\\nfatal: pathspec 'x' did not match any files") == (
        "fatal: pathspec 'x' did not match any files"
    )
    assert error_line("<tool_use_error>Sibling tool call errored</tool_use_error>") == ""
    assert error_line("--- FAIL: TestShadow (0.52s)") == "" and error_line("=== RUN TestX") == ""
    assert error_line("error: could not apply 1a2b3c4d... feat: a long message about the change") == (
        "error: could not apply <sha>... feat: a long..."
    )


@pytest.mark.parametrize(
    ("change", "instruction"),
    [
        (
            "`a.yaml` did not exist; `touch a.yaml` created it",
            "create the missing file or folder first, then run it again",
        ),
        (
            "module `yaml` was missing; `pip install pyyaml` installed it",
            "install what it names first (`pip install pyyaml`), then run it again",
        ),
        (
            "the shell was already in `src`; `go test ./...` from there passed",
            "check the folder first: the shell may already be in `src`",
        ),
        ("run from `src`: `cd src && go test ./...` passed", "run it from `src`"),
        ("`python3` instead of `python`: `python3 a.py` worked", "use `python3` instead of `python`"),
        ("it worked when run again unchanged (flaky)", "run it again, unchanged: it failed once and then worked"),
        ("it worked after editing a.py", "edit the file it names, then run it again"),
        (
            "`.golangci.yml` does not exist; the error named `.golangci.yaml`: Read worked",
            "use the path the error names",
        ),
        (
            "the same command with `sandbox_permissions: require_escalated` worked",
            "run it again with `sandbox_permissions: require_escalated`",
        ),
    ],
)
def test_what_was_different_becomes_the_instruction(change, instruction):
    from brain.memory.tips.recovery import fix_step

    assert fix_step(change, True) == instruction
