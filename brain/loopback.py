"""Serving over HTTP, safe by default, for both of brain's servers (`brain mcp --http`, `brain ui`):
the names of this machine, and the Host and Origin checks against DNS rebinding.

A page elsewhere on the web can make a browser send requests to 127.0.0.1, and a DNS name it
controls can resolve to 127.0.0.1 a moment later: a request whose Host (or Origin, when a browser
sends one) is not a name the server was bound to or told to accept is refused.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def bracket(host: str) -> str:
    """An IPv6 address as a URL names it (`::1` -> `[::1]`); any other host as it is."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def is_loopback(host: str) -> bool:
    return bracket(host) in LOOPBACK_HOSTS


def host_checks(host: str, port: int, allowed_hosts: Iterable[str] = ()) -> TransportSecuritySettings:
    """The Host and Origin values a server bound to `host:port` accepts: this machine's names, the
    host it is bound to, and the further names the user allowed."""
    names = list(dict.fromkeys([*LOOPBACK_HOSTS, bracket(host), *(bracket(name) for name in allowed_hosts)]))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:{port}" for name in names],
        allowed_origins=[f"{scheme}://{name}:{port}" for name in names for scheme in ("http", "https")],
    )
