"""`webctx mcp`: answer stdin lines that are not JSON-RPC instead of dropping them (JSON-RPC 2.0 §5).

The SDK's stdio transport turns a line it cannot parse into an `Exception` item on the read
stream, and the server drops it silently (a debug log at most), so a client that sent garbage
waits for an answer that never comes. `AnsweringReadStream` sits between the transport and the
server: for each such item it writes one JSON-RPC error with `id: null` to stdout and logs one
line (the kind of error, never the content), then hands the server the next real message.

    not JSON (or not UTF-8)                         → -32700 "Parse error: …"
    JSON, but not a JSON-RPC message ([], null, 42) → -32600 "Invalid request: …"
"""

from __future__ import annotations

import contextvars
import logging
from types import TracebackType
from typing import Final, Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

log = logging.getLogger(__name__)

PARSE_ERROR_MESSAGE: Final = "Parse error: the line is not valid JSON."
INVALID_REQUEST_MESSAGE: Final = (
    "Invalid request: the line is JSON but not one JSON-RPC 2.0 message (batches are not supported)."
)


def error_for(exc: Exception) -> types.JSONRPCError:
    """The JSON-RPC error (id null) that answers a line the transport could not read as `exc`:
    -32700 when it was not JSON at all, else -32600."""
    not_json = isinstance(exc, ValidationError) and any(e.get("type") == "json_invalid" for e in exc.errors())
    if not_json or (isinstance(exc, ValueError) and not isinstance(exc, ValidationError)):
        code, message = PARSE_ERROR, PARSE_ERROR_MESSAGE
    else:
        code, message = INVALID_REQUEST, INVALID_REQUEST_MESSAGE
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message))


class AnsweringReadStream:
    """`ReadStream[SessionMessage | Exception]` over `inner` that never yields an Exception item:
    each one is answered on `replies` (see module doc) and skipped."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception], replies: WriteStream[SessionMessage]
    ) -> None:
        self._inner = inner
        self._replies = replies

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last message, as the SDK's own receive stream keeps it."""
        context: contextvars.Context | None = getattr(self._inner, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        """The next message the transport read; raises what `inner.receive()` raises at the end."""
        while True:
            item = await self._inner.receive()
            if not isinstance(item, Exception):
                return item
            reply = error_for(item)
            log.warning("stdin line is not a JSON-RPC message; answered %d (id null)", reply.error.code)
            await self._replies.send(SessionMessage(reply))

    async def aclose(self) -> None:
        """Close the wrapped stream."""
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
