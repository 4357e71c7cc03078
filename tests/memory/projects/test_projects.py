"""brain/memory/projects/service.py: the project of a folder, read from real git repositories, and the scope
a reader takes from it (the whole vault while the project has no episode)."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.memory.corpus import Corpus
from brain.memory.projects.service import ProjectRef, Scope, locate, scope_for
from tests.conftest import note_text, put, run_brain
from tests.helpers.projects import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    (folder / "services" / "api").mkdir(parents=True)
    git(folder, "init", "-q")
    git(folder, "remote", "add", "origin", "git@github.com:acme/shop.git")
    git(folder, "checkout", "-q", "-b", "feature/login")
    return folder


def test_a_folder_in_a_repository_is_its_remote_branch_and_folder(repo):
    assert locate(repo / "services" / "api") == ProjectRef("github.com/acme/shop", "feature/login", "services/api")
    assert locate(repo) == ProjectRef("github.com/acme/shop", "feature/login", "")
    assert locate(repo).frontmatter() == {"project": "github.com/acme/shop", "branch": "feature/login"}
    assert locate(repo / "services").frontmatter() == {
        "project": "github.com/acme/shop",
        "branch": "feature/login",
        "project_folder": "services",
    }


def test_origin_is_preferred_to_other_remotes_and_the_transcripts_branch_to_head(repo):
    git(repo, "remote", "rename", "origin", "upstream")
    git(repo, "remote", "add", "backup", "https://gitlab.com/acme/shop-backup")
    assert locate(repo).project == "github.com/acme/shop"  # no origin: the first remote in the config
    git(repo, "remote", "add", "origin", "https://gitlab.com/acme/fork.git")
    assert locate(repo, branch="main") == ProjectRef("gitlab.com/acme/fork", "main", "")


def test_without_a_remote_the_project_is_the_repositorys_root(tmp_path):
    folder = tmp_path / "local"
    (folder / "src").mkdir(parents=True)
    git(folder, "init", "-q")
    assert locate(folder / "src") == ProjectRef(str(folder.resolve()), "main", "src")


def test_a_worktree_reads_the_repositorys_config_and_its_own_head(repo, tmp_path):
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    git(repo, "worktree", "add", "-q", "-b", "fix/crash", str(tmp_path / "wt"))
    assert locate(tmp_path / "wt") == ProjectRef("github.com/acme/shop", "fix/crash", "")


def test_a_folder_outside_any_repository_or_not_here(tmp_path):
    plain = tmp_path / "notes"
    plain.mkdir()
    assert locate(plain) == ProjectRef(str(plain))  # not in a repository: the folder is its own project
    gone = "/home/someone/elsewhere/app"
    assert locate(gone, branch="main") == ProjectRef(gone, "main", "")
    assert locate(gone, remote="https://github.com/acme/app.git") == ProjectRef("github.com/acme/app", None, "")
    assert locate(None) is None and locate("") is None


def episode(vault, name: str, project: str | None) -> None:
    fields = {"type": "episode", "outcome": "failure", "task": f"task of {name}"}
    if project:
        fields["project"] = project
    put(vault, f"episodes/{name}.md", note_text(name, "body", **fields))


@pytest.mark.parametrize("indexed", [False, True], ids=["files", "catalog"])
def test_the_scope_falls_back_to_the_whole_vault_while_the_project_has_no_episode(vault, repo, indexed):
    if indexed:  # the catalog answers from its frontmatter column; the files from the notes read
        assert run_brain("index", "--no-embed", "--vault", str(vault.root)).exit_code == 0
    corpus = Corpus(vault)
    assert scope_for(corpus, folder=repo) == Scope(None, "github.com/acme/shop")
    episode(vault, "EPISODE-other", "github.com/acme/other")
    episode(vault, "EPISODE-nowhere", None)  # of no project: it does not make the project's scope
    assert scope_for(corpus, folder=repo) == Scope(None, "github.com/acme/shop")
    episode(vault, "EPISODE-shop", "github.com/acme/shop")
    assert scope_for(corpus, folder=repo / "services") == Scope("github.com/acme/shop", "github.com/acme/shop")
    assert scope_for(corpus, folder=repo, all_projects=True) == Scope(None)
    # a project named is strict: no fallback, and any spelling of its remote names it
    assert scope_for(corpus, project="https://github.com/acme/nothing.git") == Scope(
        "github.com/acme/nothing", "github.com/acme/nothing"
    )
    assert scope_for(corpus, folder=None) == Scope(None)
