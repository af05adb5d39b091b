"""Refused requests, logged without letting a flood rotate the log away (issue 13, item 6).

Anyone on the machine can reach the provider's loopback ports without the token; before this,
every refusal was one INFO line, so 30,000 token-less connections in 10 s rotated every log file
away, the start-up lines with them. Every place that refuses a request logs it through the one
`REFUSALS` of this process:

```
security.LoopbackGuard (MCP endpoint: 403 / 421 / 401) ─┐
profiles/handoff_server.py (hand-off: 403 / 421 / 401) ─┼─► REFUSALS.refused(where, status, reason)
uvicorn "Invalid HTTP request received." (400)  ────────┘     (endpoint.py: count_uvicorn_refusals)

per WINDOW_S window:  the first FIRST_PER_WINDOW refusals → one INFO line each, with the reason
                      the rest → counted by (where, status)
window over           → one WARNING: "refused 29,874 more requests in the last 60 s
                        (MCP endpoint 401: 29,800; hand-off 403: 74)"
```

The summary is written by a timer on the running loop when the window ends (or by the next
refusal, or `flush()` when the endpoint stops), so a flood that stops is still reported. A flood
thus costs at most FIRST_PER_WINDOW + 1 lines a minute (~1.2 KiB), whatever its rate.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Final

WINDOW_S: Final = 60.0
"""Length of one counting window, in seconds."""

FIRST_PER_WINDOW: Final = 5
"""Refusals logged one by one (with their reason) at the start of each window."""


class RefusalLog:
    """Rate-limited logging of refused requests to `logger`: `refused(where, status, reason)` logs
    the first `first` per `window_s` seconds at INFO and counts the rest; the count is logged as
    one WARNING when the window ends. Thread-safe; the timer needs a running asyncio loop (without
    one, the summary waits for the next refusal or `flush()`). `clock` is seconds, monotonic."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        window_s: float = WINDOW_S,
        first: int = FIRST_PER_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._window_s = window_s
        self._first = first
        self._clock = clock
        self._lock = threading.Lock()
        self._window_start: float | None = None
        self._logged = 0
        self._counted: Counter[tuple[str, int]] = Counter()
        self._timer: asyncio.TimerHandle | None = None

    def refused(self, where: str, status: int, reason: str) -> None:
        """One refused request at `where` ("MCP endpoint", "hand-off") with HTTP `status`;
        `reason` is the one-line message the client got (never the token)."""
        now = self._clock()
        with self._lock:
            summary = None
            if self._window_start is None or now - self._window_start >= self._window_s:
                summary = self._take_summary(now)
                self._window_start = now
            if self._logged < self._first:
                self._logged += 1
                log_it = True
            else:
                self._counted[(where, status)] += 1
                log_it = False
                self._arm_timer(now)
        if summary is not None:
            self._logger.warning("%s", summary)
        if log_it:
            self._logger.info("refused a request to the %s with %d: %s", where, status, reason)

    def flush(self) -> None:
        """Log the summary of the refusals counted so far (if any) and start a new window."""
        with self._lock:
            summary = self._take_summary(self._clock())
            self._window_start = None
        if summary is not None:
            self._logger.warning("%s", summary)

    def _take_summary(self, now: float) -> str | None:
        """The summary line of the window so far, or None; resets the counts (lock held)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        counted, self._counted, self._logged = self._counted, Counter(), 0
        if not counted or self._window_start is None:
            return None
        total = sum(counted.values())
        seconds = max(1, round(now - self._window_start))
        parts = "; ".join(f"{where} {status}: {n:,}" for (where, status), n in sorted(counted.items()))
        return f"refused {total:,} more requests in the last {seconds} s ({parts})"

    def _arm_timer(self, now: float) -> None:
        """Make sure the window's summary is written when it ends (lock held)."""
        if self._timer is not None or self._window_start is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not on a loop: the next refusal or flush() writes it
        delay = max(0.0, self._window_start + self._window_s - now)
        self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            summary = self._take_summary(self._clock())
            self._window_start = None
        if summary is not None:
            self._logger.warning("%s", summary)


REFUSALS: Final = RefusalLog(logging.getLogger("native_host.provider.security"))
"""The one RefusalLog of this process: the MCP endpoint and the hand-off share its budget."""


class UvicornRefusals(logging.Filter):
    """A filter for the `uvicorn.error` logger: its per-connection "Invalid HTTP request received."
    warning (a token-less client can send any bytes) goes to REFUSALS as a 400 instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False (drop) for the invalid-request warning, after counting it; True for the rest."""
        if record.msg == "Invalid HTTP request received.":
            REFUSALS.refused("MCP endpoint", 400, "invalid HTTP request")
            return False
        return True


def count_uvicorn_refusals() -> None:
    """Route uvicorn's invalid-request warnings through REFUSALS (UvicornRefusals on the
    `uvicorn.error` logger). Idempotent."""
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, UvicornRefusals) for f in uvicorn_log.filters):
        uvicorn_log.addFilter(UvicornRefusals())
