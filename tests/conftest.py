"""Shared fixtures: real vaults in temp folders, and the CLI through typer's CliRunner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from brain.cli import app
from brain.vault import Vault, init_vault

DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]
ADR_EPISODE = DATA / "EPISODE-2026-01-21-session-42.md"
ADR_PATTERN = DATA / "PATTERN-serena-first-routing.md"


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    created, _ = init_vault(tmp_path / "vault")
    return created


@pytest.fixture
def adr_vault(vault: Vault) -> Vault:
    """A vault holding the two example notes of the ADR-018 seed, copied verbatim."""
    shutil.copy(ADR_EPISODE, vault.root / "episodes" / ADR_EPISODE.name)
    shutil.copy(ADR_PATTERN, vault.root / "patterns" / ADR_PATTERN.name)
    return vault


@pytest.fixture
def brain(vault: Vault):
    """Run `brain ...` against the test vault; returns the click Result."""
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(app, [*args, "--vault", str(vault.root)] if _takes_vault(args) else list(args), input=input, catch_exceptions=False)

    return run


def _takes_vault(args: tuple[str, ...]) -> bool:
    return bool(args) and args[0] not in ("init", "--help")


def write(vault: Vault, relative: str, text: str) -> Path:
    path = vault.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def real_embedder():
    """all-MiniLM-L6-v2, loaded once for every test of the session that is about meaning."""
    from brain.index.embedders import load_embedder

    embedder = load_embedder("default", warn=lambda message: pytest.fail(message))
    assert embedder.id == "all-MiniLM-L6-v2:int8-onnx", "the real model must be installed for these tests"
    return embedder
