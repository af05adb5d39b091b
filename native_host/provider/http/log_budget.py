"""A log line budget: the first few events of a kind are logged one by one, the rest are counted
and summarized, so a flood caused from outside never rotates the log away (items 2, 6).

Used for refused requests (refusal_log.py: the MCP endpoint and the hand-off), connections the
endpoint closes and accept errors (connections.py).

```
per WINDOW_S window:  the first `first` events → one line each (at `line_level`)
                      the rest → counted by key
window over           → one WARNING: "<verb> 29,874 more <nouns> in the last 60 s (key: n; …)"
flood goes on         → (after a window that counted some) no more lines one by one, and each
                        window twice the last: 60 s, 2, 4, … min, up to MAX_WINDOW_S (1 h);
                        a window's length without any event ends the flood
```

The summary is written by a timer on the running loop when the window ends (or by the next
event, or `flush()`), so a flood that stops is still reported. A flood thus costs `first` + 1
lines in its first minute, then one line per window: ~12 lines in its first hour, then one an
hour (a few KiB a day), whatever its rate.
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
"""Events logged one by one at the start of each window (unless the budget says otherwise)."""

MAX_WINDOW_S: Final = 3600.0
"""The longest window, in seconds, while a flood goes on: then it costs one line an hour."""


class LogBudget:
    """Rate-limited logging of one kind of event to `logger`: `event(key, line)` logs `line` for
    the first `first` events per `window_s` seconds (at `line_level`) and counts the rest by
    `key`; the count is logged as one WARNING when the window ends ("<verb> 997 more <noun>s in
    the last 60 s (key: n; …)", `noun` = (singular, plural)). While a flood goes on (a window
    ended with a count and the next event came within one window), nothing is logged one by one
    and each window is twice as long as the last, up to `max_window_s`; a quiet window resets
    both. Thread-safe; the timer
    needs a running asyncio loop (without one, the summary waits for the next event or
    `flush()`). `clock` is seconds, monotonic."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        verb: str,
        noun: tuple[str, str],
        line_level: int = logging.INFO,
        window_s: float = WINDOW_S,
        max_window_s: float = MAX_WINDOW_S,
        first: int = FIRST_PER_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._verb = verb
        self._noun = noun
        self._line_level = line_level
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
        self._counted: Counter[str] = Counter()
        self._timer: asyncio.TimerHandle | None = None

    def event(self, key: str, line: str) -> None:
        """One event of kind `key` (summarized per key); `line` is logged if the budget allows
        (never put the token or page content in either)."""
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
                self._counted[key] += 1
                self._arm_timer(now)
        if summary is not None:
            self._logger.warning("%s", summary)
        if log_it:
            self._logger.log(self._line_level, "%s", line)

    def flush(self) -> None:
        """Log the summary of the events counted so far (if any) and forget the flood: the next
        event opens a fresh window."""
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
        parts = "; ".join(f"{key}: {n:,}" for key, n in sorted(counted.items()))
        noun = self._noun[0] if total == 1 else self._noun[1]
        return f"{self._verb} {total:,} {more}{noun} in the last {seconds} s ({parts})"

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
