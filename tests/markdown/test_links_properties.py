"""The link rewriter, property-tested: renaming and renaming back gives the text it started from,
and what is only text (code, comments, math) never changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.markdown.lines import split_lines
from brain.markdown.links import code_lines, markdown_links, rewrite_links
from brain.markdown.spans import protected_spans

FORWARD = {"Old Plan": "New Idea", "Old Plan.md": "New Idea.md", "notes/Old Plan": "archive/New Idea"}
BACK = {new: old for old, new in FORWARD.items()}
PATHS = {"Old Plan.md": "New Idea.md", "notes/Old Plan.md": "archive/New Idea.md"}
PATHS_BACK = {new: old for old, new in PATHS.items()}

LINKS = [
    "[[Old Plan]]",
    "[[Old Plan|the plan]]",
    "[[Old Plan#Steps]]",
    "![[Old Plan]]",
    "[[ Old Plan ]]",
    "[[Old Plan\\|in a table]]",
    "[[Old Plan.md]]",
    "[[notes/Old Plan]]",
    "[x](Old%20Plan.md)",
    "[x](notes/Old%20Plan.md#Steps)",
    "[x](<Old Plan.md>)",
    "[[Somewhere Else]]",
    "[y](Else.md)",
    "[z](https://example.com/Old%20Plan.md)",
]
PROTECTED = [
    "`[[Old Plan]]`",
    "``a ` [[Old Plan]]``",
    "<!-- [[Old Plan]] -->",
    "<!--\n[[Old Plan]]\n-->",
    "%% [[Old Plan]] %%",
    "$$ [[Old Plan]] $$",
    "$$\n[x](Old%20Plan.md)\n$$",
]
FENCED = ["\n```\n[[Old Plan]]\n```\n", "\n\n    [[Old Plan]] indented\n\n"]
PROSE = st.text(alphabet="abc XYZ.,#*-|[]()\n", max_size=12)
FRAGMENT = st.one_of(st.sampled_from(LINKS), st.sampled_from(PROTECTED), st.sampled_from(FENCED), PROSE)
TEXTS = st.lists(FRAGMENT, max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_renaming_and_renaming_back_gives_the_text_it_started_from(text: str) -> None:
    there, count = rewrite_links(text, FORWARD.get, PATHS.get)
    back, count_back = rewrite_links(there, BACK.get, PATHS_BACK.get)
    assert back == text
    assert count == count_back


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_what_is_only_text_never_changes(text: str) -> None:
    rewritten, _ = rewrite_links(text, FORWARD.get, PATHS.get)
    assert [rewritten[a:b] for a, b in protected_spans(rewritten)] == [text[a:b] for a, b in protected_spans(text)]
    lines, new_lines = split_lines(text), split_lines(rewritten)
    assert [new_lines[n] for n in sorted(code_lines(rewritten))] == [lines[n] for n in sorted(code_lines(text))]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_nothing_changes_when_no_link_is_renamed(text: str) -> None:
    assert rewrite_links(text, lambda target: None, lambda path: None) == (text, 0)


def test_markdown_links_are_read_decoded_and_urls_are_not_notes() -> None:
    text = "[a](Old%20Plan.md#x) [b](<dir/B c.md>) [u](https://e.com/x.md) [p](pic.png) `[c](C.md)`\n"
    assert markdown_links(text) == ["Old Plan.md", "dir/B c.md"]
