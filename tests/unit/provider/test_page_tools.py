"""page_tools.py: result mapping, input checks, the tools/list entry, calls with a fake bridge
(design.md §5)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import types

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.native import PageTool
from native_host.provider.page_schemas import check_input
from native_host.provider.page_tools import META_UNTRUSTED, PageToolTable, map_result, mcp_tool
from tests.support.requester import HANG, FakeRequester
from tests.support.waiting import until


def text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def page_tool(**overrides: Any) -> PageTool:
    fields: dict[str, Any] = {
        "name": "p1_order",
        "toolName": "order",
        "pageId": "tab-1",
        "description": "Order an item.",
        "pageTitle": "Shop",
        "origin": "https://shop.example",
        "url": "https://shop.example/cart",
        "inputSchema": {
            "type": "object",
            "properties": {"item": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
            "required": ["item", "qty"],
        },
        "annotations": {"readOnlyHint": True},
    }
    fields.update(overrides)
    return PageTool.model_validate(fields)


# ---- result mapping ------------------------------------------------------------------------------


def test_an_mcp_shaped_result_passes_through() -> None:
    result = map_result(
        '{"content":[{"type":"text","text":"hi"}],"isError":true,"structuredContent":{"a":1}}'
    )
    assert result.is_error is True and text(result) == "hi" and result.structured_content == {"a": 1}


def test_a_json_object_becomes_structured_content_and_a_text_block() -> None:
    result = map_result('{"a":1}')
    assert result.structured_content == {"a": 1} and text(result) == '{"a":1}' and not result.is_error


def test_other_json_values_are_wrapped_and_plain_text_stays_text() -> None:
    assert map_result("42").structured_content == {"result": 42}
    assert map_result("[1,2]").structured_content == {"result": [1, 2]}
    plain = map_result("hello there")
    assert text(plain) == "hello there" and plain.structured_content is None
    assert text(map_result('"quoted"')) == "quoted"


def test_a_content_array_that_is_not_mcp_content_is_sent_as_json() -> None:
    result = map_result('{"content":[{"kind":"odd"}]}')
    assert result.structured_content == {"content": [{"kind": "odd"}]}


def test_no_result_means_the_page_navigated() -> None:
    assert "navigated" in text(map_result(None))


# ---- input checks --------------------------------------------------------------------------------


def test_input_checks_name_the_field() -> None:
    schema = page_tool().input_schema
    assert check_input(schema, {"item": "tea", "qty": 2}) is None
    missing = check_input(schema, {"item": "tea"})
    assert missing is not None and "qty" in missing
    wrong = check_input(schema, {"item": "tea", "qty": "2"})
    assert wrong is not None and "`qty`" in wrong


def test_a_broken_schema_never_blocks_the_tool() -> None:
    assert check_input({"type": "object", "properties": {"a": {"type": 5}}}, {"a": 1}) is None
    assert check_input(None, {"anything": True}) is None


# ---- tools/list entry ----------------------------------------------------------------------------


def test_the_tool_entry_names_the_page_and_marks_it_untrusted() -> None:
    tool = mcp_tool(page_tool())
    assert tool.name == "p1_order"
    assert tool.description is not None and tool.description.startswith(
        "[Page tool of “Shop” (https://shop.example)"
    )
    assert tool.meta == {
        "pageId": "tab-1",
        "toolName": "order",
        "origin": "https://shop.example",
        "url": "https://shop.example/cart",
        META_UNTRUSTED: True,
    }
    assert tool.annotations is not None and tool.annotations.read_only_hint is True


def test_a_cross_origin_frames_tool_names_the_frame() -> None:
    """A tool of a cross-origin iframe (allow="tools", exposedTo the page): `_meta.frameOrigin`
    and the description say where it runs; `origin`/`url` stay the page's."""
    tool = mcp_tool(page_tool(frameOrigin="https://widget.example", frameUrl="https://widget.example/w"))
    assert tool.meta is not None and tool.meta["frameOrigin"] == "https://widget.example"
    assert tool.meta["frameUrl"] == "https://widget.example/w"
    assert tool.meta["origin"] == "https://shop.example"
    assert tool.description is not None and tool.description.startswith(
        "[Page tool of “Shop” (https://shop.example), from its embedded frame https://widget.example;"
    )


def test_a_non_object_schema_is_replaced() -> None:
    assert mcp_tool(page_tool(inputSchema={"type": "string"})).input_schema == {"type": "object"}
    assert mcp_tool(page_tool(inputSchema=None)).input_schema == {"type": "object"}


# ---- calls ---------------------------------------------------------------------------------------


@pytest.fixture
async def table() -> PageToolTable:
    changes: list[int] = []

    async def on_change() -> None:
        changes.append(1)

    t = PageToolTable(FakeRequester(default={"cancelled": True}), 1000, on_change=on_change)
    assert await t.update([page_tool()]) is True
    assert await t.update([page_tool()]) is False
    assert changes == [1]
    return t


def fake(table: PageToolTable) -> FakeRequester:
    assert isinstance(table.requester, FakeRequester)
    return table.requester


async def test_a_call_sends_the_original_name_and_maps_the_reply(table: PageToolTable) -> None:
    fake(table).answers["tools.call"] = {"ok": True, "text": '{"done":true}'}
    result = await table.call("p1_order", {"item": "tea", "qty": 1})
    assert result is not None and result.structured_content == {"done": True}
    assert fake(table).requests[0][:3] == (
        "tools.call",
        {
            "pageId": "tab-1",
            "name": "order",
            "input": {"item": "tea", "qty": 1},
            "deadlineMs": table.deadline_ms,  # the confirmation prompt gives up before it
        },
        "h-1",
    )
    assert await table.call("p9_unknown", {}) is None


async def test_a_schema_is_compiled_once_and_kept_across_updates(
    table: PageToolTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The validator is built on the first call and reused while the schema stays the same (a tab
    switch resends every tool); a changed schema is compiled again."""
    from native_host.provider import page_tools

    compiled: list[object] = []
    real = page_tools.compile_schema

    def counting(schema: Any) -> Any:
        compiled.append(schema)
        return real(schema)

    monkeypatch.setattr(page_tools, "compile_schema", counting)
    fake(table).answers["tools.call"] = {"ok": True, "text": "1"}
    for _ in range(3):
        await table.call("p1_order", {"item": "tea", "qty": 1})
    assert len(compiled) == 1
    assert await table.update([page_tool(), page_tool(name="p2_other", pageId="tab-2")]) is True
    await table.call("p1_order", {"item": "tea", "qty": 1})
    assert len(compiled) == 1
    await table.update([page_tool(inputSchema={"type": "object", "required": ["item"]})])
    result = await table.call("p1_order", {"qty": 1})
    assert len(compiled) == 2 and result is not None and result.is_error and "item" in text(result)


async def test_invalid_input_never_reaches_the_page(table: PageToolTable) -> None:
    result = await table.call("p1_order", {"item": "tea"})
    assert result is not None and result.is_error and "qty" in text(result)
    assert fake(table).requests == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"ok": False, "error": "boom happened"}, "boom happened"),
        (ExtensionError("gone", code="page_gone"), "Page gone"),
        (ProviderUnavailable("closed"), "no longer connected"),
        ({"shape": "wrong"}, "wrong shape"),
    ],
)
async def test_failures_are_error_results(table: PageToolTable, answer: Any, expected: str) -> None:
    fake(table).answers["tools.call"] = answer
    result = await table.call("p1_order", {"item": "tea", "qty": 1})
    assert result is not None and result.is_error is True and expected in text(result)


async def test_the_deadline_gives_an_error_and_cancels_in_the_page(table: PageToolTable) -> None:
    fake(table).answers["tools.call"] = DeadlineExceeded("late")
    result = await table.call("p1_order", {"item": "tea", "qty": 1})
    assert result is not None and result.is_error and "did not answer" in text(result)
    await until(lambda: len(fake(table).requests) >= 2, timeout_s=1, interval_s=0, message="tools.cancel")
    assert fake(table).requests[1][:3] == ("tools.cancel", {"callId": "h-1"}, None)


async def test_a_cancelled_call_cancels_in_the_page(table: PageToolTable) -> None:
    fake(table).answers["tools.call"] = HANG
    task = asyncio.create_task(table.call("p1_order", {"item": "tea", "qty": 1}))
    await until(lambda: fake(table).requests, timeout_s=1, interval_s=0, message="tools.call")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: len(fake(table).requests) >= 2, timeout_s=1, interval_s=0, message="tools.cancel")
    assert fake(table).requests[1][:2] == ("tools.cancel", {"callId": "h-1"})


@pytest.mark.parametrize(
    ("value", "expected"), [("2500", 2500), ("", 60_000), ("0", 60_000), ("-5", 60_000), ("x", 60_000)]
)
def test_the_page_tool_deadline_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: int
) -> None:
    from native_host.provider.serving import PAGE_TOOL_DEADLINE_ENV, page_tool_deadline_ms

    monkeypatch.setenv(PAGE_TOOL_DEADLINE_ENV, value)
    assert page_tool_deadline_ms() == expected
