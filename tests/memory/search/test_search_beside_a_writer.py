"""`brain search` while `brain index` writes the vectors, in real processes: a search never fails and
never opens the embedded Chroma store beside the writer (that failed with `chromadb.errors.InternalError`);
it answers from the last snapshot of the vectors and counts the notes it lacks.

Lexical embedder throughout (these are about plumbing, not meaning).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.search.service import search_report
from tests.conftest import lexical_vault, note_text, put

NOTES = 1500
HOLD_THE_LOCK = """
import sys, time
from filelock import FileLock
lock = FileLock(sys.argv[1], thread_local=False)
lock.acquire()
print("held", flush=True)
time.sleep(600)
"""


@pytest.fixture
def vault(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    yield vault


def _brain(*args: str) -> list[str]:
    return [sys.executable, "-m", "brain", *args]


def _body(number: int, round_: int) -> str:
    return f"orchard {number} round {round_}\n\n## Harvest\napples pears cherries {number % 17}\n"


def test_searches_while_brain_index_writes_the_vectors_never_fail(vault):
    for number in range(NOTES):
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", _body(number, 0)))
    index_vault(open_index(vault))
    for number in range(NOTES):  # every note changed: `brain index` embeds and deletes thousands of chunks
        put(vault, f"notes/n{number}.md", note_text(f"Note {number}", _body(number, 1)))
    env = os.environ.copy()
    indexer = subprocess.Popen(_brain("index", "--vault", str(vault.root)), env=env, stdout=subprocess.PIPE, text=True)
    searches = []
    while indexer.poll() is None or len(searches) < 3:
        searches.append(
            subprocess.run(
                _brain("search", "apples pears", "--mode", "vector", "--limit", "3", "--vault", str(vault.root)),
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
            )
        )
    indexer.wait()
    assert indexer.returncode == 0
    failed = [
        (done.returncode, done.stderr[-300:]) for done in searches if done.returncode != 0 or "Traceback" in done.stderr
    ]
    assert failed == []
    assert all(" 1. Note " in done.stdout for done in searches)
    final = search_report(open_index(vault), "orchard 7 round 1", mode="vector", limit=1)
    assert final.pending == 0 and final.hits[0].path == "notes/n7.md"


def test_while_another_process_holds_the_index_a_search_reads_the_last_snapshot(vault):
    put(vault, "notes/a.md", note_text("A", "apples and pears"))
    put(vault, "notes/b.md", note_text("B", "cherries and plums"))
    index_vault(open_index(vault))
    snapshot = open_index(vault).vectors.snapshot_path
    older = snapshot.read_bytes()  # the vectors of a and b
    put(vault, "notes/c.md", note_text("C", "apples in the orchard"))
    put(vault, "notes/b.md", note_text("B", "apples and plums"))  # b's chunk is another text now
    index_vault(open_index(vault))
    snapshot.write_bytes(older)  # as if the writer had not saved one since
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK, str(vault.index_dir / "index.lock")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        # the last snapshot, only the chunks the catalog lists now: a's; b and c are counted as waiting
        report = search_report(open_index(vault), "apples", mode="vector")
        assert ([hit.path for hit in report.hits], report.pending) == (["notes/a.md"], 2)
        words = search_report(open_index(vault), "apples", mode="text")  # the catalog has them all
        assert sorted(hit.path for hit in words.hits) == ["notes/a.md", "notes/b.md", "notes/c.md"]
        snapshot.unlink()
        nothing = search_report(open_index(vault), "apples", mode="vector")
        assert (nothing.hits, nothing.pending) == ([], 3)
        assert snapshot.exists() is False  # nothing was read from Chroma, so nothing saved
    finally:
        holder.kill()
        holder.wait()
    # The lock is free: read from Chroma, which lacks b's and c's vectors (written behind, and the
    # snapshot that held them is gone): they are counted as waiting, and embedded again at the catch-up.
    report = search_report(open_index(vault), "apples", mode="vector")
    assert ([hit.path for hit in report.hits], report.pending) == (["notes/a.md"], 2)
    assert snapshot.is_file()
    caught = index_vault(open_index(vault), catch_up=True)
    assert caught.caught_up is not None and caught.caught_up.lost == 2 and caught.embed.embedded == 2
    report = search_report(open_index(vault), "apples", mode="vector")
    assert report.pending == 0 and sorted(hit.path for hit in report.hits) == ["notes/a.md", "notes/b.md", "notes/c.md"]
