"""Facts: record, supersede chains, invalidate, bitemporal recall at the boundaries, namespaces, ranking, tamper marks."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.errors import InvalidInput
from brain.markdown.parse import parse_note
from brain.memory.corpus import Corpus
from brain.memory.facts import recall as fact_recall
from brain.memory.facts import service
from brain.memory.facts.note import NewFact, fact_from_note, fact_title, parse_value, render_fact, value_hash
from brain.vault.vault import Vault
from tests.conftest import REPO, write

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def every_byte(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def titles(recall) -> list[str]:
    return [hit.fact.title for hit in recall.hits]


@pytest.fixture
def corpus(vault: Vault) -> Corpus:
    return Corpus(vault)


def chain_of(
    vault: Vault, corpus: Corpus, values: list, *, subject: str = "theme", namespace: str = "user:alice"
) -> list[str]:
    """values[0] valid from day 0 (recorded then); each next value supersedes at day 10, 20, ... (recorded then)."""
    first = service.record_fact(
        Corpus(vault), "preference", subject, values[0], namespace=namespace, valid_from=at(0), now=at(0)
    )
    names = [first.fact.title]
    for number, value in enumerate(values[1:], start=1):
        names.append(
            service.supersede_fact(
                corpus,
                names[-1],
                value,
                reason=f"change {number}",
                valid_from=at(10 * number),
                now=at(10 * number),
                caller="test",
            ).fact.title
        )
    return names


# ---------------------------------------------------------------- record


def test_record_writes_a_fact_note_with_its_hash(brain, vault: Vault) -> None:
    result = brain(
        "fact",
        "record",
        "config",
        "mobile-access-token-ttl",
        "{seconds: 900, clients: [ios, android]}",
        "--namespace",
        "org:ledger",
        "--authority",
        "0.9",
        "--valid-from",
        "2026-03-17T12:25:00+01:00",
        "--compliance-class",
        "internal",
        "--retention-days",
        "365",
    )
    assert result.exit_code == 0, result.stderr
    (path,) = (vault.root / "facts").iterdir()
    assert result.stdout == (
        f"recorded facts/{path.name}: config mobile-access-token-ttl = "
        '{"clients":["ios","android"],"seconds":900} (org:ledger, valid from 2026-03-17T11:25:00Z)\n'
    )
    fact = fact_from_note(parse_note(path.read_text(), f"facts/{path.name}"))
    assert fact.value == {"seconds": 900, "clients": ["ios", "android"]}
    assert fact.value_hash == value_hash(fact.value) and not fact.tampered
    assert (fact.namespace, fact.tier, fact.authority, fact.retention_days) == ("org:ledger", "long-term", 0.9, 365)
    assert fact.valid_until is None and fact.problems == ()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("config", "ttl", "{seconds: [900"), 1, "error: the fact value is not valid YAML or JSON"),
        (
            ("config", "ttl", "900", "--valid-from", "2026-03-17T11:25:00"),
            2,
            "error: valid from '2026-03-17T11:25:00' has no time zone; write e.g. 2026-03-17T11:25:00Z or 2026-03-17T12:25:00+01:00",
        ),
        (("config", "ttl", "900", "--valid-from", "2026-03-17"), 2, "error: valid from '2026-03-17' has no time zone"),
        (
            ("config", "ttl", "900", "--valid-from", "yesterday"),
            2,
            "error: valid from 'yesterday' is not an ISO 8601 time",
        ),
        (("config", "ttl", "900", "--compliance-class", "secret"), 1, "error: compliance class 'secret' is not known"),
        (("config", "ttl", "900", "--namespace", "user alice"), 2, "error: namespace 'user alice' must be one word"),
        (
            ("config", "ttl", "900", "--tier", "forever"),
            2,
            "error: --tier: 'forever' is not one of: long-term, ephemeral",
        ),
        (("config", "ttl"), 2, "error: the fact value is empty"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(brain, vault: Vault, args, code, message) -> None:
    """A value the command line gets wrong is a usage error (2); one the vault refuses, or a value that does not parse, 1."""
    before = every_byte(vault.root)
    result = brain("fact", "record", *args)
    assert result.exit_code == code
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith(message), result.stderr
    assert every_byte(vault.root) == before


def test_fact_source_must_be_a_note(brain, vault) -> None:
    refused = brain("fact", "record", "preference", "theme", "dark", "--source", "No Such Note")
    assert refused.exit_code == 1 and refused.stderr.startswith("error: no note named 'No Such Note'")
    assert not any((vault.root / "facts").iterdir())
    write(vault, "notes/Chat 12.md", "# Chat 12\n")
    assert brain("fact", "record", "preference", "theme", "dark", "--source", "[[Chat 12]]").exit_code == 0


def test_value_from_a_file_and_from_stdin(brain, vault: Vault, tmp_path: Path) -> None:
    source = tmp_path / "value.json"
    source.write_text('{"theme": "dark", "font": 14}')
    assert brain("fact", "record", "preference", "ui", "--file", str(source), "--namespace", "user:a").exit_code == 0
    assert (
        brain(
            "fact", "record", "preference", "ui", "--file", "-", "--namespace", "user:b", input="- a\n- b\n"
        ).exit_code
        == 0
    )
    values = sorted(
        json.dumps(h["value"])
        for ns in ("user:a", "user:b")
        for h in json.loads(brain("fact", "recall", "--namespace", ns, "--json").stdout)["facts"]
    )
    assert values == ['["a", "b"]', '{"theme": "dark", "font": 14}']


# ---------------------------------------------------------------- supersede, invalidate, history


def test_a_supersede_chain_of_four_links_both_ways_and_keeps_every_value(vault: Vault, corpus: Corpus, brain) -> None:
    names = chain_of(vault, corpus, ["dark", "light", "system", {"mode": "auto"}])
    facts = [fact_from_note(corpus.get(name)) for name in names]
    for old, new in itertools.pairwise(facts):
        assert old.superseded_by == new.title and new.supersedes == old.title
        assert old.valid_until == new.valid_from and old.closed_at == new.recorded_at
        assert not old.tampered  # closing never touches the value
    assert [f.value for f in facts] == ["dark", "light", "system", {"mode": "auto"}]
    assert facts[-1].valid_until is None
    # Only the newest is current; each older one is found at its own time.
    assert titles(fact_recall.recall_facts(corpus, namespaces=["user:alice"], now=at(100))) == [names[-1]]
    for number, name in enumerate(names):
        assert titles(
            fact_recall.recall_facts(corpus, namespaces=["user:alice"], as_of=at(10 * number + 5), now=at(100))
        ) == [name]
    result = brain("fact", "history", "theme", "--namespace", "user:alice")
    assert result.stdout.splitlines() == [
        f"2026-01-01T00:00:00Z .. 2026-01-11T00:00:00Z  {names[0]}  = dark",
        f"    superseded by {names[1]} by test: change 1",
        f"2026-01-11T00:00:00Z .. 2026-01-21T00:00:00Z  {names[1]}  = light",
        f"    superseded by {names[2]} by test: change 2",
        f"2026-01-21T00:00:00Z .. 2026-01-31T00:00:00Z  {names[2]}  = system",
        f"    superseded by {names[3]} by test: change 3",
        f'2026-01-31T00:00:00Z .. now  {names[3]}  = {{"mode":"auto"}}',
    ]


def test_superseding_a_closed_fact_names_the_current_one_and_changes_nothing(
    vault: Vault, corpus: Corpus, brain
) -> None:
    names = chain_of(vault, corpus, ["dark", "light", "system"])
    before = every_byte(vault.root)
    result = brain("fact", "supersede", names[0], "blue")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {names[0]} is already closed (superseded by {names[1]} at 2026-01-11T00:00:00Z); "
        f"supersede the current fact {names[2]} instead\n"
    )
    assert brain("fact", "supersede", "FACT-nothing-like-it", "blue").stderr == (
        "error: no fact is named 'FACT-nothing-like-it' and no current fact is about 'FACT-nothing-like-it' "
        "in namespace 'default'; give the fact's id, or its subject with --namespace\n"
    )
    assert (
        brain("fact", "supersede", names[2], "system").stderr
        == f"error: {names[2]} already has this value; nothing to supersede\n"
    )
    assert every_byte(vault.root) == before


def test_invalidate_closes_without_a_successor(vault: Vault, corpus: Corpus, brain) -> None:
    (name,) = chain_of(vault, corpus, ["dark"])
    result = brain("fact", "invalidate", name, "--reason", "account closed", "--at", "2026-02-01T00:00:00Z")
    assert result.stdout == f"invalidated facts/{name}.md: valid until 2026-02-01T00:00:00Z\n"
    fact = fact_from_note(Corpus(vault).get(name))
    assert fact.valid_until == at(31) and fact.superseded_by is None and fact.closed_reason == "account closed"
    # (the CLI closed it at the real time: known from then on)
    assert titles(fact_recall.recall_facts(corpus, namespaces=["user:alice"], as_of=at(40))) == []
    recalled = fact_recall.recall_facts(corpus, namespaces=["user:alice"], history=True, as_of=at(40))
    assert [(hit.fact.title, hit.status) for hit in recalled.hits] == [(name, "closed")]
    assert brain("fact", "invalidate", name).stderr.startswith(
        f"error: {name} is already closed (invalidated at 2026-02-01T00:00:00Z)"
    )


# ---------------------------------------------------------------- bitemporal recall


def test_as_of_at_the_boundaries(vault: Vault, corpus: Corpus) -> None:
    v1, v2 = chain_of(vault, corpus, ["dark", "light"])
    second = timedelta(seconds=1)

    def as_of(instant):
        return titles(fact_recall.recall_facts(corpus, namespaces=["user:alice"], as_of=instant, now=at(50)))

    assert as_of(at(0) - second) == []  # before the first fact held
    assert as_of(at(0)) == [v1]  # exactly at valid_from: included
    assert as_of(at(10) - second) == [v1]
    assert as_of(at(10)) == [v2]  # exactly at v1's valid_until (= v2's valid_from): v1 no longer, v2 already
    assert as_of(at(10) + second) == [v2]


def test_known_at_reconstructs_what_the_vault_knew_then(vault: Vault, corpus: Corpus) -> None:
    """v2 was recorded on day 20 but back-dated to hold from day 10 (a correction found late)."""
    v1 = service.record_fact(
        Corpus(vault), "config", "ttl", 3600, namespace="org:x", valid_from=at(0), now=at(0)
    ).fact.title
    v2 = service.supersede_fact(corpus, v1, 900, valid_from=at(10), now=at(20)).fact.title
    second = timedelta(seconds=1)

    def known(instant, as_of=None, history=False):
        found = fact_recall.recall_facts(
            corpus, namespaces=["org:x"], known_at=instant, as_of=as_of, history=history, now=at(50)
        )
        return [(hit.fact.title, hit.status) for hit in found.hits]

    assert known(at(0) - second) == []  # recorded after that
    assert known(at(0)) == [(v1, "valid")]  # exactly at recorded_at: known
    # On day 15 the vault did not know yet that the value changed on day 10: v1, as it stood then.
    assert known(at(15)) == [(v1, "valid")]
    assert known(at(20) - second, as_of=at(15)) == [(v1, "valid")]
    assert known(at(20), as_of=at(15)) == [(v2, "valid")]  # exactly when the correction was recorded
    assert known(at(20), as_of=at(15), history=True) == [(v2, "valid"), (v1, "closed")]
    hit = fact_recall.recall_facts(corpus, namespaces=["org:x"], known_at=at(15), now=at(50)).hits[0]
    assert hit.valid_until is None and hit.fact.valid_until == at(10)  # open as known then, closed now


def test_default_recall_is_current_and_history_marks_closed_facts(vault: Vault, corpus: Corpus, brain) -> None:
    v1, v2 = chain_of(vault, corpus, ["dark", "light"])
    current = json.loads(brain("fact", "recall", "--namespace", "user:alice", "--json").stdout)
    assert [fact["id"] for fact in current["facts"]] == [v2]
    everything = json.loads(brain("fact", "recall", "--namespace", "user:alice", "--history", "--json").stdout)
    assert [(fact["id"], fact["status"]) for fact in everything["facts"]] == [(v2, "valid"), (v1, "closed")]
    text = brain("fact", "recall", "--namespace", "user:alice", "--history").stdout
    assert f"{v1}  preference theme = dark  score" in text and text.splitlines()[2].endswith("[closed]")


def written_by_hand(vault: Vault, kind: str, subject: str, value, namespace: str, valid: float, recorded: float) -> str:
    """A fact note as a vault written before brain refused a second current value can hold it."""
    title = fact_title(subject, kind, namespace, at(recorded), value_hash(value))
    new = NewFact(
        title, kind, subject, value, namespace, "long-term", None, 0.5, at(valid), "internal", None, None, False,
        at(recorded), "test",
    )  # fmt: skip
    write(vault, f"facts/{title}.md", render_fact(new))
    return title


def test_history_lists_by_valid_time_then_recording_time_whatever_the_order_of_recording(
    vault: Vault, corpus: Corpus
) -> None:
    def record(value, kind: str, valid: float, recorded: float) -> str:
        return written_by_hand(vault, kind, "budget", value, "org:x", valid, recorded)

    late = record(3, "limit", 20, 21)
    backfilled = record(1, "limit", 5, 30)  # recorded last, valid first
    same_start_second = record(2, "limit", 10, 12)
    same_start_first = record(4, "quota", 10, 11)
    assert [f.title for f in fact_recall.history(corpus, "budget", namespace="org:x")] == [
        backfilled,
        same_start_first,
        same_start_second,
        late,
    ]
    assert [f.title for f in fact_recall.history(corpus, "budget", namespace="org:x", kind="limit")] == [
        backfilled,
        same_start_second,
        late,
    ]
    assert fact_recall.history(corpus, "budget", namespace="org:x", kind="nothing") == []


@pytest.mark.parametrize("query", [None, "blue green"])
def test_the_best_few_of_many_candidates_are_the_head_of_the_whole_ranking(
    vault: Vault, corpus: Corpus, query: str | None
) -> None:
    colours = ["blue", "green", "red", "blue green", "grey"]
    for number in range(90):  # many equal scores: 3 authorities, 6 start days, 5 values
        service.record_fact(
            Corpus(vault),
            "preference",
            f"screen-{number}",
            colours[number % 5],
            namespace="u",
            authority=(0.4, 0.7, 0.9)[number % 3],
            valid_from=at(number % 6),
            now=at(number % 6 + 0.001 * number),
        )
    whole = fact_recall.recall_facts(corpus, query, namespaces=["u"], limit=1000, now=at(30))
    assert whole.matched == 90
    for limit in (1, 3, 10, 40):
        head = fact_recall.recall_facts(corpus, query, namespaces=["u"], limit=limit, now=at(30))
        assert [(hit.fact.title, hit.score, hit.parts) for hit in head.hits] == [
            (hit.fact.title, hit.score, hit.parts) for hit in whole.hits[:limit]
        ]
        assert head.matched == 90


# ---------------------------------------------------------------- namespaces


def test_recall_never_crosses_namespaces_unless_named(vault: Vault, corpus: Corpus, brain) -> None:
    alice = service.record_fact(
        Corpus(vault), "preference", "theme", "dark", namespace="user:alice", now=at(0), valid_from=at(0)
    ).fact.title
    bob = service.record_fact(
        Corpus(vault), "preference", "theme", "light", namespace="user:bob", now=at(0), valid_from=at(0)
    ).fact.title
    default = service.record_fact(Corpus(vault), "preference", "theme", "sepia", now=at(0), valid_from=at(0)).fact.title

    def recall(*namespaces, **kwargs):
        return titles(
            fact_recall.recall_facts(
                corpus, "theme", namespaces=list(namespaces) or None, subject="theme", now=at(1), **kwargs
            )
        )

    assert recall("user:alice") == [alice]
    assert recall("user:bob") == [bob]
    assert recall() == [default]  # the default namespace, never "all"
    assert sorted(recall("user:alice", "user:bob")) == sorted([alice, bob])
    assert recall("user:carol") == []
    assert [f.title for f in fact_recall.history(corpus, "theme", namespace="user:bob")] == [bob]
    assert brain("fact", "history", "theme", "--namespace", "user:carol").stderr == (
        "error: no facts about 'theme' in namespace 'user:carol'; name the namespace with --namespace\n"
    )


def test_the_default_namespace_and_tiers_come_from_the_config(vault: Vault) -> None:
    (vault.brain_dir / "config.toml").write_text(
        '[facts]\ndefault_namespace = "org:acme"\n[facts.tiers]\n"run:*" = "ephemeral"\n'
    )
    plain = service.record_fact(Corpus(vault), "config", "x", 1, now=at(0))
    run = service.record_fact(Corpus(vault), "scratch", "x", 1, namespace="run:42", now=at(0))
    assert (plain.fact.namespace, plain.fact.tier) == ("org:acme", "long-term")
    assert (run.fact.namespace, run.fact.tier) == ("run:42", "ephemeral")


# ---------------------------------------------------------------- ranking


def test_score_parts_are_visible_and_add_up(vault: Vault, corpus: Corpus, brain) -> None:
    service.record_fact(
        Corpus(vault), "preference", "theme", "dark mode", namespace="u", authority=0.9, valid_from=at(0), now=at(0)
    )
    service.record_fact(
        Corpus(vault), "preference", "city", "Lisbon", namespace="u", authority=0.9, valid_from=at(0), now=at(0)
    )
    found = json.loads(brain("fact", "recall", "dark theme", "--namespace", "u", "--json").stdout)
    assert found["similarity"].startswith("word overlap (this vault has no vector index")
    assert [fact["subject"] for fact in found["facts"]] == ["theme", "city"]
    for fact in found["facts"]:
        parts = fact["parts"]
        assert set(parts) == {"similarity", "recency", "authority", "validity"}
        assert fact["score"] == pytest.approx(sum(found["weights"][name] * parts[name] for name in parts), abs=1e-5)
    assert found["facts"][0]["parts"]["similarity"] == 1.0 and found["facts"][1]["parts"]["similarity"] == 0.0
    no_query = json.loads(brain("fact", "recall", "--namespace", "u", "--json").stdout)
    assert set(no_query["weights"]) == {"recency", "authority", "validity"} and no_query["similarity"] is None


def test_recency_and_authority_rank_without_a_query(vault: Vault, corpus: Corpus) -> None:
    old = service.record_fact(
        Corpus(vault), "note", "a", 1, namespace="u", authority=0.5, valid_from=at(0), now=at(0)
    ).fact.title
    new = service.record_fact(
        Corpus(vault), "note", "b", 2, namespace="u", authority=0.5, valid_from=at(90), now=at(90)
    ).fact.title
    trusted = service.record_fact(
        Corpus(vault), "note", "c", 3, namespace="u", authority=1.0, valid_from=at(0), now=at(0)
    ).fact.title
    found = fact_recall.recall_facts(corpus, namespaces=["u"], now=at(90))
    assert titles(found) == [new, trusted, old]
    assert found.hits[2].parts["recency"] == pytest.approx(0.5)  # one half-life old


def test_similarity_uses_the_index_model_when_the_vault_has_one(vault: Vault, corpus: Corpus) -> None:
    from brain.index.engine import open_index
    from brain.index.sync.sync import index_vault

    service.record_fact(
        Corpus(vault),
        "preference",
        "ui-theme",
        "dark colour scheme for the interface",
        namespace="u",
        now=at(0),
        valid_from=at(0),
    )
    service.record_fact(
        Corpus(vault),
        "preference",
        "home-city",
        "lives in Lisbon, Portugal",
        namespace="u",
        now=at(0),
        valid_from=at(0),
    )
    index_vault(open_index(vault))
    found = fact_recall.recall_facts(corpus, "what colours should the screens use", namespaces=["u"], now=at(1))
    assert found.similarity.startswith("vectors (")
    assert [hit.fact.subject for hit in found.hits] == ["ui-theme", "home-city"]
    assert found.hits[0].parts["similarity"] > found.hits[1].parts["similarity"] > -1


# ---------------------------------------------------------------- immutability


def test_a_value_edited_by_hand_is_marked_by_recall_and_doctor(vault: Vault, corpus: Corpus, brain) -> None:
    (name,) = chain_of(vault, corpus, ["dark"])
    path = vault.root / "facts" / f"{name}.md"
    path.write_text(path.read_text().replace("value: dark", "value: neon"))
    text = brain("fact", "recall", "--namespace", "user:alice").stdout
    assert f"{name}  preference theme = neon" in text and "[TAMPERED: value edited by hand]" in text
    assert (
        json.loads(brain("fact", "recall", "--namespace", "user:alice", "--json").stdout)["facts"][0]["tampered"]
        is True
    )
    doctor = brain("doctor").stdout
    assert (
        f"tampered-fact   facts/{name}.md: the value of {name} was edited in place (it no longer matches value_hash)"
        in doctor
    )
    assert "fix: restore the value, then record the change with `brain fact supersede`" in doctor


def test_brain_never_edits_a_value_in_place(vault: Vault, corpus: Corpus, brain) -> None:
    (name,) = chain_of(vault, corpus, ["dark"])
    before = every_byte(vault.root)
    for args in (
        ("--find", "value: dark", "--replace", "value: neon"),
        ("--set", "value=neon"),
        ("--set", "valid_from=2020-01-01T00:00:00Z"),
    ):
        result = brain("note", "edit", name, *args)
        assert result.exit_code == 1 and "is a fact; the note tools do not change its" in result.stderr
    assert brain("note", "delete", name).stderr.startswith(
        f"error: facts/{name}.md is a fact, and a fact is never deleted: close it with `brain fact invalidate`"
    )
    assert every_byte(vault.root) == before
    assert brain("note", "edit", name, "--append", "Context: chosen in onboarding.").exit_code == 0  # prose is fine


# ---------------------------------------------------------------- the format, property-tested

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(value=JSON_VALUES)
def test_any_value_survives_the_note_and_keeps_its_hash(value) -> None:
    new = NewFact(
        "FACT-x-00000000",
        "config",
        "x",
        value,
        "u",
        "long-term",
        None,
        0.5,
        at(0),
        "internal",
        None,
        None,
        False,
        at(0),
        "test",
    )
    fact = fact_from_note(parse_note(render_fact(new), "facts/FACT-x-00000000.md"))
    assert fact.value_hash == value_hash(value) == fact.actual_hash and not fact.tampered
    assert fact.problems == ()


@settings(max_examples=100, deadline=None)
@given(value=JSON_VALUES)
def test_json_values_parse_back_as_given(value) -> None:
    if value is None:
        return  # an empty value is refused on purpose
    assert parse_value(json.dumps(value)) == value


def test_the_example_vault_chain_reads_cleanly() -> None:
    root = REPO / "vault-example" / "facts"
    facts = {
        f.title: f for f in (fact_from_note(parse_note(p.read_text(), f"facts/{p.name}")) for p in root.glob("*.md"))
    }
    v1, v2 = (facts[f"FACT-mobile-access-token-ttl-v{n}"] for n in (1, 2))
    assert (v1.superseded_by, v2.supersedes, v1.valid_until, v1.closed_at) == (
        v2.title,
        v1.title,
        v2.valid_from,
        v2.recorded_at,
    )
    assert all(not f.tampered and f.value_hash and f.problems == () for f in facts.values())


def test_missing_fields_are_problems_not_errors() -> None:
    fact = fact_from_note(
        parse_note("---\ntype: fact\nvalue: 3\nvalid_from: 2026-01-01T00:00:00\nauthority: 7\n---\n", "facts/x.md")
    )
    assert fact.problems == (
        "fact has no 'kind'",
        "fact has no 'subject'",
        "valid_from '2026-01-01T00:00:00' has no time zone; write e.g. 2026-03-17T11:25:00Z or 2026-03-17T12:25:00+01:00",
        "authority '7' is not a number between 0 and 1",
    )
    with pytest.raises(InvalidInput):
        parse_value("[1, 2")


def test_recall_says_how_many_facts_wait_for_their_vectors(vault: Vault, brain, monkeypatch) -> None:
    """Too many notes waiting to embed them now (the bound is lowered to 0 here): the recall says so."""
    import brain.memory.search.service as index_search

    (vault.brain_dir / "config.toml").write_text('[index]\nembedder = "lexical"\n')
    assert brain("fact", "record", "preference", "editor", "vim").exit_code == 0
    assert brain("index").exit_code == 0
    assert brain("fact", "record", "preference", "theme", "dark mode").exit_code == 0
    monkeypatch.setattr(index_search, "SEARCH_EMBED_NOTES", 0)
    found = brain("fact", "recall", "dark mode", "--json")
    assert json.loads(found.stdout)["pending"] == 1
    shown = brain("fact", "recall", "dark mode").stdout.splitlines()
    assert shown[2] == (
        "1 facts are not in vector search yet (their similarity counts as 0); "
        "recall again in a moment to compare them by meaning"
    )
    monkeypatch.undo()
    assert json.loads(brain("fact", "recall", "dark mode", "--json").stdout)["pending"] == 0
