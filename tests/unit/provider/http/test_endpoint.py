"""endpoint.py: the MCP endpoint with a fake bridge, through the SDK client in both eras (design.md §1)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.tools import EXTENSION_ID
from native_host.provider.http.endpoint import McpEndpoint
from tests.support.asgi import INITIALIZE
from tests.support.requester import FakeRequester, SentRequest

INSTANCE = "Zm9vYmFyYmF6cXV4cXV1eA"
ROOT = {
    "id": "app",
    "role": "Application",
    "title": "Chromium",
    "attributes": {"version": "156.0.8078.114"},
    "children": [{"id": "win-1", "role": "Window", "focused": True, "children": []}],
}
MODES: list[Literal["legacy", "auto"]] = ["legacy", "auto"]
ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}


class FakeBridge(FakeRequester):
    """Answers `current` like the worker would; `behaviour` switches the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.behaviour = "ok"

    async def answer(self, sent: SentRequest) -> Any:
        match self.behaviour:
            case "ok":
                return {"root": ROOT}
            case "deadline":
                raise DeadlineExceeded("no answer")
            case "extension_error":
                raise ExtensionError("Something internal /secret/path", code="internal_error")
            case "closed":
                raise ProviderUnavailable("closed")
            case "bad_tree":
                return {"root": {"id": "bad id with spaces", "role": "Application"}}
            case "crash":
                raise RuntimeError("secret internal detail")
        raise AssertionError(self.behaviour)


@pytest.fixture
def bridge() -> FakeBridge:
    return FakeBridge()


@pytest.fixture
async def endpoint(bridge: FakeBridge) -> AsyncIterator[McpEndpoint]:
    endpoint = McpEndpoint(bridge, instance=INSTANCE, current_deadline_ms=1234)
    async with asyncio.timeout(10):
        await endpoint.start()
    yield endpoint
    async with asyncio.timeout(5):
        await endpoint.stop()


@asynccontextmanager
async def connect(endpoint: McpEndpoint, mode: Literal["legacy", "auto"]) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {endpoint.token}"}) as http,
        Client(
            streamable_http_client(endpoint.url, http_client=http), mode=mode, read_timeout_seconds=10
        ) as client,
    ):
        yield client


@pytest.mark.parametrize("mode", MODES)
async def test_current_returns_the_three_field_answer_in_both_eras(endpoint: McpEndpoint, mode: str) -> None:
    async with asyncio.timeout(20), connect(endpoint, mode) as client:  # type: ignore[arg-type]
        assert client.protocol_version == ERAS[mode]
        result = await client.call_tool("current", {})
    answer = {"protocol": "0.2.0", "instance": INSTANCE, "root": ROOT}
    assert result.is_error is False
    assert result.structured_content == answer
    [block] = result.content
    assert block.type == "text"
    assert json.loads(block.text) == answer
    assert block.text == json.dumps(answer, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("mode", MODES)
async def test_capabilities_declare_list_changed_and_the_extension_in_both_eras(
    endpoint: McpEndpoint, mode: str
) -> None:
    async with asyncio.timeout(20), connect(endpoint, mode) as client:  # type: ignore[arg-type]
        capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
    assert capabilities["tools"] == {"listChanged": True}
    assert capabilities["extensions"] == {EXTENSION_ID: {"protocol": "0.2.0"}}


@pytest.mark.parametrize("mode", MODES)
async def test_tools_list_offers_current_without_arguments(endpoint: McpEndpoint, mode: str) -> None:
    async with asyncio.timeout(20), connect(endpoint, mode) as client:  # type: ignore[arg-type]
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == ["current", "location", "read_page"]
    assert tools[0].input_schema == {"type": "object", "properties": {}, "additionalProperties": False}


@pytest.mark.parametrize("mode", MODES)
async def test_an_unknown_tool_is_a_json_rpc_error(endpoint: McpEndpoint, mode: str) -> None:
    async with asyncio.timeout(20), connect(endpoint, mode) as client:  # type: ignore[arg-type]
        with pytest.raises(MCPError) as info:
            await client.call_tool("no_such_tool", {})
    assert info.value.code == -32602
    assert "no_such_tool" in info.value.message


@pytest.mark.parametrize(
    ("behaviour", "sentence"),
    [
        ("deadline", "did not answer within 1234 ms"),
        ("extension_error", "could not report the current context (code internal_error)"),
        ("closed", "no longer connected"),
        ("bad_tree", "wrong shape"),
        ("crash", "failed unexpectedly; the details are in the webctx log"),
    ],
)
@pytest.mark.parametrize("mode", MODES)
async def test_failures_are_is_error_results_with_a_sentence_never_internal_text(
    endpoint: McpEndpoint, bridge: FakeBridge, mode: str, behaviour: str, sentence: str
) -> None:
    bridge.behaviour = behaviour
    async with asyncio.timeout(20), connect(endpoint, mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("current", {})
    assert result.is_error is True
    [block] = result.content
    assert block.type == "text"
    assert sentence in block.text
    assert "secret" not in block.text


async def test_current_asks_the_bridge_with_its_deadline(endpoint: McpEndpoint, bridge: FakeBridge) -> None:
    async with asyncio.timeout(20), connect(endpoint, "auto") as client:
        await client.call_tool("current", None)
    assert [(r.type, r.deadline_ms) for r in bridge.requests] == [("current", 1234)]


async def test_arguments_to_current_are_an_is_error_result(endpoint: McpEndpoint, bridge: FakeBridge) -> None:
    async with asyncio.timeout(20), connect(endpoint, "legacy") as client:
        result = await client.call_tool("current", {"unexpected": 1})
    assert result.is_error is True
    assert bridge.requests == []


async def test_listeners_hear_tools_list_changed(endpoint: McpEndpoint) -> None:
    async with (
        asyncio.timeout(20),
        connect(endpoint, "auto") as client,
        client.listen(tools_list_changed=True) as subscription,
    ):
        await endpoint.notify_tools_changed()
        async for event in subscription:
            assert type(event).__name__ == "ToolsListChanged"
            break


async def test_the_real_endpoint_refuses_origin_wrong_token_and_wrong_path(endpoint: McpEndpoint) -> None:
    initialize = INITIALIZE
    accept = {"Accept": "application/json, text/event-stream"}
    good = {"Authorization": f"Bearer {endpoint.token}", **accept}
    async with httpx.AsyncClient(timeout=10) as http:
        origin = await http.post(
            endpoint.url, json=initialize, headers={"Origin": "http://localhost:1", **good}
        )
        wrong = await http.post(
            endpoint.url, json=initialize, headers={"Authorization": "Bearer nope", **accept}
        )
        path = await http.post(endpoint.url + "x", json=initialize, headers=good)
        ok = await http.post(endpoint.url, json=initialize, headers=good)
    assert (origin.status_code, wrong.status_code, path.status_code, ok.status_code) == (403, 401, 404, 200)


def test_token_and_path_are_random_and_url_safe(bridge: FakeBridge) -> None:
    first, second = McpEndpoint(bridge, instance="a"), McpEndpoint(bridge, instance="a")
    assert first.token != second.token and first.path != second.path
    assert len(first.token) == 43  # 32 bytes, URL-safe base64 without padding
    assert first.path.startswith("/mcp/") and len(first.path) == len("/mcp/") + 22
    with pytest.raises(RuntimeError):
        _ = first.url  # not started


async def test_the_endpoint_binds_loopback_and_stops_within_a_second_with_a_client_connected(
    bridge: FakeBridge,
) -> None:
    endpoint = McpEndpoint(bridge, instance=INSTANCE)
    url = await endpoint.start()
    assert url.startswith(f"http://127.0.0.1:{endpoint.port}/mcp/")
    connected = asyncio.Event()
    release = asyncio.Event()

    async def legacy_client() -> None:
        # a 2025-era client keeps its GET stream open until it leaves
        async with connect(endpoint, "legacy") as client:
            await client.call_tool("current", {})
            connected.set()
            await release.wait()

    task = asyncio.create_task(legacy_client())
    try:
        async with asyncio.timeout(20):
            await connected.wait()
        started = time.monotonic()
        await endpoint.stop()
        assert time.monotonic() - started < 1.3
    finally:
        release.set()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
