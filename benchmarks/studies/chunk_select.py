"""Choose how chunks carry context and how a note's chunk scores pool, on MuSiQue only; report the rest.

    python -m benchmarks.studies.chunk_select         # choose on the MuSiQue protocols, report the others

Two questions (issue 15, point 4):
- neighbours: in a short note, should a chunk's embedding text also carry some of the chunks
  before and after it (`with_neighbours` below, applied to `chunking.chunk_note`'s chunks)?
- pooling: should a note's dense score be its best chunk's, or also count its next best ones?

MuSiQue and HotpotQA passages are one short paragraph each: one chunk per note, so neither
question changes anything there. Two derived protocols per set make the questions bite (fixed
seed, built from the same passages and questions, labelled as such in the results):
- `-long`: the passages dealt at random into notes of LONG_SECTIONS sections each (`## <passage
  title>`), ~600 tokens a note: long notes whose other sections are unrelated to the question;
  a question's relevant notes are the notes holding its supporting passages.
- `-split`: each passage is a note whose sentences are its sections (`## 1`, `## 2` ...): short
  notes of small sections that belong together (a sentence saying "He was born in ..." needs
  the one before it).
vault-example's 32 labelled queries are held out too (54 real notes: patterns of 8 small
sections, episodes of 10-13 chunks).

Everything is computed offline from brain's own pieces: `chunk_note` for the chunk texts, the
default embedder (texts embedded once, cached in benchmarks/.cache/chunk-select/), the exact
chunk scan of `matrix.ChunkMatrix` (the same top depth*3 chunks `search.dense_ranking` pools),
`search.text_ranking` on each vault's real catalog and the min-max fusion search used then
(`fusion_select.minmax(0.5)`). The variant with the best
hybrid recall@5 + MRR@10 summed over the MuSiQue protocols wins; HotpotQA and vault-example are
reported, never used to choose. Writes benchmarks/results/chunk-select.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import time

import numpy as np

from benchmarks import harness, retrieval
from benchmarks.studies.fusion_select import minmax
from brain.index.embedders.embedders import load_embedder
from brain.index.engine import open_index
from brain.index.sync.scan import scan
from brain.index.vectors.chunking import chunk_note
from brain.index.vectors.matrix import ChunkMatrix
from brain.memory.search import service as search_module
from brain.vault.vault import Vault

CACHE = harness.CACHE / "chunk-select"
RESULTS = harness.RESULTS / "chunk-select.json"
DEPTH = 30
LONG_SECTIONS = 6
SEED = 15
CHOOSE = ("musique", "musique-long", "musique-split")
REPORT = ("hotpotqa", "hotpotqa-long", "hotpotqa-split", "example")
# the split this study chose on; retrieval.sentences (written later) also keeps initials whole
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")

# chunk text variants: keyword arguments of with_neighbours
CHUNKINGS = {
    "title+heading": {"neighbours": 0},
    "neighbours 32, notes <= 512": {"neighbours": 32, "short_note": 512},
    "neighbours 64, notes <= 512": {"neighbours": 64, "short_note": 512},
    "neighbours 64, every note": {"neighbours": 64, "short_note": 10**9},
}


def with_neighbours(
    note, chunks: list, spans, *, neighbours: int, short_note: int = 512, max_tokens: int = 256
) -> list[str]:
    """The chunks' embedding texts; in a note of at most `short_note` content tokens (and more than
    one chunk), each also carries up to `neighbours` tokens of the chunk before and the chunk after
    it, as far as the model's window allows. A variant under test: brain embeds `chunk.text`."""
    texts = [chunk.text for chunk in chunks]
    contents = [note.text[c.start : c.end] for c in chunks]
    if neighbours <= 0 or len(chunks) < 2 or not all(c.end > c.start for c in chunks):
        return texts
    prefixes = [text[: len(text) - len(content)] for text, content in zip(texts, contents, strict=True)]
    counted = spans([*prefixes, *contents])
    prefix_tokens, tokens = counted[: len(chunks)], counted[len(chunks) :]
    if sum(len(t) for t in tokens) > short_note:
        return texts
    out = []
    for number, (prefix, content) in enumerate(zip(prefixes, contents, strict=True)):
        room = max_tokens - 2 - len(prefix_tokens[number]) - len(tokens[number])
        before = tokens[number - 1] if number else []
        after = tokens[number + 1] if number + 1 < len(chunks) else []
        take_before = min(neighbours, len(before), room // 2 if after else room)
        take_after = min(neighbours, len(after), room - take_before)
        head = contents[number - 1][before[-take_before][0] : before[-1][1]] + "\n" if take_before > 0 else ""
        tail = "\n" + contents[number + 1][after[0][0] : after[take_after - 1][1]] if take_after > 0 else ""
        out.append(prefix + head + content + tail)
    return out


def _weighted(*weights: float):
    def pool(scores: list[float]) -> float:
        return sum(w * s for w, s in zip(weights, scores, strict=True))

    return pool


def _mean_top(k: int):
    def pool(scores: list[float]) -> float:
        top = scores[:k]
        return sum(top) / len(top)

    return pool


POOLINGS = {
    "max": _weighted(1.0),
    "max + 0.05 x 2nd": _weighted(1.0, 0.05),
    "max + 0.1 x 2nd": _weighted(1.0, 0.1),
    "max + 0.2 x 2nd": _weighted(1.0, 0.2),
    "max + 0.1 x (2nd + 3rd)": _weighted(1.0, 0.1, 0.1),
    "mean of top 2": _mean_top(2),
}


# ---------------------------------------------------------------- the protocols


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def build(name: str) -> tuple[Vault, list[tuple[str, list[set[str]]]]]:
    """The protocol's vault and its questions: (query, [paths that answer each wanted item])."""
    if name == "example":
        from tests.helpers.labelled_queries import QUERIES

        return retrieval.example_vault(), [(q, [set(paths)]) for q, paths in QUERIES.items()]
    base, _, protocol = name.partition("-")
    passages, questions = retrieval.load_set(base)
    root = CACHE / "vaults" / name
    where: dict[int, str] = {}  # passage -> the note holding it
    notes: dict[str, str] = {}
    if not protocol:
        for number, (title, text) in enumerate(passages):
            where[number] = f"passages/{retrieval.note_name(number, title)}"
            notes[where[number]] = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n{text.strip()}\n"
    elif protocol == "long":
        order = list(range(len(passages)))
        random.Random(SEED).shuffle(order)
        for group, start in enumerate(range(0, len(order), LONG_SECTIONS)):
            path = f"notes/n{group:04d}.md"
            body = []
            for number in order[start : start + LONG_SECTIONS]:
                title, text = passages[number]
                body.append(f"## {' '.join(title.split())}\n\n{text.strip()}\n")
                where[number] = path
            notes[path] = f"---\ntitle: Notes {group}\n---\n" + "\n".join(body)
    elif protocol == "split":
        for number, (title, text) in enumerate(passages):
            path = f"passages/{retrieval.note_name(number, title)}"
            parts = "\n".join(f"## {i}\n\n{s}\n" for i, s in enumerate(sentences(text), start=1))
            notes[path] = f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n{parts}"
            where[number] = path
    else:
        raise ValueError(name)
    if not (root / ".brain").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        for path, text in notes.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        (root / ".brain").mkdir()
    return Vault(root), [(q, [{where[n]} for n in sorted(wanted)]) for q, wanted in questions]


class Embeddings:
    """The default embedder with a disk cache of every text it embedded (variants share most texts)."""

    def __init__(self) -> None:
        self.model = load_embedder("default")
        self.file = CACHE / f"embeddings-{re.sub(r'[^a-zA-Z0-9]+', '-', self.model.id)}.npz"
        self.known: dict[str, np.ndarray] = {}
        if self.file.exists():
            with np.load(self.file) as data:
                self.known = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def __call__(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.known))
        if missing:
            started = time.perf_counter()
            vectors = self.model.embed_array(missing)
            self.known.update(zip(map(self.key, missing), vectors, strict=True))
            print(f"  embedded {len(missing)} texts in {time.perf_counter() - started:.0f} s", flush=True)
            self.save()
        return (
            np.vstack([self.known[self.key(t)] for t in texts]) if texts else np.zeros((0, self.model.dim), np.float32)
        )

    def save(self) -> None:
        CACHE.mkdir(parents=True, exist_ok=True)
        keys = list(self.known)
        np.savez(self.file, keys=np.asarray(keys), vectors=np.vstack([self.known[k] for k in keys]))


# ---------------------------------------------------------------- scoring


def score(ranked: list[int], wanted: list[set[int]]) -> tuple[float, float]:
    """recall@5 (share of wanted items with a note in the top 5) and reciprocal rank in the top 10."""
    top5 = set(ranked[:5])
    recall = sum(1 for notes in wanted if notes & top5) / len(wanted)
    every = set().union(*wanted)
    rr = next((1.0 / rank for rank, n in enumerate(ranked[:10], start=1) if n in every), 0.0)
    return recall, rr


def evaluate(name: str, embed: Embeddings) -> dict:
    vault, questions = build(name)
    index = open_index(vault, embedder=embed.model)
    scan(index)
    ids = {path: stamp.id for path, stamp in index.catalog.stamps().items()}
    notes = index.catalog.load()
    queries = [q for q, _ in questions]
    wanted = [[{ids[p] for p in paths if p in ids} for paths in items] for _, items in questions]
    text_rankings = [search_module.text_ranking(index, q, None, DEPTH) for q in queries]
    strict_rankings = [search_module.text_ranking(index, q, None, DEPTH, strict=True) for q in queries]
    query_vectors = embed(queries)
    out: dict = {"notes": len(notes), "questions": len(queries), "variants": {}}
    text = [score([n for n, _ in r], w) for r, w in zip(text_rankings, wanted, strict=True)]
    out["text"] = _mean(text)
    for chunking, kwargs in CHUNKINGS.items():
        chunks: list[tuple[int, str, str]] = []  # (note id, chunk id, embedding text)
        for path, note in notes.items():
            if path in ids:
                found = chunk_note(note, embed.model.id, index.spans)
                texts = with_neighbours(note, found, index.spans, **kwargs)
                chunks += [(ids[path], chunk.id, text) for chunk, text in zip(found, texts, strict=True)]
        matrix = ChunkMatrix.from_records(
            [f"{n}:{c}" for n, c, _ in chunks], embed([t for _, _, t in chunks]), embed.model.dim
        )
        hits = [matrix.nearest(v, DEPTH * 3) for v in query_vectors]
        for pooling, pool in POOLINGS.items():
            vector, hybrid = [], []
            for chunk_hits, strict, w in zip(hits, strict_rankings, wanted, strict=True):
                per_note: dict[int, list[float]] = {}
                for note_id, _, similarity in chunk_hits:
                    per_note.setdefault(note_id, []).append(similarity)
                dense = sorted(((n, pool(s)) for n, s in per_note.items()), key=lambda item: -item[1])[:DEPTH]
                vector.append(score([n for n, _ in dense], w))
                fused = minmax(0.5)(strict, dense)
                hybrid.append(score([n for n, _ in sorted(fused.items(), key=lambda item: (-item[1], item[0]))], w))
            out["variants"][f"{chunking} | {pooling}"] = {
                "chunks": len(chunks),
                "vector": _mean(vector),
                "hybrid": _mean(hybrid),
            }
        print(f"  {name} {chunking}: {len(chunks)} chunks", flush=True)
    return out


def _mean(scores: list[tuple[float, float]]) -> dict:
    return {
        "recall@5": round(sum(r for r, _ in scores) / len(scores), 3),
        "mrr@10": round(sum(m for _, m in scores) / len(scores), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description="choose chunk context and pooling on MuSiQue, report the rest")
    parser.add_argument("--sets", nargs="*", default=[*CHOOSE, *REPORT])
    args = parser.parse_args()
    if retrieval.public_sets(instead="nothing to choose on") is None:
        return 1
    embed = Embeddings()
    results = {name: evaluate(name, embed) for name in args.sets}
    chosen_on = [name for name in CHOOSE if name in results]

    def merit(variant: str) -> float:
        return sum(
            results[n]["variants"][variant]["hybrid"]["recall@5"] + results[n]["variants"][variant]["hybrid"]["mrr@10"]
            for n in chosen_on
        )

    variants = list(next(iter(results.values()))["variants"])
    best = max(variants, key=lambda v: (round(merit(v), 6), -variants.index(v)))  # ties keep the earlier, simpler one
    report = {
        "chosen_on": chosen_on,
        "winner": best,
        "merit": {v: round(merit(v), 4) for v in variants},
        "sets": results,
    }
    harness.write_json(RESULTS, report)
    for name, found in results.items():
        print(f"{name:15} text {found['text']}")
        for variant in (variants[0], best):
            print(
                f"{'':15} {variant:50} vector {found['variants'][variant]['vector']} hybrid {found['variants'][variant]['hybrid']}"
            )
    print(f"winner (chosen on {', '.join(chosen_on)}): {best}\nwrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
