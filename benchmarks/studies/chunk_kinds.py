"""What each kind of chunk costs to embed and what it gives retrieval (issue 41, point 2).

    python -m benchmarks.studies.chunk_kinds

A chunk's kind is the role of the section it comes from: the first chunk of a note (its title and
the line of what the note is about, from the frontmatter), an episode's event timeline, its
decisions, its lessons, a pattern's evidence list, its causal relationships, the plain lists of
links (`## Relations`, `## Related`), and every other section.

- **Cost**: each kind's share of the chunks and of the tokens embedded, on vault-example (real
  notes) and on the generated 1k vault (`python -m benchmarks.generate_vault`; skipped when it is
  not under benchmarks/.cache/vault-1k), counted with brain's own `chunk_note` and the embedder's
  tokenizer, no model run.
- **Worth**: vault-example's 32 labelled queries (`tests/helpers/labelled_queries.py`; hit@5 and
  MRR@10), searched with brain's own `search.run` in vector and hybrid mode, first with every chunk
  and then with one kind's chunks taken out of the dense half (the catalog, and so the lexical
  half, keeps every word). A kind whose removal costs nothing in both modes adds nothing to
  retrieval that BM25 does not already give, on these queries.

32 queries over 54 notes is small: one query is 3 points of hit@5. The figures say which kinds
could be left to lexical search; they cannot prove that a kind never helps. Writes
benchmarks/results/chunk-kinds.json.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from benchmarks import harness, retrieval
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.index.vectors.chunking import chunk_note, spans_for
from brain.index.vectors.matrix import ChunkMatrix
from brain.markdown.parse import parse_note
from brain.memory.search import service as search_module

RESULTS = harness.RESULTS / "chunk-kinds.json"
KINDS = (
    ("event timeline", re.compile(r"event|timeline", re.I)),
    ("decisions", re.compile(r"decision", re.I)),
    ("lessons", re.compile(r"lesson", re.I)),
    ("evidence list", re.compile(r"evidence", re.I)),
    ("causal relationships", re.compile(r"causal relationship", re.I)),
    ("links", re.compile(r"^(relations|related)$", re.I)),
)


def kind_of(section: str | None, order: int) -> str:
    if section is None:
        return "first chunk (title, what it is about)" if order == 0 else "text before the first section"
    return next((kind for kind, pattern in KINDS if pattern.search(section.strip())), "other sections")


def kinds_of_chunks(root: Path, embedder: object) -> tuple[dict[str, str], Counter, Counter]:
    """chunk id -> kind, and each kind's chunk and token counts, for every note under `root`."""
    spans = spans_for(embedder)
    kinds: dict[str, str] = {}
    chunks: Counter = Counter()
    tokens: Counter = Counter()
    for path in sorted(root.rglob("*.md")):
        if ".brain" in path.parts:
            continue
        note = parse_note(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
        found = chunk_note(note, embedder.id, spans)  # type: ignore[attr-defined]
        for chunk, chunk_tokens in zip(found, spans([chunk.text for chunk in found]), strict=True):
            kind = kind_of(chunk.section, chunk.ord)
            kinds[chunk.id] = kind
            chunks[kind] += 1
            tokens[kind] += len(chunk_tokens)
    return kinds, chunks, tokens


def shares(chunks: Counter, tokens: Counter) -> dict[str, dict[str, float]]:
    total_chunks, total_tokens = sum(chunks.values()), sum(tokens.values())
    return {
        kind: {
            "chunks": chunks[kind],
            "chunk_share": round(chunks[kind] / total_chunks, 3),
            "token_share": round(tokens[kind] / total_tokens, 3),
        }
        for kind, _ in chunks.most_common()
    }


def labelled_quality(index: object) -> dict[str, dict[str, float]]:
    from tests.helpers.labelled_queries import QUERIES

    out = {}
    for mode in ("vector", "hybrid"):
        hit = mrr = 0.0
        for query, wanted in QUERIES.items():
            paths = [hit_.path for hit_ in search_module.run(index, query, mode=mode, limit=10)]  # type: ignore[arg-type]
            rank = next((r for r, path in enumerate(paths, start=1) if path in wanted), None)
            hit += bool(rank and rank <= 5)
            mrr += 1.0 / rank if rank else 0.0
        out[mode] = {"hit@5": round(hit / len(QUERIES), 3), "mrr@10": round(mrr / len(QUERIES), 3)}
    return out


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    vault = retrieval.example_vault("default")
    index = open_index(vault)
    index_vault(index)
    kinds, chunks, tokens = kinds_of_chunks(vault.root, index.embedder)
    full = index.vectors.matrix()
    worth = {"every chunk": labelled_quality(index)}
    for kind in chunks:
        keep = [kinds.get(chunk.decode(), "") != kind for chunk in full.chunks]
        index.vectors.adopt(ChunkMatrix(full.notes[keep], full.chunks[keep], full.vectors[keep]))
        worth[f"without {kind}"] = labelled_quality(index)
        index.vectors.adopt(full)
    for label, row in worth.items():
        print(f"{label:50} vector {row['vector']}  hybrid {row['hybrid']}")
    cost = {"vault-example": shares(chunks, tokens)}
    generated = harness.CACHE / "vault-1k"
    if generated.is_dir():
        _, chunks_1k, tokens_1k = kinds_of_chunks(generated, index.embedder)
        cost["generated 1k"] = shares(chunks_1k, tokens_1k)
    else:
        print(f"{generated} is missing (python -m benchmarks.generate_vault): its cost is not measured")
    for vault_name, rows in cost.items():
        print(vault_name)
        for kind, row in rows.items():
            print(f"  {kind:45} {row}")
    harness.merge_json(
        RESULTS,
        {"embedder": index.embedder.id, "worth": worth, "cost": cost, "machine": harness.machine()},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
