"""The Corpus loads notes by type from the catalog, selects by header without decoding the rest,
keeps per-note summaries on disk by file hash, and checks the files once per `checked_once`."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.index.catalog import codec
from brain.index.catalog.summaries import has_shape, summary_path
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.corpus import Corpus
from brain.memory.episodes.service import list_episodes
from brain.memory.patterns.service import antipatterns, list_patterns
from brain.vault.note_files import parse_bytes
from tests.conftest import REPO, lexical_vault, note_text, put

EXAMPLE = REPO / "vault-example"
PATHS = ["a.md", "b.md", "sub/c.md", "d.md"]
TYPES = ["pattern", "episode", "note"]
_clock = itertools.count(1_700_000_000_000_000_000, 1_000_000_000)


def _write(vault, relative: str, kind: str, mark: str) -> None:
    path = put(vault, relative, note_text(f"T {relative}", f"body {mark}", type=kind, mark=mark))
    stamp = next(_clock)  # a distinct mtime for every write, whatever the clock's resolution
    os.utime(path, ns=(stamp, stamp))


def _on_disk(vault) -> list:
    """The notes as the files say, parsed afresh: what every read must equal."""
    notes = []
    for relative in sorted(PATHS):
        path = vault.root / relative
        if path.is_file():
            notes.append(parse_bytes(path.read_bytes(), relative))
    return notes


def _keep(header) -> bool:
    return str(header.frontmatter.get("mark", "")).endswith(("0", "2", "4"))


writes = st.tuples(st.just("write"), st.sampled_from(PATHS), st.sampled_from(TYPES), st.integers(0, 9))
deletes = st.tuples(st.just("delete"), st.sampled_from(PATHS), st.just(""), st.just(0))
reads = st.sampled_from(["notes", *[f"type:{t}" for t in TYPES], *[f"select:{t}" for t in TYPES]])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.one_of(writes, deletes), reads), min_size=1, max_size=10))
def test_a_long_lived_corpus_reads_by_type_as_the_files_say(steps):
    """Whatever was loaded before (one type, several, all) and whatever changed since (a note
    edited, retyped, removed), every read equals the files parsed afresh."""
    with tempfile.TemporaryDirectory() as folder:
        vault = lexical_vault(Path(folder) / "vault")
        _write(vault, "a.md", "pattern", "0")
        with closing(open_index(vault)) as index:
            index_vault(index, embed=False)
        corpus = Corpus(vault)
        try:
            for (action, relative, kind, mark), read in steps:
                if action == "write":
                    _write(vault, relative, kind, str(mark))
                elif (vault.root / relative).is_file():
                    (vault.root / relative).unlink()
                truth = _on_disk(vault)
                what, _, kind_read = read.partition(":")
                if what == "notes":
                    assert corpus.notes() == truth
                elif what == "type":
                    assert corpus.of_type(kind_read) == [n for n in truth if n.type == kind_read]
                else:
                    expected = [n for n in truth if n.type == kind_read and _keep(n.header)]
                    assert corpus.select(kind_read, _keep) == expected
        finally:
            corpus.close()


@pytest.fixture
def example(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    shutil.copytree(EXAMPLE, vault.root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".brain"))
    index_vault(open_index(vault), embed=False)
    yield vault


def test_select_decodes_only_the_notes_it_keeps(example, monkeypatch):
    decoded = []
    real = codec.decode
    monkeypatch.setattr(codec, "decode", lambda *args: decoded.append(args[3]) or real(*args))
    corpus = Corpus(example)
    found = corpus.select("pattern", lambda header: header.title.startswith("ANTIPATTERN-"))
    titles = [note.title for note in found]
    assert titles == [
        "ANTIPATTERN-coupled-schema-and-code-deploy",
        "ANTIPATTERN-retry-flaky-tests-blindly",
        "ANTIPATTERN-retry-without-idempotency",
        "ANTIPATTERN-synchronized-cache-expiry",
    ]
    assert sorted(decoded) == sorted(note.path for note in found)
    # once the type is loaded, a select filters what is in memory and decodes nothing more
    patterns = corpus.of_type("pattern")
    decoded.clear()
    assert corpus.select("pattern", lambda header: header.title.startswith("ANTIPATTERN-")) == found
    assert decoded == [] and len(patterns) == 19


def test_antipatterns_by_header_are_the_antipatterns_of_every_pattern(example):
    """The header shortcut keeps exactly the parsed patterns at most 0.3 successful over 2 or more occurrences."""
    every = [
        p
        for p in list_patterns(Corpus(example))
        if p.success_rate is not None and p.occurrences is not None and p.success_rate <= 0.3 and p.occurrences >= 2
    ]
    every.sort(key=lambda p: (p.success_rate, -(p.occurrences or 0), p.title))
    assert [p.title for p in antipatterns(Corpus(example))] == [p.title for p in every]
    assert [p.title for p in antipatterns(Corpus(example), max_success_rate=0.2, min_occurrences=2)] == [
        "ANTIPATTERN-retry-without-idempotency",
        "ANTIPATTERN-retry-flaky-tests-blindly",
    ]


def test_summaries_are_computed_once_per_file_content(example):
    calls: list[str] = []

    def words(note) -> list:
        calls.append(note.path)
        return [note.title, len(note.body.split())]

    first = Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count)
    assert len(first) == len(calls) == 19 and first[0] == ["ANTIPATTERN-coupled-schema-and-code-deploy", 214]
    stored = json.loads(summary_path(example.index_dir, "test-words-1").read_text())
    assert len(stored) == 19
    calls.clear()
    assert Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count) == first and calls == []

    edited = example.root / "patterns" / "PATTERN-safe-client-retries.md"
    edited.write_text(edited.read_text() + "\nTwo more words.\n")
    (example.root / "patterns" / "ANTIPATTERN-synchronized-cache-expiry.md").unlink()
    again = Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count)
    assert calls == ["patterns/PATTERN-safe-client-retries.md"]
    assert (
        len(again) == 18
        and ["PATTERN-safe-client-retries", dict(first_titles(first))["PATTERN-safe-client-retries"] + 3] in again
    )

    summary_path(example.index_dir, "test-words-1").write_text("{not json")  # damaged: computed again
    calls.clear()
    assert Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count) == again and len(calls) == 18

    loaded = Corpus(example)
    loaded.of_type("pattern")  # the notes are in memory: nothing is read from disk or written to it
    summary_path(example.index_dir, "test-words-1").unlink()
    assert loaded.summaries("test-words-1", "pattern", words, _title_and_count) == again
    assert not summary_path(example.index_dir, "test-words-1").exists()


def _title_and_count(value) -> bool:
    return has_shape(value, (str, int))


def _is_text(value) -> bool:
    return isinstance(value, str)


def test_a_summary_of_another_shape_under_the_right_hash_is_computed_again(example):
    """A value the set's shape refuses (a file edited by hand, or by another version of brain) is
    never handed to the caller: it is computed again and the file repaired; the rest are kept."""
    calls: list[str] = []

    def words(note) -> list:
        calls.append(note.path)
        return [note.title, len(note.body.split())]

    first = Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count)
    path = summary_path(example.index_dir, "test-words-1")
    original = json.loads(path.read_text())
    stored = json.loads(path.read_text())
    wrong = {
        "patterns/PATTERN-safe-client-retries.md": "a string",
        "patterns/ANTIPATTERN-synchronized-cache-expiry.md": ["title only"],
        "patterns/ANTIPATTERN-retry-without-idempotency.md": [True, 3],
        "patterns/ANTIPATTERN-retry-flaky-tests-blindly.md": [{"title": 1}, 2.5],
    }
    for key, value in wrong.items():
        stored[key] = [stored[key][0], value]  # the right hash, a value of another shape
    path.write_text(json.dumps(stored))
    calls.clear()
    assert Corpus(example).summaries("test-words-1", "pattern", words, _title_and_count) == first
    assert sorted(calls) == sorted(wrong)
    assert json.loads(path.read_text()) == original  # the file holds the right values again


def test_shapes_are_exact() -> None:
    from brain.index.catalog.summaries import ListOf

    shape = (str, float, int | None, ListOf(str, 2), bool)
    assert has_shape(["a", 1, None, ["x", "y"], False], shape)
    assert has_shape(["a", 0.5, 3, ["x", "y"], True], shape)
    assert has_shape(None, shape, or_none=True) and not has_shape(None, shape)
    for wrong in (
        ["a", True, None, ["x", "y"], False],  # a boolean is no number
        ["a", 1, 2.5, ["x", "y"], False],  # a float is no int
        ["a", 1, None, ["x"], False],  # one item short
        ["a", 1, None, ["x", 2], False],
        ["a", 1, None, ["x", "y"], 0],  # a number is no boolean
        ["a", 1, None, ["x", "y"]],
        ("a", 1, None, ["x", "y"], False),
        {"a": 1},
        "a",
    ):
        assert not has_shape(wrong, shape), wrong


def first_titles(values: list) -> list[tuple[str, int]]:
    return [(title, count) for title, count in values]


def test_summaries_of_a_vault_without_an_index_come_from_its_files(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    put(vault, "p.md", note_text("P", "one two", type="pattern"))
    assert Corpus(vault).summaries("test-1", "pattern", lambda note: note.title, _is_text) == ["P"]
    assert not (vault.index_dir / "summaries").exists()


def test_reads_inside_checked_once_look_at_the_files_once(example):
    corpus = Corpus(example)
    with corpus.checked_once():
        before = corpus.of_type("fact")
        put(example, "facts/new.md", note_text("New fact", "x", type="context"))
        assert corpus.of_type("context") == [n for n in corpus.notes() if n.type == "context"]
        assert "facts/new.md" not in {n.path for n in corpus.notes()}
        assert corpus.of_type("fact") == before
    assert "facts/new.md" in {n.path for n in corpus.of_type("context")}


def test_a_command_looks_at_the_files_once_and_the_next_command_again(example, monkeypatch):
    """`brain context bootstrap` reads failures, antipatterns, facts, patterns and tips: one stat
    scan for all of them; a file changed before the next command is seen by it."""

    import brain.index.watch.fresh as fresh
    from tests.conftest import run_brain

    scans = []
    real = fresh.scan
    monkeypatch.setattr(fresh, "scan", lambda *args, **kwargs: scans.append(1) or real(*args, **kwargs))
    task = "Shorten the mobile access token TTL for the ledger apps"
    first = run_brain("context", "bootstrap", task, "--vault", str(example.root))
    assert first.exit_code == 0 and "## Antipattern warnings" in first.output and len(scans) == 1
    put(
        example,
        "patterns/ANTIPATTERN-new.md",
        note_text("ANTIPATTERN-new", "x", type="pattern", success_rate="0.0", occurrences="9"),
    )
    second = run_brain("context", "bootstrap", task, "--vault", str(example.root))
    assert "- ANTIPATTERN-new (0% over 9)" in second.output and len(scans) == 2


def test_a_search_looks_at_the_files_once_and_the_next_search_again(example, monkeypatch):
    """`brain search` reads the project scope (the corpus) and then searches: one stat scan for both
    (it was two, 0.6 s each at 50,000 notes); a note added before the next search is found by it."""

    import brain.index.watch.fresh as fresh
    from tests.conftest import run_brain

    assert run_brain("index", "--vault", str(example.root)).exit_code == 0
    scans = []
    real = fresh.scan
    monkeypatch.setattr(fresh, "scan", lambda *args, **kwargs: scans.append(1) or real(*args, **kwargs))
    first = run_brain("search", "okapi lanterns", "--mode", "text", "--vault", str(example.root))
    assert first.exit_code == 0 and first.output.startswith("no note matches") and len(scans) == 1
    put(example, "notes/okapi.md", note_text("Okapi lanterns", "The okapi lanterns light the ledger."))
    second = run_brain("search", "okapi lanterns", "--mode", "text", "--vault", str(example.root))
    assert second.exit_code == 0 and "Okapi lanterns" in second.output and len(scans) == 2


def test_select_first_n_by_a_header_key_decodes_only_those(example, monkeypatch):
    decoded = []
    real = codec.decode
    monkeypatch.setattr(codec, "decode", lambda *args: decoded.append(args[3]) or real(*args))

    def by_rate(header) -> tuple[float, str]:
        return float(header.frontmatter.get("success_rate") or 0), header.title

    worst = Corpus(example).select("pattern", lambda header: True, first=(by_rate, 3))
    assert [note.title for note in worst] == [
        "ANTIPATTERN-retry-without-idempotency",
        "ANTIPATTERN-retry-flaky-tests-blindly",
        "ANTIPATTERN-coupled-schema-and-code-deploy",
    ]
    assert sorted(decoded) == sorted(note.path for note in worst)
    loaded = Corpus(example)
    loaded.of_type("pattern")
    assert loaded.select("pattern", lambda header: True, first=(by_rate, 3)) == worst


def _episode(title: str, outcome: str) -> str:
    return f"---\ntitle: {title}\ntype: episode\ndate: 2026-11-0{title[-1]}\n{outcome}task: t {title}\n---\n# {title}\n"


def test_select_with_equal_reads_only_the_headers_holding_that_value(tmp_path):
    """`equal=(key, value)` hands `keep` only the headers whose value reads as `value`, so the failed
    episodes of a large vault are found without decoding the others' headers; the episodes listed
    are those of a vault read from its files, whatever the outcome's form."""
    vault = lexical_vault(tmp_path / "vault")
    outcomes = {
        "E1": "outcome: failure\n",
        "E2": "outcome: success\n",
        "E3": "outcome: [failure]\n",
        "E4": "outcome: 1\n",
        "E5": "",
        "E6": "outcome: 'failure'\n",
        "E7": "outcome: Failure\n",
    }
    for title, outcome in outcomes.items():
        _write_text(vault, f"episodes/{title}.md", _episode(title, outcome))
    from_files = [episode.title for episode in list_episodes(Corpus(vault), outcome="failure")]
    index_vault(open_index(vault), embed=False)
    seen: list[str] = []
    found = Corpus(vault).select(
        "episode", lambda header: seen.append(header.title) or True, equal=("outcome", "failure")
    )
    assert sorted(seen) == ["E1", "E6"] and [note.title for note in found] == ["E1", "E6"]
    assert [episode.title for episode in list_episodes(Corpus(vault), outcome="failure")] == from_files == ["E6", "E1"]


# ---------------------------------------------------------------- another writer inside a read


def _pattern(title: str, trigger: str, kind: str = "pattern") -> str:
    return f"---\ntitle: {title}\ntype: {kind}\nsuccess_rate: 0.9\noccurrences: 5\ntrigger: {trigger}\n---\n# {title}\n"


@pytest.fixture
def small(tmp_path):
    vault = lexical_vault(tmp_path / "vault")
    _write_text(vault, "p1.md", _pattern("P1", "alpha"))
    _write_text(vault, "p2.md", _pattern("P2", "when x"))
    index_vault(open_index(vault), embed=False)
    yield vault


def _write_text(vault, relative: str, text: str) -> None:
    path = put(vault, relative, text)
    stamp = next(_clock)
    os.utime(path, ns=(stamp, stamp))


def _rescan(vault) -> None:
    from brain.index.sync.scan import scan

    scan(open_index(vault))


def _once_before(monkeypatch, method: str, when, action) -> None:
    """Run `action` once, the first time `Catalog.<method>` is called with arguments `when` accepts:
    another process writing between two statements of a read."""
    from brain.index.catalog.catalog import Catalog

    real = getattr(Catalog, method)

    def racing(self, *args, **kwargs):
        if when(*args, **kwargs):
            monkeypatch.setattr(Catalog, method, real)
            action()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, method, racing)


def test_a_summary_is_never_filed_under_the_hash_of_another_version(small, monkeypatch):
    def trigger(note) -> str:
        return str(note.frontmatter["trigger"])

    def edited() -> None:  # by another process: this one holds its read snapshot open
        _write_text(small, "p1.md", _pattern("P1", "gamma"))
        command = [sys.executable, "-m", "brain", "index", "--no-embed", "--vault", str(small.root)]
        subprocess.run(command, check=True, capture_output=True)

    # between the hashes and the rows of one read (`hashed_rows` loads them through `_load_rows`)
    _once_before(monkeypatch, "_load_rows", lambda db, paths=None, **_: paths is not None, edited)
    # the read saw the catalog before the edit: the values and their hashes are those of that state
    assert sorted(Corpus(small).summaries("test-trigger-1", "pattern", trigger, _is_text)) == ["alpha", "when x"]
    assert sorted(Corpus(small).summaries("test-trigger-1", "pattern", trigger, _is_text)) == ["gamma", "when x"]
    _write_text(small, "p1.md", _pattern("P1", "alpha"))  # back to the first version's bytes: its stored
    assert sorted(Corpus(small).summaries("test-trigger-1", "pattern", trigger, _is_text)) == [
        "alpha",
        "when x",
    ]  # value


def test_a_note_retyped_while_its_new_type_loads_leaves_no_stale_cache(small, monkeypatch):
    from brain.memory.patterns.service import all_patterns

    corpus = Corpus(small)
    assert [p.title for p in all_patterns(corpus)] == ["P1", "P2"]

    def retyped() -> None:
        _write_text(small, "p2.md", _pattern("P2", "when x", kind="tip"))
        _rescan(small)

    _once_before(monkeypatch, "load_rows", lambda paths=None, **kw: kw.get("types") == frozenset({"tip"}), retyped)
    assert [note.title for note in corpus.of_type("tip")] == ["P2"]
    assert [p.title for p in all_patterns(corpus)] == ["P1"]


def test_a_note_deleted_while_its_new_version_loads_is_gone(small, monkeypatch):
    corpus = Corpus(small)
    assert [n.frontmatter["trigger"] for n in corpus.of_type("pattern")] == ["alpha", "when x"]
    _write_text(small, "p1.md", _pattern("P1", "new"))
    _rescan(small)

    def deleted() -> None:
        (small.root / "p1.md").unlink()
        _rescan(small)

    _once_before(monkeypatch, "load_rows", lambda paths=None, **_: paths == ["p1.md"], deleted)
    assert [n.title for n in corpus.of_type("pattern")] == ["P2"]
