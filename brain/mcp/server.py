"""The MCP server: tool groups chosen by a profile, the notes as resources, the session protocol
as prompts, over stdio or streamable HTTP.

Tools are module-level functions in each domain's `tools.py` (`brain.memory.<domain>.tools`); each module names the group it
belongs to (`GROUP`), and `--tools core,episodic` picks groups. Without `--tools`, every group but
maintenance is served; `--tools all` adds it. `--tools agent` serves a profile (mcp/profiles.py): the
few tools a coding agent works with, each with the arguments it needs, which is what `brain hooks
install` registers. Adding a domain is its `tools.py` and one line in `TOOL_MODULES`.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import importlib
import json
import socket
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType

from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from brain import __version__
from brain.errors import BrainError, PortTaken, UsageError
from brain.loopback import bracket, host_checks, is_loopback
from brain.mcp.common import BrainServer, ServerState, register_tools, tools_in
from brain.mcp.profiles import PROFILE_INSTRUCTIONS, PROFILES, without_tools
from brain.mcp.prompts import serve_prompts
from brain.mcp.remedies import MAINTENANCE_GROUP, wordings_for
from brain.mcp.resources import serve_notes
from brain.memory.front_door import Memory, open_memory
from brain.vault.vault import Vault

# The tool modules, by name (importing this registry imports no domain): each holds one group's tools
# (its GROUP), functions decorated with brain.mcp.common.tool. A new domain adds one line.
TOOL_MODULES = (
    "brain.memory.notes.tools",
    "brain.memory.search.tools",
    "brain.memory.notes.history_tools",
    "brain.index.tools",
    "brain.memory.episodes.tools",
    "brain.memory.patterns.tools",
    "brain.memory.runs.tools",
    "brain.memory.causal.tools",
    "brain.memory.tips.tools",
    "brain.memory.sessions.tools",
    "brain.memory.facts.tools",
    "brain.index.maintenance_tools",
)
_TOOL_MODULES: tuple[ModuleType, ...] = tuple(importlib.import_module(name) for name in TOOL_MODULES)
GROUPS: dict[str, tuple[ModuleType, ...]] = {}
for _module in _TOOL_MODULES:
    GROUPS[_module.GROUP] = (*GROUPS.get(_module.GROUP, ()), _module)
# Served without --tools: what an agent works with. Maintenance rebuilds the index, holding every
# other call meanwhile: served only when asked for.
DEFAULT_GROUPS = tuple(name for name in GROUPS if name != MAINTENANCE_GROUP)
TOKEN_ENV = "BRAIN_MCP_TOKEN"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
SESSION_IDLE_SECONDS = 600.0

INSTRUCTIONS = """\
brain is a folder of markdown notes used as working memory: notes, episodes (what happened in a
work session and what was decided), patterns (ways of working with success rates) and causal
links between them. Start a task with search or build_context to learn what is known, and
get_antipatterns to learn what to avoid; record what you learn with write_note / edit_note,
store_episode at the end of a session, and add_pattern when a way of working proved itself or failed.
Facts (preferences, settings, policies) are immutable: record_fact, then supersede_fact to change one;
recall_facts returns the facts valid now (or at a past time) in the namespaces you name.
Save what you did with save_context (naming what caused it in caused_by); ask build_causal_chain or
reconstruct_reasoning why a note exists before reversing a decision.
Notes are named by title, file stem, permalink or vault-relative path; each is also a resource,
memory://notes/<vault-relative path>. index_status says how current search is. The prompts
start_task and end_session carry the same protocol: what is known at the start, what to record at the end."""


def parse_groups(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """Group and profile names from 'core,episodic' or 'agent', in registry order: None (or nothing
    named) means the default groups, every one but maintenance; 'all' means every group."""
    if spec is None:
        return DEFAULT_GROUPS
    names = [part.strip() for part in (spec.split(",") if isinstance(spec, str) else spec) if part.strip()]
    if not names:
        return DEFAULT_GROUPS
    if names == ["all"]:
        return tuple(GROUPS)
    unknown = [name for name in names if name not in GROUPS and name not in PROFILES]
    if unknown:
        raise UsageError(
            f"unknown tool group(s) {', '.join(unknown)}; choose from {', '.join([*GROUPS, *PROFILES])} (or 'all')"
        )
    return tuple(name for name in [*GROUPS, *PROFILES] if name in names)


def build_server(vault: Vault | str | Path, groups: str | Iterable[str] | None = None) -> MCPServer:
    """An MCP server for one vault exposing the chosen tool groups (default: every group but
    maintenance), its notes as resources and the session protocol as prompts."""
    chosen = parse_groups(groups)
    memory = open_memory(vault)
    state = ServerState(vault=memory.vault, corpus=memory.corpus, wordings=wordings_for(chosen))
    _follow_file_events(memory)
    profiles = [name for name in chosen if name in PROFILES]
    alone = len(chosen) == 1 and chosen[0] in PROFILE_INSTRUCTIONS
    server = BrainServer(
        "brain",
        title="brain vault memory",
        instructions=PROFILE_INSTRUCTIONS[chosen[0]] if alone else INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    served = [module for name in chosen if name in GROUPS for module in GROUPS[name]]
    for module in served:
        register_tools(server, state, module)
    names = {fn.__name__ for module in served for fn in tools_in(module)}
    for profile in profiles:
        names |= _serve_profile(server, state, PROFILES[profile], names)
    serve_notes(server, state)
    serve_prompts(server, state, names)
    return server


def _serve_profile(
    server: MCPServer, state: ServerState, profile: Mapping[str, tuple[str, ...]], served: set[str]
) -> set[str]:
    """Serve a profile's tools that no whole group serves already (those stay in full), each with the
    profile's arguments, and without the sentences of its description naming a tool not served."""
    wanted = {tool: kept for tool, kept in profile.items() if tool not in served}
    for module in _TOOL_MODULES:
        register_tools(server, state, module, only=wanted)
    unserved = {fn.__name__ for module in _TOOL_MODULES for fn in tools_in(module)} - served - set(wanted)
    for name in wanted:
        found = server._tool_manager.get_tool(name)
        if found is not None:
            found.description = without_tools(found.description or "", unserved)
    return set(wanted)


def _follow_file_events(memory: Memory) -> None:
    """Keep the search index current with edits made anywhere, from file events (the front door
    attached it for the server's own writes). An index that cannot be opened now (busy, built by
    another embedder) must not stop the server: notes are still served, and search reports the
    problem itself.
    """
    try:
        memory.follow_file_events()  # reads skip the stat scan
    except (BrainError, OSError, sqlite3.Error) as error:
        print(f"brain mcp: warning: search index not attached ({error})", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- transports


def run_stdio(server: MCPServer) -> None:
    from brain.mcp.stdio import run_stdio as serve  # every line answered, as over HTTP

    serve(server)


def http_app(
    server: MCPServer,
    *,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: Iterable[str] = (),
    session_idle: float = SESSION_IDLE_SECONDS,
) -> ASGIApp:
    """The streamable HTTP app at /mcp, with DNS-rebinding protection and, given a token, bearer auth."""
    security = host_checks(host, port, allowed_hosts)
    # Idle sessions are closed and freed: an abandoned session would otherwise hold its memory for good.
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host, session_idle_timeout=session_idle
    )
    return BearerTokenMiddleware(app, token) if token else app


def http_token(environ: Mapping[str, str], *, host: str, insecure: bool = False) -> str | None:
    """The bearer token for HTTP, refusing what would expose the vault by accident.

    A set but empty (or blank) BRAIN_MCP_TOKEN is an error, never "no authentication"; a
    non-loopback host needs a token unless `insecure` says otherwise on purpose.
    """
    token = environ.get(TOKEN_ENV)
    if token is not None and not token.strip():
        raise UsageError(
            f"{TOKEN_ENV} is set but empty; set it to a secret, or unset it to serve loopback without a token"
        )
    if token is None and not insecure and not is_loopback(host):
        raise UsageError(
            f"--host {host} is reachable from other machines: set {TOKEN_ENV} to require a bearer token, or pass --insecure to serve without one"
        )
    return token


def run_http(
    server: MCPServer,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    session_idle: float = SESSION_IDLE_SECONDS,
) -> None:
    """Serve over HTTP until stopped. The port is bound first (a taken one is a PortTaken error, nothing
    started), and "serving on" is said only once the server accepts connections."""
    import uvicorn

    app = http_app(server, host=host, port=port, token=token, allowed_hosts=allowed_hosts, session_idle=session_idle)
    auth = "bearer token required" if token else f"no token (set {TOKEN_ENV} to require one)"
    listening = bind(host, port)
    serving = f"brain mcp: serving on http://{bracket(host)}:{port}{MCP_PATH} ({auth})"

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started and not self.should_exit:
                print(serving, file=sys.stderr, flush=True)

    with listening, contextlib.suppress(KeyboardInterrupt):  # Ctrl-C ends the server (exit 0), as uvicorn.run does
        Server(uvicorn.Config(app, log_level="warning")).run(sockets=[listening])


def bind(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port), as uvicorn binds one; a port another program holds is PortTaken,
    naming a nearby port that is free."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        if error.errno != errno.EADDRINUSE:
            raise
        raise PortTaken(host, port, _free_port_near(family, host, port)) from None
    return listening


def _free_port_near(family: socket.AddressFamily, host: str, port: int) -> int | None:
    """The first of the next 20 ports that can be bound on `host` now, or None."""
    for candidate in range(port + 1, min(port + 21, 65536)):
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, candidate))
            except OSError:
                continue
            return candidate
    return None


class BearerTokenMiddleware:
    """Refuses HTTP requests without `Authorization: Bearer <token>` (401); lifespan events pass through.

    A static shared secret, not OAuth: the SDK's auth hooks expect an OAuth authorization
    server to advertise, which a local token does not have.
    """

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "unauthorized", "error_description": "missing or wrong bearer token"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="brain"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
