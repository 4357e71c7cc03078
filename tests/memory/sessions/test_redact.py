"""Secrets never reach the vault: every provider pattern, assignments, the vault's own patterns, and
a whole vault (notes, catalog, full text, vectors) searched byte by byte after an extraction."""

from __future__ import annotations

import json

import pytest

from brain.errors import InvalidInput
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
    assert json.loads(out.output)["episode"] == "EPISODE-2026-03-14-0199a3b2"
    found = json.loads(brain("search", "rounding bug cart totals", "--json").output)
    assert found, "the episode is indexed"
    leaks = [
        str(path.relative_to(vault.root))
        for path in vault.root.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]
    assert leaks == []
    note = (vault.root / "episodes" / "EPISODE-2026-03-14-0199a3b2.md").read_text()
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
    from brain.mcp.tools.tips import save_trajectory
    from brain.memory.corpus import Corpus

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
