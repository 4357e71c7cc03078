"""Any note, rendered with its wikilinks as links (`brain/ui/markdown.py`), and an Obsidian link when
the vault is an Obsidian vault."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from brain.memory.notes.view import note_json
from brain.ui.markdown import link_target
from brain.ui.viewer import Args, Viewer
from brain.vault.init import OBSIDIAN_DIR

_WIKILINK = re.compile(r"\[\[([^\]\n]+)\]\]")


def note(viewer: Viewer, args: Args) -> dict[str, Any]:
    corpus = viewer.memory.corpus
    found = corpus.get(args["name"])
    resolver = corpus.resolver()
    names = dict.fromkeys(link_target(inner)[0] for inner in _WIKILINK.findall(found.body))
    links = {}
    for name in names:
        candidates = resolver.candidates(name)
        links[name] = candidates[0] if len(candidates) == 1 else None
    return {"note": note_json(found), "links": links, "obsidian": obsidian_url(viewer, found.path or "")}


def obsidian_url(viewer: Viewer, path: str) -> str | None:
    """`obsidian://open?vault=NAME&file=PATH` for a vault Obsidian opens (it holds `.obsidian/`)."""
    root = viewer.root
    if not (root / OBSIDIAN_DIR).is_dir():
        return None
    return f"obsidian://open?vault={quote(root.name, safe='')}&file={quote(path.removesuffix('.md'), safe='')}"
