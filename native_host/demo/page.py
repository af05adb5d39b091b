"""Serve the bundled demo page (`demo.html`) on 127.0.0.1 from a background thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)


def demo_page() -> bytes:
    """The bytes of `native_host/demo/demo.html` (works from a checkout and from a wheel)."""
    return resources.files("native_host.demo").joinpath("demo.html").read_bytes()


class _Handler(BaseHTTPRequestHandler):
    page: bytes = b""

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] in ("/", "/demo.html"):
            self._send(200, "text/html; charset=utf-8", self.page)
        elif self.path == "/favicon.ico":
            self._send(204, "image/x-icon", b"")
        else:
            self._send(404, "text/plain; charset=utf-8", b"Not found: webctx demo serves only /\n")

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("demo page: " + format, *args)  # never to stderr: keep the terminal clean


@contextmanager
def serve_demo_page() -> Iterator[str]:
    """Serve the demo page on `127.0.0.1:<free port>` while the block runs; yield its URL
    (`http://127.0.0.1:<port>/`). The server thread is stopped and joined on exit."""
    handler = type("DemoPageHandler", (_Handler,), {"page": demo_page()})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="webctx-demo-page", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
