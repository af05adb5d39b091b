"""tests/support/waiting.py: a bounded poll returns the value, and fails with the message and last value."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.support.waiting import until, until_set, wait_set, wait_until


def test_wait_until_returns_the_first_truthy_value() -> None:
    values = iter([0, [], "found"])
    assert wait_until(lambda: next(values), timeout_s=5, interval_s=0) == "found"


def test_wait_until_fails_with_the_message_and_the_last_value() -> None:
    with pytest.raises(AssertionError, match=r"not within 0 s: the file \(last value \[\]\)"):
        wait_until(list, timeout_s=0, message="the file")


async def test_until_awaits_an_async_predicate_and_keeps_the_value_check_accepts() -> None:
    answers = iter([{"n": 1}, {"n": 2}])

    async def ask() -> dict[str, int]:
        return next(answers)

    assert await until(ask, check=lambda a: a["n"] == 2, interval_s=0) == {"n": 2}


async def test_until_retries_the_errors_it_is_told_to_and_shows_the_last_one() -> None:
    def failing() -> bool:
        raise ConnectionError("not up")

    with pytest.raises(AssertionError, match=r"the server \(last error ConnectionError\('not up'\)\)"):
        await until(failing, timeout_s=0.05, message="the server", retry_on=(ConnectionError,))
    with pytest.raises(ValueError):
        await until(lambda: int("x"), timeout_s=5)


async def test_until_cuts_off_a_predicate_that_hangs() -> None:
    async def hangs() -> bool:
        await asyncio.Event().wait()
        return True

    with pytest.raises(AssertionError, match=r"not within 0\.05 s: an answer"):
        await until(hangs, timeout_s=0.05, message="an answer")


async def test_event_waits_return_when_set_and_fail_when_not() -> None:
    event = asyncio.Event()
    asyncio.get_running_loop().call_soon(event.set)
    await until_set(event, timeout_s=5)
    with pytest.raises(AssertionError, match=r"not within 0\.01 s: stopped"):
        await until_set(asyncio.Event(), timeout_s=0.01, message="stopped")
    flag = threading.Event()
    threading.Timer(0.0, flag.set).start()
    wait_set(flag, timeout_s=5)
    with pytest.raises(AssertionError, match="not within 0 s: event"):
        wait_set(threading.Event(), timeout_s=0)


async def test_a_timeout_the_predicate_raises_is_its_own_error_not_the_waits() -> None:
    async def times_out() -> bool:
        raise TimeoutError("the predicate's own")

    with pytest.raises(TimeoutError, match="the predicate's own"):
        await until(times_out, timeout_s=5)
    calls = [0]

    async def once_slow() -> bool:
        calls[0] += 1
        if calls[0] == 1:
            raise TimeoutError("slow")
        return True

    assert await until(once_slow, timeout_s=5, retry_on=(TimeoutError,)) is True
