"""bridge.py: host → worker requests: ids, deadlines, replies, cancellation, port closing (design.md §4)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.native import BROWSER_FRAME_ADAPTER
from native_host.provider.port.bridge import Bridge


class FakePort:
    """Records what the bridge sends; `next_sent()` waits for the next message."""

    def __init__(self) -> None:
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.broken = False

    async def send(self, message: dict[str, Any]) -> None:
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        await self.sent.put(message)

    async def next_sent(self) -> dict[str, Any]:
        async with asyncio.timeout(2):
            return await self.sent.get()


def reply(frame: dict[str, Any]) -> Any:
    return BROWSER_FRAME_ADAPTER.validate_python(frame)


@pytest.fixture
def port() -> FakePort:
    return FakePort()


@pytest.fixture
def bridge(port: FakePort) -> Bridge:
    return Bridge(port.send)


async def test_request_sends_type_and_h_id_and_returns_the_result(port: FakePort, bridge: Bridge) -> None:
    task = asyncio.create_task(bridge.request("current", deadline_ms=2000))
    sent = await port.next_sent()
    assert sent == {"type": "current", "id": "h-1"}
    bridge.handle_reply(reply({"type": "result", "id": "h-1", "result": {"root": {"id": "app"}}}))
    assert await task == {"root": {"id": "app"}}
    assert bridge.pending_count == 0


async def test_ids_count_up_and_replies_route_by_id(port: FakePort, bridge: Bridge) -> None:
    first = asyncio.create_task(bridge.request("tools.call", {"name": "n"}, deadline_ms=2000))
    second = asyncio.create_task(bridge.request("current", deadline_ms=2000))
    sent = [await port.next_sent(), await port.next_sent()]
    assert sent == [{"type": "tools.call", "id": "h-1", "name": "n"}, {"type": "current", "id": "h-2"}]
    # replies may come in any order
    bridge.handle_reply(reply({"type": "result", "id": "h-2", "result": 2}))
    bridge.handle_reply(reply({"type": "result", "id": "h-1", "result": 1}))
    assert (await first, await second) == (1, 2)


async def test_a_body_may_not_set_type_or_id(bridge: Bridge) -> None:
    with pytest.raises(ValueError, match="`type` or `id`"):
        await bridge.request("location", {"id": "sel-1"}, deadline_ms=100)
    assert bridge.pending_count == 0


async def test_error_reply_raises_extension_error_with_its_code(port: FakePort, bridge: Bridge) -> None:
    task = asyncio.create_task(bridge.request("current", deadline_ms=2000))
    await port.next_sent()
    bridge.handle_reply(
        reply({"type": "error", "id": "h-1", "error": {"code": "page_gone", "message": "Tab closed."}})
    )
    with pytest.raises(ExtensionError) as info:
        await task
    assert info.value.code == "page_gone"
    assert str(info.value) == "Tab closed."


async def test_no_reply_within_the_deadline_raises_deadline_exceeded(port: FakePort, bridge: Bridge) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(DeadlineExceeded, match="within 50 ms"):
        await bridge.request("current", deadline_ms=50)
    assert 0.04 <= loop.time() - started < 1.0
    assert bridge.pending_count == 0


async def test_late_and_unknown_replies_are_logged_and_dropped(
    port: FakePort, bridge: Bridge, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="native_host")
    with pytest.raises(DeadlineExceeded):
        await bridge.request("current", deadline_ms=10)
    bridge.handle_reply(reply({"type": "result", "id": "h-1", "result": "late"}))
    bridge.handle_reply(reply({"type": "error", "id": "h-99", "error": {"code": "x"}}))
    assert caplog.text.count("no request is waiting") == 2


async def test_cancelling_a_waiting_request_is_clean(port: FakePort, bridge: Bridge) -> None:
    task = asyncio.create_task(bridge.request("current", deadline_ms=5000))
    await port.next_sent()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert bridge.pending_count == 0
    bridge.handle_reply(reply({"type": "result", "id": "h-1", "result": "late"}))  # dropped, no error
    # other requests are unaffected
    other = asyncio.create_task(bridge.request("current", deadline_ms=2000))
    await port.next_sent()
    bridge.handle_reply(reply({"type": "result", "id": "h-2", "result": "ok"}))
    assert await other == "ok"


async def test_closing_the_port_fails_every_pending_and_later_request(port: FakePort, bridge: Bridge) -> None:
    tasks = [asyncio.create_task(bridge.request("current", deadline_ms=5000)) for _ in range(3)]
    for _ in tasks:
        await port.next_sent()
    bridge.close("The browser went away.")
    async with asyncio.timeout(2):
        results = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(isinstance(result, ProviderUnavailable) for result in results)
    assert bridge.pending_count == 0
    with pytest.raises(ProviderUnavailable, match="went away"):
        await bridge.request("current", deadline_ms=5000)


async def test_a_broken_pipe_fails_the_request_as_provider_unavailable(
    port: FakePort, bridge: Bridge
) -> None:
    port.broken = True
    with pytest.raises(ProviderUnavailable):
        await bridge.request("current", deadline_ms=5000)
    assert bridge.pending_count == 0
