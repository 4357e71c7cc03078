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
            "Recording a subject again replaces nothing: it adds a second fact about that subject, both stay valid, "
            "and recall_facts returns both. To change a value, supersede_fact the current fact by its id"
        ) in record
        supersede = " ".join((tools["supersede_fact"].description or "").split())
        assert "Name the fact by its id (FACT-..., from recall_facts or record_fact), not by its subject." in supersede
        assert tools["supersede_fact"].input_schema["properties"]["fact"]["description"] == (
            "The fact's id (FACT-<subject>-<8 hex>, as record_fact and recall_facts return it), file stem or path; "
            "not its subject, which several facts may share."
        )

        first = client.ok("record_fact", {"kind": "preference", "subject": "theme", "value": "dark"})
        second = client.ok("record_fact", {"kind": "preference", "subject": "theme", "value": "light"})
        recalled = client.ok("recall_facts", {"subject": "theme"}).structured_content
        assert sorted((hit["id"], hit["status"]) for hit in recalled["facts"]) == sorted(
            [(first.structured_content["fact"]["id"], "valid"), (second.structured_content["fact"]["id"], "valid")]
        )
        client.bad("supersede_fact", {"fact": "theme", "value": "blue"}, "no note named 'theme'")
        replaced = client.ok("supersede_fact", {"fact": second.structured_content["fact"]["id"], "value": "blue"})
        assert replaced.structured_content["closed"]["id"] == second.structured_content["fact"]["id"]


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
