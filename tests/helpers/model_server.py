"""A scripted model on the loopback that speaks the Anthropic Messages API (streaming, SSE), for
driving the real Claude Code CLI offline.

Every request is recorded (path, headers named, JSON body). A request of the agent's main loop
(one that offers the `Bash` tool) gets the script's next turn: a tool call or a final text; any
other request (a title, a summary, a quota check) gets a short text. The script is a list of
turns, each `{"bash": "command"}` or `{"text": "..."}`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]


@dataclass
class ScriptedModel:
    """The turns the main loop is answered with, one per request, and every request received."""

    turns: list[dict[str, str]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def answer(self, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        with self.lock:
            self.requests.append(Recorded(path, body))
            main_loop = any(tool.get("name") == "Bash" for tool in body.get("tools") or [])
            if main_loop and self.turns:
                turn = self.turns.pop(0)
                count = sum(1 for r in self.requests if _offers_bash(r.body))
                if "bash" in turn:
                    return [
                        {
                            "type": "tool_use",
                            "id": f"toolu_{count:04d}",
                            "name": "Bash",
                            "input": {"command": turn["bash"], "description": "run it"},
                        }
                    ]
                return [{"type": "text", "text": turn["text"]}]
            return [{"type": "text", "text": "ok"}]

    def main_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if _offers_bash(r.body)]


def _offers_bash(body: dict[str, Any]) -> bool:
    return any(tool.get("name") == "Bash" for tool in body.get("tools") or [])


def sse_events(content: list[dict[str, Any]], model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    stop = "tool_use" if any(block["type"] == "tool_use" for block in content) else "end_turn"
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_scripted",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
    )
    for index, block in enumerate(content):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}},
    )
    yield "message_stop", {"type": "message_stop"}


def serve(model: ScriptedModel) -> ThreadingHTTPServer:
    """Serve the model on 127.0.0.1 (a free port: `server.server_address[1]`) in a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.end_headers()

        def do_GET(self) -> None:
            model.requests.append(Recorded(self.path, {}))
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "scripted model"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                body = {}
            path = self.path.split("?")[0]
            if path.endswith("/count_tokens"):
                model.requests.append(Recorded(self.path, body))
                self._json(200, {"input_tokens": 100})
                return
            if not path.endswith("/v1/messages"):
                model.requests.append(Recorded(self.path, body))
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "scripted model"}})
                return
            content = model.answer(self.path, body)
            name = str(body.get("model") or "scripted")
            if not body.get("stream"):
                stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
                self._json(
                    200,
                    {
                        "id": "msg_scripted",
                        "type": "message",
                        "role": "assistant",
                        "model": name,
                        "content": content,
                        "stop_reason": stop,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 5},
                    },
                )
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for event, data in sse_events(content, name):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

        def _json(self, status: int, data: dict[str, Any]) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
