"""Session bootstrap with facts: the facts valid now about the subjects a task names, recorded through the facts service."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from brain.memory.corpus import Corpus
from brain.memory.facts.service import invalidate_fact, record_fact, supersede_fact
from brain.memory.sessions.protocol import bootstrap
from brain.vault import Vault

MARCH = datetime(2026, 3, 3, 11, 45, tzinfo=UTC)
APRIL = datetime(2026, 4, 1, tzinfo=UTC)


@pytest.fixture
def facts_vault(vault: Vault) -> Vault:
    corpus = Corpus(vault)
    ttl = record_fact(vault, "config", "mobile-access-token-ttl", {"seconds": 3600}, namespace="auth", now=MARCH)
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
        vault, "config", "payments-api-default-rate-limit", {"requests_per_second": 50}, namespace="api", now=MARCH
    ).fact.title
    TITLES["keys"] = record_fact(
        vault, "policy", "idempotency-key-retention", "24 hours", now=MARCH
    ).fact.title  # the default namespace
    flag = record_fact(vault, "config", "feature-flag-dark-mode", True, now=MARCH)
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
