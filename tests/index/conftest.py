"""The index room's shared fixture: vault-example indexed with the real model, once per session."""

from __future__ import annotations

import shutil

import pytest

from brain.index.engine import forget, open_index
from brain.index.sync.sync import index_vault
from brain.vault import Vault
from tests.conftest import REPO


@pytest.fixture(scope="session")
def example(tmp_path_factory) -> Vault:
    """vault-example/, indexed once with the real model for every test about meaning."""
    root = tmp_path_factory.mktemp("example") / "vault"
    shutil.copytree(REPO / "vault-example", root, ignore=shutil.ignore_patterns(".brain"))
    (root / ".brain").mkdir()
    vault = Vault(root)
    index = open_index(vault)
    assert index.embedder.id == "all-MiniLM-L6-v2:int8-onnx", "the real model must be installed for these tests"
    index_vault(open_index(vault))
    yield vault
    forget(vault.root)
