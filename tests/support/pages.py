"""Pages over http from a thread of this process: a folder (the browser tests' tests/pages, a
bench's generated pages) or any request handler."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


class QuietPageHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served_http(
    handler: Callable[..., http.server.BaseHTTPRequestHandler], host: str = "127.0.0.1"
) -> Iterator[str]:
    """Serve with `handler` (a request handler class, or a partial of one) on 127.0.0.1 at a free
    port, a thread per request; yield `http://<host>:<port>` (`host` names the origin: `localhost`
    makes a second one). The server is shut down and closed when the block ends."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="served-http", daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def served_pages(
    directory: Path, host: str = "127.0.0.1", handler: type[QuietPageHandler] = QuietPageHandler
) -> Iterator[str]:
    """Serve the files of `directory` (see served_http); yield `http://<host>:<port>`.
    `handler`: a QuietPageHandler subclass that adds headers or pages."""
    with served_http(functools.partial(handler, directory=str(directory)), host) as url:
        yield url
