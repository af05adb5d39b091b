"""A local HTTP server that counts every connection made to it (the witness that nothing fetched).

`with CountingServer() as server:` serves on 127.0.0.1 (a free port, `server.url`) from a thread;
`server.connections` counts accepted TCP connections, so an `https://` URL to it (a TLS
handshake the server cannot answer) counts too; every GET is answered with `server.body` (a JSON
schema), so a host that does fetch gets an answer and does not hang the test.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: CountingServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner

    def verify_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any
    ) -> bool:
        with self.owner.lock:
            self.owner.connections += 1
        return True


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        with self.server.owner.lock:
            self.server.owner.paths.append(self.path)
        body = json.dumps(self.server.owner.body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the count is the record
        return


class CountingServer:
    """See the module docstring. `body` is what every GET answers (default: a schema that only
    an integer passes, so a host that fetched and enforced it shows it)."""

    def __init__(self, body: Any = None) -> None:
        self.body: Any = body if body is not None else {"type": "integer"}
        self.connections = 0
        self.paths: list[str] = []
        self.lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="counting server", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, no trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> CountingServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
