"""The embedding model as onnxruntime optimizes it, saved once, so a process loads it faster and in less memory.

The int8 model's weights go through DequantizeLinear; onnxruntime's graph optimizer folds those
into float32 constants when it loads the model, and while it does, the model, the folded copy
and the optimizer's work are all in memory at once. The optimized graph is the same every time,
so the first load saves it (`optimized_model_filepath`) with its weights in a separate file, and
later loads read that file without optimizing again: the weights are mapped from the file, so
loading is faster and the process's peak memory much lower. The vectors are bit-for-bit the
same (the same kernels run on the same graph).

The files live in `$XDG_CACHE_HOME/brain/models/` (default `~/.cache/brain/models/`), one folder
per model file (path, size and mtime) and onnxruntime version. They are derived: delete them at
any time. When the folder cannot be written, the model is simply optimized at each load, as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from brain.vault.atomic import write_json

MODEL_FILE = "model.onnx"
WEIGHTS_FILE = "model.data"  # named inside model.onnx: the two are written and moved together


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "brain" / "models"


def file_sha256(path: Path) -> str:
    """The file's sha256, hashed once per version of the file (not again at every one-shot process
    that loads it)."""

    def digest() -> str:
        with path.open("rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()

    return str(file_fact(path, "sha256", digest))


def file_fact(path: Path, name: str, compute: Callable[[], Any]) -> Any:
    """A fact about a file (its sha256, a model's vector length), computed once and remembered in
    the cache by (path, size, mtime): a changed file is asked again."""
    stat = path.stat()
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    memo = cache_root() / "hashes.json"
    try:
        known = json.loads(memo.read_text("utf-8"))
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}
    entry = known.get(str(path))
    entry = entry if isinstance(entry, dict) and {k: entry.get(k) for k in stamp} == stamp else dict(stamp)
    if name in entry:
        return entry[name]
    value = entry[name] = compute()
    known[str(path)] = entry
    remember_json(memo, known)
    return value


def remember_json(path: Path, data: dict[str, Any], *, indent: int | None = 1) -> None:
    """Best effort: a cache file that cannot be written (or data JSON cannot hold) is simply
    computed again next time. The file is replaced whole: a reader sees the old or the new."""
    try:
        write_json(path, data, indent=indent)
    except (OSError, TypeError, ValueError):
        return


def _folder(model_path: str, ort_version: str) -> Path:
    stat = os.stat(model_path)
    key = f"{os.path.realpath(model_path)}|{stat.st_size}|{stat.st_mtime_ns}|{ort_version}"
    return cache_root() / hashlib.sha256(key.encode()).hexdigest()[:24]


def session(model_path: str, options: Any) -> Any:
    """An InferenceSession of the model; from the saved optimized graph when there is one, else
    optimizing as usual and saving the result for the next process. `options` is changed."""
    import onnxruntime as ort

    providers = ["CPUExecutionProvider"]
    try:
        folder = _folder(model_path, ort.__version__)
    except (OSError, RuntimeError):  # RuntimeError: no home folder to put a cache in
        return ort.InferenceSession(model_path, sess_options=options, providers=providers)
    saved = folder / MODEL_FILE
    if saved.is_file() and (folder / WEIGHTS_FILE).is_file():
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return ort.InferenceSession(str(saved), sess_options=options, providers=providers)
        except Exception:  # a damaged cache: optimize again below (and replace it)
            shutil.rmtree(folder, ignore_errors=True)
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Saved at the EXTENDED level: ALL adds layout changes for this machine's CPU that onnxruntime
    # warns must not be saved; for this model they change nothing (the vectors are identical).
    level = options.graph_optimization_level
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".saving-"))
    except OSError:
        options.graph_optimization_level = level
        return ort.InferenceSession(model_path, sess_options=options, providers=providers)
    try:
        options.optimized_model_filepath = str(temporary / MODEL_FILE)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS_FILE)
        options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        created = ort.InferenceSession(model_path, sess_options=options, providers=providers)
        try:
            os.rename(temporary, folder)  # atomic: another process's copy, if it won, stays
        except OSError:
            pass
        return created
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
