"""Depth: JSON nested deeper than MAX_JSON_DEPTH is bounded where it enters.

Page-tool results → `isError`; a page tool's `inputSchema` → dropped (`{"type": "object"}`);
pushed trees → not kept (`current` asks the browser); the browser's `current` answer and a
`location` answer → `isError` naming the limit; another profile's trees → not kept / left out;
hand-off messages Python cannot parse for depth → dropped as not JSON. The unit tests drive each
entry point; the last tests drive the real `python -m native_host` (tests/support/host_process.py)
with a real MCP client, as the browser and a desktop host would.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from mcp import types

from native_host.errors import TooDeep
from native_host.protocol.handoff import (
    FollowerTree,
    HandoffResult,
    parse_follower_message,
    parse_provider_request,
)
from native_host.protocol.native import (
    BROWSER_FRAME_ADAPTER,
    MAX_JSON_DEPTH,
    CurrentRequest,
    PageTool,
    TreePush,
    exceeds_depth,
)
from native_host.provider.builtin_tools import BuiltinTools
from native_host.provider.page_tools import TOO_DEEP_SENTENCE, map_result, mcp_tool
from native_host.provider.port.chain import RequestChain
from native_host.provider.port.correlator import numbered_ids
from native_host.provider.port.tree_cache import PushedTree, TreeCache
from native_host.provider.profiles.handoff_server import FollowerConnection
from tests.support.host_process import ROOT, WAIT_S, Host, log_text, mcp_client, ready_descriptor, wait_until
from tests.support.profiles import RecordingConnection
from tests.support.requester import FakeRequester
from tests.support.waiting import until


def nested_list(levels: int) -> Any:
    """`[[…[1]…]]`: `levels` levels of arrays."""
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


def nested_text(levels: int) -> str:
    """The JSON text of `nested_list(levels)`, built without json.dumps (which would recurse)."""
    return "[" * levels + "1" + "]" * levels


def deep_tree(elements: int) -> dict[str, Any]:
    """An Application with a chain of `elements` Group elements below it (two JSON levels each)."""
    element: dict[str, Any] = {"id": "leaf", "role": "Text"}
    for n in range(elements):
        element = {"id": f"g-{n}", "role": "Group", "children": [element]}
    return {"id": "app", "role": "Application", "children": [element]}


def deepest_real_tree() -> dict[str, Any]:
    """The deepest tree the extension builds (extension/service_worker/tree.js, pointing.js):
    Application > Window > Page > 17 frame Groups (MAX_FRAME_DEPTH 16, plus the first) > the
    focus box > its text, with `content` and `attributes`."""
    text = {
        "id": "sel-1", "role": "Text", "content": [{"type": "text", "text": "hi"}],
        "attributes": {"before": "a", "after": "b", "truncated": True, "length": 9},
    }
    element: dict[str, Any] = {"id": "box-1", "role": "TextField", "focused": True, "children": [text]}
    for n in range(17):
        element = {"id": f"frame-{n}", "role": "Group", "subrole": "frame", "url": "https://x/",
                   "children": [element]}
    page = {"id": "tab-1", "role": "Page", "url": "https://x/", "attributes": {"tools": ["p1_a"]},
            "children": [element]}
    window = {"id": "win-1", "role": "Window", "children": [page]}
    return {"id": "app", "role": "Application", "children": [window]}


def json_depth(text: str) -> int:
    """Nesting of `[`/`{` in compact JSON text without brackets inside strings (test trees only)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


# -- the helper and the limit ------------------------------------------------------------------------


def test_exceeds_depth_counts_levels_of_arrays_and_objects() -> None:
    assert not exceeds_depth(1, 0) and not exceeds_depth("[[[", 0) and not exceeds_depth(None, 0)
    assert exceeds_depth([], 0) and not exceeds_depth([], 1) and not exceeds_depth({}, 1)
    assert not exceeds_depth(nested_list(MAX_JSON_DEPTH)) and exceeds_depth(nested_list(MAX_JSON_DEPTH + 1))
    mixed = {"a": [{"b": [1, {"c": []}]}]}  # object, array, object, array, object, array: 6
    assert not exceeds_depth(mixed, 6) and exceeds_depth(mixed, 5)
    wide = {"k": [list(range(10)) for _ in range(10_000)]}  # wide, not deep
    assert not exceeds_depth(wide, 3) and exceeds_depth(wide, 2)


def test_exceeds_depth_never_recurses() -> None:
    """Far below Python's recursion limit: a 20,000-level value is measured, not crashed on."""
    assert exceeds_depth(nested_list(20_000))
    assert not exceeds_depth(nested_list(20_000), 20_000)


def test_the_limit_holds_the_real_tree_and_fits_the_sdk_serializer() -> None:
    """MAX_JSON_DEPTH (protocol/native.py) has room for the deepest real tree twice over, and a
    result at the limit, wrapped as `current` and as a page tool's `{"result": …}`, is still
    serialized by pydantic (whose limit answers a JSON-RPC error instead)."""
    real = json_depth(json.dumps(deepest_real_tree(), separators=(",", ":")))
    assert real * 2 <= MAX_JSON_DEPTH, real
    at_limit = nested_list(MAX_JSON_DEPTH)
    for structured in ({"protocol": "0.2.0", "instance": "i", "root": at_limit}, {"result": at_limit}):
        result = types.CallToolResult(content=[types.TextContent(text="x")], structured_content=structured)
        envelope = {"jsonrpc": "2.0", "id": 1, "result": result.model_dump(by_alias=True, exclude_none=True)}
        sent = types.JSONRPCResponse.model_validate(envelope).model_dump_json()
        assert json_depth(sent) < 128  # serde_json's default limit


# -- page tools ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [MAX_JSON_DEPTH + 1, 300, 50_000])
def test_a_page_tool_result_nested_too_deep_is_an_is_error(levels: int) -> None:
    """300: pydantic's serializer gave a JSON-RPC error; 50,000: `json.loads` raises RecursionError."""
    for text in (nested_text(levels), json.dumps({"content": [], "structuredContent": {"x": "y"}})[:-1]
                 + ', "deep": ' + nested_text(levels) + "}"):
        result = map_result(text)
        assert result.is_error is True
        assert result.content == [types.TextContent(text=TOO_DEEP_SENTENCE)]
        assert str(MAX_JSON_DEPTH) in TOO_DEEP_SENTENCE
        result.model_dump_json()  # what the SDK does with it


def test_a_page_tool_result_at_the_limit_passes() -> None:
    text = nested_text(MAX_JSON_DEPTH)
    result = map_result(text)
    assert result.is_error is False and result.structured_content == {"result": nested_list(MAX_JSON_DEPTH)}


def test_a_too_deep_input_schema_is_dropped_as_it_enters() -> None:
    deep = {"type": "object", "properties": {"a": nested_list(300)}}
    frame = {
        "type": "tools.changed",
        "tools": [{"name": "p1_add", "toolName": "add", "pageId": "tab-1", "inputSchema": deep}],
    }
    changed = BROWSER_FRAME_ADAPTER.validate_python(frame)
    [tool] = changed.tools  # type: ignore[union-attr]
    assert tool.input_schema is None
    changed.to_wire()  # serving.py passes it on to the provider this way: no serialization error
    assert mcp_tool(tool).input_schema == {"type": "object"}
    fine = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}
    assert PageTool.model_validate({**frame["tools"][0], "inputSchema": fine}).input_schema == fine


# -- trees ---------------------------------------------------------------------------------------------


class Browser(FakeRequester):
    """The worker behind the bridge: answers `current` with `answer`."""

    def __init__(self, answer: Any) -> None:
        super().__init__({"current": answer})


def push(cache: TreeCache, root: dict[str, Any]) -> None:
    frame = {"type": "tree", "complete": True, "root": root}
    parsed = BROWSER_FRAME_ADAPTER.validate_python(frame)
    assert isinstance(parsed, TreePush)
    cache.update(parsed, frame)


async def test_a_pushed_tree_too_deep_is_not_kept_and_current_asks_the_browser() -> None:
    pulled = {"root": ROOT, "windowFocused": False}
    browser, cache = Browser(pulled), TreeCache()
    requester = RequestChain([PushedTree(cache)], terminal=browser)
    push(cache, ROOT)
    push(cache, deep_tree(240))  # replaces the good tree: the old one is no longer the browser's
    assert cache.reply() is None
    assert await requester.request(CurrentRequest(), deadline_ms=100) == pulled
    assert browser.request_types() == ["current"]
    push(cache, deep_tree(MAX_JSON_DEPTH // 2 - 2))  # just under the limit: kept
    assert cache.reply() is not None


async def test_the_browsers_own_current_answer_too_deep_is_an_is_error_naming_the_limit() -> None:
    requester = RequestChain([PushedTree(TreeCache())], terminal=Browser({"root": deep_tree(240)}))
    with pytest.raises(TooDeep):
        await requester.request(CurrentRequest(), deadline_ms=100)
    tools = BuiltinTools(requester, instance="i")
    result = await tools.run_current({})
    assert result.is_error is True
    assert f"deeper than {MAX_JSON_DEPTH} levels" in result.content[0].text  # type: ignore[union-attr]


async def test_a_location_answer_too_deep_is_an_is_error() -> None:
    reply = {"location": {"state": "visible", "rects": [], "extra": nested_list(300)}}
    tools = BuiltinTools(FakeRequester({"location": reply}), instance="i")
    result = await tools.run_location({"id": "sel-1"})
    assert result.is_error is True and str(MAX_JSON_DEPTH) in result.content[0].text  # type: ignore[union-attr]


# -- another profile's host (the hand-off) ---------------------------------------------------------------


def test_a_followers_pushed_tree_too_deep_is_not_kept() -> None:
    follower = FollowerConnection(1, None, lambda: "p-1")  # type: ignore[arg-type]
    follower.set_tree(FollowerTree(complete=True, root=ROOT))
    assert follower.cached_windows() is not None
    follower.set_tree(FollowerTree(complete=True, root=deep_tree(240)))
    assert follower.cached_windows() is None  # `current` asks it instead


async def test_a_followers_current_answer_too_deep_is_refused() -> None:
    connection = RecordingConnection()
    follower = FollowerConnection(1, connection, numbered_ids("p-"))  # type: ignore[arg-type]
    task = asyncio.create_task(follower.current(2000))
    await until(lambda: connection.sent, interval_s=0, message="the request sent")
    request_id = json.loads(connection.sent[-1])["id"]
    follower.on_reply(HandoffResult(id=request_id, result={"root": deep_tree(240)}))
    with pytest.raises(TooDeep):  # HandoffServer.follower_windows leaves this follower out
        await task


def test_hand_off_messages_too_deep_for_json_loads_are_not_json() -> None:
    deep = '{"type": "tree", "complete": true, "root": ' + nested_text(50_000) + "}"
    with pytest.raises(ValueError):
        parse_follower_message(deep)
    with pytest.raises(ValueError):
        parse_provider_request('{"type": "current", "id": "p-1", "x": ' + nested_text(50_000) + "}")


# -- the real host process ---------------------------------------------------------------------------


posix_only = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")

PAGE_TOOL = {"name": "p1_deep", "toolName": "deep", "pageId": "tab-1", "pageTitle": "Deep", "origin": "https://x"}


@posix_only
async def test_a_page_tool_result_300_deep_is_an_is_error_through_the_host(spawn: Callable[[], Any]) -> None:
    """Before: the SDK answered a JSON-RPC error (code 0, "Maximum serialization depth exceeded");
    50,000 levels: `json.loads` raised RecursionError."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await host.send({"type": "tools.changed", "tools": [PAGE_TOOL]})

    async def page(text: str) -> None:
        request = await host.receive()
        assert request["type"] == "tools.call" and request["name"] == "deep"
        await host.send({"type": "result", "id": request["id"], "result": {"ok": True, "text": text}})

    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, "auto") as client:
        await wait_until(lambda: "page tools: 1 exposed" in log_text(), what="the page tool")
        for levels in (300, 50_000, MAX_JSON_DEPTH):
            answering = asyncio.create_task(page(nested_text(levels)))
            result = await client.call_tool("p1_deep", {})
            await answering
            if levels == MAX_JSON_DEPTH:
                assert result.is_error is False
            else:
                assert result.is_error is True
                assert result.content == [types.TextContent(text=TOO_DEEP_SENTENCE)]
    assert host.process.returncode is None


@posix_only
async def test_a_page_tools_input_schema_300_deep_leaves_the_host_serving(spawn: Callable[[], Any]) -> None:
    """Before: `tools.changed` with it ended the host's reading of the native port ("read-port
    failed unexpectedly": pydantic could not serialize the schema), so the host stopped."""
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    deep_schema = {"type": "object", "properties": {"a": nested_list(300)}}
    await host.send({"type": "tools.changed", "tools": [{**PAGE_TOOL, "inputSchema": deep_schema}]})
    await host.send({"type": "tree", "complete": True, "root": {"id": "bad id!"}})  # a marker behind it
    await wait_until(lambda: "dropped a tree frame of the wrong shape" in log_text(), what="the frames read")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, "auto") as client:
        listed = await client.list_tools()
        [tool] = [tool for tool in listed.tools if tool.name == "p1_deep"]
        assert tool.input_schema == {"type": "object"}
        assert (await client.call_tool("current", {})).is_error is False
    assert host.process.returncode is None


@posix_only
async def test_a_pushed_tree_240_deep_leaves_current_answering_from_the_browser(
    spawn: Callable[[], Any],
) -> None:
    """Before: the deep tree was cached and every `current` failed with a JSON-RPC error until
    the next push."""
    host: Host = await spawn()
    result = await host.hello()
    descriptor = await ready_descriptor(host)
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, "auto") as client:
        await host.send({"type": "tree", "complete": True, "root": deep_tree(240), "windowFocused": True})
        await host.send({"type": "tree", "complete": True, "root": {"id": "bad id!"}})  # a marker behind it
        marker = "dropped a tree frame of the wrong shape"
        await wait_until(lambda: marker in log_text(), what="the frames read")
        for _ in range(2):
            answer = await client.call_tool("current", {})
            assert answer.is_error is False
            expected = {"protocol": "0.2.0", "instance": result["instance"], "root": ROOT}
            assert answer.structured_content == expected
        assert host.current_requests == 2  # asked the browser each time
