"""stdio/resources.py: the page resources through `webctx mcp`, against a real
`python -m native_host` that the test drives as the worker would (tests/support/page_worker.py:
it pushes trees with resource_links and answers `page.read`), with in-process MCP clients of both
eras on the bridge (JSON-RPC framing over memory streams, the path stdio takes).

The bridge lists `webctx://current` and the provider's page resources, reads them through with the
provider's errors as they are, passes on the provider's `resources/list_changed`, and sends its own
when it follows another provider instance or none (every old URI is gone then)."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import pytest
from mcp import Client, types
from mcp.client._memory import InMemoryTransport
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

from native_host.protocol.resources import RESOURCE_NOT_FOUND, TEXT_MAX_BYTES, format_page_uri
from native_host.stdio.server import NO_PROVIDER_MESSAGE, RESOURCE_URI, StdioBridge
from tests.support.host_process import WAIT_S, Host, ready_descriptor, wait_until
from tests.support.page_worker import (
    PNG_BYTES,
    error_reply,
    pages_tree,
    push_tree,
    read_answered,
    screenshot_result,
    text_result,
)
from tests.support.waiting import until
from tests.unit.provider.conftest import spawn  # noqa: F401  (the fixture: a real native host)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

VIA = "webctx mcp"
Mode = Literal["legacy", "auto"]
MODES: list[Mode] = ["legacy", "auto"]
KINDS = ("text", "screenshot")
OTHER = "AAAAAAAAAAAAAAAAAAAAAA"
"""An instance no provider runs (a restarted one)."""


async def started(spawn: Callable[[], Any], *page_ids: str) -> tuple[Host, str, dict[str, Any]]:  # noqa: F811
    """A host that said hello and published its descriptor, with a tree of `page_ids` pushed."""
    host: Host = await spawn()
    instance = (await host.hello())["instance"]
    descriptor = await ready_descriptor(host)
    await push_tree(host, pages_tree(instance, *(page_ids or ("tab-1", "tab-2"))))
    return host, instance, descriptor


@asynccontextmanager
async def running_bridge(bundle_id: str) -> AsyncIterator[StdioBridge]:
    """A bridge that accepts descriptors of `bundle_id` (the spawned host names the test's Python)."""
    bridge = StdioBridge(
        identify=lambda process: bundle_id, front_pid=lambda: None, poll_interval_s=0.2, connect_grace_s=2.0
    )
    async with bridge.running():
        yield bridge


async def connected(bridge: StdioBridge, instance: str | None) -> None:
    """Wait until the bridge follows the provider of `instance` (None: no provider)."""
    def holds() -> bool:
        upstream = bridge.upstream
        return (upstream.descriptor.instance if upstream is not None else None) == instance

    await wait_until(holds, what=f"the bridge to follow instance {instance}")


@asynccontextmanager
async def connect(
    bridge: StdioBridge, mode: Mode, client_info: types.Implementation | None = None
) -> AsyncIterator[tuple[Client, asyncio.Queue[str]]]:
    """An MCP client of era `mode` on the bridge, and a queue that gets "resources" per
    `notifications/resources/list_changed` (and "tools" per tools list_changed)."""
    changes: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            changes.put_nowait("resources")
        elif isinstance(message, types.ToolListChangedNotification):
            changes.put_nowait("tools")

    client = Client(
        InMemoryTransport(bridge.server), mode=mode, message_handler=on_message, read_timeout_seconds=20,
        client_info=client_info,
    )
    async with client:
        if mode == "legacy":
            yield client, changes
            return
        async with (
            client.listen(tools_list_changed=True, resources_list_changed=True) as subscription,
            anyio.create_task_group() as tg,
        ):

            async def pump() -> None:
                async for event in subscription:
                    changes.put_nowait("resources" if isinstance(event, ResourcesListChanged) else "tools")

            tg.start_soon(pump)
            yield client, changes
            tg.cancel_scope.cancel()


async def next_resources_change(changes: asyncio.Queue[str], timeout_s: float = WAIT_S) -> None:
    """Wait for a "resources" in `changes` (skipping "tools")."""
    async with asyncio.timeout(timeout_s):
        while await changes.get() != "resources":
            pass


def drain(changes: asyncio.Queue[str]) -> list[str]:
    seen = []
    while not changes.empty():
        seen.append(changes.get_nowait())
    return seen


@pytest.mark.parametrize("mode", MODES)
async def test_the_bridge_lists_current_then_the_providers_page_resources_with_list_changed_in_both_eras(
    spawn: Callable[[], Any], mode: Mode  # noqa: F811
) -> None:
    _, instance, descriptor = await started(spawn, "tab-1", "tab-2")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S), connect(bridge, mode) as (client, _):
            capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
            listed = (await client.list_resources()).resources
    assert capabilities["resources"]["listChanged"] is True
    assert [r.uri for r in listed] == [
        RESOURCE_URI,
        *(format_page_uri(instance, page, kind) for page in ("tab-1", "tab-2") for kind in KINDS),
    ]
    assert listed[1].mime_type == "text/markdown" and listed[2].mime_type == "image/png"
    assert listed[1].description  # the provider's words, passed on


@pytest.mark.parametrize("mode", MODES)
async def test_a_page_text_and_a_screenshot_are_read_through_the_bridge_for_the_bridged_client(
    spawn: Callable[[], Any], mode: Mode  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn, "tab-1")
    info = types.Implementation(name="Claude Desktop", version="1.2")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S * 2), connect(bridge, mode, info) as (client, _):
            text_uri = format_page_uri(instance, "tab-1", "text")
            text, asked = await read_answered(client, host, text_uri, text_result("# Tides\n\nThe Moon."))
            shot_uri = format_page_uri(instance, "tab-1", "screenshot")
            shot, _ = await read_answered(client, host, shot_uri, screenshot_result())
    assert asked["pageId"] == "tab-1" and asked["kind"] == "text" and asked["maxBytes"] == TEXT_MAX_BYTES
    assert isinstance(text, types.ReadResourceResult)
    [contents] = text.contents
    assert isinstance(contents, types.TextResourceContents)
    assert (contents.uri, contents.mime_type) == (text_uri, "text/markdown")
    assert contents.text == "# Tides\n\nThe Moon."
    assert contents.meta == {"truncated": False, "bytes": 18, "source": "readability"}
    assert isinstance(shot, types.ReadResourceResult)
    [image] = shot.contents
    assert isinstance(image, types.BlobResourceContents)
    assert base64.b64decode(image.blob) == PNG_BYTES and image.mime_type == "image/png"
    assert image.meta == {"devicePixelRatio": 1, "width": 800, "height": 600, "scale": 1}
    # the provider records the reads as the bridged client's, via `webctx mcp`
    await wait_until(lambda: len([a for a in host.activity if a["entry"]["tool"] == "resources/read"]) == 2,
                     what="two activity entries for the reads")
    reads = [a["entry"] for a in host.activity if a["entry"]["tool"] == "resources/read"]
    assert {(r["client"]["name"], r["client"].get("via")) for r in reads} == {("Claude Desktop", VIA)}


async def test_the_providers_errors_reach_the_client_as_they_are(spawn: Callable[[], Any]) -> None:  # noqa: F811
    host, instance, descriptor = await started(spawn, "tab-1")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S * 2), connect(bridge, "auto") as (client, _):
            uri = format_page_uri(instance, "tab-1", "text")
            refusal = error_reply("switched_off", "page text is switched off")
            off, _ = await read_answered(client, host, uri, refusal)
            closed, _ = await read_answered(client, host, uri, error_reply("page_gone", "the tab was closed"))
            with pytest.raises(MCPError) as other:  # another instance: the provider answers at once
                await client.read_resource(format_page_uri(OTHER, "tab-1", "text"))
    assert isinstance(off, MCPError) and off.error.code == INVALID_PARAMS
    assert off.error.message.startswith("switched_off: page text is switched off.")
    assert isinstance(off.error.data, dict) and off.error.data["reason"] == "switched_off"
    assert isinstance(closed, MCPError) and closed.error.code == RESOURCE_NOT_FOUND
    assert closed.error.message.startswith("gone: the tab was closed.")
    assert other.value.error.code == RESOURCE_NOT_FOUND and other.value.error.message.startswith("gone: ")
    assert host.frames.empty(), "the other instance's URI reached the worker"


async def test_only_page_resources_are_read_through(spawn: Callable[[], Any]) -> None:  # noqa: F811
    """`webctx://activity` (the provider's unlisted resource) and other URIs are unknown to the
    bridge, as before it reads through only what it lists."""
    host, instance, descriptor = await started(spawn, "tab-1")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S), connect(bridge, "legacy") as (client, _):
            for uri in ("webctx://activity", f"webctx://{instance}/tab-1/text/", "https://example.org/"):
                with pytest.raises(MCPError) as info:
                    await client.read_resource(uri)
                assert info.value.error.code == RESOURCE_NOT_FOUND
                assert info.value.error.message.startswith("Unknown resource: ")
    assert host.frames.empty()


@pytest.mark.parametrize("mode", MODES)
async def test_the_providers_resources_list_changed_is_passed_on(
    spawn: Callable[[], Any], mode: Mode  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn, "tab-1")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S * 2), connect(bridge, mode) as (client, changes):
            before = [r.uri for r in (await client.list_resources()).resources]
            drain(changes)
            await push_tree(host, pages_tree(instance, "tab-1", "tab-7"))  # a new tab
            after: list[str] = []

            async def listed_after_a_change() -> bool:
                # A coalesced notice of the first tree may come late: the new tab's is one after
                # which the list has the tab.
                await next_resources_change(changes)
                after[:] = [r.uri for r in (await client.list_resources()).resources]
                return format_page_uri(instance, "tab-7", "text") in after

            await until(listed_after_a_change, timeout_s=WAIT_S, message="a change that lists the new tab")
    assert format_page_uri(instance, "tab-7", "text") not in before
    assert format_page_uri(instance, "tab-7", "text") in after


@pytest.mark.parametrize("mode", MODES)
async def test_a_new_provider_instance_or_none_is_a_resources_list_changed_and_reads_say_why(
    spawn: Callable[[], Any], mode: Mode  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn, "tab-1")
    async with running_bridge(descriptor["bundleId"]) as bridge:
        await connected(bridge, instance)
        async with asyncio.timeout(WAIT_S * 3), connect(bridge, mode) as (client, changes):
            await client.list_resources()
            drain(changes)
            host.close_stdin()  # the browser quits: the host removes its descriptor and exits
            await host.wait_exit(WAIT_S)

            async def changed_without_a_provider() -> bool:
                # A coalesced notice of the first tree may come late: the one that counts comes
                # once the bridge has let the provider go.
                await next_resources_change(changes)
                return bridge.upstream is None

            await until(changed_without_a_provider, timeout_s=WAIT_S, message="a change without the provider")
            await connected(bridge, None)
            alone = [r.uri for r in (await client.list_resources()).resources]
            with pytest.raises(MCPError) as no_provider:
                await client.read_resource(format_page_uri(instance, "tab-1", "text"))

            second, new_instance, _ = await started(spawn, "tab-1")  # the browser is back
            await next_resources_change(changes)
            await connected(bridge, new_instance)
            again = [r.uri for r in (await client.list_resources()).resources]
            with pytest.raises(MCPError) as old:
                await client.read_resource(format_page_uri(instance, "tab-1", "text"))
    assert alone == [RESOURCE_URI]
    error = no_provider.value.error
    assert (error.code, error.message) == (INTERNAL_ERROR, NO_PROVIDER_MESSAGE)
    assert again == [RESOURCE_URI, *(format_page_uri(new_instance, "tab-1", k) for k in KINDS)]
    assert old.value.error.code == RESOURCE_NOT_FOUND and old.value.error.message.startswith("gone: ")
    assert second.frames.empty()
