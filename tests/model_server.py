"""A scripted OpenAI chat-completions server on 127.0.0.1 for the real-agent tests.

Speaks what Zero's openai provider reads (zero-exec.md §9.11): `POST /v1/chat/completions`
with `stream: true` answered by SSE `data:` lines holding `choices[0].delta.content`,
`delta.tool_calls`, `finish_reason` and `usage`, then `data: [DONE]`; failures as an HTTP
status with an `{"error":{"message":…}}` body. Each request takes the next scripted
response (the last one repeats); the request bodies are kept for assertions.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Stream:
    """A streamed response: each chunk becomes one `data:` line."""

    chunks: tuple[dict[str, Any], ...]
    stall_after: bool = False  # after the chunks, send nothing more until the server stops
    pause: float = 0.0  # seconds between chunks


@dataclass(frozen=True)
class Failure:
    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()


Response = Stream | Failure


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def text_answer(
    *pieces: str, prompt_tokens: int = 50, completion_tokens: int = 7, pause: float = 0.0
) -> Stream:
    """An answer streamed in `pieces` (`pause` seconds apart), then `finish_reason: stop`
    and usage."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": piece}) for piece in pieces]
    chunks += [_chunk({}, "stop"), _usage(prompt_tokens, completion_tokens)]
    return Stream(tuple(chunks), pause=pause)


def tool_call(call_id: str, name: str, arguments: dict[str, Any], text: str = "") -> Stream:
    """One tool call (arguments sent in two pieces, as real providers do)."""
    encoded = json.dumps(arguments)
    middle = len(encoded) // 2
    chunks = [_chunk({"role": "assistant", "content": text})]
    first = {"index": 0, "id": call_id, "type": "function"}
    first["function"] = {"name": name, "arguments": encoded[:middle]}
    chunks.append(_chunk({"tool_calls": [first]}))
    chunks.append(
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": encoded[middle:]}}]})
    )
    chunks += [_chunk({}, "tool_calls"), _usage(60, 12)]
    return Stream(tuple(chunks))


def stalled(*pieces: str) -> Stream:
    """Streams `pieces`, then holds the connection open without a byte more."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": piece}) for piece in pieces]
    return Stream(tuple(chunks), stall_after=True)


@dataclass
class ModelServer:
    responses: list[Response]
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _served: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)
    stalled: threading.Event = field(default_factory=threading.Event)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def next_response(self, body: dict[str, Any]) -> Response:
        with self._lock:
            self.requests.append(body)
            index = min(self._served, len(self.responses) - 1)
            self._served += 1
            return self.responses[index]

    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.requests)


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            del format, args  # keep the test output clean

        def _send_json(
            self, status: int, body: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()
        ) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send_json(404, {"error": {"message": f"no route for GET {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route for POST {self.path}"}})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"unparsable": raw.decode("utf-8", "replace")}
            response = server.next_response(body)
            if isinstance(response, Failure):
                self._send_json(
                    response.status, {"error": {"message": response.message}}, response.headers
                )
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            for chunk in response.chunks:
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
                if response.pause and server.stopping.wait(response.pause):
                    return
            if response.stall_after:
                server.stalled.set()
                server.stopping.wait()
                return
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler


@contextmanager
def serve(responses: list[Response]) -> Iterator[ModelServer]:
    """Runs the server in a thread for the duration of the block."""
    model = ModelServer(list(responses))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(model))
    httpd.daemon_threads = True
    model.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, name="model-server", daemon=True)
    thread.start()
    try:
        yield model
    finally:
        model.stopping.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
