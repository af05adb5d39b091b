"""Requests from the native host to the extension over the native port (design.md §4,
docs/internals/protocol.md).

```
request(CurrentRequest()) ──► {"type":"current","id":"h-7"} ──► worker
                     ▲ waits on a future keyed "h-7"
handle_reply(frame) ◄── {"type":"result","id":"h-7","result":…} / {"type":"error",…} ◄── worker
```

Ids are `h-<n>`, unique per host process; the requests waiting for replies are a Correlator
(correlator.py). A request fails with DeadlineExceeded when no reply comes within its deadline,
with ExtensionError when the worker answers `error`, and with ProviderUnavailable when the port
closes first. Replies nobody waits for (unknown ids, late
replies) are logged and dropped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.native import ErrorFrame, ResultFrame
from native_host.provider.port.chain import Call, Requester
from native_host.provider.port.correlator import Correlator, numbered_ids

log = logging.getLogger(__name__)

SendFrame = Callable[[dict[str, Any]], Awaitable[None]]
"""Writes one message to the browser (`FrameWriter.send`); raises OSError when the port is gone."""


class Bridge(Requester):
    """Host → worker requests over the native port, correlated with the worker's `result`/`error`
    replies (correlator.py, ids `h-<n>`).

    `send` writes one message (normally `FrameWriter.send`). Not thread-safe: use it from the
    event loop that reads the port.
    """

    def __init__(self, send: SendFrame) -> None:
        self._send = send
        self._pending = Correlator(numbered_ids("h-"))

    @property
    def pending_count(self) -> int:
        """How many requests are waiting for a reply."""
        return self._pending.pending_count

    @property
    def closed(self) -> bool:
        """Whether the port closed (every request now fails with ProviderUnavailable)."""
        return self._pending.closed_reason is not None

    def new_request_id(self) -> str:
        """A fresh request id `h-<n>`, for a caller that must know the id before sending (a
        page-tool call names it in a later `tools.cancel`)."""
        return self._pending.new_id()

    async def send(self, call: Call) -> Any:
        """Send `{type, id: "h-<n>", …}` (`call.request`'s wire fields, `deadlineMs` where the
        request says the worker needs it) and return the reply's `result` value. `call.id` (from
        `new_request_id`) replaces the minted id.

        Waits at most `call.deadline_ms` milliseconds. Raises DeadlineExceeded when no reply comes
        in time, ExtensionError (with the worker's `code` and `message`) for an `error` reply, and
        ProviderUnavailable when the port is closed or closes while waiting. Cancelling the
        awaiting task forgets the request; a reply arriving later is logged and dropped.
        """
        request = call.request
        type_, deadline_ms = request.type, call.deadline_ms
        request_id = call.id if call.id is not None else self.new_request_id()
        message = request.to_wire()
        message["id"] = request_id
        if request.SENDS_DEADLINE:
            message["deadlineMs"] = deadline_ms

        async def write() -> None:
            try:
                await self._send(message)
            except OSError as exc:
                reason = f"The native port is closed ({type(exc).__name__}). Reload the webctx extension."
                self.close(reason)
                raise ProviderUnavailable(self._pending.closed_reason or reason) from None

        started = time.monotonic()
        try:
            value = await self._pending.call(request_id, write, deadline_ms=deadline_ms)
        except TimeoutError:
            log.warning("request %s %s: no reply within %d ms", request_id, type_, deadline_ms)
            raise DeadlineExceeded(
                f"The browser extension did not answer `{type_}` within {deadline_ms} ms. "
                "Check that the webctx extension is enabled, then try again."
            ) from None
        elapsed_ms = (time.monotonic() - started) * 1e3
        log.debug("request %s %s answered in %.1f ms", request_id, type_, elapsed_ms)
        return value

    def handle_reply(self, frame: ResultFrame | ErrorFrame) -> None:
        """Route a `result`/`error` frame to the request waiting for its `id`; log and drop it when
        nobody waits (unknown id, the deadline passed, the caller was cancelled)."""
        if isinstance(frame, ResultFrame):
            delivered = self._pending.resolve(frame.id, frame.result)
        else:
            error = frame.error
            failure = ExtensionError(error.message or error.code, code=error.code)
            delivered = self._pending.fail(frame.id, failure)
            if delivered:
                log.info("request %s failed in the extension: %s", frame.id, error.code)
        if not delivered:
            log.info("dropped a %s reply for %s: no request is waiting for it", frame.type, frame.id)

    def close(self, reason: str = "The browser closed the native port. Reload the webctx extension.") -> None:
        """Fail every waiting request, and every later one, with ProviderUnavailable(`reason`)."""
        self._pending.close(reason)
