"""Page tools end to end (design.md §5), how they come to be and are exposed: valid, distinct, stable
MCP names that route to their own tool; the imperative WebMCP API as Chromium 156 has it; a
same-origin iframe's tools; declarative forms and the schema Chromium synthesises for them; and
hostile or broken pages (10,000 tools, fake bridge messages).

The whole module runs twice: against the browser's native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill (flag off). One browser per mode serves every test of the module;
each test opens its own tab and closes it (tests/e2e/page_tools_harness.py).
"""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    REGISTER,
    SCRIPTS,
    TOOLS_PAGE,
    ToolsBrowser,
    browser_per_mode,
    page_in_new_tab,
    page_tools_of,
    text_of,
    wait_for_tools,
    wait_until,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXPOSED = re.compile(r"^[A-Za-z0-9_]{1,48}$")
LONG_NAME = "t" * 120 + ".long-12"

WEBMCP_API_SCRIPT = (SCRIPTS / "webmcp_api.js").read_text(encoding="utf-8")
TEN_THOUSAND_TOOLS_JS = (SCRIPTS / "ten_thousand_tools.js").read_text(encoding="utf-8")
FAKE_BRIDGE_MESSAGES_JS = (SCRIPTS / "fake_bridge_messages.js").read_text(encoding="utf-8")

# One browser per WebMCP mode for the whole module.
tb = browser_per_mode("page-tools-exposure")

# tests/pages/tools.html in a new tab, its tools registered; closed after the test.
tools_page = page_in_new_tab(TOOLS_PAGE)


async def test_page_tools_are_exposed_under_valid_distinct_names_that_route_to_their_own_tool(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        tools = await wait_for_tools(session, lambda ts: "cart-add-item" in page_tools_of(ts, url))
        ours = page_tools_of(tools, url)
        assert {"add", "echo", "cart.add-item", "cart_add_item", "cart-add-item", LONG_NAME} <= set(ours)
        names = [t.name for t in ours.values()]
        assert len(set(names)) == len(names)
        assert all(EXPOSED.match(n) for n in names), names
        page_id = ours["add"].meta["pageId"]  # type: ignore[index]
        n = page_id.removeprefix("tab-")
        assert ours["cart_add_item"].name == f"p{n}_cart_add_item"
        assert ours["add"].name == f"p{n}_add"
        assert ours["add"].annotations is not None and ours["add"].annotations.read_only_hint is True
        assert "webctx tools page" in (ours["add"].description or "")
        assert page_server in (ours["add"].description or "")
        meta = ours["add"].meta or {}
        assert meta["origin"] == page_server and meta["url"] == url and meta["toolName"] == "add"
        assert meta["dev.context-providers/untrusted"] is True
        for original in ("cart.add-item", "cart_add_item", "cart-add-item", LONG_NAME):
            result = await session.call_tool(ours[original].name, {})
            assert not result.is_error, text_of(result)
            assert text_of(result) == ("long" if original == LONG_NAME else original)

        # Stable across a reload of the page.
        before = {k: t.name for k, t in ours.items()}
        await tools_page.reload()
        await tools_page.wait_for_function("window.registered === true", timeout=10_000)
        tools = await wait_for_tools(session, lambda ts: len(page_tools_of(ts, url)) == len(before))
        assert {k: t.name for k, t in page_tools_of(tools, url).items()} == before

        # The Page element lists them in attributes.tools.
        current = await session.current()
        pages = [e for e in _walk(current.raw["root"]) if e.get("id") == page_id]
        assert len(pages) == 1
        assert sorted(pages[0]["attributes"]["tools"]) == sorted(before.values())


def _walk(element: dict[str, object]) -> list[dict[str, object]]:
    out = [element]
    for child in element.get("children", []) or []:  # type: ignore[union-attr]
        out.extend(_walk(child))  # type: ignore[arg-type]
    return out


async def test_same_origin_iframe_tools_are_the_pages_tools_and_run_in_the_frame(
    tb: ToolsBrowser, page_server: str
) -> None:
    url = f"{page_server}/frames.html"
    page = await tb.open("/frames.html", page_server)
    try:
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "frame_tool" in page_tools_of(ts, url))
            ours = page_tools_of(tools, url)
            assert set(ours) == {"top_tool", "shared", "frame_tool"}
            assert text_of(await session.call_tool(ours["frame_tool"].name, {})) == "/frame_child.html"
            assert text_of(await session.call_tool(ours["shared"].name, {})) == "shared from top"
            await page.evaluate("document.getElementById('child').remove()")
            await wait_for_tools(session, lambda ts: set(page_tools_of(ts, url)) == {"top_tool", "shared"})
    finally:
        await page.close()


EXPECTED_API_BEHAVIOUR = {
    "changedBeforeResolve": True,
    "visibleAfterAwait": True,
    "duplicate": "InvalidStateError",
    "duplicateFiredToolchange": False,
    "names": {
        '""': "InvalidStateError",
        '"a b"': "InvalidStateError",
        '"tool:x"': "InvalidStateError",
        "129 chars": "InvalidStateError",
    },
    "emptyDescription": "InvalidStateError",
    "name128": "resolved",
    "circularSchema": "TypeError",
    "stringSchema": "TypeError",
    "abortFiredToolchange": 1,
    "goneAfterAbort": True,
    "preAborted": "raw:r0",
    "preAbortedRegistered": False,
    "reRegister": "resolved",
    "sorted": True,
    "results": {"obj": '{"a":1}', "str": "s", "num": "42", "undef": "undefined", "bigint": "UnknownError"},
    "inputOmitted": "{}",
    "inputNull": "TypeError",
}


async def test_the_imperative_api_behaves_as_chromium_156(tb: ToolsBrowser, page_server: str) -> None:
    """Scenarios 1-4, 7, 8: the polyfill gives the answers Chromium gives."""
    page = await tb.running.new_page(f"{page_server}/index.html")
    try:
        assert await page.evaluate(WEBMCP_API_SCRIPT) == EXPECTED_API_BEHAVIOUR
    finally:
        await page.close()


# ---- declarative forms ---------------------------------------------------------------------------


async def test_declarative_forms_become_tools_that_fill_and_submit(
    tb: ToolsBrowser, page_server: str
) -> None:
    url = f"{page_server}/forms.html"
    page = await tb.open("/forms.html", page_server)
    try:
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "search_flights" in page_tools_of(ts, url))
            ours = page_tools_of(tools, url)
            schema = ours["book_table"].input_schema
            properties = schema["properties"]
            assert set(properties) == {"guests", "name", "seating", "highchair"}, schema
            assert sorted(schema["required"]) == ["guests", "name"]
            assert properties["guests"]["type"] == "number"
            assert (properties["guests"]["minimum"], properties["guests"]["maximum"]) == (1, 12)
            assert properties["guests"]["description"] == "Number of guests"
            assert properties["name"]["description"] == "Who the booking is for"
            assert properties["seating"]["enum"] == ["inside", "terrace"]
            assert properties["highchair"]["type"] == "boolean"

            # toolautosubmit: filled, submitted with agentInvoked, answered through respondWith.
            arguments = {"guests": 4, "name": "Ada", "seating": "terrace", "highchair": True}
            result = await session.call_tool(ours["book_table"].name, arguments)
            assert not result.is_error, text_of(result)
            booked = {"guests": "4", "name": "Ada", "seating": "terrace", "highchair": "on", "secret": "s"}
            assert result.structured_content == {"booked": booked}
            assert await page.evaluate("window.submits") == [{"form": "auto", "agentInvoked": True}]

            # Without toolautosubmit the call waits for the user's submit.
            call = asyncio.ensure_future(session.call_tool(ours["search_flights"].name, {"to": "OSL"}))
            await wait_until(page, "document.querySelector('#manual [name=to]').value === 'OSL'")
            assert not call.done()
            await page.click("#go")
            async with asyncio.timeout(5):
                result = await call
            assert text_of(result) == "searched OSL"

            # reset() cancels a waiting call.
            call = asyncio.ensure_future(session.call_tool(ours["search_flights"].name, {"to": "BGO"}))
            await wait_until(page, "document.querySelector('#manual [name=to]').value === 'BGO'")
            await page.evaluate("document.getElementById('manual').reset()")
            async with asyncio.timeout(5):
                result = await call
            assert result.is_error is True

            # Removing tooldescription unregisters the tool.
            await page.evaluate("document.getElementById('manual').removeAttribute('tooldescription')")
            await wait_for_tools(session, lambda ts: "search_flights" not in page_tools_of(ts, url))
    finally:
        await page.close()


async def test_forms_parsed_before_a_script_and_added_after_load_are_tools(
    tb: ToolsBrowser, page_server: str
) -> None:
    """The polyfill observes nothing while the page is parsed (a document-wide
    observer then doubled a huge page's time to DOMContentLoaded). A page script running during
    the parse gets no declarative tool, as from Chromium's own WebMCP (the `native` run); after
    DOMContentLoaded the parsed form is a tool, and a form added by script after load becomes one
    through the observer installed then."""
    url = f"{page_server}/forms_late.html"
    page = await tb.open("/forms_late.html", page_server)
    try:
        assert await page.evaluate("window.readyStateAsked") == "loading"
        await wait_until(page, "window.seenWhileParsing !== null")
        assert await page.evaluate("window.seenWhileParsing") == []
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "late_form" in page_tools_of(ts, url))
            assert set(page_tools_of(tools, url)) == {"early_form", "late_form"}
    finally:
        await page.close()


FORM_CONTROLS_SCHEMA = {
    "properties": {
        "bags": {"maximum": 3, "minimum": 0, "multipleOf": 1, "type": "number"},
        "cities": {
            "items": {
                "anyOf": [
                    {"const": "osl", "title": "Oslo", "type": "string"},
                    {"const": "bgo", "title": "Bergen", "type": "string"},
                ],
                "enum": ["osl", "bgo"],
                "type": "string",
            },
            "type": "array",
            "uniqueItems": True,
        },
        "class": {
            "anyOf": [{"const": "economy", "type": "string"}, {"const": "business", "type": "string"}],
            "enum": ["economy", "business"],
            "type": "string",
        },
        "code": {"description": "IATA code", "pattern": "[A-Z]{3}", "type": "string"},
        "day": {
            "description": "Dates MUST be provided in 'YYYY-MM-DD' format.",
            "format": "date",
            "type": "string",
        },
        "extras": {
            "items": {
                "anyOf": [{"const": "bag", "type": "string"}, {"const": "meal", "type": "string"}],
                "enum": ["bag", "meal"],
                "type": "string",
            },
            "type": "array",
            "uniqueItems": True,
        },
    },
    "required": ["class"],
    "type": "object",
}
"""What Chromium 156 synthesises for tests/pages/form_controls.html (observed with native WebMCP)."""


async def test_form_controls_give_the_schema_chromium_synthesises(tb: ToolsBrowser, page_server: str) -> None:
    url = f"{page_server}/form_controls.html"
    page = await tb.open("/form_controls.html", page_server)
    try:
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "plan_trip" in page_tools_of(ts, url))
            assert page_tools_of(tools, url)["plan_trip"].input_schema == FORM_CONTROLS_SCHEMA
            result = await session.call_tool(page_tools_of(tools, url)["plan_trip"].name, {"class": "first"})
            assert result.is_error is True and "class" in text_of(result)  # not in the enum: never filled
    finally:
        await page.close()


# ---- hostile and broken pages --------------------------------------------------------------------


async def test_ten_thousand_tools_are_capped_with_a_warning_and_a_huge_description_is_cut(
    tb: ToolsBrowser, page_server: str
) -> None:
    url = f"{page_server}/index.html"
    page = await tb.running.new_page(url)
    try:
        await page.evaluate(TEN_THOUSAND_TOOLS_JS)
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: len(page_tools_of(ts, url)) >= 128, timeout_s=15)
            ours = page_tools_of(tools, url)
            assert len(ours) == 128
            huge = ours["aaa_huge"].description or ""
            assert len(huge) < 4096 + 200 and huge.endswith("…")
            current = await session.current()
            page_id = ours["aaa_huge"].meta["pageId"]  # type: ignore[index]
            (element,) = [e for e in _walk(current.raw["root"]) if e.get("id") == page_id]
            assert element["attributes"]["toolsOmitted"] == 10001 - 128  # type: ignore[index]
            # The host stays responsive.
            result = await session.call_tool(ours["t00000"].name, {})
            assert text_of(result) == "0"
    finally:
        await page.close()


async def test_fake_bridge_messages_from_the_page_or_its_frames_change_nothing_else(
    tb: ToolsBrowser, page_server: str
) -> None:
    url = f"{page_server}/index.html"
    page = await tb.running.new_page(url)
    try:
        await page.evaluate(REGISTER, "real_tool")
        await page.evaluate(FAKE_BRIDGE_MESSAGES_JS)
        await page.evaluate(REGISTER, "real_tool_2")  # a real change after the junk
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "real_tool_2" in page_tools_of(ts, url))
            ours = page_tools_of(tools, url)
            assert "from_frame" not in ours and "bad name!" not in ours and "ok_but_fake" not in ours
            assert set(ours) == {"real_tool", "real_tool_2"}
            result = await session.call_tool(ours["real_tool"].name, {})
            assert text_of(result) == "real_tool"
    finally:
        await page.close()
