"""An ASGI app served by a real uvicorn on 127.0.0.1, in the test's own event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

import uvicorn

INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
"""A handshake-era `initialize` request body, for tests that POST to an MCP endpoint by hand."""

STOP_TIMEOUT_S = 5.0
"""How long uvicorn may take to stop (its graceful shutdown is given 1 s of it)."""


def loopback_socket() -> socket.socket:
    """A TCP socket bound to 127.0.0.1 at a free port, listening; its port is
    `.getsockname()[1]`, known before the app that needs it is built. serving_asgi closes it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@contextlib.asynccontextmanager
async def serving_asgi(
    app: Callable[..., Any],
    sock: socket.socket,
    *,
    lifespan: Literal["on", "off"] = "on",
    start_timeout_s: float = 5.0,
) -> AsyncIterator[uvicorn.Server]:
    """Serve `app` on `sock` (see loopback_socket) with uvicorn as a task of this event loop; yield
    the server once it has started; stop it and close `sock` when the block ends.

    `lifespan="on"` runs the app's startup and shutdown (the MCP SDK's apps need them); "off" for an
    app that answers HTTP only. No log config, no access log, no WebSocket. Raises TimeoutError if
    uvicorn has not started within `start_timeout_s` (s), RuntimeError if it stopped instead."""
    config = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan=lifespan, ws="none", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(start_timeout_s):
            while not server.started:
                if task.done():
                    task.result()
                    raise RuntimeError("uvicorn stopped before it started")
                await asyncio.sleep(0.01)
        yield server
    finally:
        server.should_exit = True
        async with asyncio.timeout(STOP_TIMEOUT_S):
            await task
        sock.close()
