"""What stands before every page: the Host and Origin checks of `brain.loopback` (as the MCP server's
HTTP transport has them), reads only (GET and HEAD), the token when there is one, and headers that
keep a page to what the viewer itself serves (no script, style, image or frame from anywhere else).

A token is given once in the address `brain ui` prints (`?token=...`): the viewer answers with a
cookie holding a keyed hash of it, for this port, and sends the browser to the same address without
the token. Scripts may send `Authorization: Bearer <token>` instead.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlencode

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADERS = {
    # nothing from elsewhere: scripts, styles, images, fonts and requests from this server only;
    # no inline script or style at all, so a note's text placed in a page can never run
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
READS = ("GET", "HEAD")


def cookie_name(port: int) -> str:
    return f"brain_ui_{port}"


def cookie_value(token: str) -> str:
    """What the cookie holds: a keyed hash of the token, never the token itself."""
    return hmac.new(token.encode(), b"brain ui", hashlib.sha256).hexdigest()


class Guard:
    def __init__(self, app: ASGIApp, *, checks: TransportSecuritySettings, port: int, token: str | None) -> None:
        self.app = app
        self.checks = TransportSecurityMiddleware(checks)
        self.port = port
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        refused = await self.refused(Request(scope))
        if refused is not None:
            await refused(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)

    async def refused(self, request: Request) -> Response | None:
        """The answer to a request that may not go through, or None."""
        found = await self.checks.validate_request(request)
        if found is not None:
            return found
        if request.method not in READS:
            return PlainTextResponse("the viewer only reads: GET and HEAD", 405, headers={"allow": ", ".join(READS)})
        if self.token is None:
            return None
        given = request.query_params.get("token")
        if given is not None:
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return _unauthorized()
            rest = urlencode([(key, value) for key, value in request.query_params.multi_items() if key != "token"])
            answer = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), 303)
            answer.set_cookie(
                cookie_name(self.port), cookie_value(self.token), httponly=True, samesite="strict", path="/"
            )
            return answer
        cookie = request.cookies.get(cookie_name(self.port), "")
        bearer = request.headers.get("authorization", "")
        if hmac.compare_digest(cookie.encode(), cookie_value(self.token).encode()) or hmac.compare_digest(
            bearer.encode(), f"Bearer {self.token}".encode()
        ):
            return None
        return _unauthorized()


def _unauthorized() -> Response:
    return PlainTextResponse(
        "this viewer needs its token: open the address `brain ui` printed (it ends in ?token=...), "
        "or send Authorization: Bearer <token>",
        401,
        headers={"www-authenticate": 'Bearer realm="brain ui"'},
    )
