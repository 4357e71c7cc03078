"""Second-stage reranking: a cross-encoder over the fused top candidates, on onnxruntime.

A cross-encoder reads the query and a candidate together and scores how well the candidate
answers it (an ms-marco MiniLM cross-encoder, say), which a bi-encoder's separate vectors cannot.
Each candidate is shown as its title and its best-matching chunk (or the start of its text).

Model files: `reranker_model` under `[search]` in `.brain/config.toml`, or `$BRAIN_RERANKER_MODEL`,
naming a folder with one `.onnx` cross-encoder and its `tokenizer.json` (or the `.onnx` file). No
package on the package index was found to ship cross-encoder ONNX weights (see README, "Search
quality", and benchmarks/results/model-search.md), so nothing is installed by default and `--rerank` without a model is refused with a
message saying how to give one. The file's sha256 is part of the reranker's id (`brain status`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from brain.errors import InvalidInput, Remedy
from brain.index.embedders.model_cache import file_sha256
from brain.index.embedders.model_files import _pick_onnx

if TYPE_CHECKING:
    from brain.index.engine import Index

ENV_RERANKER = "BRAIN_RERANKER_MODEL"
MAX_TOKENS = 256
PASSAGE_CHARS = 1200


@dataclass(frozen=True)
class RerankerFiles:
    model_path: Path
    tokenizer_path: Path
    sha256: str


def resolve_reranker(configured: str | None) -> RerankerFiles:
    """The cross-encoder's files, or a one-line error saying where to put them."""
    explicit = configured or os.environ.get(ENV_RERANKER) or None
    if not explicit:
        raise InvalidInput(
            f"no reranker model is configured: set reranker_model under [search] in .brain/config.toml or "
            f"${ENV_RERANKER} to a folder with an ONNX cross-encoder and its tokenizer.json, or search without ",
            Remedy("rerank"),
        )
    path = Path(explicit).expanduser()
    folder = path.parent if path.is_file() else path
    model = path if path.is_file() and path.suffix == ".onnx" else (_pick_onnx(path) if path.is_dir() else None)
    if model is None and (path / "onnx").is_dir():
        model = _pick_onnx(path / "onnx")
    tokenizer = next((p for p in (folder / "tokenizer.json", path / "tokenizer.json") if p.is_file()), None)
    if model is None or tokenizer is None:
        raise InvalidInput(f"reranker model '{path}' needs one .onnx file and a tokenizer.json beside it")
    return RerankerFiles(model, tokenizer, file_sha256(model))


class CrossEncoder:
    """Scores (query, passage) pairs: BERT-style pair input, one logit per pair."""

    def __init__(self, files: RerankerFiles, batch_size: int = 16) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.id = f"cross-encoder:{files.sha256[:12]}"
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(files.tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        options = ort.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.enable_mem_pattern = False
        options.log_severity_level = 3
        self.session = ort.InferenceSession(
            str(files.model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {
            i.name: (np.int32 if i.type == "tensor(int32)" else np.int64) for i in self.session.get_inputs()
        }
        shape = self.session.get_outputs()[0].shape
        if len(shape) != 2 or "input_ids" not in self._inputs:
            raise InvalidInput(
                f"reranker model '{files.model_path}' is not a cross-encoder: its first output has shape "
                f"{list(shape)}, not one score per (query, passage) pair"
            )

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        import numpy as np

        encodings = self.tokenizer.encode_batch([(query, passage) for passage in passages])
        scores = np.zeros(len(passages), dtype=np.float32)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.full((len(rows), width), self.pad_id, dtype=np.int64)
            types = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for row, i in enumerate(rows):
                encoding = encodings[i]
                ids[row, : len(encoding.ids)] = encoding.ids
                types[row, : len(encoding.type_ids)] = encoding.type_ids
                mask[row, : len(encoding.ids)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            feeds = {k: v.astype(self._inputs[k], copy=False) for k, v in feeds.items() if k in self._inputs}
            (logits,) = self.session.run(None, feeds)[:1]
            scores[rows] = np.asarray(logits, dtype=np.float32).reshape(len(rows), -1)[:, -1]
        return scores.tolist()


@functools.lru_cache(maxsize=2)
def _cross_encoder(files: RerankerFiles) -> CrossEncoder:
    return CrossEncoder(files)


def load_reranker(index: Index) -> CrossEncoder:
    return _cross_encoder(resolve_reranker(index.config.reranker_model))


def rerank_notes(
    index: Index, query: str, ranked: list[tuple[int, float]], best_chunk: dict[int, str]
) -> list[tuple[int, float]]:
    """The candidates re-ordered by the cross-encoder's score (its logit), best first."""
    if not ranked:
        return ranked
    reranker = load_reranker(index)
    ids = [note_id for note_id, _ in ranked]
    info = index.catalog.info(ids)
    spans = index.catalog.chunk_spans([(n, best_chunk[n]) for n in ids if n in best_chunk])
    passages = []
    for note_id in ids:
        _, title, _, text = info.get(note_id, ("", "", "", ""))
        span = spans.get((note_id, best_chunk.get(note_id, "")))
        body = text[span[1] : span[2]] if span and span[2] > span[1] else text
        passages.append(f"{title}\n{' '.join(body.split())[:PASSAGE_CHARS]}")
    scores = reranker.score(query, passages)
    return sorted(zip(ids, scores, strict=True), key=lambda item: (-item[1], item[0]))
