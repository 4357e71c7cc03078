"""`brain ui`: see the vault in the browser, read-only (brain/ui/app.py)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Mapping
from typing import Annotated

import typer

from brain.cli.common import VaultOption
from brain.errors import UsageError

TOKEN_ENV = "BRAIN_UI_TOKEN"
DEFAULT_PORT = 8777


def ui(
    vault: VaultOption = None,
    host: Annotated[
        str,
        typer.Option(help=f"Address to bind (loopback unless you mean otherwise; elsewhere {TOKEN_ENV} must be set)."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to serve on.")] = DEFAULT_PORT,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host", help="A further Host name browsers may use (DNS-rebinding check); repeat for more."
        ),
    ] = None,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the viewer in the browser too.")] = False,
) -> None:
    """See the vault in the browser: episodes, failures and their fixes, patterns and the causal graph, facts, runs, tips, and what agents were handed.

    Read-only: it changes no note. Every page has a JSON twin at the same address ending in .json.
    Set BRAIN_UI_TOKEN to require a token (always, and needed to bind anything but loopback).
    """
    from brain.loopback import bracket

    token = ui_token(os.environ, host)
    _check_free(host, port)
    address = f"http://{bracket(host)}:{port}/" + (f"?token={token}" if token else "")
    from brain.ui.app import build_app
    from brain.ui.pages import warm
    from brain.ui.viewer import open_viewer
    from brain.vault.vault import Vault

    found = Vault.find(vault)  # a vault that is not there is said before anything is read
    print(f"brain ui: reading {found.root} ...", file=sys.stderr, flush=True)
    viewer = open_viewer(found)
    with viewer.lock:
        warm(viewer)
    app = build_app(viewer, host=host, port=port, token=token, allowed_hosts=allow_host or ())
    print(f"brain ui: {viewer.root} on {address}  (read-only; Ctrl-C stops it)", file=sys.stderr, flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(address)
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")


def ui_token(environ: Mapping[str, str], host: str) -> str | None:
    """The token the viewer asks for: BRAIN_UI_TOKEN's; required when `host` is not loopback."""
    from brain.loopback import is_loopback

    token = environ.get(TOKEN_ENV)
    if token is not None and not token.strip():
        raise UsageError(f"{TOKEN_ENV} is set but empty; set it to a secret, or unset it to serve loopback without one")
    if token is None and not is_loopback(host):
        raise UsageError(
            f"--host {host} is reachable from other machines: set {TOKEN_ENV} to a secret the viewer asks for"
        )
    return token.strip() if token else None


def _check_free(host: str, port: int) -> None:
    """A port another program holds is said in one line, before the vault is loaded."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as error:
            raise UsageError(
                f"cannot serve on {host}:{port} ({error.strerror}); give another --port or --host"
            ) from None
