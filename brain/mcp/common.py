"""What every tool group shares: the server's state, tool registration, results and the one error translation."""

from __future__ import annotations

import functools
import inspect
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    CallToolResult,
    ListResourcesResult,
    PaginatedRequestParams,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field, ValidationError

from brain.errors import BrainError, InvalidInput, one_line, storage_error
from brain.markdown.depth import deeper_than, too_deep_message
from brain.mcp.arguments import argument_errors
from brain.mcp.profiles import compact_schema
from brain.mcp.remedies import MCP_WORDINGS
from brain.memory.corpus import Corpus
from brain.memory.projects.service import Scope, current_folder, scope_by, scope_for
from brain.plain import plain
from brain.vault.history import acting_as
from brain.vault.vault import Vault

if TYPE_CHECKING:
    from brain.index.engine import Index

F = TypeVar("F", bound=Callable[..., Any])
_TOOL_SPEC = "__brain_tool__"  # the attribute `tool` gives a function it marks: its ToolSpec


class BrainServer(MCPServer):
    """The SDK's server, with arguments of the wrong type, missing or unknown reported in one line
    in brain's words (mcp/arguments.py), not in pydantic's, and resources listed a page at a time.

    The SDK lists only the resources registered one by one, all in one answer; a vault's notes
    change under the server and may be many, so `resource_pages(cursor)` (mcp/resources.py)
    gives them a page at a time, as they are when asked.
    """

    resource_pages: Callable[[str | None], tuple[list[Resource], str | None]] | None = None

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        if self.resource_pages is None:
            return await super()._handle_list_resources(ctx, params)
        pages = self.resource_pages
        listed, following = await anyio.to_thread.run_sync(pages, params.cursor if params else None)
        return ListResourcesResult(resources=listed, next_cursor=following)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        found = self._tool_manager.get_tool(name)
        if found is not None:  # pydantic drops an argument it does not know: a misspelt one would be ignored
            known = set(found.parameters.get("properties", {}))
            unknown = sorted(set(arguments or {}) - known)
            if unknown:
                raise ToolError(
                    f"{name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(repr(u) for u in unknown)}; "
                    f"it takes {', '.join(sorted(known)) or 'no arguments'}"
                )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if type(error) is ToolError and isinstance(cause, ValidationError) and found is not None:
                raise ToolError(argument_errors(name, cause, found.parameters)) from cause
            raise


@dataclass
class ServerState:
    """One vault and one corpus per server, so unchanged notes are parsed once for all calls.

    The corpus re-stats files on every call, so edits made in an editor are seen at once.
    Tool calls run on worker threads; the lock keeps them from using the corpus at the same time
    (reading the corpus brings its caches up to date: a read changes it too). A tool that reads
    the index alone (`concurrent`: search) takes no lock, so searches run side by side and beside
    a write: the catalog and the vectors serve readers at once (index/catalog/catalog.py,
    index/vectors/vectors.py).
    """

    vault: Vault
    corpus: Corpus
    lock: threading.Lock = field(default_factory=threading.Lock)
    # how errors and results word a remedy: as the tools this server serves can take it (mcp/remedies.py)
    wordings: Mapping[str, str] = field(default_factory=lambda: MCP_WORDINGS)


@dataclass(frozen=True)
class ToolSpec:
    """How a tool presents itself to clients (its title and its behaviour hints), and whether it
    runs beside other calls (`concurrent`: it reads the index alone, never the corpus)."""

    title: str
    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    concurrent: bool = False


def tool(
    *, title: str, read_only: bool, destructive: bool = False, idempotent: bool = False, concurrent: bool = False
) -> Callable[[F], F]:
    """Mark a module-level function `fn(state, ...)` as a tool; `register_tools` serves it.

    The function stays a plain function: a test can import it and call it with a `ServerState`.
    """

    def decorator(fn: F) -> F:
        setattr(fn, _TOOL_SPEC, ToolSpec(title, read_only, destructive, idempotent, concurrent))
        return fn

    return decorator


def tools_in(module: ModuleType) -> list[Callable[..., Any]]:
    """The tools a module defines, in the order they are written."""
    found = [value for value in vars(module).values() if callable(value) and hasattr(value, _TOOL_SPEC)]
    return [fn for fn in found if fn.__module__ == module.__name__]


def register_tools(
    server: MCPServer, state: ServerState, module: ModuleType, only: Mapping[str, tuple[str, ...]] | None = None
) -> None:
    """Serve every tool of a module, bound to the server's state; with `only` (a profile of
    mcp/profiles.py), just the tools it names, each with the arguments it names and a compact schema.

    Library errors become tool errors here, for every tool, once: a `BrainError` is raised
    again as the SDK's `ToolError`, so the client gets `isError` and the message (what was
    wrong, its remedies in an agent's words: mcp/remedies.py) and the server keeps serving. Anything else is a bug, which the SDK reports as a
    generic tool error and logs with its traceback.
    """
    for fn in tools_in(module):
        if only is not None and fn.__name__ not in only:
            continue
        spec: ToolSpec = getattr(fn, _TOOL_SPEC)
        kept = only[fn.__name__] if only is not None else None
        server.add_tool(_bound(fn, state, spec, kept), title=spec.title, annotations=_annotations(spec))
        if kept is not None:
            served = server._tool_manager.get_tool(fn.__name__)
            assert served is not None
            served.parameters = compact_schema(served.parameters)
            served.description = inspect.cleandoc(served.description or "")


def _bound(
    fn: Callable[..., Any], state: ServerState, spec: ToolSpec, kept: tuple[str, ...] | None = None
) -> Callable[..., Any]:
    """`fn` with its first argument (the state) given, and a signature without it for the SDK's schema;
    with `kept`, only those arguments are served (the others take their defaults)."""

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        # the history names who wrote each version
        with serving(state, ToolError, alone=not spec.concurrent), acting_as("mcp", fn.__name__):
            _check_arguments(fn.__name__, kwargs)
            return fn(state, *args, **kwargs)

    signature = inspect.signature(fn, eval_str=True)
    arguments = list(signature.parameters.values())[1:]
    served = signature.replace(parameters=[a for a in arguments if kept is None or a.name in kept])
    guarded.__signature__ = served  # type: ignore[attr-defined]  # typeshed's functions lack it; inspect reads it
    # The SDK reads both the signature and the type hints (to find a `Context` argument); both are
    # given evaluated, without the state, since the wrapper's module cannot resolve the tool's names.
    guarded.__annotations__ = {name: parameter.annotation for name, parameter in served.parameters.items()}
    guarded.__annotations__["return"] = served.return_annotation
    del guarded.__wrapped__
    return guarded


@contextmanager
def serving(state: ServerState, refusal: Callable[[str], Exception], *, alone: bool = True) -> Iterator[None]:
    """One request on the corpus at a time (`alone`; a concurrent tool uses no corpus, see
    `ServerState`); a library error leaves as `refusal(message)`, the one line an agent reads (its
    remedies in an agent's words: a tool, not a CLI command). A full or read-only disk is worded
    as a library error would be; anything else is a bug and passes as is."""
    with state.lock if alone else nullcontext():
        try:
            yield
        except Exception as error:
            translated = error if isinstance(error, BrainError) else storage_error(error, disk=str(state.vault.root))
            if translated is None:
                raise
            raise refusal(one_line(translated.worded(state.wordings))) from None


def _check_arguments(tool: str, arguments: dict[str, Any]) -> None:
    """Refuse arguments no note can hold: nested deeper than `depth.MAX_DEPTH`, or text with a
    lone surrogate (JSON's `"\\udcff"`, which no UTF-8 file can store)."""
    if deeper_than(arguments):
        raise InvalidInput(f"{tool}: {too_deep_message('an argument')}")
    stack: list[Any] = [arguments]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if any("\ud800" <= char <= "\udfff" for char in value):
                raise InvalidInput(f"{tool}: the text {value[:40]!r} holds a lone surrogate, which is not UTF-8")
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)


def _annotations(spec: ToolSpec) -> ToolAnnotations:
    return ToolAnnotations(
        title=spec.title,
        read_only_hint=spec.read_only,
        destructive_hint=spec.destructive if not spec.read_only else None,
        idempotent_hint=spec.idempotent if not spec.read_only else None,
        open_world_hint=False,
    )


ProjectArgument = Annotated[
    str | None,
    Field(description="Read this project's memory: github.com/acme/shop or a folder (default: the server's)."),
]
AllProjectsArgument = Annotated[bool, Field(description="Read every project's memory.")]


def project_scope(state: ServerState, project: str | None, all_projects: bool, *, index: Index | None = None) -> Scope:
    """The scope of `project` / `all_projects`, else of the server's folder's project; with `index`,
    asked of its catalog without the corpus (a concurrent tool, see `ServerState`)."""
    if project is not None and all_projects:
        raise InvalidInput("project and all_projects do not go together; give one of them")
    if index is not None:
        catalog = index.catalog
        return scope_by(
            lambda name: catalog.has_value("episode", "project", name),
            folder=current_folder(),
            project=project,
            all_projects=all_projects,
        )
    return scope_for(state.corpus, folder=current_folder(), project=project, all_projects=all_projects)


def result(text: str, data: dict[str, Any]) -> CallToolResult:
    """Concise text for the model plus the same facts as structured content for programs."""
    structured = plain(data)
    json.dumps(structured)  # fail here, not in the transport, if something is not JSON
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
