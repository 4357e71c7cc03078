"""Search quality with the real model: hybrid never worse than either half, on data it was not tuned on.

The fusion was chosen on MuSiQue (benchmarks/studies/fusion_select.py); this test holds it on a fixed
sample of HotpotQA (tests/data/retrieval/, 12 questions over their 120 candidate passages, one
note per passage). vault-example's labelled queries are held in tests/test_search.py.
"""

from __future__ import annotations

import json
import re

import pytest

from brain.index.engine import forget, open_index
from brain.index.search import run
from brain.index.sync.sync import index_vault
from brain.vault import Vault
from tests.conftest import DATA

SAMPLE = DATA / "retrieval" / "hotpotqa_sample.json"


@pytest.fixture(scope="module")
def hotpot(tmp_path_factory):
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    root = tmp_path_factory.mktemp("hotpot") / "vault"
    (root / ".brain").mkdir(parents=True)
    paths = {}
    for number, (title, text) in enumerate(sorted(data["passages"].items())):
        name = f"p{number:03d} {re.sub(r'[^A-Za-z0-9 ]+', ' ', title).strip()[:60]}.md"
        (root / name).write_text(f"---\ntitle: {json.dumps(title)}\n---\n{text}\n", encoding="utf-8")
        paths[name] = title
    vault = Vault(root)
    index = open_index(vault)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-onnx", "the real model must be installed for this test"
    index_vault(index)
    yield index, paths, data["questions"]
    forget(root)


def recall_at_5(index, paths, questions, mode: str) -> float:
    total = 0.0
    for item in questions:
        top = {paths[hit.path] for hit in run(index, item["question"], mode=mode, limit=5)}
        total += len(top & set(item["supporting"])) / len(item["supporting"])
    return total / len(questions)


def test_hybrid_beats_both_halves_on_held_out_hotpotqa(hotpot):
    scores = {mode: recall_at_5(*hotpot, mode) for mode in ("text", "vector", "hybrid")}
    assert scores["hybrid"] >= max(scores["text"], scores["vector"]), scores
    assert scores["hybrid"] > 0.7, scores
