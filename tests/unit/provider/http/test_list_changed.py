"""list_changed.py: change notifications are coalesced, and the last change is always announced."""

from __future__ import annotations

from mcp.server.subscriptions import InMemorySubscriptionBus

from native_host.provider.http.list_changed import ListChangedBroadcaster
from tests.support.waiting import until


async def test_a_burst_of_changes_becomes_at_most_two_notifications() -> None:
    broadcaster = ListChangedBroadcaster(InMemorySubscriptionBus(), min_interval_s=0.05)
    for _ in range(1000):
        broadcaster.notify()
    await until(lambda: broadcaster.sent >= 2, timeout_s=1, message="the first and the trailing one")
    assert broadcaster.sent == 2  # the first at once, the trailing one for the rest
    assert broadcaster._pending["tools"].trailing is None, "and no third one is due"


async def test_a_single_change_is_sent_at_once() -> None:
    broadcaster = ListChangedBroadcaster(InMemorySubscriptionBus(), min_interval_s=10)
    broadcaster.notify()
    await until(lambda: broadcaster.sent >= 1, timeout_s=0.5, interval_s=0, message="the first one")
    broadcaster.notify()
    broadcaster.close()  # the trailing one is dropped on close
    assert broadcaster.sent == 1
