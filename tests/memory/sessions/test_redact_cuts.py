"""No text is cut before it is redacted: a secret that straddles the limit of any field an episode
takes from a transcript (task, correction, command, error line, decision, plan, a tool output's head
and tail) is replaced whole, and no 8 characters of it reach the note, the catalog or the log."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from brain.agents.registry import READERS
from brain.memory.sessions.ingest import extract_transcript, redacted, source_frontmatter
from brain.memory.sessions.redact import Redactor
from brain.notes.episode import render_episode

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def _leaks(secret: str, text: str) -> list[str]:
    """The 8-character pieces of `secret` found in `text`."""
    return [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in text]


def _at(lead: str, column: int, secret: str, rest: str = " and more") -> str:
    """`lead`, filler, then `secret` starting at `column` (one word of filler, so no spaces collapse)."""
    return lead + " " + "y" * (column - len(lead) - 2) + " " + secret + rest


def _transcript(path: Path, secret: str, k: int) -> Path:
    """A Claude Code session in which `secret` starts `k` characters before each limit brain cuts at."""
    records: list[tuple[str, object]] = []

    def bash(call_id: str, command: str, output: str, error: bool) -> None:
        records.append(
            ("assistant", [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}])
        )
        records.append(
            ("user", [{"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": error}])
        )

    records.append(("user", _at("Deploy it", 300 - k, secret)))  # task: 300
    records.append(("assistant", _at("I'll go with the", 300 - k + len("I'll "), secret, " key.")))  # chosen: 300
    records.append(("assistant", _at("I'll go with the", 72 - k + len("I'll "), secret, " one.")))  # title: 72
    echo = _at("echo", 120 - k, secret)  # a command as an event says it: 120
    bash("t1", echo, "Error: " + _at("denied", 160 - k - len("Error: "), secret), True)  # error line: 160
    bash("t2", echo, "done", False)
    printf = _at("printf", 80 - k, secret)  # a command as a lesson says it: 80
    bash("t3", printf, "Error: no", True)
    bash("t4", printf, "done", False)
    head = "\n" * 10 + "[main 3f9a2c1] " + _at("Rotate", 1000 - k - 10 - len("[main 3f9a2c1] "), secret)
    bash("t5", "git commit -am rotate", head + "\n" + "z" * 3000, False)  # a tool output's head: 1000
    tail = "lorem " + secret + " Error: refused\n" + "w" * (1000 - k - len(" Error: refused\n"))  # its tail
    bash("t6", "deploy --now", "ok\n" * 1000 + tail, True)  # the secret starts 1000 + len(secret) - k from the end
    plan = {"plan": _at("Rotate", 200 - k, secret)}  # a plan: 200
    records.append(("assistant", [{"type": "tool_use", "id": "p1", "name": "ExitPlanMode", "input": plan}]))
    records.append(("user", [{"type": "tool_result", "tool_use_id": "p1", "content": "approved"}]))
    records.append(("user", _at("no, use", 200 - k, secret)))  # a correction: 200
    lines = [
        {
            "type": kind,
            "sessionId": "c0ffee00-1111-4222-8333-444455556666",
            "cwd": "/work/app",
            "timestamp": f"2026-03-16T10:{number // 60:02d}:{number % 60:02d}.000Z",
            "message": {"role": kind, "content": content, **({"id": f"m{number}"} if kind == "assistant" else {})},
        }
        for number, (kind, content) in enumerate(records)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@settings(max_examples=60, deadline=None)
@given(secret=st.sampled_from([TOKEN, JWT]), k=st.integers(min_value=1, max_value=len(JWT) + 3))
def test_a_secret_at_any_cut_is_redacted_whole(tmp_path_factory, secret, k):
    k = min(k, len(secret) + 3)
    path = _transcript(tmp_path_factory.mktemp("t") / "s.jsonl", secret, k)
    item = redacted(extract_transcript(path, READERS), Redactor())
    note = render_episode(item.episode, source_frontmatter(item))
    assert _leaks(secret, note) == []
    assert item.redacted == note.count("[REDACTED:")
    # every field the secret was put in is in the note, so the test looks where it should
    assert [e.type for e in item.episode.events][:6] == ["error", "recovery", "error", "recovery", "commit", "error"]
    assert len(item.episode.decisions) == 3 and item.episode.task.startswith("Deploy it yyy")


def test_cli_no_piece_of_a_cut_secret_reaches_the_note_the_catalog_or_the_log(brain, vault, tmp_path):
    path = _transcript(tmp_path / "s.jsonl", TOKEN, 20)
    out = brain("episode", "extract", str(path))
    note = (vault.root / "episodes" / "EPISODE-2026-03-16-c0ffee00.md").read_text()
    count = note.count("[REDACTED:")
    assert out.stdout.endswith(f"{count} values redacted)\n") and count >= 10
    assert brain("index", "--no-embed").exit_code == 0
    jwt_path = _transcript(tmp_path / "jwt.jsonl", JWT, 50)
    hook = brain("hooks", "run", "extract", "--transcript", str(jwt_path), "--session", "c0ffee00")
    assert hook.exit_code == 0
    assert re.search(
        r" extract c0ffee00: episodes/EPISODE-2026-03-16-c0ffee00.md \[partial\]",
        (vault.root / ".brain" / "logs" / "hooks.log").read_text(),
    )
    found = {
        str(p.relative_to(vault.root)): _leaks(TOKEN, p.read_bytes().decode("latin-1"))
        + _leaks(JWT, p.read_bytes().decode("latin-1"))
        for p in vault.root.rglob("*")
        if p.is_file()
    }
    assert {name: pieces for name, pieces in found.items() if pieces} == {}
