"""A parsed `Note` as compact JSON and back, so the catalog can hand out notes without re-parsing.

Only what cannot be recomputed cheaply is stored: the body and each section's content are
slices of the text, so they are cut again from the text on load. `decode(encode(n), n.text, path)`
equals `n` for every note the parser makes (tests check this on the example vault and on
generated text). A change to the stored shape needs a new `SCHEMA_VERSION` in schema.py whose
step rebuilds the catalog.
"""

from __future__ import annotations

import json
from typing import Any

from brain.markdown.lines import split_lines
from brain.markdown.model import CausalRelation, Note, Observation, Relation, Section, WikiLink


def encode(note: Note) -> str:
    data: dict[str, Any] = {
        "b": note.body_start,
        "t": note.title,
        "y": note.type,
        "h": note.has_frontmatter,
        "s": [[s.heading, s.level, s.start, s.end] for s in note.sections],
    }
    if note.observations:
        data["o"] = [[o.category, o.text, o.ref, list(o.tags), o.context, o.line] for o in note.observations]
    if note.relations:
        data["r"] = [[r.type, r.target, r.context, r.line] for r in note.relations]
    if note.causal_relations:
        data["c"] = [[c.type, c.target, c.weight, c.evidence, c.context, c.line] for c in note.causal_relations]
    if note.links:
        data["l"] = [[link.target, link.heading, link.alias] for link in note.links]
    if note.problems:
        data["p"] = list(note.problems)
    if note.body_tags:
        data["g"] = list(note.body_tags)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def encode_frontmatter(frontmatter: dict[str, Any]) -> str:
    return json.dumps(frontmatter, ensure_ascii=False, separators=(",", ":"))


def decode(parsed: str, frontmatter: str, text: str, path: str | None) -> Note:
    data = json.loads(parsed)
    lines = split_lines(text)
    body_start = data["b"]
    return Note(
        text=text,
        path=path,
        frontmatter=json.loads(frontmatter),
        body="".join(lines[body_start:]),
        body_start=body_start,
        title=data["t"],
        type=data["y"],
        sections=tuple(Section(h, lv, st, en, "".join(lines[st + 1 : en])) for h, lv, st, en in data["s"]),
        observations=tuple(Observation(c, t, r, tuple(tags), ctx, ln) for c, t, r, tags, ctx, ln in data.get("o", ())),
        relations=tuple(Relation(*item) for item in data.get("r", ())),
        causal_relations=tuple(CausalRelation(*item) for item in data.get("c", ())),
        links=tuple(WikiLink(*item) for item in data.get("l", ())),
        problems=tuple(data.get("p", ())),
        has_frontmatter=data["h"],
        body_tags=tuple(data.get("g", ())),
    )
