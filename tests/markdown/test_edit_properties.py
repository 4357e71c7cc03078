"""Property tests: every edit keeps every byte outside what it manages.

Generated notes mix what real files hold: CRLF, LF and lone-CR endings, a BOM, trailing spaces
and tabs, and characters some readers take as line breaks (U+2028, U+2029, NEL, form feed,
vertical tab) in the middle of lines. Each edit is checked against the note's own lines
(`split_lines`, the one definition of a line): the lines it does not manage come back equal,
in order, and the lines it adds take the note's line-ending style.
"""

from __future__ import annotations

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.markdown import frontmatter_yaml
from brain.markdown.edit import append, append_to_section, prepend, replace_section, set_frontmatter
from brain.markdown.lines import line_ending, split_lines, with_ending
from brain.markdown.parse import parse_note

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ODD = "\u2028\u2029\x85\x0c\x0b\t \u00e9\u4e2d\U0001f600"
endings = st.sampled_from(["\n", "\r\n", "\r"])
prose_text = st.text(alphabet=st.sampled_from("abc xyz.,:[]()#*-_" + ODD), max_size=24)
# A prose line starts with a letter, so it never becomes a heading, a fence or a list marker.
prose = st.builds(lambda text, trail: "p" + text + trail, prose_text, st.sampled_from(["", " ", "  ", "\t", " \t "]))
value = st.text(alphabet=st.sampled_from("abcxyz0123 -_"), min_size=1, max_size=10).map(lambda v: v.strip() or "v")


@st.composite
def notes(draw):
    eol_style = draw(st.sampled_from(["\n", "\r\n", "mixed"]))

    def end() -> str:
        return draw(endings) if eol_style == "mixed" else eol_style

    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["", "\ufeff"])) + "---" + end())
        keys = draw(st.lists(st.sampled_from(["title", "status", "kind", "owner"]), unique=True, max_size=4))
        for key in keys:
            lines.append(f"{key}: {draw(value)}{draw(st.sampled_from(['', ' ', chr(9)]))}{end()}")
        if draw(st.booleans()):
            lines.append("tags:" + end())
            lines += [f"  - {draw(value)}{end()}" for _ in range(draw(st.integers(1, 3)))]
        if draw(st.booleans()):
            lines.append("meta:" + end())
            lines.append(f"  owner: {draw(value)}{end()}")
        lines.append("---" + end())
    for heading in draw(st.lists(st.sampled_from(["Notes", "Log", "Context", "Other"]), unique=True, max_size=4)):
        lines += [draw(prose) + end() for _ in range(draw(st.integers(0, 3)))]
        lines.append(f"## {heading}{end()}")
        lines += [draw(st.sampled_from(["", "- "])) + draw(prose) + end() for _ in range(draw(st.integers(0, 4)))]
        if draw(st.booleans()):
            lines.append(end())
    text = "".join(lines)
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")  # no line ending at the end of the file
    return text


def _inserted(lines: list[str], eol: str) -> None:
    for line in lines:
        assert line.endswith(eol) and not line[: -len(eol)].endswith("\r"), repr(line)


@FAST
@given(notes())
def test_lines_round_trip_and_sections_point_at_their_headings(text):
    lines = split_lines(text)
    assert "".join(lines) == text
    for section in parse_note(text).sections:
        assert lines[section.start].lstrip("#").strip().startswith(section.heading)


@FAST
@given(notes(), value)
def test_setting_a_new_key_only_adds_its_line(text, new):
    result = split_lines(set_frontmatter(text, {"zz_added": new}))
    original = split_lines(text)
    block = frontmatter_yaml.locate(original)
    eol = line_ending(text)
    if block is None:
        assert "".join(result[3:]) == text
        return
    inserted = result[block.end : block.end + 1]
    assert result[: block.end - 1] == original[: block.end - 1]
    assert result[block.end + 1 :] == original[block.end :]
    assert inserted == [with_ending(frontmatter_yaml.dump_key("zz_added", new), eol)]


@FAST
@given(notes(), value)
def test_setting_an_existing_key_only_changes_its_lines(text, new):
    original = split_lines(text)
    block = frontmatter_yaml.locate(original)
    if block is None or not any(line.startswith("status:") for line in original[1 : block.end]):
        return
    at = next(i for i, line in enumerate(original) if line.startswith("status:"))
    result = split_lines(set_frontmatter(text, {"status": new}))
    assert result[:at] == original[:at]
    assert result[at + 1 :] == original[at + 1 :]
    assert result[at] == with_ending(frontmatter_yaml.dump_key("status", new), line_ending(text))


@FAST
@given(notes(), st.lists(prose, min_size=1, max_size=3))
def test_replacing_a_section_keeps_everything_around_it(text, new_lines):
    section = parse_note(text).section("Log", 2)
    original = split_lines(text)
    result = split_lines(replace_section(text, "Log", "\n".join(new_lines)))
    eol = line_ending(text)
    if section is None:
        assert "".join(result).startswith(text.rstrip("\r\n") if not text.endswith(("\n", "\r")) else text)
        return
    assert result[: section.start] == original[: section.start]
    assert result[section.start].rstrip("\r\n") == original[section.start].rstrip("\r\n")
    tail = original[section.end :]
    assert result[len(result) - len(tail) :] == tail
    _inserted(result[section.start + 1 : section.start + 1 + len(new_lines)], eol)


@FAST
@given(notes(), prose)
def test_appending_to_a_section_only_inserts_lines(text, new_line):
    original = split_lines(text)
    section = parse_note(text).section("Log", 2)
    result = split_lines(append_to_section(text, "Log", new_line))
    if section is None or not section.content.strip():
        return
    eol = line_ending(text)
    at = section.end
    while not original[at - 1].strip():
        at -= 1
    assert result[: at - 1] == original[: at - 1]
    assert result[at - 1].rstrip("\r\n") == original[at - 1].rstrip("\r\n")
    assert result[at] == new_line + eol
    assert result[at + 1 :] == original[at:]


@FAST
@given(notes(), prose)
def test_append_and_prepend_keep_the_note_around_them(text, new_line):
    eol = line_ending(text)
    appended = append(text, new_line)
    assert appended.startswith(text)
    assert appended.endswith(new_line + eol)
    prepended = prepend(text, new_line)
    start = parse_note(text).body_start
    lines = split_lines(text)
    head, rest = "".join(lines[:start]), "".join(lines[start:])
    assert prepended.startswith(head.rstrip("\r\n") if head and not head.endswith(("\n", "\r")) else head)
    assert prepended.endswith(rest)
    assert new_line + eol in prepended


# ---------------------------------------------------------------- frontmatter values and whole sections


keys = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=10)
yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=6,
)


@FAST
@given(st.dictionaries(keys, yaml_values, min_size=1, max_size=6), keys, yaml_values, st.text(max_size=60))
def test_set_frontmatter_changes_only_that_key(existing, key, value, body):
    text = "---\n" + frontmatter_yaml.dump(existing) + "# a user comment\n---\n" + body
    updated = set_frontmatter(text, {key: value})
    before, after = parse_note(text), parse_note(updated)
    assert after.frontmatter[key] == value
    assert {k: v for k, v in after.frontmatter.items() if k != key} == {
        k: v for k, v in before.frontmatter.items() if k != key
    }
    assert "\n# a user comment\n" in updated
    assert updated.endswith("---\n" + body)
    assert [k for k in after.frontmatter if k in existing] == list(existing)  # key order kept
    unchanged = {k: v for k, v in existing.items() if k != key}
    for k, v in unchanged.items():  # every other key keeps its exact text
        assert frontmatter_yaml.dump_key(k, v) in updated


@FAST
@given(
    st.text(alphabet=string.ascii_letters + " \n.", max_size=80),
    st.text(alphabet=string.ascii_letters + " .", min_size=1, max_size=40),
)
def test_replace_section_keeps_other_sections_byte_for_byte(prose, new):
    text = f"---\ntitle: T\n---\n\n## Context\n{prose}\n\n## Decisions\nold\n\n## Mine\nuser text\n"
    updated = replace_section(text, "Decisions", new)
    assert updated.startswith(f"---\ntitle: T\n---\n\n## Context\n{prose}\n\n## Decisions\n")
    assert updated.endswith("## Mine\nuser text\n")
    assert parse_note(updated).section_text("Decisions").strip() == new.strip()
