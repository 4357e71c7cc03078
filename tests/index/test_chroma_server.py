"""Vectors on a real Chroma server (`chroma run` on 127.0.0.1, the `chroma_server` fixture).

test_search.py runs its plumbing tests against the server too.
"""

from __future__ import annotations

import shutil

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search.service import search
from brain.vault.vault import Vault
from tests.conftest import REPO, lexical_vault

EXAMPLE = REPO / "vault-example"


def test_vectors_live_on_the_server(tmp_path, chroma_server):
    vault = lexical_vault(tmp_path / "vault")
    index = open_index(vault, chroma_url=chroma_server)
    (vault.root / "notes").mkdir(exist_ok=True)
    (vault.root / "notes/a.md").write_text("---\ntitle: A\n---\nserver side words\n")
    report = index_vault(index)
    assert report.embed.embedded == 1
    assert index.vectors.location.startswith(chroma_server) and not (vault.index_dir / "chroma").exists()
    import chromadb

    host, port = chroma_server.removeprefix("http://").split(":")
    client = chromadb.HttpClient(host=host, port=int(port))
    assert client.get_collection(index.vectors.name).count() == 1


def test_meaning_on_the_server_with_the_real_model(tmp_path, chroma_server):
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE / "decisions", root / "decisions")
    shutil.copytree(EXAMPLE / "facts", root / "facts")
    (root / ".brain").mkdir()
    vault = Vault(root)
    index = open_index(vault, chroma_url=chroma_server)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-rows-onnx"
    index_vault(index)
    hits = search(index, "smartphone sign-in safety", limit=2)
    assert hits[0].path == "decisions/ADR-002 OAuth2 Authorization Code with PKCE for Mobile.md"
