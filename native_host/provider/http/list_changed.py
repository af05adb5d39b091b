"""`notifications/tools/list_changed` (design.md §5) and `notifications/resources/list_changed`
(the page resources) to every connected client of both MCP eras.

```
notify("tools" | "resources") ── coalesced per kind: at most one send per MIN_INTERVAL_S, the last
                                 change always sent ──►
    2026-07-28: InMemorySubscriptionBus.publish(ToolsListChanged() | ResourcesListChanged())
                → the subscriptions/listen streams that asked for that kind
    2025 era:   Connection.send_tool_list_changed() | .send_resource_list_changed() on every
                recorded session → its GET stream
```

The SDK keeps no public list of live sessions (python-sdk #875), so `on_initialized` records each
handshake-era session's connection when `notifications/initialized` arrives, from the private
`ServerSession._connection` (pinned to mcp 2.3.0), and forgets it through
the connection's public `exit_stack` (DELETE, idle timeout, crash, shutdown).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Final, Literal

from mcp import types
from mcp.server import ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged, ToolsListChanged

log = logging.getLogger(__name__)

MIN_INTERVAL_S: Final = 0.03
"""Shortest gap between two notifications of one kind, in seconds: a page flooding `toolchange`
costs clients at most ~33 notifications a second, and every change is still announced within 100 ms."""

ListKind = Literal["tools", "resources"]
"""Which list changed: `tools/list` or `resources/list`."""


@dataclass
class _Pending:
    """One kind's coalescing state: when it was last sent, its trailing send, how many went out."""

    last_sent: float = 0.0
    trailing: asyncio.TimerHandle | None = None
    sent: int = 0


class ListChangedBroadcaster:
    """Sends `tools/list_changed` and `resources/list_changed` to 2026-07-28 listeners (through
    `bus`) and to every live handshake-era session. Use from the event loop that runs the MCP
    server. Each kind is coalesced on its own (a tool flood never delays a resource change)."""

    def __init__(self, bus: InMemorySubscriptionBus, *, min_interval_s: float = MIN_INTERVAL_S) -> None:
        self._bus = bus
        self._min_interval_s = min_interval_s
        self._connections: set[Connection] = set()
        self._pending: dict[ListKind, _Pending] = {"tools": _Pending(), "resources": _Pending()}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def sent(self) -> int:
        """How many `tools/list_changed` went out (each to every client), for tests and the log."""
        return self._pending["tools"].sent

    @property
    def resources_sent(self) -> int:
        """How many `resources/list_changed` went out (each to every client)."""
        return self._pending["resources"].sent

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

    def notify(self, kind: ListKind = "tools") -> None:
        """Announce a change of the `kind` list: now, or at the end of the current MIN_INTERVAL_S
        window (coalesced)."""
        pending = self._pending[kind]
        if pending.trailing is not None:
            return  # a send is already due and will describe this change too
        loop = asyncio.get_running_loop()
        wait_s = pending.last_sent + self._min_interval_s - time.monotonic()
        if wait_s <= 0:
            self._spawn(kind)
        else:
            pending.trailing = loop.call_later(wait_s, self._fire_trailing, kind)

    def _fire_trailing(self, kind: ListKind) -> None:
        self._pending[kind].trailing = None
        self._spawn(kind)

    def _spawn(self, kind: ListKind) -> None:
        self._pending[kind].last_sent = time.monotonic()
        task = asyncio.get_running_loop().create_task(self._send(kind), name=f"{kind}-list-changed")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, kind: ListKind) -> None:
        self._pending[kind].sent += 1
        await self._bus.publish(ToolsListChanged() if kind == "tools" else ResourcesListChanged())
        for connection in list(self._connections):
            try:
                if kind == "tools":
                    await connection.send_tool_list_changed()
                else:
                    await connection.send_resource_list_changed()
            except Exception:  # a closed stream; the SDK normally drops these itself
                log.debug("list_changed to a legacy session failed", exc_info=True)

    def close(self) -> None:
        """Drop pending trailing notifications."""
        for pending in self._pending.values():
            if pending.trailing is not None:
                pending.trailing.cancel()
                pending.trailing = None
