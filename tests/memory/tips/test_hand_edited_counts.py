"""A tip whose counts were edited by hand (-1, .inf, 1e400) is read with its
counts clamped and reported by `doctor`; it never stops the tip commands or the bootstrap."""

from __future__ import annotations

import pytest

from brain.markdown.parse import parse_note
from brain.memory.tips.note import MAX_COUNT, Tip, render_tip, tip_from_note
from tests.conftest import use_lexical


@pytest.fixture
def lexical(vault):
    use_lexical(vault)
    yield vault


def tip_text(title: str, **counts: str) -> str:
    text = render_tip(
        Tip(title=title, category="strategy", tip="Retry a payment with backoff", trigger="a payment fails")
    )
    for key, value in counts.items():
        text = text.replace("---\n", f"---\n{key}: {value}\n", 1) if key not in text else text
        text = "\n".join(f"{key}: {value}" if line.startswith(f"{key}:") else line for line in text.split("\n"))
    return text


def test_counts_are_clamped_and_reported():
    tip = tip_from_note(parse_note(tip_text("TIP-a", helped="-1", support=".inf", hurt="2.5"), "tips/TIP-a.md"))
    assert (tip.helped, tip.support, tip.hurt) == (0, MAX_COUNT, 2)
    assert "helped '-1' is below 0; a count is read as 0" in tip.problems
    assert f"support 'inf' is over {MAX_COUNT:,}; read as {MAX_COUNT:,}" in tip.problems
    assert "hurt '2.5' is not a whole number; read as 2" in tip.problems


def test_tip_commands_and_the_bootstrap_work_beside_a_broken_tip(lexical, brain):
    (lexical.root / "tips" / "TIP-broken.md").write_text(tip_text("TIP-broken", helped="-1", support=".inf"))
    (lexical.root / "tips" / "TIP-huge.md").write_text(tip_text("TIP-huge", support="1e400", hurt="-5"))
    for command in (
        ("tip", "list"),
        ("tip", "guidelines", "retry a payment", "--threshold", "0"),
        ("context", "bootstrap", "retry a payment"),
    ):
        done = brain(*command)
        assert done.exit_code == 0, (command, done.output)
    assert "TIP-broken" in brain("tip", "guidelines", "retry a payment", "--threshold", "0").output
    doctor = brain("doctor").output
    assert "tips/TIP-broken.md: helped '-1' is below 0; a count is read as 0" in doctor
    assert "tips/TIP-huge.md: hurt '-5' is below 0; a count is read as 0" in doctor
