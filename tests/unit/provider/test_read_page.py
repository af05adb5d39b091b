"""read_page.py: the built-in tool `read_page` gives a Page's text or screenshot to clients that
cannot read MCP resources, with the same caps, refusals and activity entry as `resources/read`.

Through a real `python -m native_host` driven as the worker would (tests/support/host_process.py),
with real SDK clients over HTTP with the token, in both MCP eras."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError

from native_host.protocol.resources import TEXT_MAX_BYTES, format_page_uri
from native_host.protocol.tools import READ_PAGE_SCHEMA
from tests.support.host_process import WAIT_S, Host, log_text, mcp_client, wait_until
from tests.support.page_worker import answer_read, read_answered
from tests.unit.provider.test_page_resources import MARKDOWN, OTHER, PNG, started

Mode = Literal["legacy", "auto"]
MODES: list[Mode] = ["legacy", "auto"]
TEXT_REPLY = {"type": "result", "result": {
    "kind": "text", "markdown": MARKDOWN, "truncated": True, "bytes": 1_258_291,
    "source": "readability", "title": "Tidal locking", "url": "https://example.org/tab-2"}}


async def called(
    client: Client, host: Host, arguments: dict[str, Any], reply: dict[str, Any]
) -> tuple[types.CallToolResult, dict[str, Any]]:
    """`read_page` with `arguments`, the fake worker answering the host's `page.read` with `reply`."""
    call = asyncio.ensure_future(client.call_tool("read_page", arguments))
    frame = await answer_read(host, reply)
    return await call, frame


@pytest.mark.parametrize("mode", MODES)
async def test_read_page_gives_the_resources_text_with_its_metadata_and_the_same_activity_entry(
    spawn: Any, mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "text")
    info = types.Implementation(name="fast-agent", version="0.4.0")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode, client_info=info) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert list(listed)[:3] == ["current", "location", "read_page"]
        assert listed["read_page"].input_schema == READ_PAGE_SCHEMA
        result, frame = await called(client, host, {"id": "tab-2"}, TEXT_REPLY)
        resource, _ = await read_answered(client, host, uri, TEXT_REPLY)
    assert {k: frame[k] for k in ("pageId", "kind", "maxBytes")} == {
        "pageId": "tab-2", "kind": "text", "maxBytes": TEXT_MAX_BYTES}
    assert result.is_error is not True
    [block] = result.content
    assert isinstance(resource, types.ReadResourceResult)
    [contents] = resource.contents
    assert isinstance(block, types.TextContent) and isinstance(contents, types.TextResourceContents)
    assert block.text == contents.text  # the same Markdown, the truncation line first
    assert block.text.startswith("> webctx: truncated to the first 256 KiB")
    # The text is the whole answer: a client that prefers structuredContent (Codex) hands its model
    # that instead of the content, so the metadata rides in _meta.
    assert result.structured_content is None
    assert own_meta(result) == {
        "uri": uri, "page": "tab-2", "kind": "text", "mimeType": "text/markdown",
        "truncated": True, "bytes": 1_258_291, "source": "readability"}
    await wait_until(lambda: len(host.activity) == 2, what="two activity events")
    tool_entry, resource_entry = (event["entry"] for event in host.activity)
    assert {k: v for k, v in tool_entry.items() if k != "at"} == {
        k: v for k, v in resource_entry.items() if k != "at"}  # "read the text of …" in the popup
    assert tool_entry["client"] == {"name": "fast-agent", "version": "0.4.0"}
    assert tool_entry["elements"][1] == {"kind": "text", "id": "tab-2", "page": "tab-2"}
    assert "4711" not in json.dumps(host.activity) + log_text()


def own_meta(result: types.CallToolResult) -> dict[str, Any]:
    """The result's `_meta` without what the MCP SDK adds to every result (`io.modelcontextprotocol/…`)."""
    return {k: v for k, v in (result.meta or {}).items() if not k.startswith("io.modelcontextprotocol/")}


@pytest.mark.parametrize("mode", MODES)
async def test_read_page_by_link_gives_a_screenshot_as_an_image(spawn: Any, mode: Mode) -> None:
    host, instance, descriptor = await started(spawn)
    link = format_page_uri(instance, "tab-2", "text")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode) as client:
        reply = {"type": "result", "result": {
            "kind": "screenshot", "mimeType": "image/jpeg", "data": PNG, "width": 1600, "height": 900,
            "devicePixelRatio": 2, "scale": 0.5}}
        result, frame = await called(client, host, {"id": link, "kind": "screenshot"}, reply)
    assert {k: frame[k] for k in ("pageId", "kind")} == {"pageId": "tab-2", "kind": "screenshot"}
    [block] = result.content
    assert isinstance(block, types.ImageContent) and (block.data, block.mime_type) == (PNG, "image/jpeg")
    assert result.structured_content is None
    assert own_meta(result) == {
        "uri": format_page_uri(instance, "tab-2", "screenshot"), "page": "tab-2", "kind": "screenshot",
        "mimeType": "image/jpeg", "devicePixelRatio": 2.0, "width": 1600, "height": 900, "scale": 0.5}


@pytest.mark.parametrize("mode", MODES)
async def test_read_page_refuses_with_the_resources_words(spawn: Any, mode: Mode) -> None:
    """Switched off (the options page), not shared (an excluded site), a gone instance, a bad id:
    `isError` with the same `<reason>: <what happened> <fix>` text as `resources/read`."""
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "text")
    async with asyncio.timeout(WAIT_S * 2), mcp_client(descriptor, mode) as client:
        for code, word in (("switched_off", "switched_off: "), ("not_shared", "not_shared: ")):
            reply = {"type": "error", "error": {"code": code, "message": f"The worker says {code}"}}
            result, _ = await called(client, host, {"id": "tab-2", "kind": "text"}, reply)
            error, _ = await read_answered(client, host, uri, reply)
            assert isinstance(error, MCPError)
            assert result.is_error is True and isinstance(result.content[0], types.TextContent)
            assert result.content[0].text == error.message and error.message.startswith(word)
            assert result.structured_content == {"error": {"reason": code, "uri": uri}}
        gone = await client.call_tool("read_page", {"id": format_page_uri(OTHER, "tab-2", "text")})
        assert gone.is_error is True and isinstance(gone.content[0], types.TextContent)
        assert gone.content[0].text.startswith("gone: ")
        for bad in ({"id": "tab 2"}, {"id": "tab-2", "kind": "html"}, {}, {"id": "webctx://x/y"},
                    {"id": "tab-2", "extra": 1}):
            invalid = await client.call_tool("read_page", bad)
            assert invalid.is_error is True and isinstance(invalid.content[0], types.TextContent)
            assert invalid.content[0].text.startswith("invalid: "), bad
            assert invalid.content[0].text.endswith("."), bad
    assert host.frames.empty()  # neither the gone link nor a bad id reached the worker
