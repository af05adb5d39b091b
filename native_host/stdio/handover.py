"""The SDK takes over the wire from first_answer.Front (which may have answered `initialize` already).

```
Front.lines ──► FrontStdin  (what the SDK's stdio_server reads: text lines, end at EOF)
Front.out   ◄── FrontStdout (what it writes: text, flushed per frame; one lock with the Front)
server.run ──► WithoutEarlyAnswer(write_stream) ──► drops the SDK's own answer to the initialize
               the Front answered, once (the SDK still handled it: its session knows the client)
```
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Self

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.message import SessionMessage

from native_host.stdio.first_answer import Front

log = logging.getLogger(__name__)


class FrontStdin:
    """The Front's stdin lines as the async text file the SDK's stdio_server iterates."""

    def __init__(self, front: Front) -> None:
        self._front = front

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._front.lines.get, abandon_on_cancel=True)
        if line is None:
            self._front.lines.put(None)  # EOF stays EOF for a second reader
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class FrontStdout:
    """The Front's stdout as the async text file the SDK's stdio_server writes frames to."""

    def __init__(self, front: Front) -> None:
        self._front = front
        self._pending: list[str] = []

    async def write(self, text: str) -> int:
        """Keep `text` until `flush` (the SDK writes a frame, then flushes)."""
        self._pending.append(text)
        return len(text)

    async def flush(self) -> None:
        """Write what was kept, in one piece, off the event loop."""
        data, self._pending = "".join(self._pending).encode("utf-8"), []
        if data:
            await anyio.to_thread.run_sync(self._front.write, data)


class WithoutEarlyAnswer:
    """`WriteStream[SessionMessage]` over `inner` that drops the one response (or error) whose id
    is `front.answered`: the client already has the Front's answer to that initialize."""

    def __init__(self, inner: WriteStream[SessionMessage], front: Front) -> None:
        self._inner = inner
        self._front = front
        self._dropped = False

    async def send(self, item: SessionMessage, /) -> None:
        """Pass `item` on, unless it answers the initialize the Front answered (once)."""
        message = item.message
        answered = self._front.answered
        if (
            not self._dropped
            and answered is not None
            and isinstance(message, (types.JSONRPCResponse, types.JSONRPCError))
            and type(message.id) is type(answered)
            and message.id == answered
        ):
            self._dropped = True
            if isinstance(message, types.JSONRPCError):  # the Front answered what the SDK refused
                log.warning("the SDK refused the initialize answered early (code %d)", message.error.code)
            return
        await self._inner.send(item)

    async def aclose(self) -> None:
        """Close the wrapped stream."""
        await self._inner.aclose()

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
