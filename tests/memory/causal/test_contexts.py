"""`brain context save|load`: context notes with project, action type, cause(s) and rationale."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.errors import InvalidInput
from brain.markdown.model import ACTION_TYPES
from brain.markdown.summary import note_summary
from brain.memory.causal.contexts import load_contexts, save_context
from brain.memory.corpus import Corpus
from brain.vault.note_files import parse_bytes
from tests.conftest import write


def files(vault) -> dict[str, bytes]:
    return {path.relative_to(vault.root).as_posix(): path.read_bytes() for path in sorted(vault.root.rglob("*.md"))}


@pytest.fixture
def research(vault):
    write(
        vault,
        "contexts/Research.md",
        "---\ntitle: Research OAuth flows\ntype: context\nproject: auth\naction_type: research\n"
        "created: '2026-03-02T16:05:00Z'\nrationale: The password grant was ruled out\n---\n\n# Research OAuth flows\n\nPKCE is the standard.\n",
    )
    write(
        vault,
        "episodes/EPISODE-2026-03-03-session-02.md",
        "---\ntitle: EPISODE-2026-03-03-session-02\ntype: episode\n"
        "task: Move login to PKCE\ndate: '2026-03-03T09:30:00Z'\n---\n\n# EPISODE-2026-03-03-session-02\n",
    )
    return vault


def test_save_writes_a_context_note_with_every_field(brain, research):
    result = brain(
        "context",
        "save",
        "Decision: use OAuth2 with PKCE for the mobile app\n\nMore detail here.",
        "--project",
        "auth",
        "--action-type",
        "decision",
        "--caused-by",
        "Research OAuth flows",
        "--rationale",
        "PKCE is safer than a client secret",
    )
    assert result.exit_code == 0, result.output
    path = "contexts/Decision- use OAuth2 with PKCE for the mobile app.md"
    assert result.output == f"saved {path} (decision in auth, caused by contexts/Research.md)\n"
    text = (research.root / path).read_text()
    head = text.split("---\n")[1]
    assert head.startswith(
        "title: 'Decision: use OAuth2 with PKCE for the mobile app'\ntype: context\ntags:\n- context\n- auth\n- decision\n"
    )
    assert (
        "project: auth\naction_type: decision\ncaused_by: '[[Research OAuth flows]]'\nrationale: PKCE is safer than a client secret\n"
        in head
    )
    assert text.endswith(
        "# Decision: use OAuth2 with PKCE for the mobile app\n\nDecision: use OAuth2 with PKCE for the mobile app\n\nMore detail here.\n"
    )
    note = parse_bytes(text.encode(), path)
    assert note.type == "context" and note.frontmatter["created"].endswith("Z")


def test_several_causes_of_any_type_become_a_yaml_list(brain, research):
    result = brain(
        "context",
        "save",
        "Edited the client registration",
        "--project",
        "auth",
        "--action-type",
        "file_edit",
        "--caused-by",
        "Research OAuth flows",
        "--caused-by",
        "EPISODE-2026-03-03-session-02",
        "--title",
        "Edit registration",
    )
    assert result.exit_code == 0, result.output
    text = (research.root / "contexts/Edit registration.md").read_text()
    assert "caused_by:\n- '[[Research OAuth flows]]'\n- '[[EPISODE-2026-03-03-session-02]]'\n" in text
    assert "rationale" not in text


def test_content_from_a_file_or_stdin_and_titles_never_overwrite(brain, research, tmp_path):
    source = tmp_path / "content.md"
    source.write_text("Ran the conformance suite: 14 of 14 pass\n")
    first = brain("context", "save", "--file", str(source), "--project", "auth", "--action-type", "tool_use")
    second = brain(
        "context", "save", "-f", "-", "--project", "auth", "--action-type", "tool_use", input=source.read_text()
    )
    assert first.output == "saved contexts/Ran the conformance suite- 14 of 14 pass.md (tool_use in auth)\n"
    assert second.output == "saved contexts/Ran the conformance suite- 14 of 14 pass 2.md (tool_use in auth)\n"
    both = brain("context", "save", "x", "--file", str(source), "--project", "auth", "--action-type", "tool_use")
    assert both.exit_code == 2 and "not both" in both.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("", "--project", "auth", "--action-type", "decision"),
            "error: a context needs content (the text to save); it is empty\n",
        ),
        (
            ("  \n", "--project", "auth", "--action-type", "decision"),
            "error: a context needs content (the text to save); it is empty\n",
        ),
        (
            ("Text", "--project", "auth", "--action-type", "deploy"),
            "error: --action-type: 'deploy' is not one of: conversation, decision, file_edit, tool_use, research\n",
        ),
        (
            ("Text", "--project", "auth"),
            "error: a context needs an action type: one of conversation, decision, file_edit, tool_use, research\n",
        ),
        (("Text", "--action-type", "decision"), "error: a context needs a project (e.g. --project refactor-auth)\n"),
        (
            ("Text", "--project", "auth", "--action-type", "decision", "--caused-by", "Nowhere"),
            "error: no note named 'Nowhere'; check the name or use its path\n",
        ),
        (
            ("Text", "--project", "auth", "--action-type", "decision", "--caused-by", "Text"),
            "error: 'Text' cannot be caused by itself; name the note that led to it\n",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(brain, research, args, message):
    before = files(research)
    result = brain("context", "save", *args)
    # what the vault refuses (no such note, a note its own cause): 1; what the command line gets wrong: 2
    assert result.exit_code == (1 if "--caused-by" in args else 2)
    assert result.output == message
    assert files(research) == before


def test_a_cause_that_would_make_the_note_its_own_ancestor_is_refused(brain, research):
    # "Follow-up" already names "Plan" as its cause before Plan exists; Plan caused by Follow-up would close a loop.
    write(
        research,
        "contexts/Follow-up.md",
        "---\ntitle: Follow-up\ntype: context\ncaused_by: '[[Plan]]'\n---\n\nLater.\n",
    )
    before = files(research)
    result = brain(
        "context", "save", "Plan", "--project", "auth", "--action-type", "decision", "--caused-by", "Follow-up"
    )
    assert result.exit_code == 1  # the vault's notes make the loop: not a usage error
    assert (
        result.output
        == "error: --caused-by would make 'Plan' its own ancestor: Follow-up (or a note before it) names 'Plan' as its cause\n"
    )
    assert files(research) == before


def test_load_lists_a_projects_contexts_newest_first(brain, research):
    for number, stamp in enumerate(("2026-03-04T10:00:00Z", "2026-03-01T08:00:00Z", "2026-03-05T12:00:00Z")):
        write(
            research,
            f"contexts/c{number}.md",
            f"---\ntitle: Step {number}\ntype: context\nproject: auth\naction_type: tool_use\n"
            f"created: '{stamp}'\ncaused_by: '[[Research OAuth flows]]'\n---\n\nDid step {number}.\n",
        )
    write(
        research,
        "contexts/other.md",
        "---\ntitle: Elsewhere\ntype: context\nproject: billing\naction_type: decision\n---\n\nNot auth.\n",
    )
    listed = brain("context", "load", "auth", "--limit", "2")
    assert listed.output == (
        "2026-03-05T12:00:00Z  tool_use     Step 2  (contexts/c2.md)\n    caused by: Research OAuth flows\n    Did step 2.\n"
        "2026-03-04T10:00:00Z  tool_use     Step 0  (contexts/c0.md)\n    caused by: Research OAuth flows\n    Did step 0.\n"
    )
    rows = json.loads(brain("context", "load", "auth", "--json").output)
    assert [row["title"] for row in rows] == ["Step 2", "Step 0", "Research OAuth flows", "Step 1"]
    assert rows[2] == {
        "path": "contexts/Research.md",
        "title": "Research OAuth flows",
        "project": "auth",
        "action_type": "research",
        "created": "2026-03-02T16:05:00Z",
        "caused_by": [],
        "rationale": "The password grant was ruled out",
        "summary": "PKCE is the standard.",
    }
    assert brain("context", "load", "nope").output == "no contexts in project 'nope'; projects: auth, billing\n"
    assert brain("context", "load", "auth", "--limit", "0").exit_code == 2


def test_saved_context_is_loaded_by_a_long_lived_corpus(research):
    corpus = Corpus(research)
    assert [entry.title for entry in load_contexts(corpus, "auth")] == ["Research OAuth flows"]
    saved = save_context(
        corpus, "Chose PKCE", project="auth", action_type="decision", caused_by=["[[Research OAuth flows]]"]
    )
    assert saved.caused_by == ("contexts/Research.md",)
    assert next(entry.title for entry in load_contexts(corpus, "auth")) == "Chose PKCE"
    with pytest.raises(InvalidInput, match="limit must be between 1 and 100"):
        load_contexts(corpus, "auth", limit=101)


@settings(max_examples=40, deadline=None)
@given(content=st.text(min_size=1, max_size=200).filter(lambda text: text.strip()), kind=st.sampled_from(ACTION_TYPES))
def test_any_content_saves_and_reads_back(tmp_path_factory, content, kind):
    """Whatever the text, the note parses back as a context whose body holds the content."""
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path_factory.mktemp("prop") / "vault")
    corpus = Corpus(vault)
    try:
        saved = save_context(corpus, content, project="p", action_type=kind, rationale="because")
    except InvalidInput as error:  # a first line that makes no usable file name is refused, never written
        assert "file name" in str(error)
        assert not list((vault.root / "contexts").iterdir())
        return
    note = corpus.get(saved.path)
    assert note.type == "context" and note.frontmatter["action_type"] == kind and note.frontmatter["project"] == "p"
    assert " ".join(content.strip().split()) in " ".join(note.body.split())
    assert note_summary(note)
