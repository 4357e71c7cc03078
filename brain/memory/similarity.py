"""Text similarity with the vault's embedder, for guidelines, consolidation and bootstrap.

The embedder is the one the vault's config names (`brain/index/embedders/embedders.py`), loaded once per
process. Vectors of short texts (tip subtasks, triggers, steps) are cached by content hash in
memory and in `.brain/index/text-vectors-<embedder>.npz` (derived and disposable like the rest
of the index), so a vault's tips are embedded once, not on every call.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from brain.config import load_config
from brain.index.engine import shared_embedder
from brain.vault.atomic import replace_file
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from brain.index.embedders.embedders import Embedder
    from brain.memory.corpus import Corpus


_LOCK = threading.Lock()  # two threads asking at once make one cache
_PLACEHOLDER = re.compile(r"<\w+>")
RECENT_QUERIES = 64


def vault_embedder(vault: Vault) -> Embedder:
    """The embedder the vault's config names, loaded once per process (shared with the index)."""
    config = load_config(vault.brain_dir)
    try:
        return shared_embedder(config.embedder, config.model_path)
    except ValueError as error:
        from brain.errors import InvalidInput

        raise InvalidInput(f"{vault.brain_dir / 'config.toml'}: {error}") from None


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


class TextVectors:
    """Unit vectors of texts, embedded once and kept by content hash."""

    def __init__(self, embedder: Embedder, path: Path | None):
        self.embedder = embedder
        self.path = path
        self._rows: dict[str, np.ndarray] = {}
        self._loaded = False
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()  # recent one-off texts
        self._queries_lock = threading.Lock()

    def _load(self) -> None:
        self._loaded = True
        if self.path is None or not self.path.is_file():
            return
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, matrix = data["keys"], data["vectors"]
        except (OSError, ValueError, KeyError):
            return  # a damaged cache is rebuilt, never an error
        if matrix.ndim == 2 and matrix.shape[1] == self.embedder.dim:
            self._rows.update(zip((str(k) for k in keys), matrix, strict=True))

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text (float32, L2-normalised)."""
        if not self._loaded:
            self._load()
        texts = [
            _PLACEHOLDER.sub(" ", text) for text in texts
        ]  # "<n>", "<path>": generalized entities carry no meaning
        keys = [_digest(text) for text in texts]
        missing = list(
            dict.fromkeys((key, text) for key, text in zip(keys, texts, strict=True) if key not in self._rows)
        )
        if missing:
            vectors = np.asarray(self.embedder.embed([text for _, text in missing]), dtype=np.float32)
            for (key, _), vector in zip(missing, vectors, strict=True):
                self._rows[key] = vector
            self._save()
        if not keys:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._rows[key] for key in keys]).astype(np.float32, copy=False)

    def query(self, text: str) -> np.ndarray:
        """The vector of a one-off text (a task), never cached on disk. The last few are kept in
        memory: a session bootstrap compares one task with patterns and with tips."""
        with self._queries_lock:
            if text in self._queries:
                self._queries.move_to_end(text)
                return self._queries[text]
        vector = np.asarray(self.embedder.embed([_PLACEHOLDER.sub(" ", text)])[0], dtype=np.float32)
        vector.flags.writeable = False
        with self._queries_lock:
            self._queries[text] = vector
            while len(self._queries) > RECENT_QUERIES:
                self._queries.popitem(last=False)
        return vector

    def _save(self) -> None:
        if self.path is None or not self.path.parent.is_dir():
            return
        keys = np.array(list(self._rows), dtype="U24")
        matrix = np.stack(list(self._rows.values())).astype(np.float32)
        try:
            replace_file(self.path, lambda out: np.savez(out, keys=keys, vectors=matrix))
        except OSError:
            return  # a cache: computed again next time


def text_vectors(corpus: Corpus, embedder: Embedder | None = None) -> TextVectors:
    """The open vault's vector cache for an embedder (the vault's own by default), kept in
    `corpus.kept` until the vault is closed."""
    embedder = embedder or vault_embedder(corpus.vault)
    key = f"text vectors:{embedder.id}"
    with _LOCK:
        if key not in corpus.kept:
            name = "text-vectors-" + hashlib.blake2b(embedder.id.encode(), digest_size=6).hexdigest() + ".npz"
            corpus.kept[key] = TextVectors(embedder, corpus.vault.index_dir / name)
        found: TextVectors = corpus.kept[key]
        return found


def cosine(query: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Similarity of one unit vector to each row of a matrix of unit vectors."""
    if matrix.size == 0:
        return np.zeros(0, dtype=np.float32)
    # einsum, not `matrix @ query`: BLAS splits a matrix-vector product over threads, and on a busy
    # machine waiting for the second thread costs far more than the product; einsum runs it on one thread.
    similarities: np.ndarray = np.einsum("ij,j->i", matrix, query)
    return similarities
