"""correlator.py: requests waiting for their reply, by id (the native port's and the hand-off's)."""

from __future__ import annotations

import asyncio

import pytest

from native_host.errors import ExtensionError, ProviderUnavailable
from native_host.provider.port.correlator import Correlator, numbered_ids
from tests.support.waiting import until


async def nothing() -> None:
    """A `send` that writes nothing."""


async def test_a_reply_reaches_the_call_waiting_for_its_id_in_any_order() -> None:
    pending = Correlator(numbered_ids("h-"))
    first_id, second_id = pending.new_id(), pending.new_id()
    assert (first_id, second_id) == ("h-1", "h-2")
    first = asyncio.create_task(pending.call(first_id, nothing, deadline_ms=2000))
    second = asyncio.create_task(pending.call(second_id, nothing, deadline_ms=2000))
    await until(lambda: pending.pending_count == 2, interval_s=0, message="both calls waiting")
    assert pending.resolve("h-2", "two") and pending.fail("h-1", ExtensionError("gone", code="page_gone"))
    assert await second == "two"
    with pytest.raises(ExtensionError):
        await first
    assert pending.pending_count == 0
    assert not pending.resolve("h-1", "late") and not pending.fail("h-9", ExtensionError("x"))


def test_correlators_sharing_an_id_source_never_mint_the_same_id() -> None:
    ids = numbered_ids("p-")
    one, two = Correlator(ids), Correlator(ids)
    assert [one.new_id(), two.new_id(), one.new_id()] == ["p-1", "p-2", "p-3"]


async def test_no_reply_within_the_deadline_is_a_timeout_and_the_request_is_forgotten() -> None:
    pending = Correlator(numbered_ids("h-"))
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(TimeoutError):
        await pending.call("h-1", nothing, deadline_ms=50)
    assert 0.04 <= loop.time() - started < 1.0
    assert pending.pending_count == 0


async def test_closing_fails_every_waiting_and_later_call_with_the_first_reason() -> None:
    pending = Correlator(numbered_ids("h-"))
    waiting = [asyncio.create_task(pending.call(f"h-{n}", nothing, deadline_ms=5000)) for n in range(3)]
    await until(lambda: pending.pending_count == 3, interval_s=0, message="the calls waiting")
    pending.close("The port closed.")
    pending.close("A second reason.")
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert all(isinstance(r, ProviderUnavailable) and str(r) == "The port closed." for r in results)
    assert pending.closed_reason == "The port closed."
    sent: list[str] = []

    async def send() -> None:
        sent.append("sent")

    with pytest.raises(ProviderUnavailable, match="port closed"):
        await pending.call("h-9", send, deadline_ms=5000)
    assert sent == [], "nothing is sent once closed"


async def test_a_failing_send_forgets_the_request_and_its_error_passes_through() -> None:
    pending = Correlator(numbered_ids("h-"))

    async def broken() -> None:
        pending.close("The pipe broke.")  # as Bridge does: close, then raise
        raise ProviderUnavailable("The pipe broke.")

    with pytest.raises(ProviderUnavailable):
        await pending.call("h-1", broken, deadline_ms=5000)
    assert pending.pending_count == 0


async def test_cancelling_a_call_forgets_it() -> None:
    pending = Correlator(numbered_ids("h-"))
    task = asyncio.create_task(pending.call("h-1", nothing, deadline_ms=5000))
    await until(lambda: pending.pending_count == 1, interval_s=0, message="the call waiting")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pending.pending_count == 0
    assert not pending.resolve("h-1", "late")
