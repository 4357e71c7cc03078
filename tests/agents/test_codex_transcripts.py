"""Real sessions recorded by other people (tests/data/transcripts/README.md says where each comes
from): what brain reads of them is checked against counts taken from the raw JSON here, by a
reading independent of brain's readers."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_brain

PUBLIC = REPO / "tests/data/transcripts/public"
SPOTTER = PUBLIC / "spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
CODEMIE = sorted((PUBLIC / "codemie").glob("rollout-*.jsonl"))


def _records(path: Path):
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def _claude_blocks(paths: list[Path]):
    for path in paths:
        for record in _records(path):
            content = (record.get("message") or {}).get("content")
            if isinstance(content, list):
                yield from (block for block in content if isinstance(block, dict))


@pytest.fixture
def vault(tmp_path):
    shutil.copytree(REPO / "vault-example", tmp_path / "vault", ignore=shutil.ignore_patterns(".brain"))
    return tmp_path / "vault"


def _extract(vault: Path, transcript: Path) -> dict:
    result = run_brain("episode", "extract", str(transcript), "--vault", str(vault), "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    return found[0] if isinstance(found, list) else found


def test_a_real_claude_code_session_with_subagents(vault):
    files = [SPOTTER, *sorted((SPOTTER.parent / SPOTTER.stem / "subagents").glob("agent-*.jsonl"))]
    blocks = list(_claude_blocks(files))
    calls = sum(1 for b in blocks if b.get("type") == "tool_use")
    errors = sum(1 for b in blocks if b.get("type") == "tool_result" and b.get("is_error"))
    assert (len(files), calls, errors) == (3, 254, 12)

    report = _extract(vault, SPOTTER)
    note = (vault / report["path"]).read_text(encoding="utf-8")
    assert report["subagent_files"] == 2 and report["lines"] == 2427 and report["skipped_lines"] == 0
    assert f"  tool_calls: {calls}\n  errors: {errors}\n" in note
    assert "  commits: 6\n" in note and "duration_minutes: 53.1\n" in note and "outcome: success\n" in note
    assert "task: Work on bead spotter-4te. Run bd show spotter-4te to see the issue details" in note
    # an error and what recovered it are linked both ways
    assert re.search(r"e004 \(error\): Edit lib/spotter/telemetry/otel.ex failed: .*\(leads_to: \[\[e005\]\]\)", note)
    assert "e005 (edit): Edited lib/spotter/telemetry/otel.ex (caused_by: [[e004]])" in note
    shas = re.findall(r"\(commit\): Commit ([0-9a-f]{7}):", note)
    assert len(shas) == 6 and shas[0] == "12e2d10"


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


def test_real_codex_sessions_with_unified_exec(vault):
    assert [_codex_counts(path) for path in CODEMIE] == [(102, 5), (38, 1)]
    first = _extract(vault, CODEMIE[0])
    note = (vault / first["path"]).read_text(encoding="utf-8")
    assert "  tool_calls: 102\n  errors: 5\n" in note and "task: show tools\n" in note
    # the command a write_stdin poll finished is the one that failed and then passed
    test_run = (
        'Ran `npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts -t "Compaction Config"`'
    )
    assert f"e006 (error): {test_run}: tests failed (1 failed, 15 skipped) (leads_to: [[e009]])" in note
    assert f"e009 (test): {test_run}: tests passed (1 passed, 15 skipped) (caused_by: [[e006]])" in note
    assert "Chunk ID" not in note  # unified exec's headers are not the error
    assert "e001 (error): write_stdin failed: stdin is closed for this session" in note

    second = _extract(vault, CODEMIE[1])
    note = (vault / second["path"]).read_text(encoding="utf-8")
    assert "  tool_calls: 38\n  errors: 1\n" in note
    # this rollout holds the person's requests only as user_message events, the first one written
    # by the IDE extension around the request
    assert "task: analyze trascript and summarzie action items related to codemie and demo preapration" in note
