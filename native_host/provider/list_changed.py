"""`notifications/tools/list_changed` to every connected client of both MCP eras (SPEC §5).

```
notify() ── coalesced: at most one send per MIN_INTERVAL_S, the last change always sent ──►
    2026-07-28: InMemorySubscriptionBus.publish(ToolsListChanged())  → subscriptions/listen streams
    2025 era:   Connection.send_tool_list_changed() on every recorded session → its GET stream
```

The SDK keeps no public list of live sessions (python-sdk #875), so `on_initialized` records each
handshake-era session's connection when `notifications/initialized` arrives, from the private
`ServerSession._connection` (pinned to mcp 2.3.0; research/mcp-sdk.md §2.4), and forgets it through
the connection's public `exit_stack` (DELETE, idle timeout, crash, shutdown).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Final

from mcp import types
from mcp.server import ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged

log = logging.getLogger(__name__)

MIN_INTERVAL_S: Final = 0.03
"""Shortest gap between two notifications, in seconds: a page flooding `toolchange` costs clients
at most ~33 notifications a second, and every change is still announced within 100 ms."""


class ListChangedBroadcaster:
    """Sends `tools/list_changed` to 2026-07-28 listeners (through `bus`) and to every live
    handshake-era session. Use from the event loop that runs the MCP server."""

    def __init__(self, bus: InMemorySubscriptionBus, *, min_interval_s: float = MIN_INTERVAL_S) -> None:
        self._bus = bus
        self._min_interval_s = min_interval_s
        self._connections: set[Connection] = set()
        self._last_sent = 0.0
        self._trailing: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0
        """How many notifications went out (each to every client), for tests and the log."""

    @property
    def legacy_sessions(self) -> int:
        """How many handshake-era sessions are recorded."""
        return len(self._connections)

    async def on_initialized(
        self, ctx: ServerRequestContext[Any, Any], params: types.NotificationParams
    ) -> None:
        """Notification handler for `notifications/initialized`: record the session's connection."""
        connection = getattr(ctx.session, "_connection", None)  # private in mcp 2.3.0, see above
        if not isinstance(connection, Connection) or connection in self._connections:
            return
        self._connections.add(connection)
        connection.exit_stack.callback(self._connections.discard, connection)
        log.debug("legacy session recorded (%d live)", len(self._connections))

    def notify(self) -> None:
        """Announce a change: now, or at the end of the current MIN_INTERVAL_S window (coalesced)."""
        if self._trailing is not None:
            return  # a send is already due and will describe this change too
        loop = asyncio.get_running_loop()
        wait_s = self._last_sent + self._min_interval_s - time.monotonic()
        if wait_s <= 0:
            self._spawn()
        else:
            self._trailing = loop.call_later(wait_s, self._fire_trailing)

    def _fire_trailing(self) -> None:
        self._trailing = None
        self._spawn()

    def _spawn(self) -> None:
        self._last_sent = time.monotonic()
        task = asyncio.get_running_loop().create_task(self._send(), name="tools-list-changed")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self) -> None:
        self.sent += 1
        await self._bus.publish(ToolsListChanged())
        for connection in list(self._connections):
            try:
                await connection.send_tool_list_changed()
            except Exception:  # a closed stream; the SDK normally drops these itself
                log.debug("list_changed to a legacy session failed", exc_info=True)

    def close(self) -> None:
        """Drop a pending trailing notification."""
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None
