"""brain/memory/projects/note.py: a git remote said one way, and which notes a project's scope holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brain.memory.projects.note import in_scope, normalise_remote, project_of


@pytest.mark.parametrize(
    ("remote", "project"),
    [
        ("git@github.com:acme/shop.git", "github.com/acme/shop"),
        ("git@github.com:acme/shop", "github.com/acme/shop"),
        ("https://github.com/acme/shop", "github.com/acme/shop"),
        ("https://github.com/acme/shop.git/", "github.com/acme/shop"),
        ("ssh://git@github.com/acme/shop.git", "github.com/acme/shop"),
        ("ssh://git@github.com:22/acme/shop.git", "github.com/acme/shop"),
        ("https://x-access-token:ghp_secret@GitHub.com/acme/shop", "github.com/acme/shop"),
        ("git://git.example.org/group/sub/repo.git", "git.example.org/group/sub/repo"),
        ("http://gitlab.local:8080/team/app", "gitlab.local/team/app"),
        ("file:///srv/git/shop.git", "/srv/git/shop"),
        ("/srv/git/shop.git", "/srv/git/shop"),
        ("  git@gitlab.com:group/sub/app.git\n", "gitlab.com/group/sub/app"),
    ],
)
def test_every_spelling_of_a_remote_is_one_project(remote, project):
    assert normalise_remote(remote) == project


@given(
    host=st.from_regex(r"[a-z][a-z0-9-]{0,10}\.(com|org|io)", fullmatch=True),
    owner=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,12}", fullmatch=True),
    repo=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,12}", fullmatch=True).filter(lambda r: not r.endswith(".")),
)
def test_ssh_https_and_scp_spellings_agree(host, owner, repo):
    spellings = [
        f"git@{host}:{owner}/{repo}.git",
        f"https://{host}/{owner}/{repo}",
        f"https://{host.upper()}/{owner}/{repo}.git",
        f"ssh://git@{host}:22/{owner}/{repo}.git",
    ]
    found = {normalise_remote(spelling) for spelling in spellings}
    assert found == {f"{host}/{owner}/{repo.removesuffix('.git')}"}
    assert normalise_remote(found.pop()) == f"{host}/{owner}/{repo.removesuffix('.git')}"  # normalising is idempotent


def test_project_of_reads_the_frontmatter():
    assert project_of({"project": "github.com/acme/shop"}) == "github.com/acme/shop"
    assert project_of({"project": "  "}) is None
    assert project_of({}) is None


@pytest.mark.parametrize(
    ("note_type", "frontmatter", "kept"),
    [
        ("episode", {"project": "github.com/acme/shop"}, True),
        ("episode", {"project": "github.com/acme/other"}, False),
        ("episode", {}, False),  # an episode of no known project: only in the whole vault
        ("tip", {}, True),  # a tip or a pattern without a project is shared
        ("pattern", {}, True),
        ("tip", {"project": "github.com/acme/other"}, False),
        ("pattern", {"project": "github.com/acme/shop"}, True),
        ("fact", {"project": "github.com/acme/other"}, True),  # other notes are in every scope
        ("context", {"project": "refactor-auth"}, True),
    ],
)
def test_a_projects_scope(note_type, frontmatter, kept):
    assert in_scope(note_type, frontmatter, "github.com/acme/shop") is kept
    assert in_scope(note_type, frontmatter, None) is True
