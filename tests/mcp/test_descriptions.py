"""Tool descriptions answer what an agent needs to call a tool right, and say what the tool does:
each answer is read from the listing a client gets, then checked against the tool's behaviour."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.mcp_harness import connect, make_vault, text_of

NOTE_DATE = (
    "A note's date is the first ISO date among its frontmatter keys date, created, valid_from, last_validated; "
    "else the day its file last changed (UTC)."
)


def test_fact_descriptions_say_what_recording_again_does_and_what_supersede_takes(tmp_path: Path) -> None:
    with connect(make_vault(tmp_path / "vault")) as client:
        tools = client.list_tools()
        record = " ".join((tools["record_fact"].description or "").split())
        assert (
            "A subject has one current value per namespace: recording a subject that already has one is refused "
            "(the error names the current fact) unless supersede is true, which closes the old fact and records "
            "the new value in one step."
        ) in record
        assert tools["record_fact"].input_schema["properties"]["supersede"]["default"] is False
        supersede = " ".join((tools["supersede_fact"].description or "").split())
        assert (
            "Name the fact by its id (FACT-..., from recall_facts or record_fact) or by its subject "
            "(with namespace when it is not the default one)."
        ) in supersede
        assert tools["supersede_fact"].input_schema["properties"]["fact"]["description"] == (
            "The fact's id (FACT-<subject>-<8 hex>, as record_fact and recall_facts return it), file stem or path, "
            "or its subject (the subject's current fact in `namespace`)."
        )

        first = client.ok("record_fact", {"kind": "preference", "subject": "theme", "value": "dark"})
        first_id = first.structured_content["fact"]["id"]
        refused = client.bad("record_fact", {"kind": "preference", "subject": "theme", "value": "light"}, "theme")
        assert refused == (
            f"Error executing tool record_fact: 'theme' already has a current value in namespace 'default': {first_id} = dark; to replace it, "
            "call supersede_fact with fact 'theme' and namespace 'default', or record_fact with supersede: true"
        )
        second = client.ok(
            "record_fact", {"kind": "preference", "subject": "theme", "value": "light", "supersede": True}
        )
        second_id = second.structured_content["fact"]["id"]
        assert second.structured_content["closed"]["id"] == first_id
        recalled = client.ok("recall_facts", {"subject": "theme"}).structured_content
        assert [(hit["id"], hit["status"]) for hit in recalled["facts"]] == [(second_id, "valid")]
        replaced = client.ok("supersede_fact", {"fact": "theme", "value": "blue"})
        assert replaced.structured_content["closed"]["id"] == second_id
        client.ok("record_fact", {"kind": "preference", "subject": "theme", "value": "red", "namespace": "user:bo"})
        closed = client.ok("invalidate_fact", {"fact": "theme", "namespace": "user:bo"}).structured_content
        assert closed["fact"]["subject"] == "theme" and closed["fact"]["namespace"] == "user:bo"
        client.bad(
            "supersede_fact",
            {"fact": "colour", "value": "blue"},
            "no fact is named 'colour' and no current fact is about 'colour' in namespace 'default'; "
            "give the fact's id, or its subject with namespace",
        )


def test_search_dates_say_which_date_they_filter_on(tmp_path: Path) -> None:
    root = make_vault(tmp_path / "vault")
    (root / "notes" / "Zebra plan.md").write_text(
        "---\ntitle: Zebra plan\ncreated: 2020-05-01\n---\n\nZebra crossings first.\n", encoding="utf-8"
    )
    (root / "notes" / "Zebra notes.md").write_text("# Zebra notes\n\nZebra sightings, undated.\n", encoding="utf-8")
    with connect(root) as client:
        properties = client.list_tools()["search"].input_schema["properties"]
        assert properties["since"]["description"] == (
            f"Only notes dated on or after this day (YYYY-MM-DD, or YYYY-MM, YYYY). {NOTE_DATE}"
        )
        assert properties["until"]["description"] == (
            f"Only notes dated on or before this day (YYYY-MM-DD, or YYYY-MM, YYYY). {NOTE_DATE}"
        )

        def titles(**dates: str) -> list[str]:
            found = client.ok("search", {"query": "zebra", "mode": "text", **dates})
            return sorted(hit["title"] for hit in found.structured_content["hits"])

        assert titles() == ["Zebra notes", "Zebra plan"]
        assert titles(since="2020-01-01", until="2020-12-31") == ["Zebra plan"]  # its frontmatter's created
        assert titles(since="2020-05-02") == ["Zebra notes"]  # undated: the day its file changed, today
        assert "0 hits" in text_of(client.ok("search", {"query": "zebra", "mode": "text", "until": "2019"}))
