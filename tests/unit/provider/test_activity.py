"""Who read it: the provider records each MCP read with the client's declared
name, in both MCP eras, keeps the last 50 in memory, never content; it tells the worker with an
`activity` event and serves the list as the unlisted resource `webctx://activity`.

The process tests drive a real `python -m native_host` (tests/support/host_process.py) with real
SDK clients over HTTP with the token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, Literal

import pytest
from mcp import types

from native_host.host.session import ProviderSession
from native_host.protocol.client_info import ClientName, client_of
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.tools import ACTIVITY_RESOURCE_URI
from native_host.provider.activity import MAX_ENTRIES, ActivityLog, current_elements
from tests.support.host_process import WAIT_S, Host, log_text, mcp_client, ready_descriptor, wait_until

SECRET = "the user's private selection 4711"
FIELD_SECRET = "half-typed message 0815"
TREE = {
    "id": "app",
    "role": "Application",
    "title": "Chromium",
    "children": [
        {
            "id": "win-1",
            "role": "Window",
            "focused": True,
            "children": [
                {
                    "id": "tab-1",
                    "role": "Page",
                    "subrole": "tab",
                    "title": "Tidal locking - Wikipedia",
                    "url": "https://en.wikipedia.org/wiki/Tidal_locking?secret=1",
                    "focused": True,
                    "children": [
                        {"id": "sel-1", "role": "Text", "selected": True,
                         "content": [{"type": "text", "text": SECRET}],
                         "attributes": {"before": "before " + SECRET}},
                        {"id": "field-1", "role": "Group", "subrole": "textbox", "focused": True,
                         "content": [{"type": "text", "text": FIELD_SECRET}]},
                    ],
                },
                {"id": "tab-2", "role": "Page", "subrole": "tab", "title": "Hidden tab", "visible": False},
            ],
        }
    ],
}


# -- the record, without a process --------------------------------------------------------------


def test_current_elements_names_pages_and_parts_never_content() -> None:
    elements = current_elements(TREE)
    assert elements == [
        {"kind": "page", "id": "tab-1", "page": "tab-1", "title": "Tidal locking - Wikipedia"},
        {"kind": "selection", "id": "sel-1", "page": "tab-1"},
        {"kind": "field", "id": "field-1", "page": "tab-1"},
    ]


def test_the_log_keeps_the_last_50_newest_first_and_no_content() -> None:
    heard: list[Any] = []
    log = ActivityLog(heard.append, clock=lambda: 1000.0)
    for n in range(MAX_ENTRIES + 7):
        log.record_call(ClientName(f"client {n}"), "current", {}, False, {"root": TREE}, None)
    entries = log.to_wire()["entries"]
    assert len(entries) == MAX_ENTRIES == 50
    assert entries[0]["client"] == {"name": f"client {MAX_ENTRIES + 6}"}
    assert entries[-1]["client"] == {"name": "client 7"}
    assert len(heard) == MAX_ENTRIES + 7
    text = json.dumps(log.to_wire())
    assert SECRET not in text and FIELD_SECRET not in text and "secret=1" not in text


def test_location_and_page_tool_entries_keep_only_ids_and_titles() -> None:
    log = ActivityLog()
    log.record_call(ClientName(), "location", {"id": "sel-1"}, False, {"state": "ok", "x": 1}, None)
    page = {"kind": "page", "id": "tab-3", "page": "tab-3", "title": "Shop"}
    log.record_call(ClientName("c"), "p3_buy", {"card": "4111 1111"}, True, {"secret": SECRET}, page)
    newest, oldest = log.to_wire()["entries"]
    assert oldest["client"] == {"name": "unknown client"}
    assert oldest["elements"] == [{"kind": "element", "id": "sel-1"}]
    assert newest == {"at": newest["at"], "client": {"name": "c"}, "tool": "p3_buy", "ok": False,
                      "elements": [page]}
    assert "4111" not in json.dumps(log.to_wire())


def test_client_of_reads_the_session_then_the_request_meta_else_unknown() -> None:
    info = types.Implementation(name="Claude Code", version="2.1.0")
    handshake = SimpleNamespace(session=SimpleNamespace(client_params=SimpleNamespace(client_info=info)))
    assert client_of(handshake) == ClientName("Claude Code", "2.1.0")
    modern = SimpleNamespace(
        session=SimpleNamespace(client_params=None),
        meta={"io.modelcontextprotocol/clientInfo": {"name": "Cursor", "version": "3"}},
    )
    assert client_of(modern) == ClientName("Cursor", "3")
    assert client_of(SimpleNamespace(session=SimpleNamespace(client_params=None), meta=None)) == ClientName()
    assert client_of(object()) == ClientName("unknown client", None)
    long = SimpleNamespace(meta={"io.modelcontextprotocol/clientInfo": {"name": "x" * 500, "version": 7}})
    assert client_of(long) == ClientName("x" * 63 + "…", None)


# -- through a real host process ------------------------------------------------------------------


async def _activity(descriptor: dict[str, Any]) -> list[dict[str, Any]]:
    """`webctx activity`'s read (host/session.py ProviderSession.activity), on a fresh session."""
    async with mcp_client(descriptor, "auto") as client:
        session = ProviderSession(client, Descriptor.model_validate(descriptor), 10.0, None)
        return await session.activity()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_read_is_recorded_with_the_declared_client_name_in_both_eras(
    spawn: Callable[[], Any], mode: Literal["legacy", "auto"]
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await host.send({"type": "tree", "complete": True, "root": TREE, "windowFocused": True})
    info = types.Implementation(name="Claude Code", version="2.1.0")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode, client_info=info) as client:
        answer = await client.call_tool("current", {})
        assert answer.structured_content is not None and answer.structured_content["root"] == TREE
        await wait_until(lambda: len(host.activity) == 1, what="the activity event")
        located = await client.call_tool("location", {"id": "sel-1"})  # the Host answers nothing: isError
        assert located.is_error
        await wait_until(lambda: len(host.activity) == 2, what="the second activity event")
        # The resource is no tool: clients' tool lists stay as they were.
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert names == ["current", "location", "read_page"]
        assert (await client.list_resources()).resources == []  # unlisted: read by its URI only
    event = host.activity[0]
    assert event["type"] == "activity"
    entry = event["entry"]
    assert entry["client"] == {"name": "Claude Code", "version": "2.1.0"}
    assert entry["tool"] == "current" and entry["ok"] is True
    assert {"kind": "selection", "id": "sel-1", "page": "tab-1"} in entry["elements"]
    listed = await _activity(descriptor)
    assert [e["tool"] for e in listed] == ["location", "current"]
    assert listed[1] == entry
    assert listed[0]["client"]["name"] == "Claude Code" and listed[0]["ok"] is False
    everything = json.dumps(host.activity) + json.dumps(listed) + log_text()
    assert SECRET not in everything and FIELD_SECRET not in everything


async def test_the_resource_keeps_the_last_50_and_needs_the_token(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await host.send({"type": "tree", "complete": True, "root": TREE, "windowFocused": True})
    async with asyncio.timeout(WAIT_S * 2), mcp_client(descriptor, "auto") as client:
        for _ in range(MAX_ENTRIES + 5):
            await client.call_tool("current", {})
    listed = await _activity(descriptor)
    assert len(listed) == MAX_ENTRIES
    assert {entry["client"]["name"] for entry in listed} == {"mcp"}  # the SDK's default clientInfo
    with pytest.raises(Exception):  # noqa: B017 (the SDK wraps the 401 in its task group)
        async with asyncio.timeout(WAIT_S), mcp_client({**descriptor, "token": "wrong"}, "auto") as client:
            await client.read_resource(ACTIVITY_RESOURCE_URI)


def test_a_bridge_names_the_client_it_calls_for_and_stays_visible_as_via() -> None:
    ctx = SimpleNamespace(
        session=SimpleNamespace(
            client_params=SimpleNamespace(client_info=types.Implementation(name="webctx mcp", version="0.1"))
        ),
        meta={"dev.context-providers/onBehalfOf": {"name": "Claude Desktop", "version": "1.2"}},
    )
    assert client_of(ctx) == ClientName("Claude Desktop", "1.2", via="webctx mcp")
    assert client_of(ctx).to_wire() == {"name": "Claude Desktop", "version": "1.2", "via": "webctx mcp"}


def test_webctx_activity_says_it_in_the_popups_words() -> None:
    from native_host.cli.activity import describe_read

    entry = {"at": 0, "client": {"name": "Claude Code", "version": "2.1.0"}, "tool": "current", "ok": True,
             "elements": current_elements(TREE)}
    said = "Claude Code 2.1.0 read the selection in 'Tidal locking - Wikipedia' 2 min ago"
    assert describe_read(entry, 125_000) == said
    bridged = {**entry, "client": {"name": "Claude Desktop", "via": "webctx mcp"}}
    bridged |= {"tool": "p1_buy", "ok": False}
    assert describe_read(bridged, 0) == (
        "Claude Desktop (via webctx mcp) called the page tool p1_buy in 'Tidal locking - Wikipedia' "
        "(it failed) just now"
    )
    # A page resource read (provider/page_resources.py _record) is a read, not a page-tool call.
    page = {"kind": "page", "id": "tab-2", "page": "tab-2", "title": "Tidal locking"}
    text = {"kind": "text", "id": "tab-2", "page": "tab-2"}
    read = {**entry, "tool": "resources/read", "elements": [page, text]}
    assert describe_read(read, 0) == "Claude Code 2.1.0 read the text of 'Tidal locking' just now"
    read["elements"] = [page, {"kind": "screenshot", "id": "tab-2", "page": "tab-2"}]
    assert describe_read(read, 0) == "Claude Code 2.1.0 read a screenshot of 'Tidal locking' just now"
