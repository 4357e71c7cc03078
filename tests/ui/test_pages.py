"""Each page's JSON twin, read as a script reads it (Starlette's TestClient on the real app), with the
values the vault holds: vault-example, and a vault filled from real transcripts by the real hooks."""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.ui.conftest import SIGNATURE, viewer_client


def get(root: Path, url: str) -> dict:
    with viewer_client(root) as client:
        answer = client.get(url)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    return answer.json()


def test_at_a_glance_counts_what_the_example_holds(example_vault: Path) -> None:
    found = get(example_vault, "/.json")
    assert found["notes"] == {"context": 6, "episode": 15, "fact": 4, "note": 6, "pattern": 19, "run": 2, "tip": 3}
    assert found["index"] == {"state": "fresh", "followed": True}
    assert [(w["week"], w["success"], w["partial"], w["failure"]) for w in found["weeks"]] == [
        ("2026-W10", 2, 1, 1),
        ("2026-W11", 1, 1, 2),
        ("2026-W12", 3, 1, 0),
        ("2026-W13", 1, 1, 1),
    ]
    assert found["projects"] == [] and found["agents"] == {"none": 15}
    assert found["handed"]["sessions"] == 0


def test_the_timeline_filters_by_outcome_and_pages(example_vault: Path) -> None:
    found = get(example_vault, "/episodes.json?outcome=failure")
    assert [row["title"] for row in found["episodes"]] == [
        "EPISODE-2026-03-25-session-14",
        "EPISODE-2026-03-12-session-08",
        "EPISODE-2026-03-10-session-06",
        "EPISODE-2026-03-05-session-04",
    ]
    assert found["choices"]["outcome"] == [
        {"value": "success", "episodes": 7},
        {"value": "partial", "episodes": 4},
        {"value": "failure", "episodes": 4},
    ]
    assert found["page"] == {"number": 1, "pages": 1, "size": 50, "total": 4}


def test_an_episode_shows_its_failure_fixed_and_the_pattern_it_gave_evidence_to(example_vault: Path) -> None:
    found = get(example_vault, "/episodes/EPISODE-2026-03-02-session-01.json")
    episode = found["episode"]
    assert episode["task"] == "Add Idempotency-Key support to POST /v1/payments and POST /v1/transfers"
    assert [d["id"] for d in episode["decisions"]] == ["d001", "d002", "d003"]
    errors = [(e["id"], e["leads_to"]) for e in episode["events"] if e["type"] == "error"]
    assert errors == [("e003", ["e004"])]
    assert [(p["title"], p["outcome"]) for p in found["patterns"]] == [
        ("PATTERN-idempotency-keys-on-writes", "success")
    ]
    assert found["source"] == {"session": "2026-03-02-session-01"}


def test_the_path_between_two_patterns_and_its_hops(example_vault: Path) -> None:
    found = get(
        example_vault, "/path.json?from=PATTERN-idempotency-keys-on-writes&to=PATTERN-canary-with-auto-rollback"
    )
    assert found["path"]["titles"] == [
        "PATTERN-idempotency-keys-on-writes",
        "PATTERN-safe-client-retries",
        "PATTERN-token-bucket-rate-limiting",
        "PATTERN-slo-burn-rate-alerting",
        "PATTERN-canary-with-auto-rollback",
    ]
    assert [hop["type"] for hop in found["path"]["hops"]] == ["enables", "enables", "correlates", "enables"]
    assert found["said"][-1] == "4 hops, reliability 0.03"
    assert [(e["type"], e["weight"]) for e in found["edges"]] == [
        ("enables", 0.9),
        ("enables", 0.7),
        ("correlates", 0.5),
        ("enables", 0.8),
    ]
    none = get(example_vault, "/path.json?from=PATTERN-canary-with-auto-rollback&to=PATTERN-idempotency-keys-on-writes")
    assert none["path"] is None
    assert none["said"] == [
        "no causal path from 'PATTERN-canary-with-auto-rollback' to 'PATTERN-idempotency-keys-on-writes' within 5 hops (there is one the other way round)"
    ]


def test_the_graph_around_a_pattern_holds_its_typed_links(example_vault: Path) -> None:
    found = get(example_vault, "/graph.json?focus=PATTERN-safe-client-retries&depth=1")
    assert found["focus"] == "patterns/PATTERN-safe-client-retries.md"
    assert [node["title"] for node in found["nodes"]] == [
        "PATTERN-safe-client-retries",
        "PATTERN-idempotency-keys-on-writes",
        "PATTERN-refresh-token-rotation",
        "PATTERN-token-bucket-rate-limiting",
    ]
    assert sorted((e["source"].split("/")[1], e["target"].split("/")[1], e["type"]) for e in found["edges"]) == [
        ("PATTERN-idempotency-keys-on-writes.md", "PATTERN-safe-client-retries.md", "enables"),
        ("PATTERN-refresh-token-rotation.md", "PATTERN-safe-client-retries.md", "correlates"),
        ("PATTERN-safe-client-retries.md", "PATTERN-refresh-token-rotation.md", "enables"),
        ("PATTERN-safe-client-retries.md", "PATTERN-token-bucket-rate-limiting.md", "enables"),
    ]
    whole = get(example_vault, "/graph.json")
    assert (whole["focus"], len(whole["nodes"]), len(whole["edges"]), whole["left_out"]) == (None, 29, 35, 0)


def test_why_goes_back_to_the_root_cause_with_the_evidence(example_vault: Path) -> None:
    found = get(example_vault, "/why/Decision shorten mobile access token lifetime.json")
    assert [step["title"] for step in found["chain"]["steps"]] == [
        "Mobile login requirements conversation",
        "Research OAuth2 flows for native clients",
        "Decision adopt authorization code with PKCE",
        "EPISODE-2026-03-03-session-02",
        "EPISODE-2026-03-17-session-10",
        "Decision shorten mobile access token lifetime",
    ]
    assert [fact["title"] for fact in found["facts"]] == [
        "FACT-mobile-access-token-ttl-v1",
        "FACT-mobile-access-token-ttl-v2",
    ]


def test_facts_now_as_of_a_date_and_a_subjects_history(example_vault: Path) -> None:
    now = get(example_vault, "/facts.json?namespace=ledger-auth")
    assert [(f["id"], f["value"]) for f in now["facts"]] == [
        ("FACT-mobile-access-token-ttl-v2", {"clients": ["ledger-ios", "ledger-android"], "seconds": 900})
    ]
    assert now["namespaces"] == ["ledger-api", "ledger-auth"]
    then = get(example_vault, "/facts.json?namespace=ledger-auth&as_of=2026-03-10")
    assert [(f["id"], f["value"]["seconds"]) for f in then["facts"]] == [("FACT-mobile-access-token-ttl-v1", 3600)]
    history = get(example_vault, "/facts/history.json?subject=mobile-access-token-ttl&namespace=ledger-auth")
    assert [(f["id"], f["closed"], f["superseded_by"]) for f in history["history"]] == [
        ("FACT-mobile-access-token-ttl-v1", True, "FACT-mobile-access-token-ttl-v2"),
        ("FACT-mobile-access-token-ttl-v2", False, None),
    ]


def test_looking_at_facts_journals_no_recall(example_vault: Path) -> None:
    journal = example_vault / ".brain" / "journal"
    before = sorted(path.relative_to(example_vault) for path in journal.rglob("*")) if journal.exists() else []
    get(example_vault, "/facts.json?namespace=ledger-auth")
    after = sorted(path.relative_to(example_vault) for path in journal.rglob("*")) if journal.exists() else []
    assert after == before


def test_a_run_and_its_why(example_vault: Path) -> None:
    found = get(example_vault, "/runs/RUN-app-42-monday.json")
    assert found["run"]["identity"] == {"tenant": "lending", "principal": "loan-officer", "conversationId": "app-42"}
    assert [d["stageId"] for d in found["why"]["decisions"]] == ["classify-risk", "pick-reason"]
    assert found["why"]["answer"] == "Application #42: REJECTED. Credit (580) below floor (600). Suggest manual review."
    runs = get(example_vault, "/runs.json")
    assert sorted((r["id"], r["tenant"]) for r in runs["runs"]) == [
        ("RUN-2026-03-26-duplicate-credit-explanation", "ledger"),
        ("RUN-app-42-monday", "lending"),
    ]


def test_tips_with_their_evidence_and_feedback(example_vault: Path) -> None:
    found = get(example_vault, "/tips.json")
    assert [(t["title"], t["category"], t["helped"], t["hurt"]) for t in found["tips"]] == [
        ("TIP-key-writes-before-enabling-retries", "strategy", 0, 0),
        ("TIP-recover-from-cache-stampede", "recovery", 0, 0),
        ("TIP-reproduce-flaky-tests-with-ci-seed", "optimization", 0, 0),
    ]
    first = found["tips"][0]
    assert (first["support"], first["evidence"]) == (3, "success")
    assert first["source_episodes"] == [
        "[[EPISODE-2026-03-02-session-01]]",
        "[[EPISODE-2026-03-11-session-07]]",
        "[[EPISODE-2026-03-23-session-13]]",
    ]


def test_search_finds_a_note_as_the_cli_does(example_vault: Path) -> None:
    found = get(example_vault, "/search.json?q=idempotency+key+retention&mode=text")
    assert found["hits"][0]["title"] == "FACT-idempotency-key-retention"


def test_a_note_with_its_links_resolved(example_vault: Path) -> None:
    found = get(example_vault, "/notes/episodes/EPISODE-2026-03-02-session-01.md.json")
    assert found["note"]["title"] == "EPISODE-2026-03-02-session-01"
    assert found["links"]["ADR-001 Idempotency Keys for Payment Writes"] == (
        "decisions/ADR-001 Idempotency Keys for Payment Writes.md"
    )
    assert found["obsidian"] is None


def test_an_obsidian_vault_gets_an_obsidian_link(tmp_path: Path) -> None:
    root = tmp_path / "My Notes"
    (root / ".obsidian").mkdir(parents=True)
    (root / "Plan.md").write_text("# Plan\n\nSee [[Missing]].\n")
    found = get(root, "/notes/Plan.md.json")
    assert found["obsidian"] == "obsidian://open?vault=My%20Notes&file=Plan"
    assert found["links"] == {"Missing": None}


def test_a_failure_seen_before_its_fix_and_what_happened_after_it_was_handed(lived_vault: Path) -> None:
    found = get(lived_vault, "/failures.json?seen=2")
    first = found["failures"][0]
    assert (first["signature"], first["episodes"], first["recovered"], first["handed"]) == (SIGNATURE, 2, 1, 1)
    assert [seen["title"] for seen in first["seen"]] == [
        "EPISODE-2026-02-21-0ea9b4b6-40e9-407b-8bb5-a31903367d21",
        "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0",
    ]
    assert [seen["fix"] for seen in first["seen"]] == [
        "",
        "`git checkout main && git pull` succeeded; it worked when run again unchanged (flaky).",
    ]
    assert first["fixed_in"] == "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0"
    assert first["then"] == {"recovered": 0, "not recovered": 1, "not in its episode": 0, "pending": 0}
    (handed,) = first["handings"]
    assert (handed["session"], handed["episode"], handed["then"]) == (
        "0ea9b4b6-40e9-407b-8bb5-a31903367d21",
        "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0",
        "not recovered",
    )
    assert [f["signature"] for f in found["failures"]] == [
        SIGNATURE,
        "shell|rm|rm: <path>: No such file or directory",
    ]


def test_what_the_session_was_handed(lived_vault: Path) -> None:
    found = get(lived_vault, "/handed.json")
    (session,) = found["sessions"]
    assert session["session"] == "0ea9b4b6-40e9-407b-8bb5-a31903367d21"
    assert session["episode"] == "EPISODE-2026-02-21-0ea9b4b6-40e9-407b-8bb5-a31903367d21"
    assert [(i["event"], i["tokens"], i["notes"], i["signature"]) for i in session["handed"]] == [
        ("tool-failure", 94, ["EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0"], SIGNATURE)
    ]
    assert session["used"] == []  # the transcript names it only before the hook answered
    assert found["paths"] == {
        "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0": "episodes/EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0.md"
    }
    glance = get(lived_vault, "/.json")
    assert glance["handed"] == {
        "days": 30,
        "sessions": 1,
        "tokens": 94,
        "tokens_per_session": 94,
        "notes_named": 1,
        "notes_used": 0,
        "failures_answered": 1,
    }
    assert glance["failures"] == {
        "readable": True,
        "signatures": 6,
        "recovered": 3,
        "repeated": 2,
        "repeated_recovered": 1,
    }


def test_the_timeline_by_project_and_agent(lived_vault: Path) -> None:
    found = get(lived_vault, "/episodes.json?project=/Users/michael/Code/cipher-box&agent=claude-code")
    assert [row["title"] for row in found["episodes"]] == [
        "EPISODE-2026-02-21-0ea9b4b6-40e9-407b-8bb5-a31903367d21",
        "EPISODE-2026-02-21-9e4910ab-95a9-4a30-a85e-4677017bfaf0",
    ]
    assert found["choices"]["agent"] == [{"value": "claude-code", "episodes": 3}]


def test_large_lists_page(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    (root / "episodes").mkdir(parents=True)
    for day in range(1, 61):
        name = f"EPISODE-2026-01-{day % 28 + 1:02d}-s{day:02d}"
        (root / "episodes" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ntype: episode\noutcome: success\ndate: '2026-01-{day % 28 + 1:02d}T10:{day:02d}:00Z'\n---\n"
        )
    first, second = get(root, "/episodes.json"), get(root, "/episodes.json?page=2")
    assert first["page"] == {"number": 1, "pages": 2, "size": 50, "total": 60}
    assert len(first["episodes"]) == 50 and len(second["episodes"]) == 10
    assert not {row["title"] for row in first["episodes"]} & {row["title"] for row in second["episodes"]}
    with viewer_client(root) as client:
        beyond = client.get("/episodes.json?page=3")
    assert (beyond.status_code, beyond.json()) == (400, {"error": "page must be between 1 and 2, got 3"})


def test_a_name_that_is_no_note_is_a_404_with_one_line(example_vault: Path) -> None:
    with viewer_client(example_vault) as client:
        answer = client.get("/episodes/EPISODE-nope.json")
        page = client.get("/episodes/EPISODE-nope")
    assert answer.status_code == 404
    assert answer.json()["error"].startswith("no note named 'EPISODE-nope'")
    assert page.status_code == 404 and "no note named" in page.text


def test_every_page_leaves_every_note_as_it_was(example_vault: Path) -> None:
    def notes() -> dict[str, str]:
        return {
            str(path.relative_to(example_vault)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(example_vault.rglob("*.md"))
        }

    before = notes()
    with viewer_client(example_vault) as client:
        for url in PAGES:
            assert client.get(url).status_code == 200, url
    assert notes() == before


PAGES = [
    "/",
    "/episodes",
    "/episodes/EPISODE-2026-03-02-session-01",
    "/failures",
    "/patterns",
    "/graph",
    "/path?from=PATTERN-idempotency-keys-on-writes&to=PATTERN-canary-with-auto-rollback",
    "/why/EPISODE-2026-03-02-session-01",
    "/facts",
    "/facts/history?subject=mobile-access-token-ttl&namespace=ledger-auth",
    "/runs",
    "/runs/RUN-app-42-monday",
    "/tips",
    "/handed",
    "/search?q=idempotency",
    "/notes/episodes/EPISODE-2026-03-02-session-01.md",
]
