"""What every tool group shares: the server's state, tool registration, results and the one error translation."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from pydantic import ValidationError
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from brain.errors import BrainError
from brain.views.plain import plain
from brain.memory.corpus import Corpus
from brain.vault import Vault

F = TypeVar("F", bound=Callable[..., Any])


class BrainServer(MCPServer):
    """The SDK's server, with arguments of the wrong type or missing reported in one line.

    The SDK turns a pydantic `ValidationError` into a tool error holding pydantic's text:
    several lines ending in a documentation URL, naming an internal model. An agent needs the
    argument and what is wrong with it, once.
    """

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if type(error) is ToolError and isinstance(cause, ValidationError):
                raise ToolError(argument_errors(name, cause)) from cause
            raise


def argument_errors(tool: str, error: ValidationError) -> str:
    """One line naming each wrong argument, e.g. `read_note: argument 'name' should be a valid string (got 5)`."""
    parts = []
    for problem in error.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        if problem["type"] == "missing":
            parts.append(f"argument '{where}' is required")
            continue
        message = problem["msg"].removeprefix("Input ").replace("\n", " ")
        given = repr(problem.get("input"))
        parts.append(f"argument '{where}' {message[:1].lower() + message[1:]} (got {given[:60] + '...' if len(given) > 60 else given})")
    return f"{tool}: " + "; ".join(parts)


@dataclass
class ServerState:
    """One vault and one corpus per server, so unchanged notes are parsed once for all calls.

    The corpus re-stats files on every call, so edits made in an editor are seen at once.
    Tool calls run on worker threads; the lock keeps them from using the corpus at the same time.
    """

    vault: Vault
    corpus: Corpus
    lock: threading.Lock = field(default_factory=threading.Lock)


def brain_tool(
    server: MCPServer,
    state: ServerState,
    *,
    title: str,
    read_only: bool,
    destructive: bool = False,
    idempotent: bool = False,
) -> Callable[[F], F]:
    """Register a function as a tool. Library errors become tool errors here, for every tool, once.

    A `BrainError` is raised again as the SDK's `ToolError`: the client gets `isError` and the
    message (what was wrong); the server keeps serving. Anything else is a bug, which the SDK
    reports as a generic tool error and logs with its traceback.
    """

    def decorator(fn: F) -> F:
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            with state.lock:
                try:
                    return fn(*args, **kwargs)
                except BrainError as error:
                    raise ToolError(str(error)) from None

        annotations = ToolAnnotations(
            title=title,
            read_only_hint=read_only,
            destructive_hint=destructive if not read_only else None,
            idempotent_hint=idempotent if not read_only else None,
            open_world_hint=False,
        )
        server.add_tool(guarded, title=title, annotations=annotations)
        return fn

    return decorator


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    """Concise text for the model plus the same facts as structured content for programs."""
    structured = plain(data)
    json.dumps(structured)  # fail here, not in the transport, if something is not JSON
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
