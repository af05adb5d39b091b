"""What one MCP client (with the token) can hold of the endpoint, kept below the connection cap
(connections.py: 128 live connections, none being served ever closed for a newcomer), so that it
cannot lock other clients out (docs/internals/native-host.md "Threat model", "One client cannot lock others
out").

```
LoopbackGuard ─► RequestSlots ─► ShortErrorBodies ─► the SDK's Streamable HTTP app
  GET (a 2025-era notification stream)   at most MAX_GET_STREAMS open; more → 503 with the fix
  POST                                   at most MAX_CALLS in flight (a tools/call that hangs,
                                         a 2026-era `listen` stream); at the cap the body is
                                         read first: a notification or a response (a
                                         `notifications/cancelled` above all: it frees a slot)
                                         always passes, a request → 503 with the fix
  POST without a session, 2025 era       the SDK's MAX_SESSIONS full → the least recently used
                                         idle session (no request in flight) is closed first
```

MAX_GET_STREAMS + MAX_CALLS = 112 of the 128 connections: the other 16 are for everything short
(an `initialize`, a cancel, `tools/list`), and half-open or idle connections are closed for them.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Final

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from native_host.provider.http.log_budget import LogBudget
from native_host.provider.http.security import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

MAX_GET_STREAMS: Final = 32
"""Open 2025-era GET (SSE notification) streams at most; a loopback provider has a few clients."""

MAX_CALLS: Final = 80
"""POST requests in flight at most (each holds a connection until it is answered). A 2026-era
client holds a `listen` stream and its calls: 50 clients of both eras calling at once hold about
25 GET streams and 75 POSTs (tests/e2e/test_load.py)."""

MAX_READ_BODY_BYTES: Final = 4 << 20
"""A body read to see whether it is a notification, at the cap (the SDK's own body limit)."""

SESSION_HEADER: Final = b"mcp-session-id"
VERSION_HEADER: Final = b"mcp-protocol-version"

GET_STREAMS_FULL: Final = (
    f"Too many open notification streams ({MAX_GET_STREAMS}): close one of this provider's idle "
    "MCP clients, then reconnect."
)
CALLS_FULL: Final = (
    f"Too many requests in flight ({MAX_CALLS}): wait for one to finish or cancel one "
    "(notifications/cancelled), then retry."
)


def _header(scope: Scope, name: bytes) -> bytes | None:
    return next((value for key, value in scope.get("headers", []) if key == name), None)


def _error(message: str) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}, separators=(",", ":")
    ).encode()


async def _refuse(send: Send, message: str) -> None:
    """HTTP 503 with a one-line JSON-RPC error (a capacity refusal; the client may retry). The
    connection is closed after it, so a refused request leaves no idle connection behind."""
    body = _error(message)
    await send({
        "type": "http.response.start", "status": 503,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"retry-after", b"1"), (b"connection", b"close")],
    })
    await send({"type": "http.response.body", "body": body})


def frees_capacity(body: bytes) -> bool:
    """Whether `body` is a JSON-RPC notification or response (no `method` with an `id`): nothing
    waits on it, and a `notifications/cancelled` ends a request that holds a slot."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and not ("method" in message and "id" in message)


class RequestSlots:
    """ASGI middleware with the caps of the module docstring. `sessions` gives the SDK's 2025-era
    session table (`{session id: transport}`, the session manager's), or None before it exists;
    `max_sessions` is the SDK's `max_sessions` (endpoint.py MAX_SESSIONS)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        sessions: Callable[[], dict[str, Any] | None],
        max_sessions: int,
        max_get_streams: int = MAX_GET_STREAMS,
        max_calls: int = MAX_CALLS,
    ) -> None:
        self._app = app
        self._sessions = sessions
        self._max_sessions = max_sessions
        self.max_get_streams = max_get_streams
        self.max_calls = max_calls
        self.get_streams = 0
        self.calls = 0
        self._used: OrderedDict[str, float] = OrderedDict()
        """2025-era session ids by last use, least recent first."""
        self._log = LogBudget(log, verb="refused or closed", noun=("MCP request", "MCP requests"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        session = _header(scope, SESSION_HEADER)
        if session is not None:
            key = session.decode("latin-1")
            if key in (self._sessions() or {}):  # only real sessions: made-up ids would pile up
                self._used[key] = time.monotonic()
                self._used.move_to_end(key)
        method = scope.get("method")
        if method == "GET":
            await self._get(scope, receive, send)
        elif method == "POST":
            if session is None and _header(scope, VERSION_HEADER) in (None, *HANDSHAKE_VERSIONS):
                await self._make_room_for_a_session()
            await self._post(scope, receive, send)
        else:
            await self._app(scope, receive, send)

    async def _get(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.get_streams >= self.max_get_streams:
            self._log.event("get", f"refused a GET stream: {self.max_get_streams} are open")
            await _refuse(send, GET_STREAMS_FULL)
            return
        self.get_streams += 1
        try:
            await self._app(scope, receive, send)
        finally:
            self.get_streams -= 1

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.calls < self.max_calls:
            self.calls += 1
            try:
                await self._app(scope, receive, send)
            finally:
                self.calls -= 1
            return
        # At the cap: read the body to let a notification (a cancel) through, uncounted.
        body, more, messages = b"", True, []
        while more and len(body) <= MAX_READ_BODY_BYTES:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = bool(message.get("more_body"))
        if more or not frees_capacity(body):
            self._log.event("calls", f"refused a request: {self.max_calls} are in flight")
            await _refuse(send, CALLS_FULL)
            return
        replay = iter(messages)

        async def replayed() -> Message:
            return next(replay, None) or await receive()

        await self._app(scope, replayed, send)

    async def _make_room_for_a_session(self) -> None:
        """A 2025-era client opens a session: at the SDK's limit, close the least recently used
        session with no request in flight (instead of the SDK's 503 for the newcomer)."""
        sessions = self._sessions()
        if sessions is None:
            return
        for gone in [key for key in self._used if key not in sessions]:
            del self._used[gone]
        if len(sessions) < self._max_sessions:
            return
        # sessions never seen here since they opened (only `initialize`) are the least recent
        order = [key for key in sessions if key not in self._used] + list(self._used)
        for key in order:
            transport = sessions.get(key)
            if transport is not None and not getattr(transport, "_requests_in_flight", 1):
                line = f"closed the least recently used idle session: {self._max_sessions} are open"
                self._log.event("session", line)
                sessions.pop(key, None)
                self._used.pop(key, None)
                await transport.terminate()
                return


HANDSHAKE_VERSIONS: Final = tuple(version.encode() for version in HANDSHAKE_PROTOCOL_VERSIONS)
"""The 2025-era protocol versions as header values: a POST with one of them (or none) and no
session opens a session."""
