"""Page tools end to end (design.md §5), calling them: results mapped to MCP results, input checked
against the schema, the page's own error text (unforgeable under native WebMCP), and calls that
end early: client cancellation, the deadline, navigation and a closed tab (page gone).

The whole module runs twice: against the browser's native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill (flag off). One browser per mode serves every test of the module;
each test opens its own tab and closes it (tests/e2e/page_tools_harness.py).
"""

from __future__ import annotations

import asyncio

import anyio
import pytest
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    DEADLINE_MS,
    TOOLS_PAGE,
    ToolsBrowser,
    browser_per_mode,
    monotonic_ms,
    page_in_new_tab,
    page_tools_of,
    text_of,
    wait_for_tools,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

# One browser per WebMCP mode for the whole module.
tb = browser_per_mode("page-tools-calls")

# tests/pages/tools.html in a new tab, its tools registered; closed after the test.
tools_page = page_in_new_tab(TOOLS_PAGE)


async def test_results_are_mapped_to_mcp_results(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url)), url)

        result = await session.call_tool(ours["add"].name, {"a": 2, "b": 3})
        assert not result.is_error and result.structured_content == {"result": 5} and text_of(result) == "5"

        result = await session.call_tool(ours["echo"].name, {"q": [1, "two"]})
        assert result.structured_content == {"youSent": {"q": [1, "two"]}}

        result = await session.call_tool(ours["greet"].name, {})
        assert text_of(result) == "hello from the page" and result.structured_content is None

        result = await session.call_tool(ours["mcp_shape"].name, {})
        assert result.is_error is True and text_of(result) == "shaped"

        result = await session.call_tool(ours["boom"].name, {})
        assert result.is_error is True and text_of(result) == "boom happened"  # both modes

        for name in ("circular", "bigint"):
            result = await session.call_tool(ours[name].name, {})
            assert result.is_error is True, name

        # Nested deeper than MAX_JSON_DEPTH: an isError, not a JSON-RPC error;
        # a schema that deep is dropped, the tool still listed and callable.
        result = await session.call_tool(ours["deep"].name, {})
        assert result.is_error is True and "nested deeper than 100 levels" in text_of(result)
        assert ours["deep_schema"].input_schema == {"type": "object"}
        result = await session.call_tool(ours["deep_schema"].name, {})
        assert not result.is_error and text_of(result) == "ran"

        result = await session.call_tool(ours["unregister_self"].name, {})
        assert not result.is_error and text_of(result) == "still answered"
        await wait_for_tools(session, lambda ts: "unregister_self" not in page_tools_of(ts, url))
        # The tool stays usable after a failure.
        result = await session.call_tool(ours["add"].name, {"a": 1, "b": 1})
        assert result.structured_content == {"result": 2}


async def test_input_that_violates_the_schema_is_an_error_naming_the_field_and_execute_does_not_run(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "order" in page_tools_of(ts, url)), url)
        name = ours["order"].name
        missing = await session.call_tool(name, {"item": "tea"})
        assert missing.is_error is True and "qty" in text_of(missing)
        wrong = await session.call_tool(name, {"item": "tea", "qty": "two"})
        assert wrong.is_error is True and "qty" in text_of(wrong)
        too_small = await session.call_tool(name, {"item": "tea", "qty": 0})
        assert too_small.is_error is True and "qty" in text_of(too_small)
        assert "order:ran" not in await tools_page.evaluate("window.events")
        ok = await session.call_tool(name, {"item": "tea", "qty": 2})
        assert not ok.is_error and ok.structured_content == {"ordered": {"item": "tea", "qty": 2}}


NATIVE_SHAPE = """() => {
    const frame = document.createElement("iframe");  // about:blank: no webctx wrapper in frames
    document.body.append(frame);
    const own = frame.contentDocument.modelContext.registerTool;
    const ours = document.modelContext.registerTool;
    const fts = Function.prototype.toString;
    const shape = (f) => ({ text: fts.call(f), name: f.name, length: f.length, proto: "prototype" in f,
                            keys: Object.getOwnPropertyNames(f).sort().join(",") });
    const result = { top: shape(ours), frame: shape(own),
                     toString: fts.call(fts),
                     toStringShape: shape(fts),
                     frameToStringShape: shape(frame.contentWindow.Function.prototype.toString),
                     callString: String(ours), plainFunction: fts.call(function f(a) { return a; }) };
    frame.remove();
    return result;
}"""


async def test_the_pages_error_text_reaches_the_host_and_cannot_be_forged(
    tb: ToolsBrowser, page_server: str
) -> None:
    """`execute` throwing `new Error("out of stock")` → isError "out of stock" in both modes; under
    native WebMCP main_world/native_errors.js keeps the text, invisible to the page, unforgeable."""
    url = f"{page_server}/tool_errors.html"
    page = await tb.open("/tool_errors.html", page_server)
    try:
        async with tb.session() as session:
            listed = await wait_for_tools(session, lambda ts: "boom" in page_tools_of(ts, url))
            ours = page_tools_of(listed, url)
            result = await session.call_tool(ours["boom"].name, {})
            assert result.is_error is True and text_of(result) == "out of stock"
            result = await session.call_tool(ours["reject_string"].name, {})
            assert result.is_error is True and text_of(result) == "sold out"
            # Concurrent failing calls each get their own text (keyed by tool and input).
            whys = [f"reason {i}" for i in range(6)] + ["a"]
            results = await asyncio.gather(
                *(session.call_tool(ours["fail_with"].name, {"why": why}) for why in whys)
            )
            texts = [text_of(r) for r in results]
            assert all(r.is_error for r in results) and texts == whys, texts
            result = await session.call_tool(ours["ok"].name, {})
            assert not result.is_error and result.structured_content == {"fine": True}
        if tb.mode == "native":
            assert await page.evaluate("window.seenPorts") == 0  # the hand-over was over before its script
            shape = await page.evaluate(NATIVE_SHAPE)
            assert shape["top"] == shape["frame"], shape
            assert shape["top"]["text"] == "function registerTool() { [native code] }", shape
            # (Another realm's Function.prototype.toString shows the Proxy: docs/internals/extension.md.)
            assert shape["toString"] == "function toString() { [native code] }"
            assert shape["toStringShape"] == shape["frameToStringShape"], shape
            assert shape["callString"] == shape["top"]["text"]
            assert shape["plainFunction"] == "function f(a) { return a; }"
    finally:
        await page.close()


async def test_a_thrown_non_error_answers_at_once(tb: ToolsBrowser, page_server: str) -> None:
    """A page that throws a prototype-less object or a Proxy whose traps throw: an `isError` at once,
    not the deadline (the polyfill's own reading of the thrown value threw, and nothing answered).
    A 90 MiB result is in test_page_tools_large.py (its browser has the default deadline)."""
    url = f"{page_server}/tool_errors.html"
    page = await tb.open("/tool_errors.html", page_server)
    try:
        async with tb.session() as session:
            listed = await wait_for_tools(session, lambda ts: "throw_proxy" in page_tools_of(ts, url))
            ours = page_tools_of(listed, url)
            for name in ("throw_bare", "throw_proxy"):
                started = monotonic_ms()
                result = await session.call_tool(ours[name].name, {})
                took_ms = monotonic_ms() - started
                assert result.is_error is True, text_of(result)
                assert "threw something that is not an Error" in text_of(result), text_of(result)
                assert took_ms < 2000, (name, took_ms)
                print(f"{tb.mode} {name}: isError in {took_ms:.0f} ms")  # pytest -s shows it
            result = await session.call_tool(ours["ok"].name, {})  # the page and the session go on
            assert result.structured_content == {"fine": True}
    finally:
        await page.close()


async def test_controls_in_a_tool_description_and_title_never_reach_clients(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    """ESC, NUL, BEL and RLO in what the page registers: `tools/list` of a real MCP client has them
    stripped (the description keeps its line feed)."""
    url = f"{page_server}{TOOLS_PAGE}"
    await tools_page.evaluate(
        "() => document.modelContext.registerTool({name: 'hostile_text', title: 'Pay\\u202e now\\u0000',"
        " description: 'Line 1\\u001b[2J\\u0000\\u0007\\u202eevil\\nLine 2', execute: () => 'x'})"
    )
    async with tb.session() as session:
        tools = await wait_for_tools(session, lambda ts: "hostile_text" in page_tools_of(ts, url))
    tool = page_tools_of(tools, url)["hostile_text"]
    said = tool.description or ""
    assert said.endswith("] Line 1[2Jevil\nLine 2"), said
    assert tool.title in (None, "Pay now"), tool.title  # native WebMCP may not pass a title on


# ---- calls that end early ------------------------------------------------------------------------


@pytest.mark.parametrize("legacy", [True, False], ids=["2025-11-25", "2026-07-28"])
async def test_client_cancellation_aborts_the_page_signal(
    tb: ToolsBrowser, tools_page: Page, page_server: str, legacy: bool
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session(legacy=legacy) as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "slow" in page_tools_of(ts, url)), url)
        with anyio.move_on_after(3) as scope:
            call = asyncio.ensure_future(session.call_tool(ours["slow"].name, {}))
            await wait_until(tools_page, "window.events.includes('slow:started')")
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        assert not scope.cancelled_caught
        await wait_until(tools_page, "window.events.includes('slow:aborted')")
        if (
            tb.mode == "polyfill"
        ):  # Chromium fires toolcancel too (webmcp.md §1.5), checked here where we own it
            await wait_until(tools_page, "window.events.includes('toolcancel:slow')")
        # The session still works.
        result = await session.call_tool(ours["greet"].name, {})
        assert text_of(result) == "hello from the page"


async def test_a_page_that_never_answers_is_an_error_after_the_deadline(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "never" in page_tools_of(ts, url)), url)
        started = monotonic_ms()
        result = await session.call_tool(ours["never"].name, {})
        elapsed = monotonic_ms() - started
        assert result.is_error is True and "did not answer" in text_of(result)
        assert DEADLINE_MS <= elapsed < DEADLINE_MS + 2000


async def test_navigation_mid_call_is_page_gone(tb: ToolsBrowser, tools_page: Page, page_server: str) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(
            await wait_for_tools(session, lambda ts: "navigate" in page_tools_of(ts, url)), url
        )
        started = monotonic_ms()
        result = await session.call_tool(ours["navigate"].name, {})
        assert result.is_error is True and "page gone" in text_of(result).lower()
        assert monotonic_ms() - started < DEADLINE_MS
        await wait_for_tools(session, lambda ts: not page_tools_of(ts, url))


async def test_closing_the_tab_mid_call_is_page_gone(tb: ToolsBrowser, page_server: str) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    page = await tb.open(TOOLS_PAGE, page_server)
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "slow" in page_tools_of(ts, url)), url)
        call = asyncio.ensure_future(session.call_tool(ours["slow"].name, {}))
        await wait_until(page, "window.events.includes('slow:started')")
        await page.close()
        async with asyncio.timeout(DEADLINE_MS / 1000):
            result = await call
        assert result.is_error is True and "page gone" in text_of(result).lower()
