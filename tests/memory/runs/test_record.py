"""Recorded runs: the note format (lossless round trips), `brain run record|show|list`, bad input.

Plumbing tests here use the lexical embedder (test_recall.py is about meaning and
uses the real model); the vectors are real Chroma either way.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.runs import service as runs
from brain.memory.runs import validation as run_input
from brain.memory.runs import view as run_views
from brain.memory.runs.note import PREVIEW_LIMIT, Run, RunLabels, RunScope, render_run, run_from_note
from brain.vault.vault import Vault
from tests.conftest import DATA, REPO, use_lexical

LOAN = json.loads((DATA / "runs" / "loan-42.json").read_text(encoding="utf-8"))


@pytest.fixture
def lexical(vault: Vault):
    """The test vault with the lexical embedder (fast; similarity is not what these tests are about)."""
    use_lexical(vault)
    yield vault


def note_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def record(brain, data: dict, *args: str):
    return brain("run", "record", "-f", "-", *args, input=json.dumps(data))


def only_run(vault: Vault) -> str:
    (path,) = sorted((vault.root / "runs").rglob("*.md"))
    return path.stem


# ---------------------------------------------------------------- the note format, pure


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
hostile_text = st.text() | st.sampled_from(
    ["## Snapshot", "```json\n{}\n```", "---", "- ## Snapshot\n```", "x\n===", "\u2028## Snapshot"]
)
snapshots = st.fixed_dictionaries(
    {
        "query": hostile_text.filter(lambda t: t.strip() != ""),
        "finalContent": st.none() | hostile_text,
        "decisions": st.lists(
            st.fixed_dictionaries(
                {
                    "stageId": st.text(min_size=1),
                    "chosen": json_values,
                    "rule": st.text(),
                    "evidence": st.dictionaries(st.text(), json_values, max_size=5),
                }
            ),
            max_size=4,
        ),
        "toolCalls": st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.text(),
                    "args": st.dictionaries(st.text(), json_values, max_size=3),
                    "resultPreview": st.text(max_size=PREVIEW_LIMIT),
                    "errored": st.booleans(),
                }
            ),
            max_size=3,
        ),
    },
    optional={
        "narrative": hostile_text,
        "iterations": st.integers(),
        "durationMs": json_values,
        "tokenUsage": st.fixed_dictionaries({"input": st.integers(), "output": st.integers()}),
        "extra": json_values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(snapshots)
def test_a_snapshot_comes_back_from_its_note_with_every_value_and_type(data: dict) -> None:
    snapshot, truncated = run_input.snapshot_from_data(data)
    run = Run(
        "RUN-x",
        RunScope("acme", "ana", "c-1"),
        snapshot,
        "2026-03-01T10:00:00Z",
        RunLabels(accepted=True, score=0.75),
        "e",
        None,
        truncated,
    )
    back = run_from_note(parse_note(render_run(run), "runs/acme/RUN-x.md"))
    assert back.problems == ()
    assert json.dumps(back.snapshot, sort_keys=True) == json.dumps(
        data, sort_keys=True
    )  # 1 and 1.0, True and 1 stay apart
    assert back.scope == run.scope and back.labels == run.labels and back.in_flight == (data["finalContent"] is None)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=snapshots, number=st.integers(0, 10**9))
def test_record_and_read_back_through_the_vault_and_its_index(lexical: Vault, data: dict, number: int) -> None:
    """The whole way: checks, note file, catalog (JSON frontmatter, parsed sections), corpus, show."""
    corpus = Corpus(lexical)
    stored = runs.record_run(
        corpus,
        data,
        tenant="acme",
        run_id=f"RUN-{number}-{len(data['query'])}",
        labels=RunLabels(escalated=True, score=0.25),
    )
    shown = run_views.run_record(runs.get_run(corpus, stored.path, "acme"))
    assert json.dumps(shown["snapshot"], sort_keys=True) == json.dumps(data, sort_keys=True)
    assert shown["outcome"] == {"escalated": True, "score": 0.25} and shown["problems"] == []
    (lexical.root / stored.path).unlink()


def test_long_previews_are_cut_to_500_characters_and_the_note_says_so(lexical: Vault, brain) -> None:
    data = json.loads(json.dumps(LOAN))
    data["toolCalls"][0]["resultPreview"] = "x" * 1234
    result = record(brain, data, "--tenant", "lending")
    assert result.exit_code == 0
    name = only_run(lexical)
    assert result.output.splitlines()[1] == "note: tool call 1's resultPreview was truncated to 500 of 1,234 characters"
    text = next((lexical.root / "runs" / "lending").glob("*.md")).read_text(encoding="utf-8")
    assert "   - preview truncated to 500 of 1,234 characters\n" in text
    shown = json.loads(brain("run", "show", name, "--json").output)
    assert shown["snapshot"]["toolCalls"][0]["resultPreview"] == "x" * 500
    assert shown["truncated_previews"] == [{"call": 0, "chars": 1234}]


# ---------------------------------------------------------------- record and show through the CLI


def test_record_then_show_json_gives_back_the_same_snapshot(lexical: Vault, brain) -> None:
    wrapped = {
        "snapshot": LOAN,
        "identity": {"tenant": "lending", "principal": "officer", "conversationId": "app-42"},
        "outcome": {"accepted": True, "score": 0.9},
    }
    result = record(brain, wrapped)
    assert result.exit_code == 0, result.output
    name = only_run(lexical)
    assert result.output == f"recorded runs/lending/{name}.md\n"
    shown = json.loads(brain("run", "show", name, "--json").output)
    assert shown["snapshot"] == LOAN
    assert json.dumps(shown["snapshot"]) == json.dumps(LOAN)  # same key order and number types
    assert shown["identity"] == wrapped["identity"] and shown["outcome"] == {"accepted": True, "score": 0.9}
    assert shown["embedder"] == "lexical-hash-v1:384" and shown["in_flight"] is False


def test_the_note_reads_well_and_is_generated_from_the_snapshot(lexical: Vault, brain) -> None:
    record(brain, LOAN, "--tenant", "lending", "--principal", "officer", "--accepted")
    note = next((lexical.root / "runs" / "lending").glob("*.md")).read_text(encoding="utf-8")
    assert "| classify-risk | rejected | Marginal credit | creditScore=580, threshold=600 |\n" in note
    assert "| pick-reason | credit-too-low | Credit below floor | creditScore=580, incomeAboveFloor=true |\n" in note
    assert '1. `lookupCreditBureau`(applicationId="42")\n   - result: { "score": 580, "bureau": "experian" }\n' in note
    assert "## Answer\nApplication #42: REJECTED. Credit (580) below floor (600). Suggest manual review.\n" in note
    assert "iterations 1, 1840 ms, tokens in 1200, tokens out 180." in note
    assert "scope:\n  tenant: lending\n  principal: officer\n" in note and "accepted: true\n" in note
    shown = brain("run", "show", only_run(lexical)).output.splitlines()
    assert shown[1:4] == [
        "tenant: lending  principal: officer",
        "query: Should we approve loan #42? Credit: 580. Income: 95k. Amount: 50k.",
        "answer: Application #42: REJECTED. Credit (580) below floor (600). Suggest manual review.",
    ]
    assert shown[5] == "  classify-risk → rejected (Marginal credit): creditScore=580, threshold=600"


def test_a_person_can_label_a_run_later_in_its_frontmatter(lexical: Vault, brain) -> None:
    record(brain, LOAN, "--tenant", "lending")
    path = next((lexical.root / "runs" / "lending").glob("*.md"))
    path.write_text(
        path.read_text(encoding="utf-8").replace("status: done\n", "status: done\noverridden: true\n"), encoding="utf-8"
    )
    shown = json.loads(brain("run", "show", only_run(lexical), "--json").output)
    assert shown["outcome"] == {"overridden": True} and shown["snapshot"] == LOAN


@pytest.mark.parametrize(
    ("data", "args", "message"),
    [
        ({k: v for k, v in LOAN.items() if k != "query"}, ("--tenant", "t"), "error: the snapshot has no 'query'"),
        (
            {k: v for k, v in LOAN.items() if k != "finalContent"},
            ("--tenant", "t"),
            "error: the snapshot has no 'finalContent'",
        ),
        (
            {**LOAN, "decisions": [{"stageId": "s", "chosen": "x", "evidence": "creditScore=580"}]},
            ("--tenant", "t"),
            "error: decisions[0].evidence must be a JSON object",
        ),
        (LOAN, ("--tenant", "../escape"), "error: tenant '../escape' may hold only letters"),
        (LOAN, ("--tenant", "a/b"), "error: tenant 'a/b' may hold only letters"),
        (LOAN, (), "error: a tenant is required (--tenant)"),
        (LOAN, ("--tenant", "t", "--ttl", "soon"), "error: ttl 'soon' is not a duration"),
        (LOAN, ("--tenant", "t", "--score", "nan"), "error: --score: nan is out of range; give 0 to 1"),
        (LOAN, ("--tenant", "t", "--score", "7"), "error: --score: 7 is out of range; give 0 to 1"),
    ],
)
def test_bad_snapshots_get_one_line_errors_and_write_nothing(lexical: Vault, brain, data, args, message) -> None:
    before = note_files(lexical.root)
    result = record(brain, data, *args)
    # what the snapshot holds: 1; an option's value (--tenant, --ttl, --score) or a missing one: a usage error, 2
    assert result.exit_code == (1 if args in ((), ("--tenant", "t")) and "tenant" not in message else 2)
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert note_files(lexical.root) == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"query": "q", "finalContent": "a", "iterations": NaN}', "error: the snapshot holds NaN, which is not JSON"),
        ('{"query": "q", ', "error: stdin is not JSON (Expecting property name"),
        ('["query"]', "error: a snapshot must be a JSON object, got list"),
        ('{"query": "q\\ud800", "finalContent": "a"}', "error: snapshot.query holds an unpaired UTF-16 surrogate"),
    ],
)
def test_input_that_is_not_json_is_refused(lexical: Vault, brain, text: str, message: str) -> None:
    before = note_files(lexical.root)
    result = brain("run", "record", "-f", "-", "--tenant", "t", input=text)
    assert result.exit_code == 1 and result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert note_files(lexical.root) == before


# ---------------------------------------------------------------- list, ttl, in flight


def test_list_is_per_tenant_newest_first_and_leaves_expired_runs_out(lexical: Vault) -> None:
    from datetime import datetime

    corpus = Corpus(lexical)
    for day, tenant, query in (
        (1, "acme", "first"),
        (3, "acme", "third"),
        (2, "acme", "second"),
        (4, "other", "fourth"),
    ):
        runs.record_run(corpus, {**LOAN, "query": query}, tenant=tenant, now=datetime(2026, 3, day, tzinfo=UTC))
    runs.record_run(
        corpus,
        {**LOAN, "query": "gone"},
        tenant="acme",
        ttl="1h",
        now=datetime(2026, 3, 5, tzinfo=UTC),
    )
    assert [run.query for run in runs.list_runs(corpus, "acme")] == ["third", "second", "first"]
    assert [run.query for run in runs.list_runs(corpus, "other")] == ["fourth"]
    kept = runs.record_run(corpus, {**LOAN, "query": "kept"}, tenant="acme", ttl="30d")
    assert runs.list_runs(corpus, "acme")[0].query == "kept"
    assert runs.get_run(corpus, kept.title).expires is not None


def test_list_through_the_cli(lexical: Vault, brain) -> None:
    assert brain("run", "list", "--tenant", "lending").output == "no runs for tenant 'lending'\n"
    record(brain, LOAN, "--tenant", "lending", "--accepted")
    rows = json.loads(brain("run", "list", "--tenant", "lending", "--json").output)
    assert [(row["query"], row["verdict"], row["decisions"]) for row in rows] == [(LOAN["query"], "good", 2)]
    line = brain("run", "list", "--tenant", "lending").output
    assert f"good       {only_run(lexical)}  Should we approve loan #42?" in line
    assert brain("run", "list", "--tenant", "other", "--json").output == "[]\n"


def test_a_run_in_flight_is_completed_by_recording_its_id_again(lexical: Vault, brain) -> None:
    assert record(brain, {**LOAN, "finalContent": None}, "--tenant", "lending", "--id", "RUN-app-42").exit_code == 0
    path = lexical.root / "runs" / "lending" / "RUN-app-42.md"
    assert "## Answer\n_In flight: no final answer recorded yet._\n" in path.read_text(encoding="utf-8")
    refused = brain("run", "explain", "RUN-app-42")
    assert refused.exit_code == 1 and refused.stderr == (
        "error: run 'RUN-app-42' is still in flight (no final answer recorded); explain it once it has finished\n"
    )
    path.write_text(path.read_text(encoding="utf-8") + "\n## Notes\nChecked by Ana.\n", encoding="utf-8")
    assert (
        record(brain, LOAN, "--tenant", "lending", "--id", "RUN-app-42").output
        == "updated runs/lending/RUN-app-42.md\n"
    )
    assert json.loads(brain("run", "show", "RUN-app-42", "--json").output)["snapshot"] == LOAN
    assert "## Notes\nChecked by Ana.\n" in path.read_text(encoding="utf-8")
    assert (
        record(brain, LOAN, "--tenant", "retail", "--id", "RUN-app-42").output == "recorded runs/retail/RUN-app-42.md\n"
    )
    assert json.loads(brain("run", "show", "RUN-app-42", "--tenant", "retail", "--json").output)["identity"] == {
        "tenant": "retail"
    }
    again = record(brain, LOAN, "--tenant", "lending", "--id", "RUN-app-42")
    assert (
        again.exit_code == 1
        and again.stderr
        == "error: run id 'RUN-app-42' is taken by a finished run of this tenant; record under another id\n"
    )


def test_completing_a_run_in_flight_keeps_its_labels_and_ttl(lexical: Vault, brain) -> None:
    first = brain(
        "run", "record", "-f", "-", "--tenant", "lending", "--id", "RUN-7", "--accepted", "--score", "0.8",
        "--ttl", "2099-01-01", input=json.dumps({**LOAN, "finalContent": None}),
    )  # fmt: skip
    assert first.exit_code == 0, first.output
    done = brain("run", "record", "-f", "-", "--tenant", "lending", "--id", "RUN-7", input=json.dumps(LOAN))
    assert done.output == "updated runs/lending/RUN-7.md\n"
    shown = json.loads(brain("run", "show", "RUN-7", "--json").output)
    assert (shown["outcome"], shown["expires"], shown["in_flight"]) == (
        {"accepted": True, "score": 0.8},
        "2099-01-01T00:00:00Z",
        False,
    )


def test_a_run_kept_in_frontmatter_by_the_older_layout_is_read(lexical: Vault, brain) -> None:
    shutil.copytree(REPO / "vault-example" / "runs", lexical.root / "runs", dirs_exist_ok=True)
    shown = json.loads(brain("run", "show", "RUN-2026-03-26-duplicate-credit-explanation", "--json").output)
    assert shown["identity"]["tenant"] == "ledger"
    assert shown["snapshot"]["decisions"][2]["evidence"]["handler_p99_ms"] == 12000
    assert shown["snapshot"]["toolCalls"][0]["name"] == "search" and shown["snapshot"]["finalContent"].startswith(
        "On 2026-03-10"
    )


def test_expired_runs_are_not_recalled_or_listed_but_can_be_shown(lexical: Vault, brain) -> None:
    record(brain, LOAN, "--tenant", "lending", "--id", "RUN-old", "--ttl", "2020-01-01")
    record(brain, LOAN, "--tenant", "lending", "--id", "RUN-new", "--ttl", "2w")
    found = json.loads(brain("run", "recall", LOAN["query"], "--tenant", "lending", "--top-k", "5", "--json").output)
    assert [hit["id"] for hit in found["hits"]] == ["RUN-new"] and found["hits"][0]["similarity"] == 1.0
    assert [row["id"] for row in json.loads(brain("run", "list", "--tenant", "lending", "--json").output)] == [
        "RUN-new"
    ]
    assert brain("run", "show", "RUN-old").output.splitlines()[4] == "expires: 2020-01-01T00:00:00Z"


def test_doctor_reports_a_run_whose_snapshot_cannot_be_read(lexical: Vault, brain) -> None:
    record(brain, LOAN, "--tenant", "lending", "--id", "RUN-broken")
    path = lexical.root / "runs" / "lending" / "RUN-broken.md"
    path.write_text(path.read_text(encoding="utf-8").replace('"iterations": 1,', '"iterations": 1,,'), encoding="utf-8")
    report = brain("doctor").output
    assert (
        "runs/lending/RUN-broken.md" in report and "the Snapshot JSON does not parse (Expecting property name" in report
    )
