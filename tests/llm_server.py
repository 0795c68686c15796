"""A tiny OpenAI-protocol chat server on 127.0.0.1 for tests (a real HTTP server, in a thread).

`reply` decides the answer from the request body: return a string (the message content),
an int (an HTTP error status), or None to hang past the client's timeout is not offered:
tests that need a timeout use a status instead.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# How often a test server's loop looks for shutdown(): the standard library's 0.5 s
# would be waited out at the end of every test that starts one.
POLL_S = 0.02

Reply = Callable[[dict[str, Any]], "str | int"]


@contextmanager
def chat_server(reply: Reply) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yields (base_url, requests seen); base_url ends with /v1."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            answer = reply(body) if self.path == "/v1/chat/completions" else 404
            if isinstance(answer, int):
                self.send_response(answer)
                self.end_headers()
                return
            data = json.dumps(
                {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": body.get("model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer},
                            "finish_reason": "stop",
                        }
                    ],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def user_prompt(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])
