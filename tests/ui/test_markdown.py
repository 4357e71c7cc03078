"""A note's text in a page: escaped, never run; its wikilinks as links; its images never loaded."""

from __future__ import annotations

from pathlib import Path

from brain.ui.markdown import render
from tests.ui.conftest import viewer_client

NAMES = {"Plan": "notes/Plan.md", "Roadmap 2026": "decisions/Roadmap 2026.md"}.get


def test_raw_html_in_a_note_is_text() -> None:
    html = render('<script>alert("x")</script>\n\n<img src=x onerror="alert(1)">', NAMES)
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_a_script_link_is_no_link() -> None:
    assert render("[click](javascript:alert(1))", NAMES) == "<p>[click](javascript:alert(1))</p>\n"


def test_an_image_is_a_link_never_loaded() -> None:
    html = render("![the chart](https://example.com/chart.png)", NAMES)
    assert html == (
        '<p><a class="image" href="https://example.com/chart.png" rel="noopener noreferrer">[image: the chart]</a></p>\n'
    )


def test_wikilinks_lead_to_the_notes_they_name() -> None:
    html = render("See [[Plan]], [[Roadmap 2026#Q3|the roadmap]] and [[Nowhere]].", NAMES)
    assert html == (
        '<p>See <a class="wikilink" href="/notes/notes/Plan.md">Plan</a>, '
        '<a class="wikilink" href="/notes/decisions/Roadmap%202026.md">the roadmap</a> and '
        '<span class="wikilink broken" title="no note named this">Nowhere</span>.</p>\n'
    )


def test_a_heading_that_repeats_the_title_is_left_out() -> None:
    assert render("# Plan\n\nText.\n", NAMES, title="Plan") == "<p>Text.</p>\n"
    assert render("# Other\n", NAMES, title="Plan") == "<h1>Other</h1>\n"


def test_a_hostile_note_is_shown_escaped_in_every_field(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "Evil.md").write_text(
        '---\ntitle: "<script>alert(1)</script>"\ntags: ["<b>bold</b>"]\nowner: "<img src=x onerror=alert(2)>"\n---\n'
        "Body <script>alert(3)</script> [[<svg onload=alert(4)>]]\n"
    )
    with viewer_client(root) as client:
        page = client.get("/notes/notes/Evil.md")
    assert page.status_code == 200
    assert "<script>alert" not in page.text and "<img src=x" not in page.text and "<svg onload" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
