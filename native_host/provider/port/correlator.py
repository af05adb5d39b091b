"""Requests waiting for their reply, by id: the one correlator of the native port (bridge.py, ids
`h-<n>`) and of the hand-off link to each follower host (profiles/handoff_server.py, ids `p-<n>`).

```
call("h-7", send, deadline_ms=3000) ── send() ──► the other side
      waits on a future keyed "h-7"          ◄── resolve("h-7", value) / fail("h-7", error)
close(reason) ──► every waiting call, and every later one, raises ProviderUnavailable(reason)
```

Requests carry an `id` and replies echo it (design.md §4). A reply nobody waits for (an unknown id, the
deadline passed, the caller was cancelled) is refused (`resolve`/`fail` return False); the caller
logs and drops it. Not thread-safe: use it from one event loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from native_host.errors import ProviderUnavailable

log = logging.getLogger(__name__)


def numbered_ids(prefix: str) -> Callable[[], str]:
    """A source of fresh ids `<prefix>1`, `<prefix>2`, … (share one between correlators whose ids
    must not meet, e.g. every follower of one provider)."""
    numbers = itertools.count(1)
    return lambda: f"{prefix}{next(numbers)}"


class Correlator:
    """Pending requests keyed by id, each with a deadline.

    `new_id` mints ids (e.g. `numbered_ids("h-")`). `call` sends one request and waits for its
    reply; `resolve`/`fail` deliver replies; `close` fails everything, now and later.
    """

    def __init__(self, new_id: Callable[[], str]) -> None:
        self._new_id = new_id
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._closed_reason: str | None = None

    def new_id(self) -> str:
        """A fresh request id, for a caller that must know it before sending (a page-tool call
        names it in a later `tools.cancel`)."""
        return self._new_id()

    @property
    def pending_count(self) -> int:
        """How many requests are waiting for a reply."""
        return len(self._pending)

    @property
    def closed_reason(self) -> str | None:
        """Why `close` was called (the first reason), or None while open."""
        return self._closed_reason

    async def call(self, request_id: str, send: Callable[[], Awaitable[None]], *, deadline_ms: int) -> Any:
        """Wait for request `request_id`'s reply: register it, await `send()` (which writes the
        request), then wait at most `deadline_ms` milliseconds for `resolve` or `fail` of that id.
        Returns the resolved value.

        Raises ProviderUnavailable(reason) when closed before the call or while it waits; the
        error given to `fail`; TimeoutError when no reply came within the deadline (the caller
        words its DeadlineExceeded); whatever `send` raises. The request is forgotten whichever
        way the call ends, cancellation included.
        """
        if self._closed_reason is not None:
            raise ProviderUnavailable(self._closed_reason)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await send()
            async with asyncio.timeout(deadline_ms / 1000):
                return await future
        finally:
            if self._pending.get(request_id) is future:
                del self._pending[request_id]
            if future.done() and not future.cancelled():
                future.exception()  # failed by `close` while `send` raised: retrieved, not logged by asyncio

    def resolve(self, request_id: str, value: Any) -> bool:
        """Deliver the reply `value` of `request_id`; False when no call waits for it."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_result(value)
        return True

    def fail(self, request_id: str, error: BaseException) -> bool:
        """Make the call waiting for `request_id` raise `error`; False when no call waits for it."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_exception(error)
        return True

    def close(self, reason: str) -> None:
        """Fail every waiting call, and every later one, with ProviderUnavailable(`reason`); the
        first reason is kept."""
        if self._closed_reason is None:
            self._closed_reason = reason
        for request_id, future in list(self._pending.items()):
            if not future.done():
                future.set_exception(ProviderUnavailable(reason))
                log.debug("request %s failed: %s", request_id, reason)
