"""An extracted episode records where its session ran (project, branch, folder), from the transcript's
`cwd` and `gitBranch` and the repository found there; the tips learned from it belong to its project."""

from __future__ import annotations

from pathlib import Path

from brain.memory.projects.service import ProjectRef
from brain.memory.sessions.ingest import TranscriptExtracted, extract_transcript
from tests.conftest import CLAUDE, CODEX
from tests.helpers.projects import BILLING, failure, repository


def moved(transcript: Path, folder: Path, branch: str, into: Path) -> Path:
    """The fixture session, as if it had run in `folder` on `branch`."""
    text = transcript.read_text().replace("/work/demo", str(folder))
    into.write_text(text.replace('"gitBranch": "main"', f'"gitBranch": "{branch}"'))
    return into


def project_of(path: Path) -> ProjectRef | None:
    extracted = extract_transcript(path)
    assert isinstance(extracted, TranscriptExtracted)
    return extracted.project


def test_a_session_in_a_repository_records_its_remote_branch_and_folder(tmp_path):
    shop = repository(tmp_path / "shop", "git@github.com:acme/shop.git")
    session = moved(CLAUDE, shop / "src", "feature/checkout", tmp_path / "session.jsonl")
    assert project_of(session) == ProjectRef("github.com/acme/shop", "feature/checkout", "src")


def test_a_session_from_another_machine_keeps_its_folder_and_branch():
    assert project_of(CLAUDE) == ProjectRef("/work/demo", "main", "")  # /work/demo is not on this machine
    assert project_of(CODEX) == ProjectRef("/work/shop", "main", "")  # Codex records the branch in session_meta


def test_codex_records_the_repositorys_remote(tmp_path):
    text = CODEX.read_text().replace(
        '"git": {"commit_hash": "9e8d7c6", "branch": "main"}',
        '"git": {"commit_hash": "9e8d7c6", "branch": "main", "repository_url": "https://github.com/acme/shop.git"}',
    )
    (tmp_path / CODEX.name).write_text(text)
    assert project_of(tmp_path / CODEX.name) == ProjectRef("github.com/acme/shop", "main", "")


def test_the_episode_and_its_tips_carry_the_project(brain, vault, tmp_path, monkeypatch):
    shop = repository(tmp_path / "shop", "git@github.com:acme/shop.git")
    billing = repository(tmp_path / "billing", "https://github.com/acme/billing")
    session = moved(CLAUDE, shop / "src", "feature/checkout", tmp_path / "session.jsonl")
    monkeypatch.chdir(billing)  # where `brain session end` runs does not matter: the transcript's cwd does
    assert brain("session", "end", str(session)).exit_code == 0
    episode = (vault.root / "episodes" / "EPISODE-2026-03-14-7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.md").read_text()
    assert "\nsource_format: claude-code\nproject: github.com/acme/shop\nbranch: feature/checkout\n" in episode
    assert "\nproject_folder: src\n---\n" in episode
    tips = sorted((vault.root / "tips").glob("TIP-*.md"))
    # the one failure it recovered from is a tip; its stated choices wait for a second session
    assert [path.name for path in tips] == ["TIP-the-tests-fail-with-assertionerror-expected-3-attempts.md"]
    assert all("\nproject: github.com/acme/shop\n" in path.read_text() for path in tips)
    listed = (
        "recovery     support 1   both     TIP-the-tests-fail-with-assertionerror-expected-3-attempts  "
        'The tests fail with "AssertionError: expected 3 attempts, got 2"\n'
    )
    assert brain("tip", "list").stdout == listed  # billing has no episode yet: the whole vault
    failure(vault, "billing-invoices", "Send the overdue invoices again", BILLING)
    assert brain("tip", "list").stdout == "no tips match\n"  # now billing has its own memory, and no tips
    assert brain("tip", "list", "--all-projects").stdout == listed
    monkeypatch.chdir(shop / "src")
    assert brain("tip", "list").stdout == listed


def test_a_tip_a_second_session_confirms_keeps_its_project_and_what_a_person_added(brain, vault, tmp_path):
    """Issue 40, 10: the second session's support rewrote the tip whole: it lost its `project`, and was
    offered in every project from then on (and a person's key and prose went with it)."""
    shop = repository(tmp_path / "shop", "git@github.com:acme/shop.git")
    billing = repository(tmp_path / "billing", "https://github.com/acme/billing")
    first = moved(CLAUDE, shop / "src", "main", tmp_path / "first.jsonl")
    assert brain("session", "end", str(first)).exit_code == 0
    (tip,) = sorted((vault.root / "tips").glob("TIP-*.md"))
    text = tip.read_text().replace("\n---\n", "\nreviewed_by: dana\n---\n", 1)
    tip.write_text(text + "\nDana: this one bites every release.\n")
    second = tmp_path / "second.jsonl"  # another session of the same project, the same failure fixed the same way
    second.write_text(
        first.read_text().replace("7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33", "8e4d3b21-6c2f-4d3e-9b8f-1e5c7a2f3b44")
    )
    assert brain("session", "end", str(second)).exit_code == 0
    tips = sorted((vault.root / "tips").glob("TIP-*.md"))  # its stated choices, seen twice now, are tips too
    assert tip in tips and all("\nproject: github.com/acme/shop\n" in path.read_text() for path in tips)
    after = tip.read_text()
    assert "\nsupport: 2\n" in after
    assert "\nproject: github.com/acme/shop\n" in after and "\nreviewed_by: dana\n" in after
    assert after.endswith("\nDana: this one bites every release.\n")
    failure(vault, "billing-invoices", "Send the overdue invoices again", BILLING)
    assert brain("tip", "list", "--project", str(billing)).stdout == "no tips match\n"
    assert f"recovery     support 2   both     {tip.stem}  " in brain("tip", "list", "--project", str(shop)).stdout
