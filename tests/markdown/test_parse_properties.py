"""Property tests: the parser never raises, generated notes round-trip, frontmatter reads back exactly
with libyaml and without (edits are in test_edit_properties.py)."""

from __future__ import annotations

import importlib.util
import json
import string
import sys

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.markdown import frontmatter_yaml
from brain.markdown.model import Decision, Episode, Event
from brain.markdown.parse import parse_note
from brain.memory.episodes.note import episode_from_note, render_episode

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

markdown_fragments = st.sampled_from(
    [
        "---\n",
        "title: x\n",
        "type: episode\n",
        "## Decisions\n",
        "### d001: T\n",
        "- **Chosen**: a\n",
        "- **Options**:\n",
        "  - one, two\n",
        "## Events Timeline\n",
        "1. [2026-01-01T00:00:00Z] e001 (error): boom\n",
        "## Causal Relationships\n",
        "- causes [[X]] (weight: 0.5, evidence: 2)\n",
        "- [cat] obs #t (ctx)\n",
        "```\n",
        "# H\n",
        "[[",
        "]]",
        "\r\n",
        "\x00",
        "\ufeff",
        ": ",
        "- ",
        "\n",
        "{{",
        "|",
        "#",
    ]
)


@FAST
@given(st.text())
def test_parser_never_raises_on_any_text(text):
    note = parse_note(text, "any.md")
    assert note.text == text


@FAST
@given(st.lists(st.one_of(markdown_fragments, st.text(max_size=12)), max_size=40).map("".join))
def test_parser_never_raises_on_markdown_like_text(text):
    note = parse_note(text, "x.md")
    episode_from_note(note)
    assert note.text == text


# Values the episode format holds exactly: single-line text without edge whitespace.
line = (
    st.text(alphabet=string.ascii_letters + string.digits + " .,:;!?'\"()-_/#@%&*+=<>", min_size=1, max_size=40)
    .map(str.strip)
    .filter(bool)
)
timestamps = st.sampled_from(["2026-01-21T10:30:00Z", "2026-01-23T14:23:52.2927538-08:00", "2026-07-07T00:00:00+00:00"])
ids = st.integers(min_value=1, max_value=999)


@st.composite
def decisions(draw):
    number = draw(ids)
    options = draw(st.none() | st.lists(line, max_size=4).map(tuple))
    return Decision(
        id=f"d{number:03d}",
        title=draw(line.map(lambda text: text.replace("#", "").strip()).filter(bool)),  # no heading marks
        timestamp=draw(st.none() | timestamps),
        type=draw(st.none() | st.sampled_from(["design", "implementation", "test", "recovery", "routing"])),
        context=draw(st.none() | line),
        options=options,
        chosen=draw(st.none() | line),
        rationale=draw(st.none() | line | st.just("")),
        outcome=draw(st.none() | st.sampled_from(["success", "partial", "failure"])),
        effects=draw(st.none() | st.lists(st.sampled_from(["d002", "e001", "e003"]), max_size=3).map(tuple)),
    )


@st.composite
def events(draw):
    return Event(
        text=draw(line),
        timestamp=draw(timestamps),
        id=f"e{draw(ids):03d}",
        type=draw(st.sampled_from(["tool_call", "error", "milestone", "handoff", "commit", "test"])),
        caused_by=draw(st.lists(st.sampled_from(["d001", "e002"]), max_size=2).map(tuple)),
        leads_to=draw(st.lists(st.sampled_from(["e004"]), max_size=1).map(tuple)),
    )


@st.composite
def episodes(draw):
    unique_decisions = {d.id: d for d in draw(st.lists(decisions(), max_size=4))}
    return Episode(
        title="EPISODE-2026-01-21-session-1",
        outcome=draw(st.sampled_from(["success", "partial", "failure"])),
        task=draw(line),
        session="2026-01-21-session-1",
        date=draw(timestamps),
        metrics=draw(
            st.dictionaries(st.sampled_from(["tool_calls", "errors", "commits"]), st.integers(0, 99) | st.none())
        ),
        decisions=tuple(unique_decisions.values()),
        events=tuple(draw(st.lists(events(), max_size=5))),
        lessons=tuple(draw(st.lists(line, max_size=3))),
        tags=("episodic",),
    )


@FAST
@given(episodes())
def test_generated_episodes_round_trip(episode):
    text = render_episode(episode)
    parsed = episode_from_note(parse_note(text, "episodes/e.md"))
    assert parsed.problems == ()
    assert parsed.decisions == episode.decisions
    assert parsed.events == episode.events
    assert parsed.lessons == episode.lessons
    assert (parsed.outcome, parsed.task, parsed.date, parsed.metrics) == (
        episode.outcome,
        episode.task,
        episode.date,
        episode.metrics,
    )


# ---------------------------------------------------------------- frontmatter YAML: libyaml and the pure fallback


def _frontmatter_yaml_without_libyaml():
    """A second copy of brain.markdown.frontmatter_yaml, loaded as if PyYAML had no libyaml."""
    saved = {name: getattr(yaml, name) for name in ("CSafeLoader", "CSafeDumper")}
    for name in saved:
        delattr(yaml, name)
    try:
        spec = importlib.util.spec_from_file_location("frontmatter_yaml_pure", frontmatter_yaml.__file__)
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module._yaml_classes()  # built now, while PyYAML looks as if it had no libyaml
        return module
    finally:
        for name, value in saved.items():
            setattr(yaml, name, value)


PURE = _frontmatter_yaml_without_libyaml()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


def canonical(value) -> str:
    """JSON text that ignores key order but tells 1 from 1.0 and true from 1."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def test_libyaml_is_used_and_the_fallback_is_pure_python():
    loader, dumper = frontmatter_yaml._yaml_classes()
    assert loader.__mro__[1] is yaml.CSafeLoader and dumper is yaml.CSafeDumper
    pure_loader, pure_dumper = PURE._yaml_classes()
    assert pure_loader.__mro__[1] is yaml.SafeLoader and pure_dumper is yaml.SafeDumper


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(min_size=1), json_values, max_size=4))
def test_frontmatter_reads_back_exactly_with_libyaml_and_without(mapping):
    for writer in (frontmatter_yaml, PURE):
        text = writer.dump(mapping)
        for reader in (frontmatter_yaml, PURE):
            loaded, problem = reader.load(text)
            assert problem is None and canonical(loaded) == canonical(mapping), (writer.__name__, reader.__name__, text)


def test_both_loaders_keep_timestamps_as_typed_and_escape_line_breakers():
    text = "date: 2026-01-21T10:30:00.2927538-08:00\nday: 2026-01-21\nrate: 0.85\nlist: [a, 1, true]\n"
    for module in (frontmatter_yaml, PURE):
        assert module.load(text) == (
            {"date": "2026-01-21T10:30:00.2927538-08:00", "day": "2026-01-21", "rate": 0.85, "list": ["a", 1, True]},
            None,
        )
        assert module.dump({"note": "one\u2028two", "plain": "é"}) == 'note: "one\\Ltwo"\nplain: é\n'
        assert module.load("a: [unclosed\n")[1].startswith("malformed frontmatter: ")
