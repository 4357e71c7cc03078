"""Shared fixtures and helpers: real vaults in temp folders, the CLI through typer's CliRunner (a crash
is raised, never turned into exit code 1), the index helpers, and a real Chroma server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zlib
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brain.cli import app
from brain.index.engine import Index, open_index
from brain.index.sync.sync import index_vault
from brain.vault.init import init_vault
from brain.vault.vault import Vault

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]
ADR_EPISODE = DATA / "EPISODE-2026-01-21-session-42.md"
ADR_PATTERN = DATA / "PATTERN-serena-first-routing.md"
AI_AGENTS = DATA / "ai-agents"  # real ai-agents episodes and causal graphs (MIT, see its README)
TRANSCRIPTS = DATA / "transcripts"  # Claude Code, Codex and Gemini CLI sessions, made and public (see its README)
# the made Claude Code session, Codex rollout and Gemini CLI chat many tests read (tests/data/transcripts/README.md)
CLAUDE = TRANSCRIPTS / "claude-code" / "-work-demo" / "7f3c2a10-5b1e-4c2d-9a8e-0d4b6f1e2a33.jsonl"
CODEX = (
    TRANSCRIPTS
    / "codex"
    / "2026"
    / "03"
    / "14"
    / "rollout-2026-03-14T10-00-00-0199a3b2-1c4d-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
)
GEMINI = TRANSCRIPTS / "gemini" / "3f9a0c1d2b" / "chats" / "session-2026-03-20T09-00-7c1e2d3f.jsonl"
# A chat Gemini CLI 0.61.0 wrote in the end-to-end check (tests/e2e/gemini_e2e.py, its session 2), paths
# replaced: the session-start context before the prompt, a command that fails (exit code 1, which Gemini CLI
# records as a `success`), then one that works.
GEMINI_REAL = TRANSCRIPTS / "gemini-cli-0.61" / "demo-app" / "chats" / "session-2026-12-07T15-19-a0290670.jsonl"


# Tests that take seconds are marked `slow`, so `pytest -m "not slow"` is a quick run while editing
# (the README's command runs them all): those that ask for the real model or a Chroma server, and
# the modules whose tests build a real-model index, start servers or generate many cases (the
# slowest in `pytest --durations=40`).
SLOW_FIXTURES = {"real_embedder", "embedder", "chroma_server", "example"}
SLOW_MODULES = {  # by their path under tests/, dotted
    "index.test_search",  # half of it against a `chroma run` server (asked for inside a fixture)
    "index.test_search_quality",  # vault-example and a HotpotQA sample indexed with the real model
    "importers.test_ai_agents",
    "mcp.test_tools_over_stdio",
    "mcp.test_http",
    "index.test_chroma_server",
    "index.test_vector_consistency",
    "memory.sessions.test_protocol",
    "memory.runs.test_recall",
    "index.test_model_cache",
    "notes.test_parse_properties",
    "promises.test_examples",  # vault-example indexed with the real model, the README's examples run
    "promises.test_clean_clone",  # the README's main command, in subprocesses
    "ui.test_package",  # builds the wheel
}


def pytest_collection_modifyitems(items):
    for item in items:
        module = getattr(item, "module", None)
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or (
            module is not None and module.__name__.removeprefix("tests.") in SLOW_MODULES
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _model_cache(tmp_path_factory):
    """The optimized model brain saves (brain/index/embedders/model_cache.py) goes to a folder of this session,
    not the user's ~/.cache; subprocesses inherit it."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    created, _ = init_vault(tmp_path / "vault")
    return created


@pytest.fixture
def adr_vault(vault: Vault) -> Vault:
    """A vault holding the example episode and pattern of tests/data (ai-agents layout), copied verbatim."""
    shutil.copy(ADR_EPISODE, vault.root / "episodes" / ADR_EPISODE.name)
    shutil.copy(ADR_PATTERN, vault.root / "patterns" / ADR_PATTERN.name)
    return vault


@pytest.fixture
def brain(vault: Vault):
    """Run `brain ...` against the test vault; returns the click Result."""

    def run(*args: str, input: str | None = None):
        return run_brain(*([*args, "--vault", str(vault.root)] if _takes_vault(args) else args), input=input)

    return run


def run_brain(*args: str, input: str | None = None, env: dict[str, str | None] | None = None):
    """`brain ARGS` in-process; an exception escapes to the test instead of becoming exit code 1.
    `env` sets (or, with None, unsets) environment variables for the command."""
    return CliRunner().invoke(app, list(args), input=input, env=env, catch_exceptions=False)


def _takes_vault(args: tuple[str, ...]) -> bool:
    return bool(args) and args[0] not in ("init", "--help")


def write(vault: Vault, relative: str, text: str) -> Path:
    path = vault.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


put = write  # the index tests' name for it


# ---------------------------------------------------------------- the index


def lexical_vault(root: Path) -> Vault:
    """A vault indexed with the deterministic lexical embedder (plumbing tests need no model)."""
    vault, _ = init_vault(root)
    return use_lexical(vault)


def use_lexical(vault: Vault) -> Vault:
    """The vault's config names the lexical embedder: every open of it (the CLI's, the test's) uses it."""
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    return vault


def holding(root: Path, text: str) -> list[str]:
    """Files whose bytes (a history object's as it keeps them) hold `text`."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            if ".brain/history/objects/" in path.as_posix():
                data = zlib.decompress(data)
            if text.encode() in data:
                found.append(path.relative_to(root).as_posix())
    return found


def note_text(title: str, body: str, **fields: str) -> str:
    extra = "".join(f"{key}: {value}\n" for key, value in fields.items())
    return f"---\ntitle: {title}\n{extra}---\n# {title}\n\n{body}\n"


def state(vault: Vault) -> dict:
    """What the indexes hold, by path (ids differ between runs): rows, FTS, chunks, vectors (read
    through a handle of their own, closed after)."""
    with closing(open_index(vault)) as index:
        return _state(index)


def _state(index: Index) -> dict:
    from brain.index.sync.sync import catch_up_vectors

    catch_up_vectors(index)  # Chroma as the catalog says, the vectors written behind included
    db = index.catalog.db
    rows = db.execute("SELECT id, path, sha256, type, title, parsed, searchable FROM notes").fetchall()
    by_id = {row[0]: row[1] for row in rows}
    fts = db.execute("SELECT rowid, title, body FROM fts").fetchall()
    chunks = db.execute("SELECT note_id, id FROM chunks").fetchall()
    vectors = index.vectors.collection(create=False)
    records = vectors.get(include=["metadatas"]) if vectors is not None else {"ids": [], "metadatas": []}
    return {
        "notes": sorted(row[1:] for row in rows),
        "fts": sorted((by_id.get(rowid), title, body) for rowid, title, body in fts),
        "chunks": sorted((by_id.get(n), c) for n, c in chunks),
        "vectors": sorted(
            (meta["path"], rid.split(":", 1)[1]) for rid, meta in zip(records["ids"], records["metadatas"], strict=True)
        ),
        "pending": index.catalog.pending_vectors(),
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Vault:
    """vault-example/, indexed once with the real model for every test about meaning."""
    root = tmp_path_factory.mktemp("example") / "vault"
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns(".brain"))
    (root / ".brain").mkdir()
    vault = Vault(root)
    index = open_index(vault)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-rows-onnx", "the real model must be installed for these tests"
    index_vault(index)
    index.close()
    yield vault


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory) -> str:
    """A real `chroma run` on 127.0.0.1 (the command ships with chromadb); yields its URL."""
    command = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    port = free_port()
    log = tmp_path_factory.mktemp("chroma-log") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                command,
                "run",
                "--path",
                str(tmp_path_factory.mktemp("chroma-data")),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"chroma server did not start: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
    yield url
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def real_embedder():
    """all-MiniLM-L6-v2, loaded once for every test of the session that is about meaning."""
    from brain.index.embedders.embedders import load_embedder

    embedder = load_embedder("default", warn=lambda message: pytest.fail(message))
    assert embedder.id == "all-MiniLM-L6-v2:int8-rows-onnx", "the real model must be installed for these tests"
    return embedder


@pytest.fixture(scope="session")
def embedder(real_embedder):
    """The same real model, under the name the learning tests use."""
    return real_embedder
