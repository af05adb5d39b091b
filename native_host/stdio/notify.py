"""The bridge's list_changed notifications to its own MCP clients, in both eras (design.md §1, §5).

```
ClientNotifier
  ├─ listen                 the `subscriptions/listen` handler (2026-07-28 clients' change streams)
  ├─ remember_legacy_session  middleware: keeps each handshake-era session (`notifications/initialized`)
  ├─ tools_changed()        notifications/tools/list_changed     → every client
  └─ resources_changed()    notifications/resources/list_changed → every client
```

Apart from server.py (resources/list_changed beside tools/list_changed): one
delivery path for both A handshake-era client that does not read its
notification within NOTIFY_TIMEOUT_S, or whose pipe is closed, is dropped from the list.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    ResourcesListChanged,
    ServerEvent,
    ToolsListChanged,
)

log = logging.getLogger(__name__)

NOTIFY_TIMEOUT_S: Final = 2.0
"""Limit for writing one list_changed to a client, in seconds; a client that does not read is dropped."""


class ClientNotifier:
    """Delivers the bridge's list_changed notifications to its clients of both eras.

    Register `listen` as the server's `on_subscriptions_listen` and `remember_legacy_session` as a
    middleware; call `close()` when the bridge stops (ends the listen streams)."""

    def __init__(self) -> None:
        self._bus = InMemorySubscriptionBus()
        self.listen = ListenHandler(self._bus)
        self._legacy_sessions: list[ServerSession] = []

    def close(self) -> None:
        """End every open `subscriptions/listen` stream (the bridge is stopping)."""
        self.listen.close()

    async def remember_legacy_session(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """ServerMiddleware: keep the session of a handshake-era client (it says
        `notifications/initialized`) so list_changed can reach it outside a request."""
        if ctx.method == "notifications/initialized":
            self._legacy_sessions.append(ctx.session)
        return await call_next(ctx)

    async def tools_changed(self) -> None:
        """`notifications/tools/list_changed` to every client."""
        await self._send(ToolsListChanged(), ServerSession.send_tool_list_changed)

    async def resources_changed(self) -> None:
        """`notifications/resources/list_changed` to every client."""
        await self._send(ResourcesListChanged(), ServerSession.send_resource_list_changed)

    async def _send(self, event: ServerEvent, legacy: Callable[[ServerSession], Awaitable[None]]) -> None:
        """`event` on the listen streams (2026-07-28) and through `legacy` to each handshake-era
        session."""
        await self._bus.publish(event)
        for session in list(self._legacy_sessions):
            sent = False
            with anyio.move_on_after(NOTIFY_TIMEOUT_S):
                try:
                    await legacy(session)
                    sent = True
                except Exception:  # a closed stdio pipe: the client is gone
                    log.debug("could not send %s to a session", type(event).__name__, exc_info=True)
            if not sent and session in self._legacy_sessions:
                self._legacy_sessions.remove(session)
