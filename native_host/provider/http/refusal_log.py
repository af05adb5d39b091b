"""Refused requests, logged without letting a flood rotate the log away (item 6).

Anyone on the machine can reach the provider's loopback ports without the token; before this,
every refusal was one INFO line, so 30,000 token-less connections in 10 s rotated every log file
away, the start-up lines with them. Every place that refuses a request logs it through the one
`REFUSALS` of this process:

```
security.LoopbackGuard (MCP endpoint: 403 / 421 / 401) ─┐
profiles/handoff_server.py (hand-off: 403 / 421 / 401) ─┼─► REFUSALS.refused(where, status, reason)
uvicorn's per-request warnings (400, 503) ──────────────┘   (endpoint.py: count_uvicorn_refusals)
```

Each refusal is one event of a LogBudget (log_budget.py: the first FIRST_PER_WINDOW per window
logged with their reason, the rest counted by place and status, then one WARNING such as
"refused 29,874 more requests in the last 60 s (MCP endpoint 401: 29,800; hand-off 403: 74)").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final

from native_host.provider.http.log_budget import FIRST_PER_WINDOW, MAX_WINDOW_S, WINDOW_S, LogBudget

__all__ = ["FIRST_PER_WINDOW", "REFUSALS", "RefusalLog", "UvicornRefusals", "count_uvicorn_refusals"]


class RefusalLog(LogBudget):
    """The LogBudget of refused requests: `refused(where, status, reason)` logs "refused a
    request to the <where> with <status>: <reason>" within the budget and counts the rest by
    "<where> <status>". Arguments as LogBudget's (`window_s`, `max_window_s`, `first`, `clock`)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        window_s: float = WINDOW_S,
        max_window_s: float = MAX_WINDOW_S,
        first: int = FIRST_PER_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(
            logger,
            verb="refused",
            noun=("request", "requests"),
            window_s=window_s,
            max_window_s=max_window_s,
            first=first,
            clock=clock,
        )

    def refused(self, where: str, status: int, reason: str) -> None:
        """One refused request at `where` ("MCP endpoint", "hand-off") with HTTP `status`;
        `reason` is the one-line message the client got (never the token)."""
        self.event(f"{where} {status}", f"refused a request to the {where} with {status}: {reason}")


REFUSALS: Final = RefusalLog(logging.getLogger("native_host.provider.http.security"))
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
