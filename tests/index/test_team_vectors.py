"""A team's clones of one vault share one collection on a real Chroma server (`chroma run`, the
`chroma_server` fixture): records are named by chunk text, so a clone embeds only what no clone has.

The clones are real `git clone`s of one repository: `.brain/config.toml` (with `chroma_url` and
`vault_id`) is committed, the rest of `.brain/` is not.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from pathlib import Path

import chromadb
import pytest

from brain.index.engine import open_index
from brain.index.vectors.identity import collection_name
from brain.vault.vault import Vault
from tests.conftest import lexical_vault, note_text, put, run_brain

MODEL = "lexical-hash-v1-384"
EMBEDDER = "(lexical-hash-v1:384)"


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def brain(vault: Vault, *args: str) -> str:
    result = run_brain(*args, "--vault", str(vault.root))
    assert result.exit_code == 0, result.output
    return result.output


def vector_hit(vault: Vault, query: str) -> str:
    found = json.loads(brain(vault, "search", query, "--mode", "vector", "--json"))
    return (found["results"] if isinstance(found, dict) else found)[0]["path"]


def server(url: str) -> chromadb.ClientAPI:
    host, port = url.removeprefix("http://").split(":")
    return chromadb.HttpClient(host=host, port=int(port))


def collections(url: str, vault_id: str) -> dict[str, int]:
    client = server(url)
    names = [item if isinstance(item, str) else item.name for item in client.list_collections()]
    return {name: client.get_collection(name).count() for name in names if name.startswith(f"brain-{vault_id}-")}


@pytest.fixture
def team(tmp_path, chroma_server) -> tuple[str, Path]:
    """A vault in git whose committed config names the server and a vault id; (the id, the repository)."""
    vault_id = f"team-{secrets.token_hex(4)}"
    origin = lexical_vault(tmp_path / "origin")
    config = origin.brain_dir / "config.toml"
    text = config.read_text().replace('# chroma_url = "http://127.0.0.1:8000"', f'chroma_url = "{chroma_server}"')
    config.write_text(text.replace('# vault_id = "team-notes"', f'vault_id = "{vault_id}"'))
    put(origin, "notes/a.md", note_text("A", "## One\nalpha words\n## Two\nbeta words"))
    put(origin, "notes/b.md", note_text("B", "gamma words"))
    git(origin.root, "init", "-q", "-b", "main")
    git(origin.root, "add", "-A")
    git(origin.root, "commit", "-q", "-m", "notes")
    git(origin.root, "config", "receive.denyCurrentBranch", "updateInstead")
    return vault_id, origin.root


def clone(team: tuple[str, Path], name: str) -> Vault:
    root = team[1].parent / name
    git(team[1].parent, "clone", "-q", str(team[1]), name)
    return Vault(root)


def test_a_second_clone_embeds_nothing_and_both_share_one_collection(team, chroma_server):
    vault_id, _ = team
    first, second = clone(team, "first"), clone(team, "second")
    assert not (second.brain_dir / "vault-id").exists()  # nothing of the first clone's state came with git

    assert brain(first, "index").strip().endswith(f"vectors: 3 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}")
    assert (
        brain(second, "index")
        .strip()
        .endswith(
            f"vectors: 0 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}; "
            "3 chunks taken from the shared vector store, not embedded again"
        )
    )
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 3}
    for vault in (first, second):
        status = brain(vault, "status")
        assert "index     up to date" in status and f"vectors   3 chunks in {chroma_server} (Chroma server)" in status
        assert vector_hit(vault, "alpha words") == "notes/a.md"


def test_a_pull_takes_the_vectors_another_clone_wrote(team, chroma_server):
    vault_id, _ = team
    first, second = clone(team, "first"), clone(team, "second")
    brain(first, "index")
    brain(second, "index")
    assert vector_hit(first, "gamma words") == "notes/b.md"  # the first clone holds its copy of the vectors now

    put(second, "notes/c.md", note_text("C", "delta words"))
    assert "vectors: 1 chunk embedded" in brain(second, "index")
    git(second.root, "add", "-A")
    git(second.root, "commit", "-q", "-m", "c")
    git(second.root, "push", "-q", "origin", "main")
    git(first.root, "pull", "-q", "origin", "main")
    assert (
        brain(first, "index")
        .strip()
        .endswith(
            f"vectors: 0 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}; "
            "1 chunk taken from the shared vector store, not embedded again"
        )
    )
    assert vector_hit(first, "delta words") == "notes/c.md"  # in this process's copy too, without embedding it
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 4}


def test_a_clone_deleting_a_note_leaves_the_shared_vectors_to_the_others(team, chroma_server):
    vault_id, _ = team
    first, second = clone(team, "first"), clone(team, "second")
    brain(first, "index")
    brain(second, "index")
    (first.root / "notes/a.md").unlink()
    assert "0 chunks embedded, 0 unchanged, 2 deleted" in brain(first, "index")
    assert brain(first, "status").count("vectors   1 chunk in") == 1
    # a's chunks stay on the server: the second clone still has the note and finds it by meaning
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 3}
    assert "index     up to date" in brain(second, "status")
    assert vector_hit(second, "alpha words") == "notes/a.md"
    # and a `brain reindex` in one clone drops none of them: each record is named by its text, none is stale
    assert (
        brain(first, "reindex")
        .strip()
        .endswith(
            f"vectors: 0 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}; "
            "1 chunk taken from the shared vector store, not embedded again"
        )
    )
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 3}


def test_vectors_a_vault_kept_on_a_server_before_are_taken_over(team, chroma_server):
    """A vault indexed on a server before brain shared vectors has a collection of `<note id>:<chunk id>`
    records, named by `.brain/vault-id`; the shared collection takes them: nothing is embedded again."""
    vault_id, _ = team
    first = clone(team, "first")
    brain(first, "index")
    client = server(chroma_server)
    shared = client.get_collection(f"brain-{vault_id}-{MODEL}-shared")
    records = shared.get(include=["embeddings"])
    index = open_index(first)
    notes = {chunk: note for note, chunk in index.catalog.chunk_ids()}
    old_name = collection_name(first.root, index.vectors.embedder_id)
    index.close()
    old = client.create_collection(
        old_name, metadata={"embedder": "lexical-hash-v1:384", "vault_root": str(first.root)}
    )
    old.add(ids=[f"{notes[chunk]}:{chunk}" for chunk in records["ids"]], embeddings=records["embeddings"])
    client.delete_collection(shared.name)

    assert "index     up to date" in brain(first, "status")
    assert old_name not in [item if isinstance(item, str) else item.name for item in client.list_collections()]
    assert brain(first, "index").strip().endswith(f"vectors: 0 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}")
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 3}


def test_a_vault_id_brain_cannot_use_is_one_line(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('# vault_id = "team-notes"', 'vault_id = "team notes!"'))
    result = run_brain("status", "--vault", str(vault.root))
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"error: {config}: vault_id = 'team notes!' must be 1 to 60 letters, digits and dashes, such as \"team-notes\""
    )


def test_prune_deletes_what_this_clone_does_not_use_and_another_clone_embeds_it_again(team, chroma_server):
    vault_id, _ = team
    first, second = clone(team, "first"), clone(team, "second")
    brain(first, "index")
    brain(second, "index")
    (first.root / "notes/a.md").unlink()
    assert (
        brain(first, "index", "--prune")
        .strip()
        .endswith("shared vectors: 2 chunks no note here uses deleted from the server")
    )
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 1}
    # the second clone still has a: it sees the loss, and its next index embeds those 2 chunks again
    assert "index     the vector store lacks 2 of 3 chunks (1 note)" in brain(second, "status")
    assert (
        brain(second, "index")
        .strip()
        .endswith(
            f"vectors: 2 chunks embedded, 0 unchanged, 0 deleted {EMBEDDER}; 2 of them had been lost from the vector store"
        )
    )
    assert vector_hit(second, "alpha words") == "notes/a.md"
    assert collections(chroma_server, vault_id) == {f"brain-{vault_id}-{MODEL}-shared": 3}


def test_prune_without_a_server_says_there_is_nothing_to_prune(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "notes/a.md", note_text("A", "alpha words"))
    assert brain(vault, "index", "--prune").strip().endswith("nothing to prune: the vectors are not on a Chroma server")
