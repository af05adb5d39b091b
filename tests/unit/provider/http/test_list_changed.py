"""list_changed.py: change notifications are coalesced, and the last change is always announced."""

from __future__ import annotations

import asyncio

from mcp.server.subscriptions import InMemorySubscriptionBus

from native_host.provider.http.list_changed import ListChangedBroadcaster


async def test_a_burst_of_changes_becomes_at_most_two_notifications() -> None:
    broadcaster = ListChangedBroadcaster(InMemorySubscriptionBus(), min_interval_s=0.05)
    for _ in range(1000):
        broadcaster.notify()
    async with asyncio.timeout(1):
        while broadcaster.sent < 2:
            await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    assert broadcaster.sent == 2  # the first at once, the trailing one for the rest


async def test_a_single_change_is_sent_at_once() -> None:
    broadcaster = ListChangedBroadcaster(InMemorySubscriptionBus(), min_interval_s=10)
    broadcaster.notify()
    async with asyncio.timeout(0.5):
        while broadcaster.sent < 1:
            await asyncio.sleep(0)
    broadcaster.notify()
    broadcaster.close()  # the trailing one is dropped on close
    assert broadcaster.sent == 1
