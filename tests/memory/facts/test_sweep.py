"""The retention sweeper: policies, holds, dry runs, and a real sweep that leaves no trace of a value anywhere."""

from __future__ import annotations

import json
import sqlite3
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from brain.errors import InvalidInput
from brain.index.engine import open_index
from brain.index.sync.sync import index_vault
from brain.memory.corpus import Corpus
from brain.memory.doctor.service import check_journal
from brain.memory.facts import journal as fact_journal
from brain.memory.facts import recall as fact_recall
from brain.memory.facts import service
from brain.memory.facts import sweep as retention
from brain.vault.vault import Vault

T0 = datetime(2026, 1, 1, tzinfo=UTC)
SECRET = "zebra-quokka-7731"  # a value that occurs nowhere else


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def configure(vault: Vault, extra: str = "") -> None:
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n' + extra, encoding="utf-8")


def every_byte(root: Path) -> dict[str, bytes]:
    """Every file's bytes; the note history's stored versions (zlib) as the bytes they keep."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found[path.relative_to(root).as_posix()] = (
                zlib.decompress(data) if ".brain/history/objects/" in path.as_posix() else data
            )
    return found


def chain(
    vault: Vault,
    corpus: Corpus,
    subject: str,
    values: list,
    *,
    namespace: str = "user:alice",
    cls: str = "pii",
    days: int | None = None,
):
    """Record values[0] at day 0, supersede with each next value 10 days apart; returns the facts' titles."""
    first = service.record_fact(
        Corpus(vault),
        "preference",
        subject,
        values[0],
        namespace=namespace,
        compliance_class=cls,
        retention_days=days,
        valid_from=at(0),
        now=at(0),
    )
    titles = [first.fact.title]
    for number, value in enumerate(values[1:], start=1):
        written = service.supersede_fact(
            corpus, titles[-1], value, reason=f"change {number}", valid_from=at(10 * number), now=at(10 * number)
        )
        titles.append(written.fact.title)
    return titles


def test_due_facts_follow_the_policies_and_holds(vault: Vault) -> None:
    configure(
        vault,
        """
[facts]
compliance_classes = ["hr"]
[retention]
retention_days = 100
ephemeral_days = 5
legal_hold = ["org:ledger"]
[retention.classes.pii]
retention_days = 30
[retention.classes.hr]
legal_hold = true
""",
    )
    corpus = Corpus(vault)
    pii = chain(vault, corpus, "theme", ["dark", "light"], cls="pii", days=365)  # class (30 d) outranks the fact's 365
    own = chain(vault, corpus, "city", ["Lisbon", "Porto"], cls="internal", days=3)
    default = chain(vault, corpus, "lang", ["pt", "en"], cls="internal")
    held = chain(vault, corpus, "salary", ["1", "2"], cls="hr", days=0)
    held_ns = chain(vault, corpus, "limit", ["50", "60"], namespace="org:ledger", cls="internal", days=0)
    ephemeral = service.record_fact(
        Corpus(vault), "scratch", "step", "x", namespace="run:1", tier="ephemeral", now=at(0), valid_from=at(0)
    )
    legal = service.record_fact(
        Corpus(vault),
        "profile",
        "email",
        "a@b.c",
        namespace="user:alice",
        legal_delete_at=at(2),
        now=at(0),
        valid_from=at(0),
    )

    plan = retention.sweep(corpus, dry_run=True, now=at(13))  # the v1s closed at day 10
    due = {item.fact.title: item.policy for item in plan.due}
    assert due == {
        own[0]: "retention_days (fact)",  # 10 + 3 <= 13
        ephemeral.fact.title: "ephemeral_days",  # 0 + 5 <= 13
        legal.fact.title: "legal_delete_at",  # open, but its legal date passed
    }
    assert {item.fact.title: item.held for item in plan.held} == {
        held[0]: "legal hold on class hr",
        held_ns[0]: "legal hold on namespace org:ledger",
    }
    later = {item.fact.title for item in retention.sweep(corpus, dry_run=True, now=at(40)).due}
    assert pii[0] in later and default[0] not in later  # 10 + 30 <= 40 < 10 + 100
    assert default[0] in {item.fact.title for item in retention.sweep(corpus, dry_run=True, now=at(110)).due}
    assert not {pii[1], own[1], default[1]} & {
        item.fact.title for item in retention.sweep(corpus, dry_run=True, now=at(1000)).due
    }


def test_a_policy_naming_an_unknown_class_is_one_error_and_changes_nothing(vault: Vault, brain) -> None:
    configure(vault, "[retention.classes.secret]\nretention_days = 1\n")
    before = every_byte(vault.root)
    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "error: .brain/config.toml: [retention.classes.secret] names an unknown compliance class; known: public, internal, "
        "confidential, financial, pii, phi, pci (declare new ones in compliance_classes under [facts])"
    ]
    assert every_byte(vault.root) == before


def test_dry_run_lists_and_changes_nothing(vault: Vault, brain) -> None:
    configure(vault)
    corpus = Corpus(vault)
    old, _new = chain(vault, corpus, "theme", ["dark", "light"], days=0)
    before = every_byte(vault.root)
    result = brain("fact", "sweep", "--dry-run")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"would delete {old} (user:alice): retention_days (fact): superseded 2026-01-11T00:00:00Z, kept 0 days (fact)",
        "1 facts would delete, 0 held (dry run: nothing changed; run `brain fact sweep --no-dry-run` to delete)",
    ]
    assert every_byte(vault.root) == before


def test_a_real_sweep_leaves_no_trace_of_the_value_in_any_store(vault: Vault, brain) -> None:
    configure(vault)
    corpus = Corpus(vault)
    old, new = chain(vault, corpus, "api-token", [{"token": SECRET}, {"token": "rotated"}], days=0)
    index_vault(open_index(vault))  # catalog, full text and (lexical) vectors for both facts
    index = open_index(vault)
    old_id = index.catalog.stamps()[f"facts/{old}.md"].id
    assert index.vectors.collection().get(where={"note_id": old_id})["ids"]  # it is in Chroma now
    recalled = brain("fact", "recall", "--namespace", "user:alice", "--history", "--json")
    assert SECRET in recalled.stdout  # and in the journal
    assert any(SECRET.encode() in data for data in every_byte(vault.root).values())

    result = brain("fact", "sweep", "--no-dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert [item["id"] for item in report["due"]] == [old]
    # one chunk: the text under the title (## Relations is a list of links, not embedded)
    assert report["stores"] == {
        "files": 1,
        "catalog_rows": 1,
        "vector_records": 1,
        "journal_values": 1,
        "neighbours_relinked": 1,
        "temp_files": 0,
        "history_versions": 2,  # as recorded, then as closed by the supersede
    }

    # No store holds the value: every file of the vault, the catalog (and its WAL), Chroma, the journal.
    leftovers = [path for path, data in every_byte(vault.root).items() if SECRET.encode() in data]
    assert leftovers == []
    db = sqlite3.connect(vault.index_dir / "catalog.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM notes WHERE path = ?", (f"facts/{old}.md",)).fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM fts WHERE fts MATCH ?", ('"zebra"',)).fetchone()[0] == 0
    db.close()
    assert open_index(vault).vectors.collection().get(where={"note_id": old_id})["ids"] == []
    # The journal still verifies; the record keeps the value's hash and names the receipt.
    assert check_journal(vault) == []
    entry = fact_journal.records(vault)[0]["results"]
    purged = next(result for result in entry if result["id"] == old)
    assert purged["value"] is None and purged["purged"].startswith("SWEEP-") and purged["version"].startswith("sha256:")
    # The successor no longer links a note that is gone, and the receipt says what went where.
    successor = (vault.root / f"facts/{new}.md").read_text()
    assert f"supersedes: '{old} (purged)'" in successor and f"[[{old}]]" not in successor
    receipt = json.loads((vault.root / report["receipt"]).read_text())
    assert receipt["stores_purged"] == ["files", "journal", "temp files", "catalog", "full-text", "vectors", "history"]
    (gone,) = receipt["facts"]
    assert gone["id"] == old and gone["policy"] == "retention_days (fact)" and len(gone["file_sha256"]) == 64
    assert gone["value_hash"] == purged["version"]
    kinds = {finding["kind"] for finding in json.loads(brain("doctor", "--json").stdout)["findings"]}
    assert kinds <= {"stale-index"}  # the relinked successor waits for new vectors; no broken link, the chain verifies


def test_no_mcp_tool_deletes(vault: Vault) -> None:
    from anyio import run

    from brain.mcp.server import build_server

    tools = run(build_server(vault).list_tools)
    assert not [tool.name for tool in tools if "sweep" in tool.name or "purge" in tool.name]
    # delete_note moves a note to the history (restore_note brings it back), takes only a name, and refuses facts
    (deleting,) = [tool for tool in tools if "delete" in tool.name]
    assert deleting.name == "delete_note" and set(deleting.input_schema["properties"]) == {"name"}
    with pytest.raises(InvalidInput):
        from brain.memory.notes.service import delete_note

        fact = service.record_fact(Corpus(vault), "config", "ttl", 900, now=at(0), valid_from=at(0))
        delete_note(Corpus(vault), fact.fact.title)


def three_chains(vault: Vault, corpus: Corpus) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Three subjects of three values each; v1 and v2 of each are due (closed, kept 0 days), v3 stays.
    Returns the due facts' secret values by title, and each subject's titles."""
    secrets, chains = {}, {}
    for subject in ("alpha", "beta", "gamma"):
        values = [{"token": f"{subject}-walrus-{n}-9917"} for n in (1, 2)] + [{"token": f"{subject}-kept"}]
        chains[subject] = chain(vault, corpus, subject, values, days=0)
        secrets.update({title: value["token"] for title, value in zip(chains[subject], values[:2], strict=False)})
    return secrets, chains


def test_one_sweep_of_many_facts_leaves_no_trace_of_any_value(vault: Vault, brain) -> None:
    configure(vault)
    corpus = Corpus(vault)
    secrets, chains = three_chains(vault, corpus)
    index_vault(open_index(vault))
    assert brain("fact", "recall", "--namespace", "user:alice", "--history", "--limit", "100").exit_code == 0

    result = brain("fact", "sweep", "--no-dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted(item["id"] for item in report["due"]) == sorted(secrets)
    assert report["stores"] == {
        "files": 6,
        "catalog_rows": 6,
        "vector_records": 6,
        "journal_values": 6,
        "neighbours_relinked": 3,
        "temp_files": 0,
        "history_versions": 12,  # each fact as recorded and as closed
    }

    for secret in secrets.values():
        assert [path for path, data in every_byte(vault.root).items() if secret.encode() in data] == [], secret
    db = sqlite3.connect(vault.index_dir / "catalog.sqlite3")
    assert db.execute("SELECT COUNT(*) FROM fts WHERE fts MATCH 'walrus'").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM notes WHERE type = 'fact'").fetchone()[0] == 3
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    assert check_journal(vault) == []
    receipt = json.loads((vault.root / report["receipt"]).read_text())
    assert sorted(item["id"] for item in receipt["facts"]) == sorted(secrets)
    assert sorted(receipt["relinked"]) == sorted(f"facts/{titles[2]}.md" for titles in chains.values())
    for _v1, v2, v3 in chains.values():
        kept = (vault.root / f"facts/{v3}.md").read_text()
        assert f"supersedes: '{v2} (purged)'" in kept and "[[" + v2 not in kept
    # History is what is left, in order; the catalog and the files agree.
    assert [fact.title for fact in fact_recall.history(Corpus(vault), "beta", namespace="user:alice")] == [
        chains["beta"][2]
    ]


def test_a_running_watcher_finds_the_catalog_already_swept(vault: Vault) -> None:
    from brain.index.watch.watch import Watcher

    configure(vault)
    corpus = Corpus(vault)
    _secrets, _ = three_chains(vault, corpus)
    index = open_index(vault)
    index_vault(index)
    batches = []

    def pause_after_the_deletions(_: str, done: int, total: int) -> None:
        if done == total:
            time.sleep(1.0)  # the watcher's debounce (0.1 s) passes: its batch runs now

    with Watcher(index, embed=False, debounce=0.1, on_batch=batches.append) as running:
        report = retention.sweep(corpus, dry_run=False, progress=pause_after_the_deletions)
        assert running.wait_idle()
    assert report.stores["files"] == 6
    # The watcher saw the files go and the neighbours change, but the sweep held the index until
    # the catalog was current: nothing was left for it to remove or re-read.
    assert batches and sum(batch.paths for batch in batches) >= 6
    assert [(batch.changes, batch.errors, batch.full_scan) for batch in batches] == [(0, [], False)] * len(batches)


def test_a_sweep_stopped_by_an_error_still_purges_what_it_deleted(vault: Vault, brain) -> None:
    configure(vault)
    corpus = Corpus(vault)
    secrets, chains = three_chains(vault, corpus)
    stuck = f"facts/{chains['alpha'][2]}.md"  # links a due fact, but holds a byte that is not UTF-8: brain will not rewrite it
    (vault.root / stuck).write_bytes((vault.root / stuck).read_bytes() + b"\xff\n")
    index_vault(open_index(vault))

    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: sweep stopped: '{stuck}' is not valid UTF-8 (byte ")
    receipt_path = next((vault.brain_dir / "journal/sweeps").glob("SWEEP-*.json"))
    assert line.endswith(
        f"The 6 facts it deleted are purged from every store (receipt {receipt_path.relative_to(vault.root).as_posix()}); "
        "fix that and run the sweep again"
    )
    receipt = json.loads(receipt_path.read_text())
    assert sorted(item["id"] for item in receipt["facts"]) == sorted(secrets)
    assert receipt["stopped_by"].startswith(f"'{stuck}' is not valid UTF-8") and stuck not in receipt["relinked"]
    assert receipt["stores_purged"] == ["files", "journal", "temp files", "catalog", "full-text", "vectors", "history"]
    for secret in secrets.values():
        assert [path for path, data in every_byte(vault.root).items() if secret.encode() in data] == [], secret
    assert (vault.root / stuck).read_bytes().endswith(b"\xff\n")  # left as it was


def test_the_vectors_snapshot_is_written_again_without_the_swept_vectors(vault: Vault, brain) -> None:
    from brain.index.vectors import snapshot
    from brain.index.vectors.vectors import GENERATION_KEY

    configure(vault)
    corpus = Corpus(vault)
    secrets, _ = three_chains(vault, corpus)
    index = open_index(vault)
    index_vault(index)  # leaves a current snapshot of the vectors, as `brain index` does
    stamps = index.catalog.stamps()
    swept_ids = {stamps[f"facts/{title}.md"].id for title in secrets}
    head = index.vectors.snapshot_path
    loaded = snapshot.load(head, index.catalog.get_meta(GENERATION_KEY), index.vectors.dim)
    assert loaded is not None
    before = loaded[0]
    assert swept_ids <= set(before.notes.tolist())

    assert brain("fact", "sweep", "--no-dry-run").exit_code == 0
    # The snapshot is current again (the next search loads it instead of rebuilding it from
    # Chroma), and holds exactly the vectors that are left.
    index = open_index(vault)
    loaded = snapshot.load(head, index.catalog.get_meta(GENERATION_KEY), index.vectors.dim)
    assert loaded is not None
    after, journal = loaded
    assert not swept_ids & set(after.notes.tolist())
    assert journal.records == 0  # written whole: the swept vectors are in no file of it
    assert len(after) == len(before) - len(
        secrets
    )  # one chunk a fact (its ## Relations is not embedded) == index.catalog.chunk_count()


def test_text_left_in_free_space_by_earlier_writes_is_gone_after_a_sweep(vault: Vault, brain) -> None:
    LEFT = "okapi-left-behind-4410"  # deleted from the catalog by an ordinary write, which does not zero it
    configure(vault)
    corpus = Corpus(vault)
    chain(vault, corpus, "api-token", [{"token": SECRET}, {"token": "rotated"}], days=0)
    index_vault(open_index(vault))
    db = sqlite3.connect(vault.index_dir / "catalog.sqlite3")
    db.execute("PRAGMA secure_delete = OFF")  # as SQLite builds without SQLITE_SECURE_DELETE write
    db.execute("INSERT INTO meta(key, value) VALUES('left-behind', ?)", (LEFT * 50,))
    db.commit()
    db.execute("DELETE FROM meta WHERE key = 'left-behind'")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    assert LEFT.encode() in (vault.index_dir / "catalog.sqlite3").read_bytes()

    assert brain("fact", "sweep", "--no-dry-run").exit_code == 0
    for gone in (SECRET, LEFT):
        assert [path for path, data in every_byte(vault.root).items() if gone.encode() in data] == [], gone


def _mark(number: int) -> str:
    return f"zqsecret{number:05d}x"


def test_purge_leaves_no_copy_of_a_deleted_notes_text_after_rows_were_rewritten(tmp_path: Path) -> None:
    """SQLite's `secure_delete` zeroes deleted cells and freed pages, but not the old copies of cells
    a rebalanced page keeps in its unused middle: the catalog re-inserts a note's full-text row each
    time the note changes (as a fact grows when it is closed), so such copies pile up. The purge's
    VACUUM rewrites every page and drops them. (Found in review: without it, 2-4 of these 150
    deleted notes' text stayed in the catalog.)"""
    import random

    from brain.index.sync.scan import scan
    from brain.memory.facts import index as fact_index
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path / "vault")
    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n', encoding="utf-8")
    index = open_index(vault)
    (vault.root / "notes").mkdir(exist_ok=True)
    chance = random.Random(1)
    bodies: dict[int, str] = {}
    count = 300
    for number in range(count):
        bodies[number] = f"---\ntitle: N{number}\n---\n{_mark(number)} " + "a " * chance.randint(50, 700) + "\n"
        (vault.root / f"notes/n{number:05d}.md").write_text(bodies[number], encoding="utf-8")
        changed = [f"notes/n{number:05d}.md"]
        if number > 2:
            bodies[number - 2] += "b " * chance.randint(5, 300) + "\n"
            (vault.root / f"notes/n{number - 2:05d}.md").write_text(bodies[number - 2], encoding="utf-8")
            changed.append(f"notes/n{number - 2:05d}.md")
        scan(index, paths=changed)

    deleted = [f"notes/n{number:05d}.md" for number in range(0, count, 2)]
    ids = fact_index.note_ids(index, deleted)
    for path in deleted:
        (vault.root / path).unlink()
    assert fact_index.purge(index, deleted, [], ids).catalog_rows == len(deleted)
    index.close()  # every byte on disk

    stored = b"".join(path.read_bytes() for path in sorted(vault.index_dir.rglob("*")) if path.is_file())
    assert [number for number in range(0, count, 2) if _mark(number).encode() in stored] == []


def test_a_sweep_that_cannot_empty_the_catalog_log_says_so_and_the_next_one_does(vault: Vault, brain) -> None:
    configure(vault)
    corpus = Corpus(vault)
    chain(vault, corpus, "api-token", [{"token": SECRET}, {"token": "rotated"}], days=0)
    index_vault(open_index(vault))
    reader = sqlite3.connect(vault.index_dir / "catalog.sqlite3", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM notes").fetchone()  # a read kept open by another process
    open_index(vault).catalog.db.execute("PRAGMA busy_timeout = 200")  # (the product waits a minute)

    result = brain("fact", "sweep", "--no-dry-run")
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "error: sweep stopped: another process kept reading the catalog for a minute, so its write-ahead log "
        "(.brain/index/catalog.sqlite3-wal) still holds old pages of the swept rows. The 1 facts it deleted"
    )
    reader.execute("COMMIT")
    reader.close()
    assert brain("fact", "sweep", "--no-dry-run").exit_code == 0  # nothing due: it empties the log
    catalog_files = {path: data for path, data in every_byte(vault.root).items() if "catalog.sqlite3" in path}
    assert catalog_files.get(".brain/index/catalog.sqlite3-wal", b"") == b""
    assert [path for path, data in catalog_files.items() if SECRET.encode() in data] == []
