"""`brain mcp --http` driven over streamable HTTP by the SDK's client, with the bearer token enforced."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.helpers.mcp_harness import (
    CAUSAL_TOOLS,
    CORE_TOOLS,
    EPISODIC_TOOLS,
    FACT_TOOLS,
    LEARNING_TOOLS,
    RUN_TOOLS,
    cli,
    make_vault,
    snapshot,
    text_of,
)

TOKEN = "test-token-5f2c"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    with serve(make_vault(tmp_path / "vault")) as served:
        yield served


@contextmanager
def serve(root: Path, *extra: str) -> Iterator[tuple[str, Path]]:
    """`brain mcp --http` on a free port (with `extra` options) until the block ends."""
    port = free_port()
    env = {**os.environ, "BRAIN_MCP_TOKEN": TOKEN}
    env.pop("BRAIN_VAULT", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "mcp", "--vault", str(root), "--http", "--port", str(port), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not start listening"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", root
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stderr.close()


def test_bearer_token_and_host_checks(http_server: tuple[str, Path]) -> None:
    url, _ = http_server
    missing = httpx2.post(url, json=INITIALIZE, headers=HEADERS)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx2.post(url, json=INITIALIZE, headers={**HEADERS, "Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401
    # DNS-rebinding protection: a right token from a page on another host name is still refused
    rebound = httpx2.post(
        url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"}
    )
    assert rebound.status_code == 421
    foreign = httpx2.post(
        url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    allowed = httpx2.post(url, json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"})
    assert allowed.status_code == 200


def test_tools_over_streamable_http(http_server: tuple[str, Path]) -> None:
    url, root = http_server

    async def main():
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=60)
        ) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    with anyio.fail_after(60):
                        tools = {tool.name for tool in (await session.list_tools()).tools}
                        written = await session.call_tool(
                            "write_note", {"title": "Over HTTP", "content": "Sent over the wire."}
                        )
                        read_back = await session.call_tool("read_note", {"name": "Over HTTP"})
                        before = snapshot(root)
                        missing = await session.call_tool("read_note", {"name": "Not There"})
                        unchanged = snapshot(root) == before
                        anti = await session.call_tool("get_antipatterns", {})
                        return tools, written, read_back, missing, unchanged, anti

    tools, written, read_back, missing, unchanged, anti = anyio.run(main)
    assert tools == CORE_TOOLS | EPISODIC_TOOLS | RUN_TOOLS | CAUSAL_TOOLS | LEARNING_TOOLS | FACT_TOOLS
    assert not written.is_error and written.structured_content["path"] == "notes/Over HTTP.md"
    assert "Sent over the wire." in text_of(read_back)
    assert "Sent over the wire." in cli(root, "note", "read", "Over HTTP")
    assert missing.is_error and "no note named 'Not There'" in text_of(missing)
    assert unchanged
    assert not anti.is_error and anti.structured_content["antipatterns"][0]["title"] == "ANTIPATTERN-forgetful-first"


def test_idle_sessions_are_closed_and_freed(tmp_path: Path) -> None:
    """Abandoned sessions are freed (2,000 of them held 74 MB, never freed). With `--session-idle 1`,
    sessions answer while used and are gone (404: unknown session) once idle for a second."""
    auth = {**HEADERS, "Authorization": f"Bearer {TOKEN}"}

    def open_session(http: httpx2.Client) -> str:
        opened = http.post(url, json=INITIALIZE, headers=auth)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert http.post(url, json=initialized, headers={**auth, "mcp-session-id": session}).status_code == 202
        return session

    def list_tools(http: httpx2.Client, session: str) -> int:
        request = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        return http.post(url, json=request, headers={**auth, "mcp-session-id": session}).status_code

    with serve(make_vault(tmp_path / "vault"), "--session-idle", "1") as (url, _), httpx2.Client(timeout=30) as http:
        sessions = [open_session(http) for _ in range(3)]
        kept = sessions[0]
        for _ in range(4):  # used every 0.5 s: never idle for a whole second
            time.sleep(0.5)
            assert list_tools(http, kept) == 200
        time.sleep(2.5)
        assert [list_tools(http, session) for session in sessions] == [404, 404, 404]
        assert list_tools(http, open_session(http)) == 200  # a new session opens as before


def _brain_mcp_http(root: Path, port: int) -> subprocess.Popen[str]:
    env = {**os.environ, "BRAIN_MCP_TOKEN": TOKEN}
    env.pop("BRAIN_VAULT", None)
    return subprocess.Popen(
        [sys.executable, "-m", "brain", "mcp", "--vault", str(root), "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_taken_port_is_said_in_one_line_and_nothing_serves(tmp_path: Path) -> None:
    """Another program listening on the port (`chroma run`, a second brain): one line naming the port and
    the option that picks another, with a port free now; exit 1, and never "serving on"."""
    root = make_vault(tmp_path / "vault")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        process = _brain_mcp_http(root, port)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert out == ""
    free = int(err.rsplit("(", 1)[1].split()[0])
    assert port < free <= port + 20
    assert (
        err
        == f"error: port {port} on 127.0.0.1 is taken by another program; serve on another with --port ({free} is free)\n"
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", free))  # free indeed


def test_serving_is_said_once_the_port_answers(tmp_path: Path) -> None:
    """The "serving on" line comes after the bind: a client that connects as soon as it reads it is answered."""
    root = make_vault(tmp_path / "vault")
    port = free_port()
    process = _brain_mcp_http(root, port)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line == f"brain mcp: serving on http://127.0.0.1:{port}/mcp (bearer token required)\n"
        answer = httpx2.post(
            f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers={**HEADERS, "Authorization": f"Bearer {TOKEN}"}
        )
        assert answer.status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=10)
