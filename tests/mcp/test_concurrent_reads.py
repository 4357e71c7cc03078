"""`brain mcp --http` serves searches at once: a write in progress does not hold them, and a search
made while a note is rewritten finds it as it was or as it is, never half-written.

Driven by the SDK's client over streamable HTTP against a real server process; the write is held
the way a slow one is in practice, by another process's hold on the index lock.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import httpx2
from filelock import FileLock
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from brain.vault.vault import Vault
from tests.conftest import use_lexical
from tests.helpers.mcp_harness import cli, make_vault, text_of
from tests.mcp.test_http import TOKEN, serve

ROUTING = "notes/Memory Routing Strategy.md"


def indexed_vault(root: Path) -> Path:
    """The MCP test vault, indexed with the lexical embedder (vectors included)."""
    make_vault(root)
    use_lexical(Vault(root))
    cli(root, "index")
    return root


def test_a_search_is_answered_while_a_write_waits_for_the_index(tmp_path: Path) -> None:
    root = indexed_vault(tmp_path / "vault")
    held = FileLock(str(root / ".brain" / "index" / "index.lock"), thread_local=False)
    with serve(root) as (url, _):

        async def main():
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as first,
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as second,
                streamable_http_client(url, http_client=first) as (read_w, write_w),
                streamable_http_client(url, http_client=second) as (read_r, write_r),
                ClientSession(read_w, write_w) as writer,
                ClientSession(read_r, write_r) as reader,
            ):
                await writer.initialize()
                await reader.initialize()
                written: dict[str, object] = {}

                async def write() -> None:
                    written["result"] = await writer.call_tool(
                        "write_note", {"title": "Held write", "content": "Written while the index was busy."}
                    )

                held.acquire(timeout=10)  # another process's `brain index`, as the server sees it
                try:
                    async with anyio.create_task_group() as group:
                        group.start_soon(write)
                        with anyio.fail_after(30):  # the file is written, then the index update waits
                            while not (root / "notes" / "Held write.md").is_file():
                                await anyio.sleep(0.05)
                        with anyio.fail_after(30):
                            found = await reader.call_tool("search", {"query": "memory routing", "mode": "text"})
                        waiting = "result" not in written
                        held.release()
                except BaseException:
                    if held.is_locked:
                        held.release()
                    raise
                with anyio.fail_after(60):
                    after = await reader.call_tool("search", {"query": "held write busy", "mode": "text"})
                return found, waiting, written["result"], after

        found, waiting, result, after = anyio.run(main)
    assert not found.is_error
    assert found.structured_content["hits"][0]["path"] == ROUTING
    assert waiting  # the search was answered while the write still waited for the index
    assert not result.is_error and result.structured_content["path"] == "notes/Held write.md"
    assert [hit["path"] for hit in after.structured_content["hits"]][:1] == ["notes/Held write.md"]


def test_searches_find_a_rewritten_note_as_it_was_or_as_it_is(tmp_path: Path) -> None:
    root = indexed_vault(tmp_path / "vault")
    rounds = 12
    with serve(root) as (url, _):

        async def main():
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http_w,
                streamable_http_client(url, http_client=http_w) as (read_w, write_w),
                ClientSession(read_w, write_w) as writer,
            ):
                await writer.initialize()
                await writer.call_tool("write_note", {"title": "Rotating note", "content": "zebrafish version 0 text"})
                done = anyio.Event()
                seen: list[tuple[str, list[dict]]] = []

                async def rewrite() -> None:
                    for number in range(1, rounds + 1):
                        changed = await writer.call_tool(
                            "write_note",
                            {
                                "title": "Rotating note",
                                "content": f"zebrafish version {number} text",
                                "overwrite": True,
                            },
                        )
                        assert not changed.is_error, text_of(changed)
                    done.set()

                async def search(mode: str) -> None:
                    async with (
                        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http,
                        streamable_http_client(url, http_client=http) as (read, write),
                        ClientSession(read, write) as reader,
                    ):
                        await reader.initialize()
                        while not done.is_set():
                            found = await reader.call_tool("search", {"query": "zebrafish version", "mode": mode})
                            assert not found.is_error, text_of(found)
                            seen.append((mode, found.structured_content["hits"]))

                with anyio.fail_after(120):
                    async with anyio.create_task_group() as group:
                        group.start_soon(rewrite)
                        for mode in ("text", "hybrid", "vector"):
                            group.start_soon(search, mode)
                return seen

        seen = anyio.run(main)
    assert {mode for mode, _ in seen} == {"text", "hybrid", "vector"}
    for mode, hits in seen:
        rotating = [hit for hit in hits if hit["path"] == "notes/Rotating note.md"]
        if mode == "text":
            assert len(rotating) == 1  # the note is in every answer: it never disappears mid-write
        for hit in rotating:
            assert hit["title"] == "Rotating note"
            versions = re.findall(r"zebrafish version (\d+) text", hit["snippet"])
            assert len(versions) == 1 and 0 <= int(versions[0]) <= rounds, (mode, hit["snippet"], hit["section"])
