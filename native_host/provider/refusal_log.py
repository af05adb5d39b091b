"""Refused requests, logged without letting a flood rotate the log away (issue 13, item 6).

Anyone on the machine can reach the provider's loopback ports without the token; before this,
every refusal was one INFO line, so 30,000 token-less connections in 10 s rotated every log file
away, the start-up lines with them. Every place that refuses a request logs it through the one
`REFUSALS` of this process:

```
security.LoopbackGuard (MCP endpoint: 403 / 421 / 401) ─┐
profiles/handoff_server.py (hand-off: 403 / 421 / 401) ─┼─► REFUSALS.refused(where, status, reason)
uvicorn's per-request warnings (400, 503) ──────────────┘   (endpoint.py: count_uvicorn_refusals)

per WINDOW_S window:  the first FIRST_PER_WINDOW refusals → one INFO line each, with the reason
                      the rest → counted by (where, status)
window over           → one WARNING: "refused 29,874 more requests in the last 60 s
                        (MCP endpoint 401: 29,800; hand-off 403: 74)"
flood goes on         → (after a window that counted some) no more lines one by one, and each
                        window twice the last: 60 s, 2, 4, … min, up to MAX_WINDOW_S (1 h);
                        a window's length without any refusal ends the flood
```

The summary is written by a timer on the running loop when the window ends (or by the next
refusal, or `flush()` when the endpoint stops), so a flood that stops is still reported. A flood
thus costs FIRST_PER_WINDOW + 1 lines in its first minute, then one line per window: ~12 lines in
its first hour, then one an hour (a few KiB a day), whatever its rate.
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

MAX_WINDOW_S: Final = 3600.0
"""The longest window, in seconds, while a flood goes on: then it costs one line an hour."""


class RefusalLog:
    """Rate-limited logging of refused requests to `logger`: `refused(where, status, reason)` logs
    the first `first` per `window_s` seconds at INFO and counts the rest; the count is logged as
    one WARNING when the window ends. While a flood goes on (a window ended with a count and the
    next refusal came within one window), nothing is logged one by one and each window is twice
    as long as the last, up to `max_window_s`; a quiet window resets both. Thread-safe; the timer
    needs a running asyncio loop (without one, the summary waits for the next refusal or
    `flush()`). `clock` is seconds, monotonic."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        window_s: float = WINDOW_S,
        max_window_s: float = MAX_WINDOW_S,
        first: int = FIRST_PER_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._window_s = window_s
        self._max_window_s = max_window_s
        self._first = first
        self._clock = clock
        self._lock = threading.Lock()
        self._window_start: float | None = None
        self._window_len = window_s
        self._flooding = False
        """True from the end of a window that counted refusals until a window-long quiet."""
        self._last_at: float | None = None
        """When the last refusal came."""
        self._logged = 0
        self._counted: Counter[tuple[str, int]] = Counter()
        self._timer: asyncio.TimerHandle | None = None

    def refused(self, where: str, status: int, reason: str) -> None:
        """One refused request at `where` ("MCP endpoint", "hand-off") with HTTP `status`;
        `reason` is the one-line message the client got (never the token)."""
        now = self._clock()
        with self._lock:
            summary = None
            if self._window_start is not None and now - self._window_start >= self._window_len:
                summary = self._close_window(now)
            if self._window_start is None:
                self._open_window(now)
            self._last_at = now
            log_it = self._logged < (0 if self._flooding else self._first)
            if log_it:
                self._logged += 1
            else:
                self._counted[(where, status)] += 1
                self._arm_timer(now)
        if summary is not None:
            self._logger.warning("%s", summary)
        if log_it:
            self._logger.info("refused a request to the %s with %d: %s", where, status, reason)

    def flush(self) -> None:
        """Log the summary of the refusals counted so far (if any) and forget the flood: the next
        refusal opens a fresh window."""
        with self._lock:
            summary = self._close_window(self._clock())
            self._flooding, self._window_len = False, self._window_s
        if summary is not None:
            self._logger.warning("%s", summary)

    def _open_window(self, now: float) -> None:
        """Start a window at `now` (lock held): longer while the flood goes on, else the first."""
        if self._flooding and self._last_at is not None and now - self._last_at > self._window_len:
            self._flooding = False  # a whole window without a refusal: the flood is over
        if not self._flooding:
            self._window_len = self._window_s
        self._window_start, self._logged = now, 0

    def _close_window(self, now: float) -> str | None:
        """End the window (lock held): its summary line, or None when nothing was counted."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        counted, self._counted = self._counted, Counter()
        started, self._window_start = self._window_start, None
        if not counted or started is None:
            return None
        seconds = max(1, round(min(now, started + self._window_len) - started))
        if self._flooding:
            self._window_len = min(self._window_len * 2, self._max_window_s)
        self._flooding = True
        total = sum(counted.values())
        more = "more " if self._logged else ""
        parts = "; ".join(f"{where} {status}: {n:,}" for (where, status), n in sorted(counted.items()))
        noun = "request" if total == 1 else "requests"
        return f"refused {total:,} {more}{noun} in the last {seconds} s ({parts})"

    def _arm_timer(self, now: float) -> None:
        """Make sure the window's summary is written when it ends (lock held)."""
        if self._timer is not None or self._window_start is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not on a loop: the next refusal or flush() writes it
        delay = max(0.0, self._window_start + self._window_len - now)
        self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        with self._lock:
            self._timer = None
            summary = self._close_window(self._clock())
        if summary is not None:
            self._logger.warning("%s", summary)


REFUSALS: Final = RefusalLog(logging.getLogger("native_host.provider.security"))
"""The one RefusalLog of this process: the MCP endpoint and the hand-off share its budget."""


UVICORN_PER_REQUEST: Final[dict[str, tuple[int, str] | None]] = {
    "Invalid HTTP request received.": (400, "invalid HTTP request"),
    "Exceeded concurrency limit.": (503, "too many connections"),
    # Any `Upgrade` header (the endpoint runs with ws="none"): the request goes on to the guard,
    # which counts its refusal; the two warnings say nothing about us.
    "Unsupported upgrade request.": None,
    "No supported WebSocket library detected.": None,
}
"""uvicorn's per-request warnings (uvicorn/protocols/http/h11_impl.py, httptools_impl.py; matched
on their first sentence) → the refusal to count, or None to drop the line. A client without the
token can cause each of them at will."""


class UvicornRefusals(logging.Filter):
    """A filter for the `uvicorn.error` logger: its per-request warnings (UVICORN_PER_REQUEST) are
    counted by REFUSALS or dropped instead of written one line each."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False (drop) for a per-request warning, after counting it; True for every other record."""
        if not isinstance(record.msg, str):
            return True
        first_sentence = record.msg.split(". ", 1)[0].rstrip(".") + "."
        if first_sentence not in UVICORN_PER_REQUEST:
            return True
        refused = UVICORN_PER_REQUEST[first_sentence]
        if refused is not None:
            REFUSALS.refused("MCP endpoint", *refused)
        return False


def count_uvicorn_refusals() -> None:
    """Route uvicorn's invalid-request warnings through REFUSALS (UvicornRefusals on the
    `uvicorn.error` logger). Idempotent."""
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, UvicornRefusals) for f in uvicorn_log.filters):
        uvicorn_log.addFilter(UvicornRefusals())
