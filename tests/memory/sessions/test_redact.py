"""Secrets never reach the vault: every provider pattern, assignments, the vault's own patterns, a
whole vault (notes, catalog, full text, vectors) searched byte by byte after an extraction, and no
text cut before it is redacted: a secret that straddles the limit of any field an episode takes from
a transcript (task, correction, command, error line, decision, plan, a tool output's head and tail)
is replaced whole, and no 8 characters of it reach the note, the catalog or the log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.errors import InvalidInput
from brain.memory.episodes.note import render_episode
from brain.memory.sessions.ingest import extract_transcript, redacted, source_frontmatter
from brain.memory.sessions.redact import Redactor, redactor_for
from tests.conftest import DATA, TRANSCRIPTS

SECRETS = {
    "anthropic-key": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "openai-key": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
    "gitlab-token": "glpat-AbCdEfGhIjKlMnOpQrSt",
    "slack-token": "xoxb-1234567890-abcdefghij",
    "stripe-key": "sk_live_AbCdEfGhIjKlMnOpQr",
    "google-key": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize(("kind", "secret"), sorted(SECRETS.items()))
def test_provider_keys(kind, secret):
    redactor = Redactor()
    assert redactor.text(f"use {secret} here") == f"use [REDACTED:{kind}] here"
    assert redactor.count == 1 and redactor.kinds == {kind: 1}


def test_private_key_block_whole_or_torn():
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"
    assert Redactor().text(f"key:\n{block}\ndone") == "key:\n[REDACTED:private-key]\ndone"
    assert Redactor().text("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1") == "[REDACTED:private-key]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password=hunter22 next", "password=[REDACTED:assignment] next"),
        ('DB_PASSWORD: "s3cr3t-value"', 'DB_PASSWORD: "[REDACTED:assignment]"'),
        ("export API_TOKEN=abcd1234efgh", "export API_TOKEN=[REDACTED:assignment]"),
        ('{"client_secret": "zzzz9999"}', '{"client_secret": "[REDACTED:assignment]"}'),
        ("curl -H 'Authorization: Bearer abcdefghijklmnop1234'", "curl -H 'Authorization: Bearer [REDACTED:bearer]'"),
        ("postgres://app:pa55word@db:5432/x", "postgres://app:[REDACTED:url-password]@db:5432/x"),
    ],
)
def test_assignments_keep_the_name_and_lose_the_value(text, expected):
    assert Redactor().text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "password=<your password>",
        "token=${GITHUB_TOKEN}",
        "max_tokens: 4096",
        "input_tokens: 1200",
        "the token count went up",
        "secret: ****",
        "commit 3f9a2c1 passed",
    ],
)
def test_placeholders_and_ordinary_words_are_kept(text):
    redactor = Redactor()
    assert redactor.text(text) == text and redactor.count == 0


def test_the_vault_adds_its_own_patterns(tmp_path):
    (tmp_path / "config.toml").write_text('[redact]\npatterns = ["ACME-[0-9]{6}"]\n')
    redactor = redactor_for(tmp_path)
    assert redactor.text("ticket ACME-123456 closed") == "ticket [REDACTED:custom] closed"
    (tmp_path / "config.toml").write_text('[redact]\npatterns = ["ACME-[0-9"]\n')
    with pytest.raises(InvalidInput, match=r"\[redact\] pattern 'ACME-\[0-9' is not a valid regular expression"):
        redactor_for(tmp_path)


def test_a_secret_in_a_transcript_reaches_no_file_of_the_vault(brain, vault, tmp_path):
    """Extract, index (catalog, FTS, Chroma vectors), learn tips and search: then no byte of any
    file under the vault holds the secret."""
    secret = SECRETS["openai-key"]
    source = TRANSCRIPTS / "codex" / "2026" / "03" / "14"
    text = next(source.glob("*.jsonl")).read_text()
    text = text.replace("and commit the fix", f"and commit the fix; OPENAI_API_KEY={secret}")
    text = text.replace("1 failed, 1 passed in 0.05s", f"1 failed, 1 passed in 0.05s token={secret}")
    transcript = tmp_path / "rollout-2026-03-14T10-00-00-x.jsonl"
    transcript.write_text(text)
    assert brain("index").exit_code == 0
    out = brain("session", "end", str(transcript), "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["episode"] == "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b"
    found = json.loads(brain("search", "rounding bug cart totals", "--json").output)
    assert found, "the episode is indexed"
    leaks = [
        str(path.relative_to(vault.root))
        for path in vault.root.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]
    assert leaks == []
    note = (vault.root / "episodes" / "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.md").read_text()
    assert "OPENAI_API_KEY=[REDACTED:" in note


def test_a_secret_in_an_ai_agents_log_is_redacted_by_episode_extract(brain, vault, tmp_path):
    """ai-agents session logs reach the vault only through the redacting ingest (the old writer in
    `sessions.extract` that stored them unredacted is gone)."""
    import brain.memory.sessions.extract as extract_module

    assert not hasattr(extract_module, "extract_into_vault")
    secret = SECRETS["github-token"]
    logs = DATA / "ai-agents" / "sessions" / "logs"
    data = json.loads((logs / "2026-07-21-session-3275-repoint-smoke-auth-failfast.json").read_text())
    data["session"]["objective"] += f" (GITHUB_TOKEN={secret})"
    log = tmp_path / "2026-07-21-session-3275-repoint-smoke-auth-failfast.json"
    log.write_text(json.dumps(data))
    out = brain("episode", "extract", str(log))
    assert out.exit_code == 0, out.output
    note = (vault.root / "episodes" / "EPISODE-2026-07-21-session-3275-repoint-smoke-auth-failfast.md").read_text()
    assert secret not in note and "GITHUB_TOKEN=[REDACTED:" in note


def test_a_secret_in_the_steps_of_save_trajectory_is_redacted(vault):
    """The MCP tool writes an episode from an agent's steps: a transcript in small, redacted the same way."""
    from brain.mcp.common import ServerState
    from brain.memory.corpus import Corpus
    from brain.memory.tips.tools import save_trajectory

    secret = SECRETS["openai-key"]
    steps = [
        {"thought": "Call the API", "action": f"curl -H 'Authorization: Bearer {secret}' /v1/models", "result": "401"},
        {"thought": "Use the project key", "action": "Export OPENAI_API_KEY and retry", "result": "200 ok"},
    ]
    state = ServerState(vault=vault, corpus=Corpus(vault))
    done = save_trajectory(state, None, steps=steps, task="List the models", session="2026-04-02-models")  # type: ignore[arg-type]
    assert done.structured_content["episode"] == "EPISODE-2026-04-02-models"
    leaks = [
        str(p.relative_to(vault.root))
        for p in vault.root.rglob("*")
        if p.is_file() and secret.encode() in p.read_bytes()
    ]
    assert leaks == []
    assert "[REDACTED:" in (vault.root / "episodes" / "EPISODE-2026-04-02-models.md").read_text()


# ---------------------------------------------------------------- no text is cut before it is redacted


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
    item = redacted(extract_transcript(path), Redactor())
    note = render_episode(item.episode, source_frontmatter(item))
    assert _leaks(secret, note) == []
    assert item.redacted == note.count("[REDACTED:")
    # every field the secret was put in is in the note, so the test looks where it should
    assert [e.type for e in item.episode.events][:6] == ["error", "recovery", "error", "recovery", "commit", "error"]
    assert len(item.episode.decisions) == 3 and item.episode.task.startswith("Deploy it yyy")


def test_cli_no_piece_of_a_cut_secret_reaches_the_note_the_catalog_or_the_log(brain, vault, tmp_path):
    path = _transcript(tmp_path / "s.jsonl", TOKEN, 20)
    out = brain("episode", "extract", str(path))
    note = (vault.root / "episodes" / "EPISODE-2026-03-16-c0ffee00-1111-4222-8333-444455556666.md").read_text()
    count = note.count("[REDACTED:")
    assert out.stdout.endswith(f"{count} values redacted)\n") and count >= 10
    assert brain("index", "--no-embed").exit_code == 0
    jwt_path = _transcript(tmp_path / "jwt.jsonl", JWT, 50)
    hook = brain("hooks", "run", "extract", "--transcript", str(jwt_path), "--session", "c0ffee00")
    assert hook.exit_code == 0
    assert re.search(
        r" extract c0ffee00: episodes/EPISODE-2026-03-16-c0ffee00-1111-4222-8333-444455556666.md \[partial\]",
        (vault.root / ".brain" / "logs" / "hooks.log").read_text(),
    )
    found = {
        str(p.relative_to(vault.root)): _leaks(TOKEN, p.read_bytes().decode("latin-1"))
        + _leaks(JWT, p.read_bytes().decode("latin-1"))
        for p in vault.root.rglob("*")
        if p.is_file()
    }
    assert {name: pieces for name, pieces in found.items() if pieces} == {}


COMMAND_LINE_SECRETS = {  # kind -> (a line holding one, the secret): the kinds issue 33 names
    "url-password": ("the cache is redis://:Pa55Redis9@cache:6379", "Pa55Redis9"),
    "mysql-password": ("run mysql -u root -pMyS3cretQ7 shop", "MyS3cretQ7"),
    "curl-user": ("check with curl -u deploy:Cu7lP4ss https://api.example.com", "Cu7lP4ss"),
    "option-secret": ("az storage blob list --account-key Eby8vdM02xNOcqFl", "Eby8vdM02xNOcqFl"),
    "aws-secret": ("aws configure set aws_secret_access_key wJalrXUtnFEMIK7MD", "wJalrXUtnFEMIK7MD"),
    "authorization": ("send Authorization: Basic ZGVwbG95OnMzY3IzdA==", "ZGVwbG95OnMzY3IzdA=="),
    "sendgrid-key": ("key SG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc", "TwL2iGABf9DHoTf"),
    "npm-token": ("token npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "AbCdEfGhIjKlMnOpQr"),
    "private-key": (
        "key -----BEGIN PGP PRIVATE KEY BLOCK-----\\nlQOYBGR0PgpKeyMaterialZq9\\n-----END PGP PRIVATE KEY BLOCK-----",
        "PgpKeyMaterialZq9",
    ),
}


@pytest.mark.parametrize("kind", sorted(COMMAND_LINE_SECRETS))
def test_a_command_line_secret_in_a_transcript_reaches_no_file_of_the_vault(brain, vault, tmp_path, kind):
    """A task that holds a credential of a kind issue 33 names: the episode keeps the task with the
    credential replaced, and no byte of it is in any file of the vault (note, catalog, full text, log)."""
    line, secret = COMMAND_LINE_SECRETS[kind]
    source = TRANSCRIPTS / "codex" / "2026" / "03" / "14"
    text = next(source.glob("*.jsonl")).read_text().replace("and commit the fix", f"and commit the fix; {line}")
    transcript = tmp_path / "rollout-2026-03-14T10-00-00-x.jsonl"
    transcript.write_text(text)
    assert brain("index", "--no-embed").exit_code == 0
    out = brain("session", "end", str(transcript), "--json")
    assert out.exit_code == 0, out.output
    leaks = [
        str(path.relative_to(vault.root))
        for path in vault.root.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]
    assert leaks == []
    note = (vault.root / "episodes" / "EPISODE-2026-03-14-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.md").read_text()
    assert f"[REDACTED:{kind}]" in note
