"""Issue 22: `brain mcp` over stdio stops at Ctrl-C, as `brain watch` and the HTTP server do, even
while its client keeps stdin open (it used to wait for a line that never came)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from brain.vault_init import init_vault
from tests.conftest import REPO

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def test_ctrl_c_stops_the_stdio_server_with_stdin_left_open(tmp_path: Path) -> None:
    vault, _ = init_vault(tmp_path / "vault")
    process = subprocess.Popen(
        [sys.executable, "-m", "brain", "mcp", "--vault", str(vault.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        # a shell's background job ignores SIGINT and a child inherits that: give the server Ctrl-C back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    try:
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1  # serving, and reading stdin again
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        started = time.monotonic()
        returncode = process.wait(timeout=20)
        took = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()  # never leave a server behind the test
            process.wait()
    errors = process.stderr.read().decode()
    assert returncode in (0, 130), errors
    assert "Traceback" not in errors and errors == ""
    assert took < 10
