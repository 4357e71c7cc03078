"""`brain mcp` over stdio: every line gets an answer, as over HTTP.

The SDK's stdio transport hands a line it cannot parse or validate to the session as an
exception, and the session answers nothing: a client whose request was cut short, whose
`params` was not an object or whose arguments nested 200 deep waited forever, with nothing on
stderr. Over HTTP the same requests get a JSON-RPC error at once (-32700 for what is not JSON,
-32602 for what is not a valid message). Here each line is checked the way the HTTP transport
checks a body before the SDK sees it; a line refused is answered with that error (carrying the
request's id when one can be read, so the client's call ends) and named in one line on stderr.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from brain.errors import one_line

_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")')


def rejection(line: str) -> types.JSONRPCError | None:
    """The JSON-RPC error a line gets instead of being served, or None for a valid message.

    Checked as the HTTP transport checks a body: parsed with pydantic's JSON parser (whose
    nesting limit makes a message nested too deeply a parse error there too), then validated
    as a JSON-RPC message.
    """
    try:
        raw = pydantic_core.from_json(line)
    except ValueError as error:
        return _error(types.PARSE_ERROR, f"Parse error: {error}", _id_in_text(line))
    try:
        types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError as error:
        request_id = raw.get("id") if isinstance(raw, dict) else None
        if not _is_id(request_id):
            request_id = None
        if request_id is None and isinstance(raw, dict) and "method" in raw and "id" not in raw:
            return None  # a notification is never answered; the SDK reports it
        problem = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"][1:]) or "message"
        return _error(types.INVALID_PARAMS, f"Validation error: {where}: {problem['msg']}", request_id)
    return None


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_in_text(line: str) -> str | int | None:
    """The id of a request cut short, when its text still shows one (so the client's call ends)."""
    found = _ID.search(line)
    if found is None:
        return None
    try:
        value = pydantic_core.from_json(found.group(1))
    except ValueError:
        return None
    return value if _is_id(value) else None


def _error(code: int, message: str, request_id: str | int | None) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=one_line(message)[:500])
    )


class _CheckedLines:
    """stdin as the SDK reads it (`async for line in stdin`), without the lines `rejection` refuses;
    those are answered through the server's write stream once it exists.

    stdin is read by a daemon thread of its own, not by one of anyio's worker threads: a worker
    blocked in `readline` cannot be cancelled, so at Ctrl-C the server waited for a line from a
    client that kept stdin open (forever), and the interpreter's exit waited for the worker.
    """

    def __init__(self) -> None:
        self.replies: Any = None
        self.ready = anyio.Event()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _read(self) -> AsyncIterator[str]:
        send, receive = anyio.create_memory_object_stream[str | None](16)
        fd = sys.stdin.fileno()
        token = anyio.lowlevel.current_token()

        def pump() -> None:
            # os.read on the descriptor: a buffered reader's lock held by this daemon thread at
            # exit is a fatal error of the interpreter ("could not acquire lock ... at shutdown").
            decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
            pieces: list[str] = []  # the line being read, chunk by chunk (a long line is joined once)
            try:
                while chunk := os.read(fd, 65536):
                    *lines, rest = decoder.decode(chunk).split("\n")
                    if lines:
                        lines[0], pieces = "".join([*pieces, lines[0]]), []
                    for line in lines:
                        anyio.from_thread.run(send.send, line + "\n", token=token)
                    pieces.append(rest)
                last = "".join([*pieces, decoder.decode(b"", final=True)])
                if last:
                    anyio.from_thread.run(send.send, last, token=token)
                anyio.from_thread.run(send.send, None, token=token)
            except (OSError, RuntimeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # stdin failed, or the server stopped and nobody reads any more

        threading.Thread(target=pump, name="brain-mcp-stdin", daemon=True).start()
        with receive:
            async for line in receive:
                if line is None:
                    return
                yield line

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._read():
            if not line.strip():
                continue
            refused = rejection(line)
            if refused is None:
                yield line
                continue
            shown = refused.error.message[:200]
            print(f"brain mcp: refused a message ({shown}); answered with error {refused.error.code}", file=sys.stderr)
            sys.stderr.flush()
            await self.ready.wait()
            await self.replies.send(SessionMessage(refused))


def run_stdio(server: MCPServer) -> None:
    """Serve `server` over stdin/stdout, answering every line (see the module doc), until stdin
    ends or Ctrl-C (which cancels the serving task: requests in flight are cancelled, no traceback)."""

    async def serve() -> None:
        lines = _CheckedLines()
        # the SDK's stdin is typed anyio.AsyncFile[str], but it only iterates it (`async for line in stdin`)
        async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.replies = write_stream
            lines.ready.set()
            lowlevel = server._lowlevel_server
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        pass
