"""HostClient.list_resources / read_resource against a real `python -m native_host` driven as
the worker would (tests/support/page_worker.py), over real HTTP with the token, in both MCP eras:
a page URI goes only to the provider running its instance (else `gone`, nobody asked), the
provider's refusal is a WebctxError in its own words with its reason word as `.code`, and a read
has its own time limit (a page's text may take the provider longer than a connection's)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any, Literal

import pytest
from mcp import types

from native_host.errors import WebctxError
from native_host.host import HostClient
from native_host.protocol.resources import format_page_uri
from tests.support.host_process import WAIT_S, Host, ready_descriptor
from tests.support.page_worker import answer_read, error_reply, pages_tree, push_tree, text_result
from tests.unit.provider.conftest import spawn  # noqa: F401  (the fixture: a real native host)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")

Mode = Literal["legacy", "auto"]
OTHER = "AAAAAAAAAAAAAAAAAAAAAA"
"""An instance no provider runs (a restarted one)."""


async def started(spawn: Callable[[], Any]) -> tuple[Host, str, dict[str, Any]]:  # noqa: F811
    host: Host = await spawn()
    instance = (await host.hello())["instance"]
    descriptor = await ready_descriptor(host)
    await push_tree(host, pages_tree(instance, "tab-1", "tab-2", focused="tab-2"))
    return host, instance, descriptor


def client_for(descriptor: dict[str, Any], mode: Mode = "auto", **options: Any) -> HostClient:
    bundle = descriptor["bundleId"]
    return HostClient(mode=mode, identify=lambda process: bundle, front_pid=lambda: None, **options)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_list_and_read_a_page_through_the_host_client(
    spawn: Callable[[], Any], mode: Mode  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn)
    client = client_for(descriptor, mode)
    uri = format_page_uri(instance, "tab-2", "text")
    async with asyncio.timeout(WAIT_S):
        listed = await client.list_resources()
        read = asyncio.ensure_future(client.read_resource(uri))
        asked = await answer_read(host, text_result("# Two\n\nBody."))
        result = await read
    assert [r.uri for r in listed][:2] == [uri, format_page_uri(instance, "tab-2", "screenshot")]  # focused
    assert (asked["pageId"], asked["kind"]) == ("tab-2", "text")
    [contents] = result.contents
    assert isinstance(contents, types.TextResourceContents) and contents.text == "# Two\n\nBody."


async def test_a_page_uri_of_an_instance_no_provider_runs_is_gone_without_asking(
    spawn: Callable[[], Any],  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn)
    client = client_for(descriptor)
    with pytest.raises(WebctxError) as info:
        await client.read_resource(format_page_uri(OTHER, "tab-1", "text"))
    assert info.value.code == "gone"
    assert info.value.message.startswith("gone: ") and "ask `current` again" in info.value.message
    with pytest.raises(WebctxError) as pinned:  # its own instance, but --pid names another browser
        await client.read_resource(format_page_uri(instance, "tab-1", "text"), pid=descriptor["pid"] + 1)
    # Its provider runs: not "restarted or quit" but the --pid that is wrong, and the right one.
    assert pinned.value.code == "bad_arguments", pinned.value.message
    assert f"--pid {descriptor['pid']}" in pinned.value.message and "restarted" not in pinned.value.message
    assert host.frames.empty(), "a page.read reached the worker"


async def test_the_providers_refusal_is_its_words_with_the_reason_word_as_code(
    spawn: Callable[[], Any],  # noqa: F811
) -> None:
    host, instance, descriptor = await started(spawn)
    client = client_for(descriptor)
    read = asyncio.ensure_future(client.read_resource(format_page_uri(instance, "tab-1", "screenshot")))
    await answer_read(host, error_reply("not_capturable", "the tab is not the active tab of its window"))
    with pytest.raises(WebctxError) as info:
        await read
    assert info.value.code == "not_capturable"
    assert info.value.message.startswith("not_capturable: the tab is not the active tab of its window.")
    assert "webctx does not switch tabs" in info.value.message  # the provider's fix, kept


async def test_a_read_has_its_own_time_limit_beyond_the_connections(
    spawn: Callable[[], Any],  # noqa: F811
) -> None:
    """The SDK's `read_resource` waits only the session's limit (the client's `timeout_s`, 1 s
    here); a page's text may take the provider up to 10 s, so the read carries its own."""
    host, instance, descriptor = await started(spawn)
    client = client_for(descriptor, timeout_s=1.0)
    uri = format_page_uri(instance, "tab-1", "text")
    read = asyncio.ensure_future(client.read_resource(uri, timeout_s=10))
    frame = await host.receive()
    # The worker takes its time (Readability on a large page): longer than the client's own 1 s
    # limit is the subject, so the delay is real time.
    await asyncio.sleep(2.5)
    await host.send({"type": "result", "id": frame["id"], **text_result("late but fine")})
    async with asyncio.timeout(WAIT_S):
        result = await read
    [contents] = result.contents
    assert isinstance(contents, types.TextResourceContents) and contents.text == "late but fine"
