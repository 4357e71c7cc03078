"""`brain mcp` over stdio as a raw process: it stops at Ctrl-C, as `brain watch` and the HTTP server
do, even while its client keeps stdin open (it used to wait for a line that never came); and it
answers every request, also one it cannot parse or validate, with the JSON-RPC error the HTTP
transport gives (-32700 / -32602), at once, and says so on stderr; then it goes on serving."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from brain.vault.init import init_vault
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


# ---------------------------------------------------------------- requests it cannot read


class Wire:
    """`brain mcp` as a subprocess, spoken to line by line."""

    def __init__(self, root: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "brain", "mcp", "--vault", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = 60) -> dict:
        return json.loads(self.lines.get(timeout=timeout))


def test_every_bad_line_gets_an_error_and_the_server_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    init_vault(root)
    wire = Wire(root)
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        wire.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        assert wire.answer()["id"] == 1
        wire.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

        wire.send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read_no')  # cut short
        cut = wire.answer()
        assert cut["id"] == 2 and cut["error"]["code"] == -32700

        wire.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": [1, 2]}))
        not_object = wire.answer()
        assert not_object["id"] == 3 and not_object["error"]["code"] == -32602

        deep = {"name": "write_note", "arguments": {"title": "x", "fields": {"a": json.loads("[" * 200 + "]" * 200)}}}
        wire.send(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": deep}))
        nested = wire.answer()
        assert nested["id"] == 4 and nested["error"]["code"] == -32700

        wire.send("not json at all")
        garbage = wire.answer()
        assert garbage["id"] is None and garbage["error"]["code"] == -32700

        wire.send(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}))
        listed = wire.answer()
        assert listed["id"] == 5 and any(tool["name"] == "read_note" for tool in listed["result"]["tools"])
    finally:
        assert wire.process.stdin is not None
        wire.process.stdin.close()
        wire.process.wait(timeout=60)
    stderr = wire.process.stderr.read() if wire.process.stderr else ""
    refused = [line for line in stderr.splitlines() if line.startswith("brain mcp: refused a message")]
    assert len(refused) == 4 and "Traceback" not in stderr, stderr
