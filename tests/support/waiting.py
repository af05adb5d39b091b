"""Bounded waits for tests: poll a condition, or wait for an event, and fail with what was last seen.

Tests wait for conditions, never for time: every wait here has a limit and, on
timeout, raises AssertionError naming what was awaited and the predicate's last value, so a slow
machine makes a test slower, never flaky, and a broken one fails with a reason. Assertions rather
than pytest.fail: helpers that run outside pytest (tests/support/host_process.py) use these too.

    await until(lambda: host.current_requests >= 2, timeout_s=5, message="two current requests")
    tree = await until(lambda: client.tree_or_none(), timeout_s=5, message="a pushed tree")
    answer = await until(ask_current, check=lambda a: a["root"]["children"], message="a window")
    wait_until(path.exists, timeout_s=5, message=f"{path} written")   # from a thread or plain test
    await until_set(stopped, timeout_s=5, message="the server stopped")
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, overload

T = TypeVar("T")

TIMEOUT_S: Final = 10.0
"""Default limit in seconds: generous, so a loaded 2-vCPU machine only makes a test slower."""
INTERVAL_S: Final = 0.02
"""Default pause between polls in seconds."""
_MAX_SHOWN_CHARS: Final = 400
"""How much of the last value a timeout message repeats."""


def _shown(value: object) -> str:
    """`value` as at most _MAX_SHOWN_CHARS characters of repr, for a failure message."""
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN_CHARS else text[:_MAX_SHOWN_CHARS] + "…"


def _timed_out(message: str, timeout_s: float, last: object, error: BaseException | None) -> AssertionError:
    """The AssertionError a wait raises after `timeout_s` seconds, with the last value or error seen."""
    seen = f"last error {error!r}" if error is not None else f"last value {_shown(last)}"
    return AssertionError(f"not within {timeout_s} s: {message} ({seen})")


def wait_until(
    predicate: Callable[[], T],
    *,
    timeout_s: float = TIMEOUT_S,
    interval_s: float = INTERVAL_S,
    message: str = "condition",
) -> T:
    """Call `predicate()` every `interval_s` seconds until it returns a truthy value; return that value.

    For plain (non-async) tests and threads. Raises AssertionError with `message` and the last value
    after `timeout_s` seconds. `predicate` is called at least once, even with timeout_s=0.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _timed_out(message, timeout_s, value, None)
        time.sleep(interval_s)


@overload
async def until(
    predicate: Callable[[], Awaitable[T]],
    *,
    check: Callable[[T], object] = ...,
    timeout_s: float = ...,
    interval_s: float = ...,
    message: str = ...,
    retry_on: tuple[type[BaseException], ...] = ...,
) -> T: ...
@overload
async def until(
    predicate: Callable[[], T],
    *,
    check: Callable[[T], object] = ...,
    timeout_s: float = ...,
    interval_s: float = ...,
    message: str = ...,
    retry_on: tuple[type[BaseException], ...] = ...,
) -> T: ...
async def until(
    predicate: Callable[[], Any],
    *,
    check: Callable[[Any], object] = bool,
    timeout_s: float = TIMEOUT_S,
    interval_s: float = INTERVAL_S,
    message: str = "condition",
    retry_on: tuple[type[BaseException], ...] = (),
) -> Any:
    """Await `predicate()` (sync or async) every `interval_s` seconds until `check(value)` holds; return
    the value.

    `check` defaults to truthiness; pass one to keep the whole value (an answer) while testing a part
    of it. Exceptions of the types in `retry_on` (a page navigating under an evaluate, a connection not
    up yet) count as "not yet" and the last one is shown on timeout; any other exception propagates.
    One call that hangs is cut off by the limit too. Raises AssertionError with `message` and the last
    value after `timeout_s` seconds.
    """
    deadline = time.monotonic() + timeout_s
    last: object = None
    error: BaseException | None = None
    while True:
        remaining_s = deadline - time.monotonic()
        try:
            result = predicate()
            if inspect.isawaitable(result):
                limit = asyncio.timeout(max(remaining_s, 0.0))
                try:
                    async with limit:
                        result = await result
                except TimeoutError:
                    if limit.expired():  # ours, not one the predicate raised
                        raise _timed_out(message, timeout_s, last, error) from None
                    raise
            if check(result):
                return result
            last, error = result, None
        except retry_on as exc:
            error = exc
        if time.monotonic() >= deadline:
            raise _timed_out(message, timeout_s, last, error)
        await asyncio.sleep(interval_s)


async def until_set(event: asyncio.Event, *, timeout_s: float = TIMEOUT_S, message: str = "event") -> None:
    """Return once `event` is set; raise AssertionError with `message` after `timeout_s` seconds."""
    try:
        async with asyncio.timeout(timeout_s):
            await event.wait()
    except TimeoutError:
        raise AssertionError(f"not within {timeout_s} s: {message}") from None


def wait_set(event: threading.Event, *, timeout_s: float = TIMEOUT_S, message: str = "event") -> None:
    """Return once the threading `event` is set; raise AssertionError with `message` after `timeout_s`."""
    if not event.wait(timeout_s):
        raise AssertionError(f"not within {timeout_s} s: {message}")

