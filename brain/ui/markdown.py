"""A note's markdown as HTML for the viewer: markdown-it-py (CommonMark, tables, strikethrough) with
raw HTML off, so a note's text is escaped and never run; `[[wikilinks]]` become links to the notes
they name (or are marked broken); an image becomes a link to it, never loaded, so that a page
fetches nothing from outside the viewer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

Resolve = Callable[[str], str | None]  # a link's target -> the path of the note it names, None for none


def note_url(path: str) -> str:
    return "/notes/" + quote(path)


def link_target(inner: str) -> tuple[str, str]:
    """`Target#Heading|alias` -> (the note's name, the text shown)."""
    target, _, alias = inner.partition("|")
    name = target.split("#", 1)[0].strip()
    return name, (alias.strip() or target.strip())


def _wikilink(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith("[[", start):
        return False
    end = state.src.find("]]", start + 2)
    if end < 0 or "\n" in state.src[start:end] or end == start + 2:
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"inner": state.src[start + 2 : end]}
    state.pos = end + 2
    return True


def _render_wikilink(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    name, shown = link_target(tokens[idx].meta["inner"])
    resolve: Resolve = env["resolve"]
    path = resolve(name)
    if path is None:
        return f'<span class="wikilink broken" title="no note named this">{escape(shown)}</span>'
    return f'<a class="wikilink" href="{escape(note_url(path))}">{escape(shown)}</a>'


def _render_image(renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    token = tokens[idx]
    source = str(token.attrGet("src") or "")
    alt = renderer.renderInlineAsText(token.children or [], options, env) or source
    return f'<a class="image" href="{escape(source)}" rel="noopener noreferrer">[image: {escape(alt)}]</a>'


def _render_link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer")
    return renderer.renderToken(tokens, idx, options, env)


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    parser.inline.ruler.before("link", "wikilink", _wikilink)
    parser.add_render_rule("wikilink", _render_wikilink)
    parser.add_render_rule("image", _render_image)
    parser.add_render_rule("link_open", _render_link_open)
    return parser


_PARSER = _parser()


def render(text: str, resolve: Resolve, title: str | None = None) -> Markup:
    """The note's body as HTML (safe to place in a page as it is); a first heading that only repeats
    `title` (which the page shows already) left out."""
    env: dict[str, Any] = {"resolve": resolve}
    if title is not None:
        first, _, rest = text.lstrip("\n").partition("\n")
        if first.strip() == f"# {title}":
            text = rest
    return Markup(_PARSER.render(text, env))


def resolver_of(links: Mapping[str, str | None]) -> Resolve:
    """Resolution from a table of each target a note names (what its page's data holds)."""
    return lambda name: links.get(name)
