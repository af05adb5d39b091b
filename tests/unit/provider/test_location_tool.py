"""The `location` MCP tool with a fake bridge (design.md §1.2): the request it sends, the answer, the
OS window number, and the `invalid_id` / `unknown_id` errors."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

from native_host.errors import ExtensionError
from native_host.protocol.answers import WindowBounds
from native_host.provider.http.endpoint import McpEndpoint
from tests.support.requester import FakeRequester

REPLY = {
    "location": {
        "state": "visible",
        "rects": [{"x": 110, "y": 147, "w": 32, "h": 18}],
        "avoid": {"x": 110, "y": 147, "w": 32, "h": 18},
    },
    "windowBounds": {"left": 100, "top": 50, "width": 780, "height": 580},
}


class LocationBridge(FakeRequester):
    """Answers `location` like the worker would; `reply` is the result or an exception to raise."""

    def __init__(self) -> None:
        super().__init__(default=lambda _sent: self.reply)
        self.reply: Any = REPLY


@pytest.fixture
def bridge() -> LocationBridge:
    return LocationBridge()


@asynccontextmanager
async def connected(bridge: LocationBridge) -> AsyncIterator[Client]:
    """An endpoint over `bridge` (window finder: 0x2A00007 for a window at left 100) and a client."""
    seen: list[WindowBounds] = []

    async def finder(bounds: WindowBounds) -> int | None:
        seen.append(bounds)
        return 0x2A00007 if bounds.left == 100 else None

    endpoint = McpEndpoint(bridge, instance="i" * 22, location_deadline_ms=777, window_finder=finder)
    async with asyncio.timeout(10):
        await endpoint.start()
    try:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint.token}"}) as http,
            Client(streamable_http_client(endpoint.url, http_client=http), read_timeout_seconds=10) as client,
        ):
            yield client
    finally:
        async with asyncio.timeout(5):
            await endpoint.stop()


async def call(bridge: LocationBridge, arguments: dict[str, Any]) -> types.CallToolResult:
    """One `location` call through a fresh endpoint and client (limited to 20 s)."""
    async with asyncio.timeout(20), connected(bridge) as client:
        return await client.call_tool("location", arguments)


async def test_location_sends_the_element_id_as_element_id_and_adds_the_window(
    bridge: LocationBridge
) -> None:
    result = await call(bridge, {"id": "sel-1"})
    assert not result.is_error
    sent = [(r.type, r.body, r.deadline_ms) for r in bridge.requests]
    assert sent == [("location", {"elementId": "sel-1"}, 777)]
    assert result.structured_content == {
        "state": "visible",
        "rects": [{"x": 110, "y": 147, "w": 32, "h": 18}],
        "avoid": {"x": 110, "y": 147, "w": 32, "h": 18},
        "window": 0x2A00007,
    }


async def test_no_window_is_omitted_and_gone_has_no_window(bridge: LocationBridge) -> None:
    bridge.reply = {**REPLY, "windowBounds": {"left": 5, "top": 5, "width": 10, "height": 10}}
    result = await call(bridge, {"id": "tab-1"})
    assert result.structured_content is not None and "window" not in result.structured_content
    bridge.reply = {"location": {"state": "gone", "rects": []}, "windowBounds": REPLY["windowBounds"]}
    result = await call(bridge, {"id": "sel-2"})
    assert result.structured_content == {"state": "gone", "rects": []}


@pytest.mark.parametrize("arguments", [{"id": "bad id!"}, {"id": ""}, {"id": "x" * 129}, {}, {"id": 3}])
async def test_a_malformed_id_is_invalid_id_without_asking_the_browser(
    bridge: LocationBridge, arguments: dict[str, Any]
) -> None:
    result = await call(bridge, arguments)
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["error"]["code"] == "invalid_id"
    assert bridge.requests == []


async def test_an_id_the_extension_never_issued_is_unknown_id(bridge: LocationBridge) -> None:
    bridge.reply = ExtensionError("never issued", code="unknown_id")
    result = await call(bridge, {"id": "sel-987654321"})
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["error"]["code"] == "unknown_id"
    assert "sel-987654321" in result.structured_content["error"]["message"]


async def test_a_reply_of_the_wrong_shape_is_an_is_error_sentence(bridge: LocationBridge) -> None:
    bridge.reply = {"location": {"state": "somewhere", "rects": []}}
    result = await call(bridge, {"id": "sel-1"})
    assert result.is_error
    assert "wrong shape" in result.content[0].text  # type: ignore[union-attr]
