"""Turn-level retrieval (issue 23, point 5): the public sets split into single sentences, and the
context variants measured on them through brain's own index and search.

    python benchmarks/retrieval_eval.py --split --sets musique hotpotqa        # the product as it is
    python benchmarks/turn_level.py                                            # every variant, both layouts

**The split sets.** Every passage becomes one note per sentence (a short note: a single message, a
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
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import retrieval_eval as ev

from brain.index import search as search_module
from brain.index.engine import open_index
from brain.index.sync import embedding as embedding_module
from brain.index.sync.sync import index_vault
from brain.index.vectors.chunking import chunk_id
from brain.vault import Vault

RESULTS = HERE / "results" / "turn-level.json"
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z0-9\"'(])")  # not after an initial (G. Stanley Hall)
_WORD = re.compile(r"\w+")
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

Items = list[set[int]]  # each item: the units (notes) any of which finds it


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


# ---------------------------------------------------------------- the split sets


def load_split(name: str, shared: Path = ev.SHARED) -> tuple[list[dict], list[tuple[str, Items]], dict]:
    """(sentence units, questions with their items, facts about the labels). A unit is
    {title, text, passage, sentence, before, after}; items index into the units."""
    units: list[dict] = []
    where: dict[tuple[int, int], int] = {}  # (passage, sentence) -> unit

    def add(passage: int, title: str, parts: list[str]) -> None:
        for number, text in enumerate(parts):
            if not text.strip():
                continue
            where[(passage, number)] = len(units)
            units.append({"title": title, "text": text.strip(), "passage": passage, "sentence": number})

    facts = {"dropped_labels": 0, "fallback_labels": 0}
    questions: list[tuple[str, Items]] = []
    if name == "hotpotqa":
        corpus = json.loads((shared / "hotpotqa_train_corpus.json").read_text())
        titles = list(corpus)
        for passage, title in enumerate(titles):
            add(passage, title, corpus[title])
        number_of = {title: i for i, title in enumerate(titles)}
        for item in json.loads((shared / "hotpotqa_train.json").read_text()):
            items = []
            for title, sentence in item["supporting_facts"]:
                unit = where.get((number_of[title], sentence))
                if unit is None:
                    facts["dropped_labels"] += 1
                    continue
                items.append({unit})
            questions.append((item["question"], items))
    elif name == "musique":
        corpus = json.loads((shared / "musique_train_corpus.json").read_text())
        passage_of = {}
        for passage, p in enumerate(corpus):
            passage_of[(p["title"], p["text"])] = passage
            add(passage, p["title"], sentences(p["text"]))
        for item in json.loads((shared / "musique_train.json").read_text()):
            items, answers = [], []
            hops = item["question_decomposition"]
            for hop_number, hop in enumerate(hops):
                paragraph = item["paragraphs"][hop["paragraph_support_idx"]]
                passage = passage_of[(paragraph["title"], paragraph["paragraph_text"])]
                parts = sentences(paragraph["paragraph_text"])
                wanted = [hop["answer"]] + (item.get("answer_aliases", []) if hop_number == len(hops) - 1 else [])
                holding = {
                    where[(passage, n)] for n, s in enumerate(parts) if any(a.lower() in s.lower() for a in wanted)
                }
                if not holding:
                    question = hop["question"]
                    for k, answer in enumerate(answers, start=1):
                        question = question.replace(f"#{k}", answer)
                    words = {w.lower() for w in _WORD.findall(f"{question} {hop['answer']}")}
                    best = max(range(len(parts)), key=lambda n: len(words & set(_WORD.findall(parts[n].lower()))))
                    holding = {where[(passage, best)]}
                    facts["fallback_labels"] += 1
                answers.append(hop["answer"])
                items.append(holding)
            questions.append((item["question"], items))
    else:
        raise ValueError(name)
    for unit in units:
        before = where.get((unit["passage"], unit["sentence"] - 1))
        after = where.get((unit["passage"], unit["sentence"] + 1))
        unit["before"] = units[before]["text"] if before is not None else ""
        unit["after"] = units[after]["text"] if after is not None else ""
    facts["units"], facts["items"] = len(units), sum(len(items) for _, items in questions)
    return units, [(q, items) for q, items in questions if items], facts


def load_whole(name: str) -> tuple[list[dict], list[tuple[str, Items]], dict]:
    passages, questions = ev.load_set(name)
    units = [{"title": t, "text": x.strip(), "before": "", "after": ""} for t, x in passages]
    return units, [(q, [{n} for n in sorted(wanted)]) for q, wanted in questions], {"units": len(units)}


def write_units(root: Path, units: list[dict], *, context_field: bool) -> None:
    """One note per unit, `p<number>.md` (the number is the unit's index: the eval reads it back)."""
    folder = root / "passages"
    folder.mkdir(parents=True, exist_ok=True)
    for number, unit in enumerate(units):
        lines = [f"title: {json.dumps(unit['title'], ensure_ascii=False)}"]
        context = " … ".join(part for part in (unit["before"], unit["after"]) if part)
        if context_field and context:
            lines.append(f"context: {json.dumps(context, ensure_ascii=False)}")
        (folder / ev.note_name(number, unit["title"])).write_text(
            "---\n" + "\n".join(lines) + f"\n---\n{unit['text']}\n", encoding="utf-8"
        )


# ---------------------------------------------------------------- the variants


class CachedVectors:
    """The embedder's vectors kept on disk by text: variants share most of their texts."""

    def __init__(self, embedder) -> None:
        self.embed = embedder.embed_array
        self.file = ev.CACHE / f"embeddings-{re.sub(r'[^a-zA-Z0-9]+', '-', embedder.id)}.npz"
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
    unit_of = {ev.note_name(n, u["title"]): u for n, u in enumerate(units)}

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
        ranked = [ev.number_of(hit.path) for hit in search_module.run(index, query, limit=10, **kwargs)]
        top5 = set(ranked[:5])
        recall += sum(1 for units in items if units & top5) / len(items)
        every = set().union(*items)
        mrr += next((1.0 / rank for rank, n in enumerate(ranked, start=1) if n in every), 0.0)
    return {"recall@5": round(recall / len(questions), 3), "mrr@10": round(mrr / len(questions), 3)}


def run_variant(name: str, layout: str, context: str, cache: list) -> dict:
    units, questions, facts = load_split(name) if layout == "split" else load_whole(name)
    root = ev.CACHE / "turn-level" / f"{name}-{layout}-{context}"
    if context == "title":  # the product's own vault: the one retrieval_eval.py (--split) measures
        root = ev.CACHE / "default" / (name if layout == "whole" else f"{name}-split")
    if not (root / "passages").is_dir():
        write_units(root, units, context_field=context in ("neighbours-bm25", "neighbours-both"))
    ev.use_embedder(root, "default")
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
    if not ev.SHARED.is_dir():
        print(f"{ev.SHARED} is missing (the public sets are kept outside this repository): nothing to measure")
        return 0
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
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
                RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
    stored["machine"] = ev.machine()
    RESULTS.write_text(json.dumps(stored, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
