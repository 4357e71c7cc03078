"""A subject has one current value per namespace: a second `record` is refused with one line naming the
current fact and the command that supersedes it; `--supersede` does it in one step; `supersede` and
`invalidate` take the subject as well as the fact's id."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from brain.memory.corpus import Corpus
from brain.memory.facts import recall as fact_recall
from brain.memory.facts.note import NewFact, fact_title, render_fact, value_hash
from brain.vault.vault import Vault
from tests.conftest import write

JAN = datetime(2026, 1, 1, tzinfo=UTC)


def every_byte(root: Path) -> dict[str, bytes]:
    """The vault's files, but the write lock's (empty) file, which the refused write took."""
    files = (p for p in sorted(root.rglob("*")) if p.is_file() and p.name != "write.lock")
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def record(brain, *args: str) -> dict:
    result = brain("fact", "record", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def current(vault: Vault, subject: str, namespace: str = "default") -> list[tuple[str, object]]:
    found = fact_recall.recall_facts(Corpus(vault), subject=subject, namespaces=[namespace])
    return [(hit.fact.title, hit.fact.value) for hit in found.hits]


def test_recording_a_subject_again_is_refused_with_the_current_fact_and_the_command(vault: Vault, brain) -> None:
    first = record(brain, "config", "db-pool-size", "20")["fact"]["id"]
    before = every_byte(vault.root)
    refused = brain("fact", "record", "config", "db-pool-size", "25")
    assert refused.exit_code == 1
    assert refused.stderr == (
        f"error: 'db-pool-size' already has a current value in namespace 'default': {first} = 20; to replace it, "
        "run `brain fact supersede db-pool-size VALUE --namespace default`, or record it with --supersede\n"
    )
    assert every_byte(vault.root) == before
    assert current(vault, "db-pool-size") == [(first, 20)]
    # another namespace is another subject
    other = record(brain, "config", "db-pool-size", "5", "--namespace", "run:7")["fact"]["id"]
    assert current(vault, "db-pool-size", "run:7") == [(other, 5)]


def test_supersede_on_record_replaces_the_current_value_in_one_step(vault: Vault, brain) -> None:
    first = record(brain, "config", "db-pool-size", "20")["fact"]["id"]
    replaced = record(brain, "config", "db-pool-size", "25", "--supersede")
    assert replaced["closed"]["id"] == first and replaced["closed"]["superseded_by"] == replaced["fact"]["id"]
    assert current(vault, "db-pool-size") == [(replaced["fact"]["id"], 25)]
    history = json.loads(brain("fact", "history", "db-pool-size", "--json").stdout)
    assert [(row["id"], row["value"]) for row in history] == [(first, 20), (replaced["fact"]["id"], 25)]
    # with nothing current yet, --supersede simply records
    fresh = record(brain, "config", "cache-ttl", "60", "--supersede")
    assert fresh["closed"] is None and current(vault, "cache-ttl") == [(fresh["fact"]["id"], 60)]
    kind = brain("fact", "record", "policy", "db-pool-size", "30", "--supersede")
    assert kind.exit_code == 1 and kind.stderr == (
        f"error: {replaced['fact']['id']} is a config fact; a supersede keeps the kind, so record 'policy' "
        "under another subject, or supersede with kind 'config'\n"
    )


def test_supersede_and_invalidate_take_the_subject(vault: Vault, brain) -> None:
    first = record(brain, "config", "db-pool-size", "20")["fact"]["id"]
    superseded = brain("fact", "supersede", "db-pool-size", "30", "--json")
    assert superseded.exit_code == 0, superseded.output
    newer = json.loads(superseded.stdout)
    assert newer["closed"]["id"] == first and newer["fact"]["value"] == 30
    assert current(vault, "db-pool-size") == [(newer["fact"]["id"], 30)]

    theme = record(brain, "preference", "theme", "dark", "--namespace", "user:alice")["fact"]["id"]
    missing = brain("fact", "invalidate", "theme")
    assert missing.exit_code == 1 and missing.stderr == (
        "error: no fact is named 'theme' and no current fact is about 'theme' in namespace 'default'; "
        "give the fact's id, or its subject with --namespace\n"
    )
    closed = json.loads(brain("fact", "invalidate", "theme", "--namespace", "user:alice", "--json").stdout)
    assert closed["fact"]["id"] == theme and closed["fact"]["valid_until"] is not None
    assert current(vault, "theme", "user:alice") == []
    # the id still works as before
    by_id = json.loads(brain("fact", "invalidate", newer["fact"]["id"], "--json").stdout)
    assert by_id["fact"]["id"] == newer["fact"]["id"]


def test_a_subject_with_two_current_values_from_an_older_vault_is_named_by_id(vault: Vault, brain) -> None:
    titles = []
    for value, day in ((20, 1), (25, 2)):
        title = fact_title("db-pool-size", "config", "default", JAN.replace(day=day), value_hash(value))
        new = NewFact(
            title, "config", "db-pool-size", value, "default", "long-term", None, 0.5, JAN.replace(day=day),
            "internal", None, None, False, JAN.replace(day=day), "test",
        )  # fmt: skip
        write(vault, f"facts/{title}.md", render_fact(new))
        titles.append(title)
    before = every_byte(vault.root)
    ambiguous = brain("fact", "supersede", "db-pool-size", "30")
    assert ambiguous.exit_code == 1 and ambiguous.stderr == (
        f"error: 'db-pool-size' has 2 current values in namespace 'default': {titles[0]} (20), {titles[1]} (25); "
        "name one by its id\n"
    )
    assert brain("fact", "record", "config", "db-pool-size", "30", "--supersede").stderr == ambiguous.stderr
    assert every_byte(vault.root) == before
    assert brain("fact", "supersede", titles[0], "30").exit_code == 0
