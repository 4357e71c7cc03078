"""`brain mcp`: serve the vault to AI agents over MCP (stdio, or streamable HTTP)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from brain.cli.common import VaultOption

# The server's tool groups (brain/mcp/server.py GROUPS), named here so `brain --help` need not load the server.
TOOL_GROUPS = ("core", "episodic", "runs", "causal", "learning", "facts", "maintenance")


def mcp(
    vault: VaultOption = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")] = False,
    host: Annotated[
        str, typer.Option(help="Address to bind with --http (loopback unless you mean otherwise).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port for --http.")] = 8765,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            help="With --http on a non-loopback --host: serve without a token (anyone who can reach it gets the vault).",
        ),
    ] = False,
    tools: Annotated[
        str | None,
        typer.Option(
            "--tools",
            help=f"Tool groups to expose, comma-separated: {', '.join(TOOL_GROUPS)}, or all "
            "(default: every group but maintenance, whose reindex rebuilds the index); or agent: the few tools "
            "a coding agent needs, with the arguments it uses (what 'brain hooks install' registers).",
        ),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            help="With --http: a further Host name clients may use (DNS-rebinding check); repeat for more.",
        ),
    ] = None,
    session_idle: Annotated[
        float | None,
        typer.Option(
            "--session-idle",
            min=0.1,
            max=86400,
            show_default=False,
            help="With --http: seconds after which a session with no request in flight is closed and freed (default 600).",
        ),
    ] = None,
) -> None:
    """Serve the vault to AI agents (Claude Desktop, Claude Code, Cursor, any MCP client).

    Over HTTP, set BRAIN_MCP_TOKEN to require 'Authorization: Bearer <token>' on every request.
    """
    from brain.mcp import server as mcp_server
    from brain.vault.vault import Vault

    found = Vault.find(vault)
    token = mcp_server.http_token(os.environ, host=host, insecure=insecure) if http else None
    built = mcp_server.build_server(found, mcp_server.parse_groups(tools))
    if not http:
        mcp_server.run_stdio(built)
        return
    mcp_server.run_http(
        built,
        host=host,
        port=port,
        token=token,
        allowed_hosts=allow_host or (),
        session_idle=session_idle or mcp_server.SESSION_IDLE_SECONDS,
    )
