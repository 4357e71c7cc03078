"""Turn-level retrieval (issue 23, point 5): the public sets split into single sentences, and the
context variants measured on them through brain's own index and search.

    python -m benchmarks.quality.retrieval_eval --split --sets musique hotpotqa   # the product as it is
    python -m benchmarks.studies.turn_level                                       # every variant, both layouts

**The split sets** (built by benchmarks/retrieval.py, `load_split`). Every passage becomes one note per sentence (a short note: a single message, a
one-line fact), titled with its passage's title (`p<number> s<sentence>.md`). Labels follow the
sentence that holds the answer:
- HotpotQA: its `supporting_facts` name the sentences themselves, `[title, sentence index]`; each
  supporting sentence is one item to find (a label on an empty or missing sentence is dropped).
- MuSiQue names only supporting paragraphs; each hop of `question_decomposition` is one item, and
  its labels are the sentences of its paragraph that hold the hop's answer (or, for the last hop,
  one of `answer_aliases`; case-insensitive). When none does (the answer is paraphrased), the label
  is the paragraph's sentence sharing most words with the hop's question and answer (`#1` ... in
  a question replaced by the earlier hops' answers); `fallback_labels` counts those.
An item is found when any of its labelled sentences is in the top 5 (recall@5 = found items /
items, averaged over questions); MRR@10 is 1 / the rank of the first labelled sentence. On the
whole-passage sets an item is a supporting passage, as before (the numbers are the same).

**The variants** (brain's real code path: `index_vault` builds the vault's catalog and vectors,
`search.run` answers; a variant replaces one piece, named below):
- context, the text a chunk is embedded from (`embedding.chunk_note` wrapped):
  `title` (the product: the note's title, then its text), `bare` (the text alone),
  `neighbours` (split only: title, the sentence before, the sentence, the sentence after);
- context for BM25 (split only): `neighbours-bm25` writes the sentences before and after into a
  frontmatter field, which brain indexes in FTS5's `meta` column (the embedding stays `title`);
  `neighbours-both` does both;
- per-field BM25: the FTS5 column weights `bm25(fts, title, tags, meta, body)` of
  `search.BM25_WEIGHTS`, several per vault (no reindex needed).
The neighbours are what a conversation would give a message (its turns before and after); brain
has no such link between notes today, so those variants say whether one would be worth building.
Vectors of a text are cached on disk by text (benchmarks/.cache/retrieval/embeddings-*.npz), so a
variant only embeds the texts it changes. Writes benchmarks/results/turn-level.json.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from benchmarks import harness, retrieval
from benchmarks.retrieval import Items
from brain.index.engine import open_index
from brain.index.sync import embedding as embedding_module
from brain.index.sync.sync import index_vault
from brain.index.vectors.chunking import chunk_id
from brain.memory.search import service as search_module
from brain.vault.vault import Vault

RESULTS = harness.RESULTS / "turn-level.json"
CONTEXTS = ("title", "bare", "neighbours", "neighbours-bm25", "neighbours-both")
WHOLE_CONTEXTS = ("title", "bare")
BM25_WEIGHTS = {  # title, tags, meta, body
    "8,3,2,1 (product)": (8.0, 3.0, 2.0, 1.0),
    "1,1,1,1 (flat)": (1.0, 1.0, 1.0, 1.0),
    "2,1,1,1": (2.0, 1.0, 1.0, 1.0),
    "4,2,1,1": (4.0, 2.0, 1.0, 1.0),
    "16,4,2,1": (16.0, 4.0, 2.0, 1.0),
    "8,3,0.5,1": (8.0, 3.0, 0.5, 1.0),
}

# ---------------------------------------------------------------- the layouts


def load_whole(name: str) -> tuple[list[dict], list[tuple[str, Items]], dict]:
    passages, questions = retrieval.load_set(name)
    units = [{"title": t, "text": x.strip(), "before": "", "after": ""} for t, x in passages]
    return units, [(q, [{n} for n in sorted(wanted)]) for q, wanted in questions], {"units": len(units)}


# ---------------------------------------------------------------- the variants


class CachedVectors:
    """The embedder's vectors kept on disk by text: variants share most of their texts."""

    def __init__(self, embedder) -> None:
        self.embed = embedder.embed_array
        self.file = retrieval.CACHE / f"embeddings-{re.sub(r'[^a-zA-Z0-9]+', '-', embedder.id)}.npz"
        self.known: dict[str, np.ndarray] = {}
        self.added = 0
        if self.file.exists():
            with np.load(self.file) as data:
                self.known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def __call__(self, texts) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.known))
        if missing:
            self.known.update(zip(map(self.key, missing), self.embed(missing), strict=True))
            self.added += len(missing)
        return np.vstack([self.known[self.key(t)] for t in texts])

    def save(self) -> None:
        if self.added:
            keys = list(self.known)
            np.savez(self.file, keys=np.asarray(keys), vectors=np.vstack([self.known[k] for k in keys]))
            self.added = 0


def chunk_texts(context: str, units: list[dict]) -> Callable:
    """A chunk_note that gives each note's chunks the `context` variant's text (see the module doc);
    `title` is the product's own chunk_note, untouched."""
    original = embedding_module.chunk_note
    if context == "title":
        return original
    unit_of = {retrieval.note_name(n, u["title"]): u for n, u in enumerate(units)}

    def chunk_note(note, embedder_id, spans, **kwargs):
        chunks = original(note, embedder_id, spans, **kwargs)
        unit = unit_of[Path(note.path).name]
        texts = []
        for chunk in chunks:
            content = note.text[chunk.start : chunk.end].strip() or unit["text"]
            if context == "bare":
                texts.append(content)
            elif context == "neighbours-bm25":  # the product's text without the frontmatter's `about` line
                texts.append(f"{unit['title']}\n{content}")
            else:
                parts = (
                    (unit["title"], unit["before"], content, unit["after"])
                    if len(chunks) == 1
                    else (unit["title"], content)
                )
                texts.append("\n".join(p for p in parts if p))
        return [replace(c, id=chunk_id(t, embedder_id), text=t) for c, t in zip(chunks, texts, strict=True)]

    return chunk_note


def evaluate(index, questions: list[tuple[str, Items]], kwargs: dict) -> dict:
    recall = mrr = 0.0
    for query, items in questions:
        ranked = [retrieval.number_of(hit.path) for hit in search_module.run(index, query, limit=10, **kwargs)]
        top5 = set(ranked[:5])
        recall += sum(1 for units in items if units & top5) / len(items)
        every = set().union(*items)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in every), 0.0)
    return {"recall@5": round(recall / len(questions), 3), "mrr@10": round(mrr / len(questions), 3)}


def run_variant(name: str, layout: str, context: str, cache: list) -> dict:
    units, questions, facts = retrieval.load_split(name) if layout == "split" else load_whole(name)
    root = retrieval.CACHE / "turn-level" / f"{name}-{layout}-{context}"
    if context == "title":  # the product's own vault: the one retrieval_eval.py (--split) measures
        root = retrieval.CACHE / "default" / (name if layout == "whole" else f"{name}-split")
    if not (root / "passages").is_dir():
        retrieval.write_units(root, units, context_field=context in ("neighbours-bm25", "neighbours-both"))
    harness.use_embedder(root, "default")
    saved = embedding_module.chunk_note
    embedding_module.chunk_note = chunk_texts(context, units)
    try:
        index = open_index(Vault(root))
        if not cache:
            cache.append(CachedVectors(index.embedder))
        index.embedder.embed_array = cache[0]
        started = time.perf_counter()
        report = index_vault(index)
        cache[0].save()
    finally:
        embedding_module.chunk_note = saved
    result = {
        **facts,
        "questions": len(questions),
        "chunks": index.catalog.chunk_count(),
        "index_seconds": round(time.perf_counter() - started, 1),
        "chunks_embedded": report.embed.embedded if report.embed else 0,
        "vector": evaluate(index, questions, {"mode": "vector"}),
        "bm25": {},
    }
    product = search_module.BM25_WEIGHTS
    try:
        for label, weights in BM25_WEIGHTS.items():
            search_module.BM25_WEIGHTS = weights
            result["bm25"][label] = {mode: evaluate(index, questions, {"mode": mode}) for mode in ("text", "hybrid")}
    finally:
        search_module.BM25_WEIGHTS = product
    index.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description="turn-level retrieval: context and per-field BM25 variants")
    parser.add_argument("--sets", nargs="+", default=["musique", "hotpotqa"], choices=["musique", "hotpotqa"])
    parser.add_argument("--layouts", nargs="+", default=["whole", "split"], choices=["whole", "split"])
    parser.add_argument("--contexts", nargs="+", default=list(CONTEXTS), choices=CONTEXTS)
    args = parser.parse_args()
    if retrieval.public_sets(instead="nothing to measure") is None:
        return 0
    stored = harness.load_json(RESULTS)
    cache: list = []
    for name in args.sets:
        for layout in args.layouts:
            for context in args.contexts:
                if layout == "whole" and context not in WHOLE_CONTEXTS:
                    continue
                found = run_variant(name, layout, context, cache)
                stored.setdefault(f"{name}-{layout}", {})[context] = found
                product = found["bm25"]["8,3,2,1 (product)"]
                print(f"{name}-{layout:5} {context:16} vector {found['vector']} hybrid {product['hybrid']}", flush=True)
                harness.write_json(RESULTS, stored)
    stored["machine"] = harness.machine(note="2-core machine shared with other jobs: latency is noisy")
    harness.write_json(RESULTS, stored)
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
