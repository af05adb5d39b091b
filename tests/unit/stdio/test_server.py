"""server.py: the `webctx mcp` bridge against a real provider endpoint (McpEndpoint with a fake
extension, real HTTP, real token) and an in-process MCP client of either era (issue #8)."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from mcp import Client, types
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError

from native_host import paths
from native_host.protocol.client_info import ClientName
from native_host.protocol.descriptor import Descriptor
from native_host.provider.descriptor_files import remove_descriptor, write_descriptor
from native_host.provider.http.endpoint import McpEndpoint
from native_host.stdio.server import (
    RESOURCE_URI,
    SERVER_INSTRUCTIONS,
    TOOL_NAME_PATTERN,
    StdioBridge,
    exposable,
)
from tests.support.descriptors import make_descriptor
from tests.support.requester import FakeRequester, SentRequest
from tests.support.waiting import until

BUNDLE = "org.chromium.Chromium"
Mode = Literal["legacy", "auto"]
MODES: list[Mode] = ["legacy", "auto"]


def tree(instance: str) -> dict[str, Any]:
    return {
        "id": "app",
        "role": "Application",
        "title": "Chromium",
        "children": [{"id": "win-1", "role": "Window", "children": [{"id": "sel-1", "role": "Text"}]}],
    }


class FakeExtension(FakeRequester):
    """Stands in for the extension behind the native host: answers `current`, or hangs until
    cancelled when `hang` is set (and records that it was cancelled)."""

    def __init__(self, instance: str) -> None:
        super().__init__()
        self.instance = instance
        self.hang = False
        self.cancelled = asyncio.Event()

    async def answer(self, sent: SentRequest) -> Any:
        if self.hang:
            try:
                await asyncio.Event().wait()  # never answers: only a cancel ends it
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        return {"root": tree(self.instance)}


@dataclass
class Provider:
    endpoint: McpEndpoint
    extension: FakeExtension
    descriptor: Descriptor
    path: Path

    async def stop(self) -> None:
        remove_descriptor(self.path)
        async with asyncio.timeout(5):
            await self.endpoint.stop()


@pytest.fixture
async def start_provider() -> AsyncIterator[Callable[[], Awaitable[Provider]]]:
    """`await start_provider()`: a provider endpoint in this process with its descriptor written
    (pid and listener = this process, so the design.md §7 checks pass with an injected bundle id)."""
    started: list[Provider] = []

    async def start() -> Provider:
        instance = secrets.token_urlsafe(16)
        extension = FakeExtension(instance)
        endpoint = McpEndpoint(extension, instance=instance)
        url = await endpoint.start()
        descriptor = make_descriptor(
            bundle_id=BUNDLE, pid=os.getpid(), instance=instance, endpoint=url, token=endpoint.token
        )
        path = write_descriptor(paths.providers_dir(), descriptor)
        provider = Provider(endpoint, extension, descriptor, path)
        started.append(provider)
        return provider

    yield start
    for provider in started:
        await provider.stop()


@pytest.fixture
async def bridge() -> AsyncIterator[StdioBridge]:
    bridge = StdioBridge(
        identify=lambda process: BUNDLE, front_pid=lambda: None, poll_interval_s=0.2, connect_grace_s=1.0
    )
    stop = asyncio.Event()

    async def run() -> None:  # in its own task: the fixture's setup and teardown may run in two
        async with bridge.running():
            await stop.wait()

    task = asyncio.create_task(run())
    yield bridge
    stop.set()
    async with asyncio.timeout(5):
        await task


@asynccontextmanager
async def connect(
    bridge: StdioBridge, mode: Mode, client_info: types.Implementation | None = None
) -> AsyncIterator[tuple[Client, asyncio.Queue[str]]]:
    """An MCP client of era `mode` on the bridge (declaring `client_info`, else the SDK's default),
    and a queue that gets "tools" per list_changed."""
    changes: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changes.put_nowait("tools")

    # JSON-RPC framing over memory streams into `server.run`: the path stdio takes, in both eras
    # (an in-process `Client(server, mode="auto")` would skip the framing).
    transport = InMemoryTransport(bridge.server)
    client = Client(
        transport, mode=mode, message_handler=on_message, read_timeout_seconds=10, client_info=client_info
    )
    async with client:
        if mode == "legacy":
            yield client, changes
            return
        async with client.listen(tools_list_changed=True) as subscription, anyio.create_task_group() as tg:

            async def pump() -> None:
                async for _event in subscription:
                    changes.put_nowait("tools")

            tg.start_soon(pump)
            yield client, changes
            tg.cancel_scope.cancel()


async def connected_to(bridge: StdioBridge, provider: Provider) -> None:
    async with asyncio.timeout(5):
        await until(lambda: bridge.upstream is not None
                    and bridge.upstream.descriptor.instance == provider.descriptor.instance,
                    timeout_s=5, message="the bridge follows the provider")


async def drain(changes: asyncio.Queue[str]) -> None:
    while not changes.empty():
        changes.get_nowait()


@pytest.mark.parametrize("mode", MODES)
async def test_tools_and_current_are_proxied_from_the_provider(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    provider = await start_provider()
    await connected_to(bridge, provider)
    async with asyncio.timeout(20), connect(bridge, mode) as (client, _):
        assert client.protocol_version == {"legacy": "2025-11-25", "auto": "2026-07-28"}[mode]
        tools = (await client.list_tools()).tools
        result = await client.call_tool("current", {})
    assert [tool.name for tool in tools] == ["current", "location", "read_page"]
    assert all(TOOL_NAME_PATTERN.match(tool.name) for tool in tools)
    assert result.is_error is False
    assert result.structured_content is not None
    assert result.structured_content["instance"] == provider.descriptor.instance
    assert result.structured_content["root"]["id"] == "app"


@pytest.mark.parametrize("mode", MODES)
async def test_the_provider_records_the_bridged_clients_name_via_webctx_mcp(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    """A read through `webctx mcp` is recorded as the real client's, not the bridge's."""
    provider = await start_provider()
    await connected_to(bridge, provider)
    info = types.Implementation(name="Claude Desktop", version="1.2")
    async with asyncio.timeout(20), connect(bridge, mode, info) as (client, _):
        await client.call_tool("current", {})
        await client.read_resource("webctx://current")
    entries = provider.endpoint.activity.entries()
    assert [entry.tool for entry in entries] == ["current", "current"]
    assert {entry.client for entry in entries} == {ClientName("Claude Desktop", "1.2", via="webctx mcp")}


async def test_the_current_resource_holds_the_current_answer(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]]
) -> None:
    provider = await start_provider()
    await connected_to(bridge, provider)
    async with asyncio.timeout(20), connect(bridge, "legacy") as (client, _):
        [resource] = (await client.list_resources()).resources
        read = await client.read_resource(RESOURCE_URI)
    assert (str(resource.uri), resource.mime_type) == (RESOURCE_URI, "application/json")
    [contents] = read.contents
    assert isinstance(contents, types.TextResourceContents)
    assert f'"instance":"{provider.descriptor.instance}"' in contents.text


@pytest.mark.parametrize("mode", MODES)
async def test_without_a_provider_calls_get_the_clear_error_quickly(bridge: StdioBridge, mode: Mode) -> None:
    async with asyncio.timeout(20), connect(bridge, mode) as (client, _):
        assert [tool.name for tool in (await client.list_tools()).tools] == ["current"]
        started = asyncio.get_running_loop().time()
        result = await client.call_tool("current", {})
        elapsed = asyncio.get_running_loop().time() - started
        with pytest.raises(MCPError) as refused:
            await client.read_resource(RESOURCE_URI)
    assert result.is_error is True
    assert result.content[0].type == "text"
    assert result.content[0].text.startswith("webctx cannot reach a browser: ")  # why, and the fix
    assert "Start the browser with the webctx extension" in result.content[0].text
    assert elapsed < 3.0
    assert "webctx cannot reach a browser: " in refused.value.message


@pytest.mark.parametrize("mode", MODES)
async def test_the_bridge_survives_the_provider_restarting(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    first = await start_provider()
    await connected_to(bridge, first)
    async with asyncio.timeout(30), connect(bridge, mode) as (client, changes):
        before = await client.call_tool("current", {})
        assert before.structured_content is not None
        old_id = "sel-1"
        await drain(changes)

        await first.stop()
        assert await changes.get() == "tools"  # the provider went away
        during = await client.call_tool("current", {})
        assert during.is_error is True
        assert "webctx cannot reach a browser: " in during.content[0].text  # type: ignore[union-attr]

        second = await start_provider()
        await connected_to(bridge, second)
        assert await changes.get() == "tools"  # a new provider (new instance) is there
        after = await client.call_tool("current", {})
        assert after.structured_content is not None
        assert after.structured_content["instance"] == second.descriptor.instance
        assert bridge.upstream is not None

    # The old instance's ids are gone, even where the new one re-minted the same string.
    bridge._issued[old_id] = first.descriptor.instance
    gone = await bridge.call_tool("location", {"id": old_id})
    assert gone.is_error is True
    assert gone.structured_content == {
        "error": {"code": "unknown_id", "message": "issued by a provider instance that is gone"}
    }


@pytest.mark.parametrize("mode", MODES)
async def test_upstream_list_changed_is_relayed(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    provider = await start_provider()
    await connected_to(bridge, provider)
    async with asyncio.timeout(20), connect(bridge, mode) as (_, changes):
        await drain(changes)

        async def relayed() -> bool:
            # The bridge opens its own upstream listen stream in the background: notify until
            # one reaches this client.
            await provider.endpoint.notify_tools_changed()
            try:
                return await asyncio.wait_for(changes.get(), 0.5) == "tools"
            except TimeoutError:
                return False

        await until(relayed, timeout_s=15, message="a tools change relayed")


@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_a_call_cancels_it_at_the_provider(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    provider = await start_provider()
    await connected_to(bridge, provider)
    provider.extension.hang = True
    async with asyncio.timeout(20), connect(bridge, mode) as (client, _):
        with anyio.move_on_after(0.5):
            await client.call_tool("current", {})
        async with asyncio.timeout(5):
            await provider.extension.cancelled.wait()
        provider.extension.hang = False
        result = await client.call_tool("current", {})
    assert result.is_error is False


async def test_an_unknown_tool_is_the_providers_json_rpc_error(
    bridge: StdioBridge, start_provider: Callable[[], Awaitable[Provider]]
) -> None:
    provider = await start_provider()
    await connected_to(bridge, provider)
    async with asyncio.timeout(20), connect(bridge, "legacy") as (client, _):
        with pytest.raises(MCPError) as refused:
            await client.call_tool("no_such_tool", {})
    assert refused.value.code == -32602


def test_only_client_safe_tool_names_are_exposed() -> None:
    schema: dict[str, Any] = {"type": "object"}
    names = ["current", "p1_search", "bad.name", "x" * 49, "", "p2_ok_" + "y" * 42, "with-dash"]
    kept = exposable([types.Tool(name=name, input_schema=schema) for name in names])
    assert [tool.name for tool in kept] == ["current", "p1_search", "p2_ok_" + "y" * 42]


@asynccontextmanager
async def fresh_bridge(grace_s: float = 2.0) -> AsyncIterator[StdioBridge]:
    """A bridge started now (its link has not looked at the providers folder yet)."""
    bridge = StdioBridge(
        identify=lambda process: BUNDLE, front_pid=lambda: None, poll_interval_s=0.2, connect_grace_s=grace_s
    )
    async with bridge.running():
        yield bridge


@pytest.mark.parametrize("mode", MODES)
async def test_a_client_that_lists_once_right_after_connecting_sees_the_providers_tools(
    start_provider: Callable[[], Awaitable[Provider]], mode: Mode
) -> None:
    """The first `tools/list` of a fresh bridge waits for the link's first attempt and
    lists the provider's tools, not the fallback `current` alone; `instructions` are the fixed text."""
    await start_provider()
    async with asyncio.timeout(20), fresh_bridge() as bridge, connect(bridge, mode) as (client, _):
        tools = (await client.list_tools()).tools
        instructions = client.instructions
    assert [tool.name for tool in tools] == ["current", "location", "read_page"]
    assert instructions == SERVER_INSTRUCTIONS


@pytest.mark.parametrize("mode", MODES)
async def test_with_no_provider_the_first_look_is_quick_and_a_call_says_why(mode: Mode) -> None:
    """Nothing to wait for (no descriptor) → no wait for the grace; a call's one-line
    error (not the `instructions`, which never change) leads with what is wrong, where the bridge
    looked, and the fix."""
    started = time.monotonic()
    async with asyncio.timeout(20), fresh_bridge(grace_s=5.0) as bridge, connect(bridge, mode) as (client, _):
        tools = (await client.list_tools()).tools
        elapsed = time.monotonic() - started
        instructions = client.instructions
        result = await client.call_tool("current", {})
    assert [tool.name for tool in tools] == ["current"]
    assert elapsed < 2.0
    assert instructions == SERVER_INSTRUCTIONS
    assert result.is_error is True and result.content[0].type == "text"
    text = result.content[0].text
    assert "\n" not in text
    assert text.startswith("webctx cannot reach a browser: ")
    assert f"Looked in {paths.providers_dir()}, from CONTEXT_PROVIDERS_DIR." in text
    assert "Start the browser with the webctx extension" in text
    assert "`webctx mcp --check`" in text


async def test_a_provider_that_never_answers_delays_the_first_look_by_the_grace_only() -> None:
    """The first look waits for the first attempt, but never longer than the grace
    (`connect_grace_s`, as calls): a listener that accepts and never answers costs the grace, 1.5 s
    here (not the 5 s connection limit). The grace leaves room for the folder survey, which takes
    0.1 to 0.5 s on a loaded 2-CPU machine (listener_pids)."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    port = silent.getsockname()[1]
    descriptor = make_descriptor(bundle_id=BUNDLE, pid=os.getpid(), endpoint=f"http://127.0.0.1:{port}/mcp/x")
    write_descriptor(paths.providers_dir(), descriptor)
    try:
        started = time.monotonic()
        async with (
            asyncio.timeout(20),
            fresh_bridge(grace_s=1.5) as bridge,
            connect(bridge, "legacy") as (client, _),
        ):
            tools = (await client.list_tools()).tools
            elapsed = time.monotonic() - started
            result = await client.call_tool("current", {})
    finally:
        silent.close()
    assert [tool.name for tool in tools] == ["current"]
    assert 1.5 <= elapsed < 4.5
    assert result.is_error is True and result.content[0].type == "text"
    found = f"webctx cannot reach a browser: Chromium (pid {os.getpid()}) was found"
    assert result.content[0].text.startswith(found)
