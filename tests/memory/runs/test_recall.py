"""Recall of recorded runs by meaning (the real model), tenant isolation, embedder mismatch, explain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.errors import IndexMismatch, Remedy
from brain.index.engine import open_index
from brain.index.sync.sync import reindex_vault
from brain.memory.corpus import Corpus
from brain.memory.runs import service as runs
from brain.memory.runs.note import project
from brain.vault.vault import Vault
from tests.conftest import DATA, use_lexical
from tests.helpers.hnsw_files import past_elements, plant_freed, sizes

APPLICATION = json.loads((DATA / "runs" / "application-42.json").read_text(encoding="utf-8"))
QUESTION = "why was application #42 rejected?"
OTHER_QUERIES = [
    "What is the refund policy for damaged parcels?",
    "Summarise the incident report for the payments outage",
    "Which warehouse ships orders to Portugal?",
]


@pytest.fixture
def minilm(vault: Vault, real_embedder):
    open_index(vault, embedder=real_embedder)
    yield vault


def record(vault: Vault, corpus: Corpus, query: str, tenant: str, **changes) -> runs.RecordedRun:
    return runs.record_run(corpus, {**APPLICATION, "query": query, **changes}, tenant=tenant)


def test_recall_is_strict_and_per_tenant(minilm: Vault) -> None:
    corpus = Corpus(minilm)
    loan = runs.record_run(corpus, APPLICATION, tenant="lending", principal="officer", conversation="app-42")
    for query in OTHER_QUERIES:
        record(minilm, corpus, query, "lending")
    found = runs.recall_runs(corpus, QUESTION, tenant="lending")
    assert [hit.run for hit in found.hits] == [loan.title] and 0.55 < found.hits[0].similarity < 0.65
    assert found.compared == 4
    strict = runs.recall_runs(corpus, QUESTION, tenant="lending", threshold=0.7)
    assert strict.hits == () and strict.best_below == found.hits[0].similarity  # no fallback to a weaker match
    assert runs.recall_runs(corpus, QUESTION, tenant="retail").hits == ()
    everything = runs.recall_runs(corpus, QUESTION, tenant="lending", top_k=10, threshold=0.0)
    assert 2 <= len(everything.hits) <= 4 and everything.hits[0].run == loan.title
    assert all(hit.similarity >= 0.0 for hit in everything.hits)  # a negative cosine misses even threshold 0
    assert [h.similarity for h in everything.hits] == sorted((h.similarity for h in everything.hits), reverse=True)


def test_tenants_are_filtered_before_ranking(minilm: Vault) -> None:
    """Many closer runs of another tenant must not push this tenant's only match out of the top k."""
    corpus = Corpus(minilm)
    for number in range(25):
        record(minilm, corpus, f"Why was application #42 rejected? (copy {number})", "noisy")
    own = runs.record_run(corpus, APPLICATION, tenant="lending")
    found = runs.recall_runs(corpus, QUESTION, tenant="lending", top_k=1)
    assert [hit.run for hit in found.hits] == [own.title] and found.compared == 1


def test_each_projection_is_compact_with_its_token_count(minilm: Vault) -> None:
    corpus = Corpus(minilm)
    runs.record_run(corpus, APPLICATION, tenant="lending")
    texts = {}
    for projection in ("decisions", "commits", "narrative", "full"):
        (hit,) = runs.recall_runs(corpus, QUESTION, tenant="lending", projection=projection).hits
        assert hit.tokens == runs.count_tokens(hit.text) > 0
        texts[projection] = hit
    assert texts["decisions"].text == (
        "classify-risk → rejected (Marginal credit): creditScore=580, threshold=600\n"
        "pick-reason → credit-too-low (Credit below floor): creditScore=580, incomeAboveFloor=true"
    )
    assert texts["commits"].text == 'classify-risk: chose "rejected"\npick-reason: chose "credit-too-low"'
    assert texts["narrative"].text == APPLICATION["narrative"]
    assert json.loads(texts["full"].text) == APPLICATION
    assert texts["decisions"].tokens / texts["full"].tokens <= 0.15
    assert project(APPLICATION, "decisions") == texts["decisions"].text


def test_the_cli_recalls_for_the_same_tenant_and_never_across(minilm: Vault, brain) -> None:
    brain("run", "record", "-f", str(DATA / "runs" / "application-42.json"), "--tenant", "lending", "--accepted")
    name = next((minilm.root / "runs" / "lending").glob("*.md")).stem
    hit = brain("run", "recall", QUESTION, "--tenant", "lending").output.splitlines()
    assert hit == [
        f"# {name} (similarity 0.59, decisions, 45 tokens)",
        "query: Should we approve application #42? Credit: 580. Income: 95k. Amount: 50k.",
        "classify-risk → rejected (Marginal credit): creditScore=580, threshold=600",
        "pick-reason → credit-too-low (Credit below floor): creditScore=580, incomeAboveFloor=true",
    ]
    other = brain("run", "recall", QUESTION, "--tenant", "retail")
    assert other.output == "no run of tenant 'retail' matches at or above 0.50; nothing recalled\n"
    assert json.loads(brain("run", "recall", QUESTION, "--tenant", "retail", "--json").output)["compared"] == 0
    refused = brain("run", "recall", QUESTION)
    assert (
        refused.exit_code == 2
        and refused.stderr == "error: recall needs --tenant; runs are never recalled across tenants\n"
    )
    # show and explain through another tenant answer exactly as for a run that does not exist
    for command in ("show", "explain"):
        crossed = brain("run", command, name, "--tenant", "retail")
        missing = brain("run", command, "RUN-nothing", "--tenant", "retail")
        assert crossed.exit_code == missing.exit_code == 1
        assert crossed.stderr.replace(name, "X") == missing.stderr.replace("RUN-nothing", "X")
        assert (
            crossed.stderr
            == f"error: no run named '{name}' for tenant 'retail'; `brain run list --tenant T` lists them\n"
        )
    assert brain("run", "list", "--tenant", "retail").output == "no runs for tenant 'retail'\n"
    bad = brain("run", "recall", QUESTION, "--tenant", "lending", "--projection", "everything")
    assert bad.exit_code == 2 and bad.stderr == (
        "error: --projection: 'everything' is not one of: decisions, commits, narrative, full\n"
    )


def test_explain_cites_stage_ids_rules_and_evidence(minilm: Vault, brain) -> None:
    brain(
        "run", "record", "-f", str(DATA / "runs" / "application-42.json"), "--tenant", "lending", "--id", "RUN-app-42"
    )
    assert brain("run", "explain", "RUN-app-42", "why was it rejected?", "--tenant", "lending").output.splitlines() == [
        "Run RUN-app-42 (tenant lending) was asked: Should we approve application #42? Credit: 580. Income: 95k. Amount: 50k.",
        "It answered: Application #42: REJECTED. Credit (580) below floor (600). Suggest manual review.",
        "Question: why was it rejected?",
        '- Stage classify-risk chose "rejected" by the rule "Marginal credit", on the evidence creditScore=580, threshold=600.',
        "Other decisions: pick-reason → credit-too-low (Credit below floor): creditScore=580, incomeAboveFloor=true",
        '- Tool lookupCreditBureau(applicationId="42") returned: { "score": 580, "bureau": "experian" }',
    ]
    by_stage = json.loads(brain("run", "explain", "RUN-app-42", "what did pick-reason choose?", "--json").output)
    assert [d["stageId"] for d in by_stage["decisions"]] == ["pick-reason"] and by_stage["matched"] is True
    unrelated = brain("run", "explain", "RUN-app-42", "what about the weather?").output.splitlines()
    assert unrelated[3] == "No recorded decision names what the question asks about; here are all of them."
    assert len([line for line in unrelated if line.startswith("- Stage")]) == 2


def test_vectors_of_another_embedder_are_an_error_until_reindex(vault: Vault, real_embedder) -> None:
    use_lexical(vault)
    corpus = Corpus(vault)
    recorded = runs.record_run(corpus, APPLICATION, tenant="lending")
    corpus.close()
    config = vault.brain_dir / "config.toml"  # the vault's embedder changed since the run was recorded
    config.write_text(config.read_text().replace('embedder = "lexical"', 'embedder = "default"'))
    corpus = Corpus(vault)
    with pytest.raises(IndexMismatch, match=r"made by embedder 'lexical-hash-v1:384'") as refused:
        runs.recall_runs(corpus, QUESTION, tenant="lending")
    assert refused.value.remedies == (Remedy("reindex"),)
    with pytest.raises(IndexMismatch) as refused:
        runs.record_run(corpus, APPLICATION, tenant="lending", run_id="RUN-refused")
    assert refused.value.remedies == (Remedy("reindex"),)
    assert not (vault.root / "runs" / "lending" / "RUN-refused.md").exists()
    reindex_vault(open_index(vault, embedder=real_embedder))
    (hit,) = runs.recall_runs(Corpus(vault), QUESTION, tenant="lending").hits
    assert hit.run == recorded.title


def test_runs_written_elsewhere_are_recalled_and_deleted_ones_are_not(minilm: Vault, tmp_path: Path) -> None:
    corpus = Corpus(minilm)
    stored = runs.record_run(corpus, APPLICATION, tenant="lending")
    text = (minilm.root / stored.path).read_text(encoding="utf-8")
    (minilm.root / stored.path).unlink()  # as if another program wrote it: a plain file copy under another name
    copy = minilm.root / "runs" / "lending" / "RUN-copied.md"
    copy.write_text(text.replace(f"title: {stored.title}", "title: RUN-copied"), encoding="utf-8")
    steps: list[tuple[str, int, int]] = []
    (hit,) = runs.recall_runs(corpus, QUESTION, tenant="lending", progress=lambda *step: steps.append(step)).hits
    assert hit.run == "RUN-copied" and steps == [("runs", 1, 1)]  # the copy's query was embedded by this recall
    copy.unlink()
    assert runs.recall_runs(corpus, QUESTION, tenant="lending", threshold=0.0).hits == ()


def test_a_recall_in_a_new_process_reads_the_snapshot_and_never_opens_chroma(minilm: Vault, brain) -> None:
    """Run vectors are read the way search reads chunk vectors: from a snapshot stamped by the last write."""
    from tests.helpers.cli_probe import probe

    brain("run", "record", "-f", str(DATA / "runs" / "application-42.json"), "--tenant", "lending", "--accepted")
    in_process = brain("run", "recall", QUESTION, "--tenant", "lending").output
    assert (minilm.index_dir / "runs-vectors.npz").is_file()
    output, modules = probe("run", "recall", QUESTION, "--tenant", "lending", "--vault", str(minilm.root))
    assert output == in_process and output.startswith("# RUN-")
    assert "chromadb" not in modules and "onnxruntime" in modules  # the query needs the model, the runs do not
    # A run recorded by another process renews the stamp: this process's copy is not used again.
    other = json.dumps({**APPLICATION, "query": "Should we approve application #43? Credit: 590."})
    (minilm.root / "app-43.json").write_text(other, encoding="utf-8")
    probe("run", "record", "-f", str(minilm.root / "app-43.json"), "--tenant", "lending", "--vault", str(minilm.root))
    listed = json.loads(
        brain("run", "recall", QUESTION, "--tenant", "lending", "--top-k", "5", "--threshold", "0", "--json").output
    )
    assert len(listed["hits"]) == 2
    # A reindex drops every collection: the snapshot is stale, and the runs are embedded again.
    reindex_vault(open_index(minilm))
    again = json.loads(
        brain("run", "recall", QUESTION, "--tenant", "lending", "--top-k", "5", "--threshold", "0", "--json").output
    )
    assert [hit["similarity"] for hit in again["hits"]] == [hit["similarity"] for hit in listed["hits"]]


def test_a_run_written_leaves_nothing_a_process_freed_in_the_stores_unused_room(vault: Vault) -> None:
    """Issue 40: the runs' collection is a segment of the same store, made by whatever process records
    a run first; after each write of run vectors no segment holds anything past its elements."""
    use_lexical(vault)
    corpus = Corpus(vault)
    first = runs.record_run(corpus, APPLICATION, tenant="lending")
    chroma = vault.index_dir / "chroma"
    planted = plant_freed(chroma)
    assert planted and len(past_elements(chroma)) == len(planted)
    runs.record_run(corpus, {**APPLICATION, "query": OTHER_QUERIES[0]}, tenant="lending", run_id="RUN-second")
    assert sizes(chroma, planted) == planted
    assert past_elements(chroma) == {}
    for query, run in ((OTHER_QUERIES[0], "RUN-second"), (APPLICATION["query"], first.title)):
        assert [hit.run for hit in runs.recall_runs(corpus, query, tenant="lending").hits] == [run]
    corpus.close()
