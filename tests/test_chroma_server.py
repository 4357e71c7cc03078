"""The search tests again, with the vectors on a real Chroma server (`chroma run` on 127.0.0.1)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from brain.index.engine import forget, open_index
from brain.index.search import search
from brain.index.sync import index_vault
from brain.vault import Vault

from test_search import (  # noqa: F401 - collected here again, against the server
    EXAMPLE,
    test_bad_arguments_are_clear_errors,
    test_filters_apply_before_ranking,
    test_search_sees_edits_without_an_explicit_index,
    test_words_find_the_note_section_and_snippet,
    vault,
)

CHROMA = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMA).exists():
        pytest.skip("the `chroma` command (it ships with chromadb) is not installed")
    port = free_port()
    log = tmp_path_factory.mktemp("chroma-log") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([CHROMA, "run", "--path", str(tmp_path_factory.mktemp("chroma-data")), "--host", "127.0.0.1",
                                    "--port", str(port)], stdout=out, stderr=subprocess.STDOUT)
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


@pytest.fixture
def chroma_url(server) -> str:
    return server


def test_vectors_live_on_the_server(vault, chroma_url):
    (vault.root / "notes").mkdir(exist_ok=True)
    (vault.root / "notes/a.md").write_text("---\ntitle: A\n---\nserver side words\n")
    report = index_vault(vault)
    assert report.embed.embedded == 1
    index = open_index(vault)
    assert index.vectors.location.startswith(chroma_url) and not (vault.index_dir / "chroma").exists()
    import chromadb

    host, port = chroma_url.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port))
    assert client.get_collection(index.vectors.name).count() == 1


def test_meaning_on_the_server_with_the_real_model(tmp_path, chroma_url):
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE / "decisions", root / "decisions")
    shutil.copytree(EXAMPLE / "facts", root / "facts")
    (root / ".brain").mkdir()
    vault = Vault(root)
    index = open_index(vault, chroma_url=chroma_url)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-onnx"
    index_vault(vault)
    hits = search(vault, "smartphone sign-in safety", limit=2)
    assert hits[0].path == "decisions/ADR-002 OAuth2 Authorization Code with PKCE for Mobile.md"
    forget(vault.root)
