"""`brain redact` scrubs a vault after the fact: a secret of every kind, in a note, its history, the
catalog and its full text, the vectors, the summaries cache and the hooks log, is found (where and
its kind, never the secret), left alone by a dry run, and gone from every byte of the vault once
applied, with a receipt that names where and never what."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.index.vault_index import existing_index
from brain.memory.corpus import Corpus
from brain.memory.sessions.context import CANDIDATES, _candidate, _is_candidate
from brain.memory.sessions.scrub import redact_vault
from brain.vault.vault import Vault
from tests.conftest import holding, run_brain, state, write
from tests.helpers.hnsw_files import past_elements

SECRETS = {  # kind -> (the line a note holds, the secret in it)
    "assignment": ('PASSWORD="correct horse battery staple"', "correct horse battery staple"),
    "url-password": ("cache at redis://:Pa55-redis-Q9@cache:6379/0", "Pa55-redis-Q9"),
    "mysql-password": ("mysql -u root -pMyS3cretQ7 shop", "MyS3cretQ7"),
    "aws-secret": (
        "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENGbPxRfiCY",
        "wJalrXUtnFEMI/K7MDENGbPxRfiCY",
    ),
    "curl-user": ("curl -u deploy:Cu7lP4ss https://api.example.com", "Cu7lP4ss"),
    "option-secret": (
        "az storage blob list --account-key Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1",
    ),
    "authorization": ("-H 'Authorization: Basic ZGVwbG95OnMzY3IzdA=='", "ZGVwbG95OnMzY3IzdA=="),
    "sendgrid-key": ("SG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc", "SG.ngeVfQFYQlKU0ufo8x5d1A"),
    "npm-token": (
        "//registry.npmjs.org/:_authToken npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "npm_AbCdEfGhIjKlMnOpQr",
    ),
    "private-key": (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGR0PgpKeyMaterialZq9\n-----END PGP PRIVATE KEY BLOCK-----",
        "PgpKeyMaterialZq9",
    ),
}
LOGGED = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB"  # a line an earlier brain wrote to the hooks log


@pytest.fixture
def lex(vault: Vault) -> Vault:
    """The test vault, embedded with the deterministic lexical embedder (vectors without a model)."""
    config = vault.brain_dir / "config.toml"
    config.write_text(config.read_text().replace('embedder = "default"', 'embedder = "lexical"'))
    return vault


def _brain(vault: Vault, *args: str):
    return run_brain(*args, "--vault", str(vault.root))


def _files(vault: Vault) -> dict[str, bytes]:
    return {
        path.relative_to(vault.root).as_posix(): path.read_bytes()
        for path in sorted(vault.root.rglob("*"))
        if path.is_file() and not path.name.endswith(("-wal", "-shm"))  # SQLite's own, as any reader leaves them
    }


def _leaks(vault: Vault, secrets: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in vault.root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            hits = [secret for secret in secrets if secret.encode() in data]
            if hits:
                found[path.relative_to(vault.root).as_posix()] = hits
    return found


def _populate(vault: Vault) -> list[str]:
    """A note with a secret of every kind (one more added through brain, so the history holds two
    versions), a pattern whose trigger holds one (the summaries cache), a clean note, the index
    with vectors, and the hooks log of an earlier brain; returns the secrets."""
    lines = [line for line, _ in SECRETS.values()]
    write(vault, "notes/Deploy.md", "---\ntitle: Deploy\n---\n# Deploy\n\n" + "\n".join(lines[:-1]) + "\n")
    write(
        vault,
        "patterns/PATTERN-rotate.md",
        "---\ntitle: PATTERN-rotate\ntype: pattern\ntrigger: mysql -u root -pMyS3cretQ7 stops working\n"
        "success_rate: 0.9\noccurrences: 3\n---\n# Rotate\n\n## Action\nRotate the password.\n",
    )
    write(vault, "notes/Clean.md", "# Clean\n\nNothing to hide, docker run -p 8080:80 nginx, ls -pa, mysql -p.\n")
    assert _brain(vault, "index").exit_code == 0
    assert _brain(vault, "note", "edit", "Deploy", "--append", lines[-1]).exit_code == 0
    assert Corpus(vault).summaries(CANDIDATES, "pattern", _candidate, _is_candidate)  # the first-prompt hook's cache
    log = vault.brain_dir / "logs" / "hooks.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"2026-11-20T10:00:00Z extract x: started\n2026-11-20T10:00:01Z extract x: token {LOGGED}\n")
    return [secret for _, secret in SECRETS.values()] + [LOGGED]


def test_a_dry_run_says_where_and_changes_no_file(lex):
    secrets = _populate(lex)
    before = _files(lex)
    out = _brain(lex, "redact")
    assert out.exit_code == 0, out.output
    assert _files(lex) == before
    assert not [secret for secret in secrets if secret in out.output]
    lines = out.stdout.splitlines()

    def line(store: str, where: str, kind: str) -> str:
        return f"{store:<9} {where:<28}  {kind}"

    assert lines[:3] == [
        line("note", "notes/Deploy.md:6", "assignment"),
        line("note", "notes/Deploy.md:7", "url-password"),
        line("note", "notes/Deploy.md:8", "mysql-password"),
    ]
    assert line("note", "notes/Deploy.md:16", "private-key") in lines
    assert line("note", "patterns/PATTERN-rotate.md:4", "mysql-password") in lines
    assert line("history", "notes/Deploy.md v1:6", "assignment") in lines
    assert line("history", "notes/Deploy.md v2:16", "private-key") in lines
    assert line("catalog", "notes/Deploy.md:6", "assignment") in lines
    assert line("log", ".brain/logs/hooks.log:2", "github-token") in lines
    assert (
        "summaries .brain/index/summaries/bootstrap-pattern-candidates-2.json  patterns/PATTERN-rotate.md  mysql-password"
        in lines
    )
    assert not any("Clean.md" in line for line in lines)
    assert lines[-2] == (
        "dry run, nothing changed: 43 secrets found (11 in note, 19 in history, 11 in catalog, 1 in summaries, 1 in log); "
        "would rewrite 2 notes and 3 history versions; would reindex 2 notes (catalog, full text, vectors)"
    )
    assert lines[-1] == "run `brain redact --apply` to replace them (a receipt names where, never what)"


def test_applied_no_byte_of_any_secret_is_left_anywhere_in_the_vault(lex):
    secrets = _populate(lex)
    assert _leaks(lex, secrets)  # the test looks where the secrets are
    out = _brain(lex, "redact", "--apply")
    assert out.exit_code == 0, out.output
    assert _leaks(lex, secrets) == {}
    receipt_path = out.stdout.splitlines()[-1].rsplit("receipt ", 1)[1]
    assert out.stdout.splitlines()[-1].startswith(
        "redacted 44 secrets (11 in note, 20 in history, 11 in catalog, 1 in summaries, 1 in log): "
        "rewrote 2 notes and 3 history versions; reindexed 2 notes (catalog, full text, vectors); receipt .brain/journal/redactions/REDACT-"
    )
    note = (lex.root / "notes/Deploy.md").read_text()
    assert note.splitlines()[5:8] == [
        'PASSWORD="[REDACTED:assignment]"',
        "cache at redis://:[REDACTED:url-password]@cache:6379/0",
        "mysql -u root -p[REDACTED:mysql-password] shop",
    ]
    assert note.count("[REDACTED:") == len(SECRETS)
    first = _brain(lex, "note", "history", "Deploy", "--version", "1")
    assert first.stdout.count("[REDACTED:") == len(SECRETS) - 1 and 'PASSWORD="[REDACTED:assignment]"' in first.stdout
    assert "Nothing to hide, docker run -p 8080:80 nginx" in (lex.root / "notes/Clean.md").read_text()
    # the receipt names where and the kind, never the secret
    receipt = json.loads((lex.root / receipt_path).read_text())
    assert (receipt["by"], receipt["command"]) == ("cli", "redact")
    assert receipt["counts"] == {"note": 11, "history": 20, "catalog": 11, "summaries": 1, "log": 1}
    assert {"store": "history", "path": "notes/Deploy.md", "kind": "assignment", "line": 6, "version": 1} in receipt[
        "places"
    ]
    assert receipt["reindexed"] == {
        "notes": ["notes/Deploy.md", "patterns/PATTERN-rotate.md"],
        "stores": ["catalog", "full-text", "vectors"],
    }
    # the index holds the redacted notes: full text, chunks and vectors agree, nothing waits
    index = state(lex)
    assert index["pending"] == [] and sorted(index["chunks"]) == sorted(index["vectors"])
    db_rows = [row for row in index["fts"] if row[0] == "notes/Deploy.md"]
    assert len(db_rows) == 1 and "[REDACTED:assignment]" in db_rows[0][2] and "horse" not in db_rows[0][2]
    found = json.loads(_brain(lex, "search", "horse battery staple", "--mode", "text", "--json").stdout)
    assert [hit["path"] for hit in found] == []
    # nothing is left to do, and no second receipt is written
    before = _files(lex)
    again = _brain(lex, "redact", "--apply")
    assert again.stdout == "no secrets found; nothing changed\n"
    assert _files(lex) == before
    assert len(list((lex.brain_dir / "journal" / "redactions").iterdir())) == 1


def test_the_vaults_own_patterns_are_used_and_json_says_the_same(lex):
    (lex.brain_dir / "config.toml").write_text(
        (lex.brain_dir / "config.toml").read_text() + '\n[redact]\npatterns = ["ACME-[0-9]{6}"]\n'
    )
    write(lex, "notes/Ticket.md", "# Ticket\n\nsee ACME-123456 for the customer\n")
    out = _brain(lex, "redact", "--json")
    assert json.loads(out.stdout) == {
        "applied": False,
        "places": [
            {"store": "note", "path": "notes/Ticket.md", "kind": "custom", "line": 3, "version": None, "file": None}
        ],
        "notes": ["notes/Ticket.md"],
        "history_versions": 1,  # written in an editor: stored first when rewritten, then redacted
        "reindexed": [],
        "vectors": False,
        "skipped": [],
        "receipt": None,
        "interrupted": False,
    }
    done = json.loads(_brain(lex, "redact", "--apply", "--json").stdout)
    assert done["applied"] and done["receipt"].startswith(".brain/journal/redactions/REDACT-")
    assert (lex.root / "notes/Ticket.md").read_text() == "# Ticket\n\nsee [REDACTED:custom] for the customer\n"
    assert _leaks(lex, ["ACME-123456"]) == {}


def test_a_note_that_is_not_utf8_is_reported_and_left_alone(lex):
    path = write(lex, "notes/Latin.md", "# Latin\n")
    path.write_bytes(b"# Latin\n\ncaf\xe9 password=hunter2xyz\n")
    out = _brain(lex, "redact", "--apply")
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[:2] == [
        "note      notes/Latin.md:3  assignment",
        "not rewritten: notes/Latin.md: not UTF-8 text; brain does not rewrite it: remove the secret in an editor",
    ]
    assert path.read_bytes() == b"# Latin\n\ncaf\xe9 password=hunter2xyz\n"


def test_bad_input_is_one_line_and_changes_nothing(lex):
    write(lex, "notes/Deploy.md", "# Deploy\n\npassword=hunter2xyz\n")
    config = lex.brain_dir / "config.toml"
    config.write_text(config.read_text() + '\n[redact]\npatterns = ["ACME-[0-9"]\n')
    before = _files(lex)
    bad = _brain(lex, "redact", "--apply")
    assert bad.exit_code == 1
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("error: ")
    assert "[redact] pattern 'ACME-[0-9' is not a valid regular expression" in bad.stderr
    assert _files(lex) == before
    usage = _brain(lex, "redact", "--aply")
    assert usage.exit_code == 2 and usage.stderr.count("\n") == 1 and "--aply" in usage.stderr
    assert _files(lex) == before


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    kind=st.sampled_from(sorted(SECRETS)),
    secret=st.text("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=9, max_size=24).map(
        lambda text: "Zq9" + text  # letters and a digit: never a placeholder
    ),
)
def test_a_generated_secret_of_each_kind_leaves_the_history_whole(tmp_path_factory, kind, secret):
    """Written and edited through brain (two versions), then redacted: the note and every version
    keep every other byte, and no copy of the secret is left."""
    from brain.vault.init import init_vault

    vault, _ = init_vault(tmp_path_factory.mktemp("v") / "vault")
    line, example = SECRETS[kind]
    text = line.replace(example, secret) if kind not in ("sendgrid-key", "npm-token") else line
    secret = secret if kind not in ("sendgrid-key", "npm-token") else example
    vault.write("notes/Keys.md", f"# Keys\r\n\r\n{text}\r\nend\r\n")
    vault.write("notes/Keys.md", f"# Keys\r\n\r\n{text}\r\nend\r\nmore\r\n")
    done = redact_vault(vault, existing_index(vault), apply=True)
    assert {place.kind for place in done.places} == {kind} and done.versions == 2
    assert _leaks(vault, [secret]) == {}
    versions = [vault.history.version_bytes(entry.sha256 or "") for entry in vault.history.entries("notes/Keys.md")]
    marked = text.replace(secret, f"[REDACTED:{kind}]") if kind != "private-key" else "[REDACTED:private-key]"
    if kind in ("sendgrid-key", "npm-token"):
        marked = text[: text.index(secret)] + f"[REDACTED:{kind}]"
    assert versions == [
        f"# Keys\r\n\r\n{marked}\r\nend\r\n".encode(),
        f"# Keys\r\n\r\n{marked}\r\nend\r\nmore\r\n".encode(),
        f"# Keys\r\n\r\n{marked}\r\nend\r\nmore\r\n".encode(),
    ]


def test_receipts_path_is_under_the_journal(lex):
    write(lex, "notes/A.md", "# A\n\ntoken=abcd1234efgh\n")
    done = redact_vault(lex, existing_index(lex), apply=True)
    assert done.receipt is not None and Path(lex.root / done.receipt).parent == lex.brain_dir / "journal" / "redactions"


def test_a_fact_value_and_the_recall_journal_are_scrubbed_and_the_journal_still_verifies(lex):
    """A fact recorded with a secret and recalled: the value is redacted in the note (its value_hash
    follows, so doctor sees no hand edit), purged from the recall journal under the receipt's name
    (the chain and its hashes kept, so the journal still verifies), and gone from every file."""
    out = _brain(lex, "fact", "record", "config", "db-url", '"postgres://app:Hunt3rPass@db/x"')
    assert out.exit_code == 0, out.output
    assert "Hunt3rPass" in _brain(lex, "fact", "recall", "db-url").stdout
    dry = _brain(lex, "redact")
    assert "journal   .brain/journal/recall.jsonl:1" in dry.stdout and "Hunt3rPass" not in dry.stdout
    done = json.loads(_brain(lex, "redact", "--apply", "--json").stdout)
    assert _leaks(lex, ["Hunt3rPass"]) == {}
    fact = next((lex.root / "facts").glob("FACT-db-url-*.md")).read_text()
    assert "value: postgres://app:[REDACTED:url-password]@db/x" in fact
    receipt = json.loads((lex.root / done["receipt"]).read_text())
    assert receipt["journal_facts"] == [next((lex.root / "facts").glob("FACT-db-url-*.md")).stem]
    record = json.loads((lex.root / ".brain/journal/recall.jsonl").read_text().splitlines()[0])
    assert record["results"][0]["value"] is None and record["results"][0]["purged"] == Path(done["receipt"]).stem
    doctor = _brain(lex, "doctor")
    assert doctor.exit_code == 0 and doctor.stdout.startswith("no problems found in 1 note"), doctor.stdout
    assert "Hunt3rPass" not in _brain(lex, "fact", "recall", "db-url").stdout


def test_the_rotated_hooks_log_is_scrubbed_too(vault):
    """`hooks.log.1`, the hooks log's older half (see brain.agents.hooks_log), as an earlier brain wrote it."""
    logs = vault.brain_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "hooks.log.1").write_text(
        f"2026-11-20T10:00:00Z extract x: started\n2026-11-20T10:00:01Z extract x: {LOGGED}\n"
    )
    (logs / "hooks.log").write_text("2026-11-21T10:00:00Z extract y: password=hunter2xyz\n")
    dry = _brain(vault, "redact")
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.splitlines()[:3] == [
        "log       .brain/logs/hooks.log:1    assignment",
        "log       .brain/logs/hooks.log.1:2  github-token",
        "dry run, nothing changed: 2 secrets found (2 in log); would rewrite 0 notes and 0 history versions",
    ]
    assert _brain(vault, "redact", "--apply").exit_code == 0
    assert (logs / "hooks.log.1").read_text() == (
        "2026-11-20T10:00:00Z extract x: started\n2026-11-20T10:00:01Z extract x: [REDACTED:github-token]\n"
    )
    assert (logs / "hooks.log").read_text() == "2026-11-21T10:00:00Z extract y: password=[REDACTED:assignment]\n"


def test_the_tip_candidates_are_scrubbed_and_still_read(vault):
    """Issue 40, 6: `.brain/tips/candidates.jsonl` (drafts kept up to 90 days for a second session)
    was neither read by a dry run nor rewritten by `--apply`."""
    from dataclasses import asdict

    from brain.memory.tips.admit import CANDIDATES, Candidates
    from brain.memory.tips.draft import Draft

    held = Draft(
        category="strategy",
        subtask='Set SECRET_KEY_BASE="9f8e7d6c 5b4a3928" before the deploy',
        trigger="deploy fails",
        tip="Export the key first",
        steps=("export JWT_SECRET_KEY=jwt-4f8a9c-secret",),
        avoid="",
        purpose="",
        applies_when="",
        task_category="deploy",
        priority="medium",
        evidence="success",
        episode="EPISODE-2026-11-20-a1b2c3d4",
        span="d001",
    )
    path = vault.brain_dir / CANDIDATES
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = {**asdict(held), "subtask": "Tune the cache", "steps": ["warm it"], "held": "2026-11-20"}
    path.write_text(  # as an older brain kept them: the secrets were not seen then
        json.dumps(asdict(held) | {"held": "2026-11-20"}, ensure_ascii=False) + "\n" + json.dumps(clean) + "\n",
        encoding="utf-8",
    )
    dry = _brain(vault, "redact")
    assert dry.stdout.splitlines()[:3] == [
        "candidates .brain/tips/candidates.jsonl:1  assignment",
        "candidates .brain/tips/candidates.jsonl:1  assignment",
        "dry run, nothing changed: 2 secrets found (2 in candidates); would rewrite 0 notes and 0 history versions",
    ]
    assert _brain(vault, "redact", "--apply").exit_code == 0
    assert _leaks(vault, ["9f8e7d6c", "jwt-4f8a9c-secret"]) == {}
    (first, second) = Candidates(vault.brain_dir, "2026-11-21").waiting
    assert first.draft.subtask == 'Set SECRET_KEY_BASE="[REDACTED:assignment]" before the deploy'
    assert first.draft.steps == ("export JWT_SECRET_KEY=[REDACTED:assignment]",)
    assert (first.held, second.draft.subtask, second.draft.steps) == ("2026-11-20", "Tune the cache", ("warm it",))
    assert path.stat().st_mode & 0o777 == 0o600
    assert _brain(vault, "redact").stdout == "no secrets found; nothing changed\n"


def test_a_secret_in_a_heading_is_purged_from_chromas_own_operation_log(lex):
    """Issue 40, 7: a heading is each chunk's `section` in Chroma; the old metadata stayed in Chroma's
    operation log (`embeddings_queue` in chroma.sqlite3), which Chroma empties only once its vector
    index is written out (every 4,096 records here), and a second dry run said nothing."""
    write(lex, "notes/Creds.md", "---\ntitle: Creds\n---\n# Creds\n\n## password=hunter2heading\n\nsome text\n")
    write(lex, "notes/Other.md", "# Other\n\n## Plain heading\n\nplain text\n")
    assert _brain(lex, "index").exit_code == 0
    chroma = ".brain/index/chroma/chroma.sqlite3"
    assert chroma in _leaks(lex, ["hunter2heading"])
    dry = _brain(lex, "redact").stdout.splitlines()
    assert "vectors   notes/Creds.md    assignment" in dry, dry
    done = _brain(lex, "redact", "--apply")
    assert done.exit_code == 0, done.output
    assert _leaks(lex, ["hunter2heading"]) == {}
    assert _brain(lex, "redact").stdout == "no secrets found; nothing changed\n"
    # the vectors still answer, and agree with the catalog
    index = state(lex)
    assert index["pending"] == [] and sorted(index["chunks"]) == sorted(index["vectors"])
    found = json.loads(_brain(lex, "search", "plain text", "--mode", "vector", "--json").stdout)
    assert found[0]["path"] == "notes/Other.md"
    doctor = _brain(lex, "doctor")
    assert doctor.exit_code == 0 and doctor.stdout.startswith("no problems found"), doctor.stdout


CRASH_DRIVER = Path(__file__).resolve().parents[2] / "helpers" / "crash_driver.py"


def _killed(vault: Vault, target: str, count: int, when: str, *args: str) -> None:
    """`brain ARGS --vault V` in a subprocess killed at the `count`th call of `target` (see crash_driver)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(CRASH_DRIVER.parents[2])}
    done = subprocess.run(
        [sys.executable, "-B", str(CRASH_DRIVER), target, str(count), when, "--", *args, "--vault", str(vault.root)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 9, f"the process was not killed where the test meant: {done.stdout}{done.stderr}"


@pytest.mark.parametrize(
    ("target", "count", "when"),
    [
        ("brain.vault.history:History._rewrite_log", 1, "after"),  # one log names the new versions, the old bytes stay
        ("brain.index.catalog.compact:compact", 1, "before"),  # the rows reindexed, their old text in free pages
        ("brain.index.sync.disk_bound:rebuild_every_collection", 1, "before"),  # the vectors' log not purged yet
    ],
    ids=["history", "catalog", "vectors"],
)
def test_a_redaction_killed_part_way_is_finished_by_the_next_one(lex, target, count, when):
    """Issue 40, 8: `redact --apply` killed part-way, then run again to its end, left history objects
    no log named any more and the catalog's old text; the rerun could say "no secrets found"."""
    secrets = _populate(lex)
    write(lex, "notes/Heading.md", "# Heading\n\n## token=h3adingT0ken\n\ntext\n")
    assert _brain(lex, "index", "--vectors").exit_code == 0  # in Chroma's metadata, not only written behind
    secrets.append("h3adingT0ken")
    _killed(lex, target, count, when, "redact", "--apply")
    assert _leaks(lex, secrets)  # killed: some are still there
    dry = _brain(lex, "redact")
    assert dry.stdout != "no secrets found; nothing changed\n", dry.stdout
    again = _brain(lex, "redact", "--apply")
    assert again.exit_code == 0, again.output
    assert {secret: holding(lex.root, secret) for secret in secrets if holding(lex.root, secret)} == {}
    assert past_elements(lex.index_dir / "chroma") == {}  # not this process's memory, which held the secrets just now
    assert _brain(lex, "redact").stdout == "no secrets found; nothing changed\n"
    doctor = _brain(lex, "doctor")
    assert doctor.exit_code == 0, doctor.stdout


def test_a_redaction_killed_before_its_last_step_is_finished_though_no_secret_is_left_to_find(lex):
    """The notes and the catalog's rows were redacted, the catalog not compacted yet: its file still
    holds the old text in free pages, where no search finds it. The next run must not say "no secrets"."""
    write(lex, "notes/Only.md", "# Only\n\nPASSWORD=onlyHere99x\n")
    assert _brain(lex, "index").exit_code == 0
    _killed(lex, "brain.index.catalog.compact:compact", 1, "before", "redact", "--apply")
    assert holding(lex.root, "onlyHere99x")
    dry = _brain(lex, "redact")
    assert dry.stdout == (
        "an earlier `brain redact --apply` was cut short; run it again to finish (compact the index)\n"
    ), dry.stdout
    done = _brain(lex, "redact", "--apply")
    assert done.exit_code == 0, done.output
    assert done.stdout.startswith("finished the redaction cut short; no secrets found"), done.stdout
    assert holding(lex.root, "onlyHere99x") == []
    assert _brain(lex, "redact").stdout == "no secrets found; nothing changed\n"
