"""Other profiles' page tools and `location` through the provider (follower_tools.py, handoff.py,
follower_link.py): naming, merging, routing, cancellation, a follower going away."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from native_host.errors import ExtensionError
from native_host.protocol.native import PAGE_TOOL_NAME_PATTERN, LocationRequest
from native_host.provider.profiles import follower_link
from native_host.provider.profiles.follower_tools import (
    FOLLOWER_GONE_SENTENCE,
    FollowerTools,
    follower_name,
    short_hash,
)
from native_host.provider.profiles.handoff import ProfileHandoff
from native_host.provider.profiles.merge import prefix_ids
from tests.support.profiles import served
from tests.support.requester import FakeRequester, SentRequest
from tests.support.waiting import until


def page_tool(name: str = "p7_add", tool_name: str = "add", page_id: str = "tab-7") -> dict[str, Any]:
    """A `tools.changed` entry in wire shape."""
    return {
        "name": name,
        "toolName": tool_name,
        "pageId": page_id,
        "description": "Adds two numbers.",
        "pageTitle": "Calculator",
        "origin": "http://127.0.0.1",
        "url": "http://127.0.0.1/calc.html",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
    }


class FakeExtension(FakeRequester):
    """One profile's extension: answers `current`, `location`, `tools.call` (waits for `release`
    when the input says `wait`), `tools.cancel`; records every request."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.cancelled: list[str] = []

    async def answer(self, sent: SentRequest) -> Any:
        type_, body = sent.type, sent.body
        if type_ == "current":
            return {"root": {"id": "app", "role": "Application", "children": []}, "windowFocused": False}
        if type_ == "location":
            if body["elementId"] != "sel-1":
                raise ExtensionError("unknown", code="unknown_id")
            return {"location": {"state": "visible", "rects": [{"x": 10, "y": 20, "w": 30, "h": 12}]}}
        if type_ == "tools.cancel":
            self.cancelled.append(body["callId"])
            self.release.set()
            return {"cancelled": True}
        assert type_ == "tools.call"
        if body["pageId"] != "tab-7":
            raise ExtensionError("gone", code="page_gone")
        if body["input"].get("mib"):
            return {"ok": True, "text": "é" * (body["input"]["mib"] << 19)}  # mib MiB of UTF-8
        if body["input"].get("wait"):
            await self.release.wait()
            return {"ok": False, "error": "AbortError: cancelled"}
        return {"ok": True, "text": json.dumps({"sum": body["input"]["a"] + 1})}


class Pair:
    """A provider and a follower host's hand-offs over a real loopback WebSocket."""

    def __init__(self, provider: ProfileHandoff, follower: ProfileHandoff, tools: FollowerTools,
                 own: FakeExtension, other: FakeExtension, changes: list[float]) -> None:
        self.provider, self.follower, self.tools = provider, follower, tools
        self.own, self.other, self.changes = own, other, changes
        self.ports: list[int] = []


@asynccontextmanager
async def pair(tmp_path: Path, *, deadline_ms: int = 5000) -> AsyncIterator[Pair]:
    changes: list[float] = []

    async def changed() -> None:
        changes.append(asyncio.get_running_loop().time())

    tools = FollowerTools(deadline_ms=deadline_ms, on_change=changed)
    own, other = FakeExtension(), FakeExtension()
    provider = ProfileHandoff(own, instance="A", tools=tools)
    ports: list[int] = []
    follower = ProfileHandoff(other, instance="B", tools=FollowerTools(), on_provider=ports.append)
    descriptor = tmp_path / "org.chromium.Chromium-1.json"
    url = await provider.start("token-A")
    await follower.start("token-B")
    descriptor.write_text(json.dumps({
        "instance": "A", "token": "token-A", "handoff": url, "endpoint": "http://127.0.0.1:4321/mcp/x",
    }))
    provider.on_role_change("provider")
    follower.set_page_tools([page_tool()])
    follower.on_role_change("standby", descriptor)
    result = Pair(provider, follower, tools, own, other, changes)
    result.ports = ports
    try:
        await until(lambda: bool(tools.tools()), message="the follower's tools reach the provider")
        yield result
    finally:
        await follower.stop()
        await provider.stop()


def called(extension: FakeExtension) -> bool:
    return any(r[0] == "tools.call" for r in extension.requests)


def text(result: types.CallToolResult | None) -> str:
    assert result is not None
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


# -- naming ----------------------------------------------------------------------------------------


def test_a_follower_page_number_is_n_f_k_so_names_never_meet_the_providers_own() -> None:
    assert follower_name(2, "p17_add") == "p17f2_add"
    assert follower_name(12, "p17_add") != follower_name(1, "p217_add")  # p17f12_ vs p217f1_
    long = follower_name(3, "p9_" + "x" * 45)
    assert len(long) == 48 and PAGE_TOOL_NAME_PATTERN.fullmatch(long)
    assert long.startswith("p9f3_") and long.endswith("_" + short_hash("3\0p9_" + "x" * 45))
    assert follower_name(3, "p9_" + "x" * 45) == long, "stable"


def test_short_hash_is_the_extensions() -> None:
    # values from extension/service_worker/tool_names.js shortHash
    assert short_hash("abc") == "7aigaz"
    assert short_hash("é☃") == "pqoo1x"


def test_names_are_remembered_and_unique_even_when_hashes_would_meet() -> None:
    tools = FollowerTools()
    first = tools.exposed_name(1, "p1_" + "a" * 60)
    assert tools.exposed_name(1, "p1_" + "a" * 60) == first
    # force a clash: a name already taken gets a salted hash
    tools._taken.add(follower_name(1, "p1_" + "b" * 60))
    other = tools.exposed_name(1, "p1_" + "b" * 60)
    assert other != follower_name(1, "p1_" + "b" * 60) and len(other) <= 48


# -- routing over a real WebSocket -----------------------------------------------------------------


async def test_a_followers_tools_are_listed_prefixed_and_calls_reach_its_page(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        [tool] = p.tools.tools()
        assert tool.name == "p7f1_add"
        assert tool.meta is not None and tool.meta["pageId"] == "f1-tab-7"
        assert p.ports == [4321], "the standby host's popup hears the provider's port"
        result = await p.tools.call("p7f1_add", {"a": 41})
        assert result is not None and not result.is_error and result.structured_content == {"sum": 42}
        type_, body = p.other.requests[-1][:2]
        assert (type_, body["pageId"], body["name"]) == ("tools.call", "tab-7", "add")
        assert not [r for r in p.own.requests if r[0] == "tools.call"], "never the provider's own page"
        # input validation happens on the provider, as for its own tools
        bad = await p.tools.call("p7f1_add", {"a": "x"})
        assert bad is not None and bad.is_error and "field `a`" in text(bad)
        assert await p.tools.call("p7_add", {"a": 1}) is None, "not a follower tool"


def test_the_merged_tree_lists_a_follower_pages_tools_by_the_providers_names() -> None:
    page = {"id": "tab-7", "role": "Page", "attributes": {"tools": ["p7_add", "p7_gone"]}}
    copy = prefix_ids({"id": "w-1", "role": "Window", "children": [page]}, "f1-", {"p7_add": "p7f1_add"})
    assert copy["children"][0] == {"id": "f1-tab-7", "role": "Page", "attributes": {"tools": ["p7f1_add"]}}


async def test_large_results_pass_and_too_large_ones_are_a_clean_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with pair(tmp_path) as p:
        big = await p.tools.call("p7f1_add", {"a": 1, "mib": 20})  # over the old 16 MiB limit
        assert big is not None and not big.is_error and len(text(big)) == 20 << 19
        monkeypatch.setattr(follower_link, "MAX_MESSAGE_BYTES", 1 << 20)
        refused = await p.tools.call("p7f1_add", {"a": 1, "mib": 2})
        assert refused is not None and refused.is_error and "result_too_large" in text(refused)
        ok = await p.tools.call("p7f1_add", {"a": 1})
        assert ok is not None and not ok.is_error, "the link is still up"


async def test_page_gone_in_a_follower_is_the_same_page_gone(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        p.follower.set_page_tools([page_tool("p8_add", page_id="tab-8")])
        await until(lambda: p.tools.get("p8f1_add") is not None, message="the new list")
        assert p.tools.get("p7f1_add") is None
        result = await p.tools.call("p8f1_add", {"a": 1})
        assert result is not None and result.is_error and text(result).startswith("Page gone")


async def test_a_client_cancelling_aborts_the_call_in_the_followers_page(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        call = asyncio.create_task(p.tools.call("p7f1_add", {"a": 1, "wait": True}))
        await until(lambda: called(p.other), message="the call reaches the follower")
        own_call_id = next(r[2] for r in p.other.requests if r[0] == "tools.call")
        call.cancel()
        await until(lambda: p.other.cancelled == [own_call_id], message="tools.cancel with its own call id")


async def test_the_deadline_cancels_the_followers_call_and_answers_is_error(tmp_path: Path) -> None:
    async with pair(tmp_path, deadline_ms=300) as p:
        result = await p.tools.call("p7f1_add", {"a": 1, "wait": True})
        assert result is not None and result.is_error and "did not answer within 0.3 s" in text(result)
        await until(lambda: len(p.other.cancelled) == 1, message="tools.cancel after the deadline")


async def test_a_follower_going_away_removes_its_tools_and_ends_its_calls(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        call = asyncio.create_task(p.tools.call("p7f1_add", {"a": 1, "wait": True}))
        await until(lambda: called(p.other), message="the call reaches the follower")
        before = len(p.changes)
        gone_at = asyncio.get_running_loop().time()
        await p.follower.stop()
        result = await asyncio.wait_for(call, 5)
        assert result is not None and result.is_error and text(result) == FOLLOWER_GONE_SENTENCE
        await until(lambda: not p.tools.tools(), message="the tools leave the list")
        assert len(p.changes) > before and p.changes[-1] - gone_at < 0.1
        # the follower aborted the page's call when its link closed
        await until(lambda: len(p.other.cancelled) == 1, message="the follower cancels its page's call")


async def test_location_of_a_follower_id_goes_to_that_follower_and_a_gone_one_is_gone(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        reply = await served(p.provider).request(LocationRequest(element_id="f1-sel-1"), deadline_ms=2000)
        assert reply["location"]["state"] == "visible"
        assert ("location", {"elementId": "sel-1"}) in [r[:2] for r in p.other.requests]
        gone = await served(p.provider).request(LocationRequest(element_id="f9-sel-1"), deadline_ms=2000)
        assert gone["location"]["state"] == "gone"
        try:
            await served(p.provider).request(LocationRequest(element_id="f1-sel-2"), deadline_ms=2000)
        except ExtensionError as exc:
            assert exc.code == "unknown_id"
        else:
            raise AssertionError("the follower's unknown_id comes back")
        # the provider's own ids still go to its own extension
        await served(p.provider).request(LocationRequest(element_id="sel-1"), deadline_ms=2000)
        assert p.own.requests[-1][:2] == ("location", {"elementId": "sel-1"})


async def test_a_follower_that_reconnects_keeps_its_number_and_names(tmp_path: Path) -> None:
    async with pair(tmp_path) as p:
        [connection] = [f.connection for f in p.provider.server.followers.values()]
        await connection.close()
        await until(lambda: not p.tools.tools(), message="the tools leave with the connection")
        await until(lambda: bool(p.tools.tools()), message="the follower reconnects")
        assert [t.name for t in p.tools.tools()] == ["p7f1_add"]
