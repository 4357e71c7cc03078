"""The Codex reader: a rollout's episode, two sessions whose ids begin alike, files written by a shell,
real sessions with unified exec. Data: tests/data/transcripts (see its README)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brain.markdown.parse import parse_note
from brain.memory.sessions.ingest import extract_transcript
from brain.vault.init import init_vault
from tests.conftest import CODEX, REPO, TRANSCRIPTS, run_brain
from tests.helpers.processes import wait_until_idle

CODEX_ID = "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"
TASK = "Fix the rounding bug in cart totals (tests/test_cart.py fails) and commit the fix"
CODEMIE = sorted((TRANSCRIPTS / "public" / "codemie").glob("rollout-*.jsonl"))


def test_codex_rollout_episode():
    found = extract_transcript(CODEX)
    episode = found.episode
    assert found.format == "codex" and found.unknown_records == {"future_item": 1}
    assert episode.session == "0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"
    assert episode.task == "Fix the rounding bug in cart totals (tests/test_cart.py fails) and commit the fix"
    assert episode.metrics == {
        "tool_calls": 4,
        "errors": 1,
        "recoveries": 1,
        "commits": 1,
        "files_changed": 1,
        "input_tokens": 12000,
        "output_tokens": 1800,
        "cache_read_tokens": 30000,
        "cache_creation_tokens": 0,
    }
    assert [(e.type, e.text) for e in episode.events] == [
        ("error", "Ran `pytest tests/test_cart.py -q`: tests failed (1 failed, 1 passed)"),
        ("edit", "Edited shop/cart.py"),
        ("test", "Ran `pytest tests/test_cart.py -q`: tests passed (2 passed)"),
        ("commit", "Commit 1a2b3c4: Round cart totals with Decimal.quantize"),
    ]
    (decision,) = episode.decisions
    assert decision.options == ("Round with Decimal.quantize and ROUND_HALF_EVEN", "float round()")
    assert decision.rationale == "float rounding is what drifts by a cent"
    assert episode.outcome == "success"


# ---------------------------------------------------------------- two sessions, one name


OTHER_ID = "0199a3b2-77aa-7e5f-8a9b-111111111111"  # a second session that began in the same minute: its id begins alike


def _codex_copy(folder: Path, session: str, task: str) -> Path:
    """The Codex sample as another session: its id and its task changed."""
    path = folder / f"rollout-2026-03-14T10-00-30-{session}.jsonl"
    path.write_text(CODEX.read_text().replace(CODEX_ID, session).replace(TASK, task))
    return path


def test_two_codex_sessions_started_within_a_minute_get_a_note_each(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-77aa-7e5f-8a9b-111111111111", "Add a discount code field to checkout")
    first = brain("episode", "extract", str(CODEX))
    second = brain("episode", "extract", str(other))
    assert first.stdout.startswith(f"created episodes/EPISODE-2026-03-14-{CODEX_ID}.md ")
    assert second.stdout.startswith(f"created episodes/EPISODE-2026-03-14-{OTHER_ID}.md ")
    notes = {p.name: parse_note(p.read_text()) for p in (vault.root / "episodes").iterdir()}
    mine, theirs = notes[f"EPISODE-2026-03-14-{CODEX_ID}.md"], notes[f"EPISODE-2026-03-14-{OTHER_ID}.md"]
    assert (mine.frontmatter["session"], mine.frontmatter["task"]) == (CODEX_ID, TASK)
    assert (theirs.frontmatter["session"], theirs.frontmatter["task"]) == (
        "0199a3b2-77aa-7e5f-8a9b-111111111111",
        "Add a discount code field to checkout",
    )
    assert theirs.frontmatter["episode_id"] == f"episode-2026-03-14-{OTHER_ID}"
    assert "`0199a3b2-77aa-7e5f-8a9b-111111111111`" in theirs.section_text("Context")
    # each session extracted again finds its own note
    assert brain("episode", "extract", str(other)).stdout.startswith(
        f"unchanged episodes/EPISODE-2026-03-14-{OTHER_ID}.md "
    )
    assert brain("episode", "extract", str(CODEX)).stdout.startswith(
        f"unchanged episodes/EPISODE-2026-03-14-{CODEX_ID}.md "
    )
    assert len(notes) == 2 and len(list((vault.root / "episodes").iterdir())) == 2


def test_two_sessions_with_the_same_start_in_one_command_get_a_note_each(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-77aa-7e5f-8a9b-111111111111", "Add a discount code field to checkout")
    out = brain("episode", "extract", str(CODEX), str(other))
    assert [line.split("  ")[0] for line in out.stdout.splitlines()] == [
        f"created episodes/EPISODE-2026-03-14-{CODEX_ID}.md",
        f"created episodes/EPISODE-2026-03-14-{OTHER_ID}.md",
    ]


def test_session_end_of_a_second_session_with_the_same_start_keeps_both(brain, vault, tmp_path):
    other = _codex_copy(tmp_path, "0199a3b2-1c4d-7e5f-8a9b-222222222222", "Rename the cart module")
    one = json.loads(brain("session", "end", str(CODEX), "--json").output)
    two = json.loads(brain("session", "end", str(other), "--json").output)
    assert (one["episode"], two["episode"]) == (
        f"EPISODE-2026-03-14-{CODEX_ID}",
        "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-222222222222",
    )


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to see a process wait")
def test_two_sessions_with_the_same_start_extracted_at_once_get_a_note_each(vault, tmp_path):
    """Issue 40, 1: the name was chosen before the write lock was taken, so two extractions that met
    at the lock both took `EPISODE-...-0199a3b2` (names were the id's first 8 characters then): the
    second failed "already exists" or overwrote."""
    other = _codex_copy(tmp_path, "0199a3b2-77aa-7e5f-8a9b-111111111111", "Add a discount code field to checkout")
    command = [sys.executable, "-m", "brain", "episode", "extract", "--vault", str(vault.root)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    with vault.locked():  # both extractions get as far as the lock, then wait on it
        started = [
            subprocess.Popen([*command, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for path in (CODEX, other)
        ]
        for process in started:
            wait_until_idle(process.pid)
    outcomes = [(process.wait(timeout=120), process.communicate()[1]) for process in started]
    assert [code for code, _ in outcomes] == [0, 0], outcomes
    sessions = {
        path.name: parse_note(path.read_text()).frontmatter["session"] for path in (vault.root / "episodes").iterdir()
    }
    assert sorted(sessions.values()) == [CODEX_ID, "0199a3b2-77aa-7e5f-8a9b-111111111111"]
    assert sorted(sessions) == [f"EPISODE-2026-03-14-{CODEX_ID}.md", f"EPISODE-2026-03-14-{OTHER_ID}.md"]


def test_two_machines_extracting_sessions_with_the_same_start_write_two_files(tmp_path):
    """Issue 44: each machine sees only its own episodes folder, so a name cut from the id's start
    (`EPISODE-2026-03-14-0199a3b2`, Codex's ids begin with the time) was taken on both, and the vault
    shared through git got an add/add conflict. The whole id names the note."""
    other = _codex_copy(tmp_path, OTHER_ID, "Add a discount code field to checkout")
    written = []
    for machine, rollout in (("laptop", CODEX), ("desktop", other)):
        vault, _ = init_vault(tmp_path / machine)
        out = run_brain("episode", "extract", str(rollout), "--vault", str(vault.root))
        written += [path.name for path in (vault.root / "episodes").iterdir()]
        assert out.stdout.startswith(f"created episodes/{written[-1]} ")
    assert written == [f"EPISODE-2026-03-14-{CODEX_ID}.md", f"EPISODE-2026-03-14-{OTHER_ID}.md"]


def test_a_note_named_the_old_way_keeps_its_name(brain, vault):
    """A vault whose episode an earlier brain named by the id's first 8 characters: extracting that
    session again updates the note where it is, and writes no second one."""
    brain("episode", "extract", str(CODEX))
    episodes = vault.root / "episodes"
    written = episodes / f"EPISODE-2026-03-14-{CODEX_ID}.md"
    old = written.read_text().replace(f"2026-03-14-{CODEX_ID}", "2026-03-14-0199a3b2")  # title, episode_id
    written.unlink()
    (episodes / "EPISODE-2026-03-14-0199a3b2.md").write_text(old)
    again = brain("episode", "extract", str(CODEX))
    assert again.stdout.startswith("unchanged episodes/EPISODE-2026-03-14-0199a3b2.md ")
    assert [path.name for path in episodes.iterdir()] == ["EPISODE-2026-03-14-0199a3b2.md"]


# ---------------------------------------------------------------- files written by a shell


def test_codex_files_written_by_shell_redirection_are_counted(tmp_path):
    def call(number: int, script: str) -> list[dict]:
        when = f"2026-03-15T10:00:{number:02d}.000Z"
        arguments = json.dumps({"command": ["bash", "-lc", script]})
        return [
            {
                "timestamp": when,
                "type": "response_item",
                "payload": {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"c{number}"},
            },
            {
                "timestamp": when,
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{number}", "output": "Exit code: 0\n"},
            },
        ]

    records = [
        {"timestamp": "2026-03-15T10:00:00.000Z", "type": "session_meta", "payload": {"id": "019a-x", "cwd": "/w"}},
        *call(1, "cat > src/x.py <<'EOF'\nif a > b:\n    print(a >> 2)\nEOF"),
        *call(2, "echo 'VERSION = 2' >> src/version.py 2>&1"),
        *call(3, "printf 'a\\n' | tee notes/a.txt docs/b.txt > /dev/null"),
        *call(4, "grep -r foo src > /dev/null; ls > $OUT"),
        *call(5, 'python -c "print(1 > 0)"'),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    episode = extract_transcript(path).episode
    assert episode.metrics["files_changed"] == 4
    assert [e.text for e in episode.events] == [
        "Edited src/x.py",
        "Edited src/version.py",
        "Edited notes/a.txt, docs/b.txt",
    ]


# ---------------------------------------------------------------- real sessions, counted from their raw JSON by a reading independent of brain's readers


def _records(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


@pytest.fixture
def example_vault(tmp_path) -> Path:
    """A copy of vault-example/, without its index."""
    shutil.copytree(REPO / "vault-example", tmp_path / "vault", ignore=shutil.ignore_patterns(".brain"))
    return tmp_path / "vault"


def _extract(vault: Path, transcript: Path) -> dict:
    result = run_brain("episode", "extract", str(transcript), "--vault", str(vault), "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    return found[0] if isinstance(found, list) else found


def _codex_counts(path: Path) -> tuple[int, int]:
    """Tool calls, and results that failed: an exit code other than 0 in the answer (a unified exec
    answer that says the command still runs is no result), or a poll that failed."""
    calls = failed = 0
    for record in _records(path):
        payload = record.get("payload") or {}
        kind = payload.get("type")
        if record.get("type") != "response_item":
            continue
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            calls += 1
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = payload.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            code = re.search(r"Process exited with code (\d+)", text)
            failed += text.startswith("write_stdin failed") or (code is not None and code.group(1) != "0")
    return calls, failed


def test_real_codex_sessions_with_unified_exec(example_vault):
    assert [_codex_counts(path) for path in CODEMIE] == [(102, 5), (38, 1)]
    first = _extract(example_vault, CODEMIE[0])
    note = (example_vault / first["path"]).read_text(encoding="utf-8")
    assert "  tool_calls: 102\n  errors: 5\n" in note and "task: show tools\n" in note
    # the command a write_stdin poll finished is the one that failed and then passed
    test_run = (
        'Ran `npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts -t "Compaction Config"`'
    )
    assert f"e007 (error): {test_run}: tests failed (1 failed, 15 skipped) (leads_to: [[e010]])" in note
    assert f"e010 (test): {test_run}: tests passed (1 passed, 15 skipped) (caused_by: [[e007]])" in note
    # an `rg` in a folder that is not there, then a search of the folder above it for the name
    assert "e003 (recovery): `rg --files node_modules | rg 'opencode'` succeeded (caused_by: [[e002]])" in note
    assert "Chunk ID" not in note  # unified exec's headers are not the error
    assert "e001 (error): write_stdin failed: stdin is closed for this session" in note

    second = _extract(example_vault, CODEMIE[1])
    note = (example_vault / second["path"]).read_text(encoding="utf-8")
    assert "  tool_calls: 38\n  errors: 1\n" in note
    # this rollout holds the person's requests only as user_message events, the first one written
    # by the IDE extension around the request
    assert "task: analyze trascript and summarzie action items related to codemie and demo preapration" in note
