"""The viewer as a Starlette app: each page of `pages.PAGES` at its address as HTML and, at the same
address ending in `.json`, as the data the HTML shows; the assets of `static/`; all of it behind
`guard.Guard`.

A page's data is read on a worker thread holding the viewer's lock (`viewer.Viewer`), and shown by a
Jinja2 template that escapes every value it places in the page.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import anyio.to_thread
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from brain.cli.remedies import CLI_WORDINGS
from brain.errors import BrainError, NoteNotFound
from brain.loopback import host_checks
from brain.plain import plain
from brain.ui import markdown
from brain.ui.guard import Guard
from brain.ui.pages import PAGES, Page
from brain.ui.viewer import Viewer

STATIC = Path(__file__).parent / "static"


def build_app(
    viewer: Viewer, *, host: str, port: int, token: str | None = None, allowed_hosts: Iterable[str] = ()
) -> ASGIApp:
    templates = environment()
    routes: list[BaseRoute] = []
    for page in PAGES:
        endpoint = _endpoint(viewer, page, templates)
        if "{name}" in page.route:
            routes.append(Route(page.route.replace("{name}", "{name:path}"), endpoint, methods=["GET", "HEAD"]))
        else:
            twin = "/.json" if page.route == "/" else page.route + ".json"
            routes += [
                Route(page.route, endpoint, methods=["GET", "HEAD"]),
                Route(twin, endpoint, methods=["GET", "HEAD"]),
            ]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))

    async def icon(request: Request) -> Response:  # asked for by a browser showing a JSON twin
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    routes.append(Route("/favicon.ico", icon, methods=["GET", "HEAD"]))

    async def not_found(request: Request, error: Exception) -> Response:
        return _html(templates, "error.html", request, None, {"error": f"no page at {request.url.path}"}, 404)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await anyio.to_thread.run_sync(viewer.close)

    app = Starlette(routes=routes, exception_handlers={404: not_found}, lifespan=lifespan)
    return Guard(app, checks=host_checks(host, port, allowed_hosts), port=port, token=token)


def _endpoint(viewer: Viewer, page: Page, templates: Environment) -> Any:
    async def endpoint(request: Request) -> Response:
        args = dict(request.query_params)
        as_json = request.url.path.endswith(".json")
        if "name" in request.path_params:
            name = str(request.path_params["name"])
            as_json = name.endswith(".json")
            args["name"] = name.removesuffix(".json")

        def read() -> dict[str, Any]:
            with viewer.lock:
                return page.read(viewer, args)

        try:
            data, status = await anyio.to_thread.run_sync(read), 200
        except BrainError as error:
            data, status = {"error": error.worded(CLI_WORDINGS)}, 404 if isinstance(error, NoteNotFound) else 400
        if as_json:
            body = json.dumps(plain(data), ensure_ascii=False, indent=2) + "\n"
            return Response(body, status, media_type="application/json")
        return _html(templates, page.template if status == 200 else "error.html", request, page, data, status)

    return endpoint


def _html(
    templates: Environment, template: str, request: Request, page: Page | None, data: dict[str, Any], status: int
) -> Response:
    path = request.url.path
    twin = "/.json" if path == "/" else path + ".json"
    query = str(request.query_params)

    def with_args(**changes: Any) -> str:
        """This page's address with some arguments changed (None removes one)."""
        kept = {key: value for key, value in request.query_params.items() if key not in changes}
        kept.update({key: str(value) for key, value in changes.items() if value is not None})
        return path + (f"?{urlencode(kept)}" if kept else "")

    html = templates.get_template(template).render(
        page=data,
        this=page,
        nav=[item for item in PAGES if item.nav],
        path=path,
        json_url=twin + (f"?{query}" if query else ""),
        with_args=with_args,
    )
    return HTMLResponse(html, status)


_WIKILINK = re.compile(r"\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]")


def _episode_links(text: str) -> Markup:
    """Text whose `[[wikilinks]]` name episodes (a tip's sources), each a link to the episode's page."""
    parts, last = [], 0
    for found in _WIKILINK.finditer(text):
        name = found.group(1).strip()
        parts += [escape(text[last : found.start()]), Markup('<a href="/episodes/{}">{}</a>').format(quote(name), name)]
        last = found.end()
    return Markup("").join([*parts, escape(text[last:])])


def environment() -> Environment:
    templates = Environment(
        loader=PackageLoader("brain.ui", "templates"), autoescape=True, undefined=StrictUndefined, trim_blocks=True
    )
    templates.filters.update(
        note_url=markdown.note_url,
        episode_url=lambda name: "/episodes/" + quote(str(name)),
        run_url=lambda name: "/runs/" + quote(str(name)),
        why_url=lambda name: "/why/" + quote(str(name)),
        graph_url=lambda node: "/graph?" + urlencode({"focus": node}),
        history_url=lambda subject, namespace: (
            "/facts/history?" + urlencode({"subject": subject, "namespace": namespace})
        ),
        percent=lambda value: "?" if value is None else f"{value:.0%}",
        json=lambda value: json.dumps(plain(value), ensure_ascii=False, sort_keys=True),
        markdown=lambda text, links, title=None: markdown.render(str(text), markdown.resolver_of(links), title),
        episode_links=_episode_links,
        day=lambda value: str(value or "")[:10],
        minute=lambda value: str(value or "")[:16].replace("T", " "),
    )
    templates.globals["Markup"] = Markup
    return templates
