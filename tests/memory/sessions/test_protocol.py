"""The session protocol: bootstrap (failures, antipatterns, patterns, tips, and the facts valid now
about the subjects a task names), session end, the model path (endpoint and MCP sampling) and the
learning MCP tools."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, stdio_client
from mcp.types import CreateMessageResult, TextContent
from typer.testing import CliRunner

from brain.cli import app
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import get_episode
from brain.memory.facts.service import invalidate_fact, record_fact, supersede_fact
from brain.memory.sessions.protocol import bootstrap
from brain.memory.tips import service as tip_service
from brain.memory.tips.language_model import endpoint_drafter
from brain.vault.vault import Vault
from tests.conftest import DATA, REPO
from tests.helpers.mcp_harness import McpClient, server_command, text_of

EXAMPLE = REPO / "vault-example"
LOGS = DATA / "ai-agents" / "sessions" / "logs"
STAMPEDE = "EPISODE-2026-03-25-session-14"
SCRIPTED = [
    {
        "ids": ["d001", "e004", "e005"],
        "subtask": "Mitigate a cache stampede",
        "trigger": "Database load arrives in waves after a cache flush",
        "tip": "Randomise TTLs instead of setting one TTL on every key",
        "steps": ["Confirm the wave period", "Randomise remaining TTLs"],
        "avoid": "One shared TTL for all keys",
    }
]


@pytest.fixture
def example(tmp_path) -> Vault:
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".brain"))
    (root / ".brain" / "index").mkdir(parents=True)
    return Vault(root)


def cli(vault: Vault, *args: str):
    return CliRunner().invoke(app, [*args, "--vault", str(vault.root)], catch_exceptions=False)


# ---------------------------------------------------------------- bootstrap


def test_bootstrap_packs_failures_antipatterns_patterns_and_tips(example, embedder):
    corpus = Corpus(example)
    now = datetime(2026, 3, 28, tzinfo=UTC)
    task = "Many cache keys expire at the same time and the database load spikes after a cache flush"
    context = bootstrap(corpus, task, now=now, embedder=embedder)
    assert context.sections["Recent failures"][0].startswith(
        f"- {STAMPEDE} (2026-03-25): Respond to balance API latency"
    )
    assert any("ANTIPATTERN-synchronized-cache-expiry" in line for line in context.sections["Antipattern warnings"])
    assert any(
        "PATTERN-jittered-ttl-and-request-coalescing" in line for line in context.sections["Patterns for this task"]
    )
    assert any("TIP-recover-from-cache-stampede" in line for line in context.sections["Tips"])
    assert context.text.startswith(f"# Context for: {task}\n\n## Recent failures\n")
    assert context.tokens <= context.budget
    small = bootstrap(corpus, task, budget=100, now=now, embedder=embedder)
    assert small.tokens <= 100 and small.omitted > 0
    later = bootstrap(corpus, task, now=datetime(2026, 4, 30, tzinfo=UTC), embedder=embedder)
    assert "Recent failures" not in later.sections  # older than 7 days


def test_cli_bootstrap_and_bad_budget(example):
    out = cli(example, "context", "bootstrap", "Flaky integration tests in CI", "--days", "100000", "--json")
    data = json.loads(out.output)
    assert data["tokens"] <= 1500 and "Tips" in data["sections"]
    bad = cli(example, "context", "bootstrap", "x", "--budget", "5")
    assert bad.exit_code == 2 and bad.stderr == "error: --budget: 5 is out of range; give 100 to 100000\n"


# ---------------------------------------------------------------- session end


def test_session_end_extracts_records_evidence_and_learns(example, tmp_path):
    log = json.loads(
        (LOGS / "2026-06-27-session-2599-fix-issue-2759-neutralize-ambient.json").read_text(encoding="utf-8")
    )
    log["workLog"].append({"step": "Follow-up", "detail": "Applied PATTERN-hermetic-test-fixtures to the hook tests."})
    path = tmp_path / "2026-06-27-session-2599.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    before = parse_note(
        (example.root / "patterns" / "PATTERN-hermetic-test-fixtures.md").read_text(encoding="utf-8")
    ).frontmatter
    out = cli(example, "session", "end", str(path), "--pattern", "PATTERN-lock-timeout-on-migrations")
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert lines[0] == "episode episodes/EPISODE-2026-06-27-session-2599.md [success]  (0 values redacted)"
    assert set(lines[1:3]) == {
        "evidence recorded on PATTERN-lock-timeout-on-migrations",
        "evidence recorded on PATTERN-hermetic-test-fixtures",
    }
    assert lines[-1] == "no new antipatterns"
    after = parse_note(
        (example.root / "patterns" / "PATTERN-hermetic-test-fixtures.md").read_text(encoding="utf-8")
    ).frontmatter
    assert after["occurrences"] == before["occurrences"] + 1
    assert "[[EPISODE-2026-06-27-session-2599]] - success" in (
        example.root / "patterns" / "PATTERN-hermetic-test-fixtures.md"
    ).read_text(encoding="utf-8")
    assert any(
        t.source_episodes[0].episode == "EPISODE-2026-06-27-session-2599"
        for t in tip_service.list_tips(Corpus(example))
    )


def test_session_end_reports_a_new_antipattern(example, tmp_path):
    log = json.loads((LOGS / "2026-06-04-session-2334.json").read_text(encoding="utf-8"))
    log["protocolCompliance"]["sessionEnd"]["validationPassed"]["complete"] = False
    path = tmp_path / "2026-06-04-session-2334.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    cli(example, "pattern", "add", "PATTERN-rush-the-merge", "--outcome", "failure", "--trigger", "t", "--action", "a")
    out = cli(example, "session", "end", str(path), "--pattern", "PATTERN-rush-the-merge", "--json")
    data = json.loads(out.output)
    # one failure and now a partial session: success rate 0.25 over 2, an antipattern from now on
    assert data["outcome"] == "partial" and data["patterns_updated"] == ["PATTERN-rush-the-merge"]
    assert data["new_antipatterns"] == ["PATTERN-rush-the-merge"]


def test_session_end_bad_input_writes_nothing(example, tmp_path):
    before = sorted(p.name for p in (example.root / "episodes").iterdir())
    out = cli(example, "session", "end", str(tmp_path / "missing.json"))
    assert out.exit_code == 2 and out.stderr.startswith("error: session log '") and out.stderr.count("\n") == 1
    out = cli(example, "session", "end", str(LOGS / "2026-06-04-session-2334.json"), "--pattern", "PATTERN-nope")
    assert out.exit_code == 1 and out.stderr.startswith("error: no note named 'PATTERN-nope'")
    assert sorted(p.name for p in (example.root / "episodes").iterdir()) == before


# ---------------------------------------------------------------- the model path: an endpoint


@contextmanager
def chat_endpoint(replies: list[str]) -> Iterator[tuple[str, list[dict]]]:
    """A real OpenAI-compatible chat endpoint on loopback that answers with scripted replies."""
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = json.dumps({"choices": [{"message": {"role": "assistant", "content": replies.pop(0)}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1/chat/completions", received
    finally:
        server.shutdown()


def test_model_endpoint_segments_and_words_and_falls_back(example):
    with chat_endpoint([json.dumps(SCRIPTED), "I think you should be careful."]) as (url, received):
        config = example.brain_dir / "config.toml"
        config.write_text(f'[learning]\nmodel_url = "{url}"\nmodel = "scripted"\n', encoding="utf-8")
        out = cli(example, "tip", "learn", STAMPEDE, "--model", "--json")
        data = json.loads(out.output)[0]
        assert [t["subtask"] for t in data["tips"]] == ["Mitigate a cache stampede"]
        assert data["tips"][0]["category"] == "recovery"  # the rules classify the model's segment
        assert "Steps:\nd001 decision [failure]" in received[0]["messages"][1]["content"]
        out = cli(example, "tip", "learn", "EPISODE-2026-03-27-session-15", "--model")
        assert "warning: model not used for EPISODE-2026-03-27-session-15 (the reply is not JSON" in out.stderr
        assert out.stdout.startswith(  # learned by rules instead
            "EPISODE-2026-03-27-session-15: 1 new, 0 supported again, 3 held for a second session"
        )
    missing = Vault(example.root)
    (missing.brain_dir / "config.toml").write_text("", encoding="utf-8")
    with pytest.raises(Exception, match=r"--model needs \[learning\] model_url and model"):
        endpoint_drafter(missing)


# ---------------------------------------------------------------- MCP: tools and sampling


@asynccontextmanager
async def sampling_session(root: Path, replies: list[str]) -> AsyncIterator[ClientSession]:
    async def sample(context, params) -> CreateMessageResult:
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=replies.pop(0)), model="scripted"
        )

    with open(os.devnull, "w") as errlog:
        async with stdio_client(server_command(root), errlog=errlog) as (read, write):
            async with ClientSession(read, write, sampling_callback=sample) as session:
                await session.initialize()
                yield session


def test_mcp_learning_tools_with_a_scripted_client_model(example):
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(sampling_session(example.root, [json.dumps(SCRIPTED)])) as session:
            client = McpClient(portal, session, example.root)
            learned = client.ok("save_trajectory", {"episode": STAMPEDE, "use_model": True}).structured_content
            assert [t["subtask"] for t in learned["tips"]] == ["Mitigate a cache stampede"]
            steps = [
                {
                    "thought": "Find the failing job",
                    "action": "List CI runs for the branch",
                    "result": "3 runs, last failed",
                },
                {
                    "thought": "Read the log",
                    "action": "Open the failed job log",
                    "result": "error: timeout after 600 s",
                },
                {
                    "thought": "Raise the timeout",
                    "action": "Set the job timeout to 20 minutes and re-run",
                    "result": "passed",
                },
            ]
            raw = client.ok(
                "save_trajectory", {"steps": steps, "task": "Fix a CI job that times out", "session": "2026-04-02-ci"}
            ).structured_content
            assert raw["episode"] == "EPISODE-2026-04-02-ci" and raw["created"]
            assert get_episode(Corpus(example), "EPISODE-2026-04-02-ci").outcome == "success"
            guide = client.ok("get_guidelines", {"task": "Database load comes in waves after a cache flush"})
            assert "TIP-recover-from-cache-stampede" in text_of(guide)
            boot = client.ok(
                "bootstrap_context", {"task": "Database load comes in waves after a cache flush", "days": 100000}
            )
            assert text_of(boot).startswith("# Context for: Database load comes in waves")
            facts = client.ok(
                "bootstrap_context", {"task": "Shorten the mobile access token TTL", "namespaces": ["ledger-auth"]}
            )
            assert (
                "## Facts valid now\n- mobile-access-token-ttl (config, ledger-auth, since 2026-03-17): "
                '{"clients":["ledger-ios","ledger-android"],"seconds":900} [[FACT-mobile-access-token-ttl-v2]]\n'
            ) in text_of(facts)
            client.bad(
                "save_trajectory", {"steps": [{"thought": "no action"}], "task": "t"}, "step 1 needs an 'action'"
            )
            client.bad("save_trajectory", {}, "give either an episode or the steps of a trajectory")
            client.bad("get_guidelines", {"task": "  "}, "give the task to find guidelines for")
            client.bad("save_trajectory", {"episode": "EPISODE-nope"}, "no note named 'EPISODE-nope'")


# ---------------------------------------------------------------- facts in the bootstrap


MARCH = datetime(2026, 3, 3, 11, 45, tzinfo=UTC)
APRIL = datetime(2026, 4, 1, tzinfo=UTC)


@pytest.fixture
def facts_vault(vault: Vault) -> Vault:
    corpus = Corpus(vault)
    ttl = record_fact(
        Corpus(vault), "config", "mobile-access-token-ttl", {"seconds": 3600}, namespace="auth", now=MARCH
    )
    TITLES["ttl-v1"] = ttl.fact.title
    shorter = supersede_fact(
        corpus,
        ttl.path,
        {"seconds": 900},
        reason="shorter exposure",
        now=datetime(2026, 3, 17, tzinfo=UTC),
    )
    TITLES["ttl-v2"] = shorter.fact.title
    TITLES["rate"] = record_fact(
        Corpus(vault),
        "config",
        "payments-api-default-rate-limit",
        {"requests_per_second": 50},
        namespace="api",
        now=MARCH,
    ).fact.title
    TITLES["keys"] = record_fact(
        Corpus(vault), "policy", "idempotency-key-retention", "24 hours", now=MARCH
    ).fact.title  # the default namespace
    flag = record_fact(Corpus(vault), "config", "feature-flag-dark-mode", True, now=MARCH)
    invalidate_fact(corpus, flag.path, reason="flag removed", now=datetime(2026, 3, 20, tzinfo=UTC))
    return vault


TITLES: dict[str, str] = {}


def test_the_facts_a_task_names_valid_now_in_the_given_namespaces(facts_vault, embedder):
    corpus = Corpus(facts_vault)
    task = "Shorten the mobile access token TTL and respect the payments API rate limit"
    context = bootstrap(corpus, task, namespaces=["auth", "api"], now=APRIL, embedder=embedder)
    assert context.text == (
        f"# Context for: {task}\n"
        "\n## Facts valid now\n"
        '- mobile-access-token-ttl (config, auth, since 2026-03-17): {"seconds":900} [[' + TITLES["ttl-v2"] + "]]\n"
        '- payments-api-default-rate-limit (config, api, since 2026-03-03): {"requests_per_second":50} [['
        + TITLES["rate"]
        + "]]\n"
    )
    # as of the first week of March, the first value was the one valid
    early = bootstrap(
        corpus,
        "mobile access token ttl",
        namespaces=["auth"],
        now=datetime(2026, 3, 10, tzinfo=UTC),
        embedder=embedder,
    )
    assert early.sections["Facts valid now"] == [
        '- mobile-access-token-ttl (config, auth, since 2026-03-03): {"seconds":3600} [[' + TITLES["ttl-v1"] + "]]"
    ]


def test_default_namespace_plurals_closed_facts_and_tasks_that_name_nothing(facts_vault, embedder):
    corpus = Corpus(facts_vault)
    found = bootstrap(corpus, "How long do we keep idempotency keys? Check the retention", now=APRIL, embedder=embedder)
    assert found.sections["Facts valid now"] == [
        "- idempotency-key-retention (policy, default, since 2026-03-03): 24 hours [[" + TITLES["keys"] + "]]"
    ]
    # the token TTL lives in another namespace: not read unless named
    assert "Facts valid now" not in bootstrap(corpus, "mobile access token ttl", now=APRIL, embedder=embedder).sections
    # an invalidated fact is not valid now
    assert (
        "Facts valid now"
        not in bootstrap(corpus, "remove the dark mode feature flag", now=APRIL, embedder=embedder).sections
    )
    # only part of a subject's words is not naming it
    assert "Facts valid now" not in bootstrap(corpus, "retention of logs", now=APRIL, embedder=embedder).sections


def test_a_subject_is_named_by_its_words_or_their_abbreviations_not_by_one_shared_word(vault, embedder):
    pool = record_fact(Corpus(vault), "config", "db-pool-size", 20, now=MARCH).fact.title
    env = record_fact(Corpus(vault), "config", "staging-environment-url", "https://staging.example", now=MARCH)
    corpus = Corpus(vault)
    pool_line = f"- db-pool-size (config, default, since 2026-03-03): 20 [[{pool}]]"
    env_line = (
        f"- staging-environment-url (config, default, since 2026-03-03): https://staging.example [[{env.fact.title}]]"
    )

    def facts(task: str) -> list[str]:
        return bootstrap(corpus, task, now=APRIL, embedder=embedder).sections.get("Facts valid now", [])

    assert facts("tune the database pool size") == [pool_line]
    assert facts("tune the db pool size") == [pool_line]
    assert facts("the pool size is too small under load") == [pool_line]  # two of its three words
    assert facts("point the tests at the staging env URL") == [env_line]
    # one shared word names nothing: a wrong fact costs more than a missing one
    assert facts("fix the font size on the login page") == []
    assert facts("add a database migration for invoices") == []
    assert facts("deploy to staging") == []


def test_facts_count_against_the_budget_and_each_recall_is_journaled(facts_vault, embedder):
    corpus = Corpus(facts_vault)
    small = bootstrap(
        corpus,
        "mobile access token ttl",
        namespaces=["auth"],
        budget=100,
        now=APRIL,
        embedder=embedder,
        caller="test:bootstrap",
    )
    assert small.tokens <= 100
    journal = (facts_vault.brain_dir / "journal" / "recall.jsonl").read_text(encoding="utf-8").splitlines()
    last = json.loads(journal[-1])
    assert last["caller"] == "test:bootstrap"
    assert last["filters"]["subject"] == "mobile-access-token-ttl" and last["filters"]["namespaces"] == ["auth"]
    assert [result["id"] for result in last["results"]] == [TITLES["ttl-v2"]]


def test_cli_bootstrap_shows_facts(facts_vault, brain):
    out = brain("context", "bootstrap", "raise the payments api rate limit", "--namespace", "api")
    assert out.exit_code == 0
    assert out.output == (
        "# Context for: raise the payments api rate limit\n"
        "\n## Facts valid now\n"
        '- payments-api-default-rate-limit (config, api, since 2026-03-03): {"requests_per_second":50} [['
        + TITLES["rate"]
        + "]]\n"
    )
    data = json.loads(
        brain("context", "bootstrap", "raise the payments api rate limit", "--namespace", "api", "--json").output
    )
    assert list(data["sections"]) == ["Facts valid now"]
    other = brain("context", "bootstrap", "raise the payments api rate limit", "--namespace", "auth")
    assert other.output == "# Context for: raise the payments api rate limit\n"  # facts never cross namespaces
