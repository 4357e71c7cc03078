"""`.brain/config.toml`: the few settings a vault can change. Missing keys take defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from brain.errors import InvalidInput

DEFAULT_CONFIG = """\
# brain settings for this vault. Every key is optional.

[index]
# "default" is all-MiniLM-L6-v2 on onnxruntime; "lexical" needs no model.
embedder = "default"
# model_path = "/path/to/folder/with/model.onnx/and/tokenizer.json"
# chroma_url = "http://127.0.0.1:8000"

[antipatterns]
max_success_rate = 0.3
min_occurrences = 2
"""


@dataclass(frozen=True)
class Config:
    embedder: str = "default"
    model_path: str | None = None
    chroma_url: str | None = None
    antipattern_max_success_rate: float = 0.3  # `brain pattern antipatterns` and get_antipatterns, unless given
    antipattern_min_occurrences: int = 2
    learning_model_url: str | None = None  # [learning]: a chat endpoint `brain tip learn --model` may ask
    learning_model: str | None = None
    learning_api_key_env: str | None = None  # the name of the environment variable holding its key
    rerank: bool = False  # [search] rerank: `brain search` reranks unless --no-rerank
    reranker_model: str | None = None  # [search] reranker_model: a cross-encoder folder or .onnx file


def load_config(brain_dir: Path) -> Config:
    path = brain_dir / "config.toml"
    if not path.is_file():
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(f"{path} is not valid TOML ({error}); fix it or delete it to use the defaults") from None
    index = data.get("index", {}) if isinstance(data.get("index"), dict) else {}
    anti = data.get("antipatterns", {}) if isinstance(data.get("antipatterns"), dict) else {}
    learning = data.get("learning", {}) if isinstance(data.get("learning"), dict) else {}
    searching = data.get("search", {}) if isinstance(data.get("search"), dict) else {}
    if not isinstance(searching.get("rerank", False), bool):
        raise InvalidInput(f"{path}: [search] rerank must be true or false")
    try:
        return Config(
            embedder=str(index.get("embedder", "default")),
            model_path=index.get("model_path") or None,
            chroma_url=index.get("chroma_url") or None,
            antipattern_max_success_rate=float(anti.get("max_success_rate", 0.3)),
            antipattern_min_occurrences=int(anti.get("min_occurrences", 2)),
            learning_model_url=str(learning["model_url"]) if learning.get("model_url") else None,
            learning_model=str(learning["model"]) if learning.get("model") else None,
            learning_api_key_env=str(learning["api_key_env"]) if learning.get("api_key_env") else None,
            rerank=searching.get("rerank", False),
            reranker_model=searching.get("reranker_model") or None,
        )
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"{path}: a value has the wrong type ({error})") from None
