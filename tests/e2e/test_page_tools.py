"""Page tools end to end (SPEC §5): a real Chromium's WebMCP tools, called as a desktop host would.

The whole module runs twice: against the browser's native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill (flag off). One browser per mode serves every test of the
module; each test opens its own tab and closes it. Scenarios follow research/webmcp.md §5.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from statistics import median

import anyio
import pytest
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    DEADLINE_MS,
    ToolsBrowser,
    browser_per_mode,
    monotonic_ms,
    page_in_new_tab,
    page_tools_of,
    text_of,
    wait_for_tools,
    wait_until,
    watch_list_changed,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXPOSED = re.compile(r"^[A-Za-z0-9_]{1,48}$")
LONG_NAME = "t" * 120 + ".long-12"
TOOLS_PAGE = "/tools.html"
SAMPLES = 9
"""Samples per list_changed latency check; the check is on their median (5 flaked once at load 9)."""
REGISTER = (
    "name => { const at = Date.now();"
    " document.modelContext.registerTool({name, description: 'added', execute: () => name}); return at; }"
)
"""Register one more tool in the page (a `toolchange`); return the page's `Date.now()` just before,
so a list_changed latency is timed from the change itself (`ChangeWatcher.wall_after`), not from
before the test's Playwright round trip to the page."""
ACTIVATE_TAB = (
    "async (url) => { const [tab] = await chrome.tabs.query({url});"
    " const at = Date.now(); await chrome.tabs.update(tab.id, {active: true}); return at; }"
)
"""Switch to the tab showing `url`, as the user would (run in the service worker); return the
worker's `Date.now()` just before the switch."""


# One browser per WebMCP mode for the whole module.
tb = browser_per_mode("page-tools")


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


@pytest.mark.parametrize("legacy", [True, False], ids=["2025-11-25", "2026-07-28"])
async def test_toolchange_and_tab_switch_reach_clients_as_list_changed_within_100_ms(
    tb: ToolsBrowser, tools_page: Page, page_server: str, legacy: bool
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url))
    async with watch_list_changed(tb.descriptor, legacy=legacy) as watcher:
        # The first change also proves the client's stream is up (a 2025 GET stream opens lazily).
        seen = 0
        async with asyncio.timeout(5):
            while not watcher.times:
                await tools_page.evaluate(REGISTER, f"warmup_{seen}")
                seen += 1
                with contextlib.suppress(TimeoutError):
                    await watcher.next_after(0, timeout_s=0.5)
        latencies = []
        for i in range(SAMPLES):
            await asyncio.sleep(0.1)  # let the previous change's coalescing window pass
            count = len(watcher.times)
            changed_at = await tools_page.evaluate(REGISTER, f"added_{i}")
            latencies.append(await watcher.wall_after(count) - changed_at)
        # Timed from the page's registerTool to the client's receipt (one clock: Date.now() and
        # time.time()), so the test's own CDP round trips don't count against the product's 100 ms.
        # The median of SAMPLES: a few slow ticks on a busy VM (load 9) are noise, the bound is not.
        print(f"toolchange → list_changed, ms: {[round(x) for x in latencies]}")  # pytest -s shows it
        assert median(latencies) < 100, latencies
        # A tab switch changes the visible page's tools too.
        other = await tb.running.new_page(f"{page_server}/index.html")
        try:
            switches = []
            for target in [url, f"{page_server}/index.html"] * (SAMPLES // 2) + [url]:
                await asyncio.sleep(0.1)
                count = len(watcher.times)
                switched_at = await tb.running.worker_eval(ACTIVATE_TAB, target)
                switches.append(await watcher.wall_after(count) - switched_at)
            print(f"tab switch → list_changed, ms: {[round(x) for x in switches]}")
            assert median(switches) < 100, switches
        finally:
            await other.close()


SCRIPTS = Path(__file__).parent / "scripts"
WEBMCP_API_SCRIPT = (SCRIPTS / "webmcp_api.js").read_text(encoding="utf-8")
TEN_THOUSAND_TOOLS_JS = (SCRIPTS / "ten_thousand_tools.js").read_text(encoding="utf-8")
TOOLCHANGE_FLOOD_JS = (SCRIPTS / "toolchange_flood.js").read_text(encoding="utf-8")
FAKE_BRIDGE_MESSAGES_JS = (SCRIPTS / "fake_bridge_messages.js").read_text(encoding="utf-8")

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
    """research/webmcp.md §5 scenarios 1-4, 7, 8: the polyfill gives the answers Chromium gives."""
    page = await tb.running.new_page(f"{page_server}/index.html")
    try:
        assert await page.evaluate(WEBMCP_API_SCRIPT) == EXPECTED_API_BEHAVIOUR
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


async def test_a_toolchange_flood_is_coalesced_and_the_host_stays_responsive(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "greet" in page_tools_of(ts, url)), url)
        async with watch_list_changed(tb.descriptor, legacy=False) as watcher:
            # 1,000 toolchange events a second for one second: register + abort every 2 ms.
            await tools_page.evaluate(TOOLCHANGE_FLOOD_JS)
            started = monotonic_ms()
            slowest = 0.0
            while monotonic_ms() - started < 1000:
                t0 = monotonic_ms()
                result = await session.call_tool(ours["greet"].name, {})
                assert text_of(result) == "hello from the page"
                slowest = max(slowest, monotonic_ms() - t0)
            assert slowest < 1000
            during = len(watcher.times)
        assert during <= 60, f"{during} list_changed notifications in ~1 s"


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


async def test_minimizing_the_window_hides_its_page_tools_and_restoring_shows_them(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url))
        async with watch_list_changed(tb.descriptor, legacy=False) as watcher:
            # Headless Chromium: minimizing fires no event (the worker's 100 ms window-state poll
            # sees it), restoring fires windows.onFocusChanged (docs/extension.md).
            assert "HeadlessChrome" in await tb.running.worker_eval("() => navigator.userAgent")
            window_id = await tb.running.worker_eval(
                "async (url) => (await chrome.tabs.query({url}))[0].windowId", url
            )
            await tb.running.worker_eval(MINIMIZE, window_id)
            await watcher.next_after(0)
            await wait_for_tools(session, lambda ts: not page_tools_of(ts, url))
            await tb.running.worker_eval(RESTORE, window_id)
            await watcher.next_after(1)
            await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url))
            # SPEC §5: list_changed within 100 ms of a minimize or a restore (the median of SAMPLES,
            # timed from the worker's Date.now() just before the window changes to the client's
            # receipt, so the test's CDP round trip to the worker doesn't count).
            latencies: dict[str, list[float]] = {"minimize": [], "restore": []}
            for _ in range(SAMPLES):
                for kind, script in (("minimize", MINIMIZE), ("restore", RESTORE)):
                    await asyncio.sleep(0.15)
                    count = len(watcher.times)
                    changed_at = await tb.running.worker_eval(script, window_id)
                    latencies[kind].append(await watcher.wall_after(count) - changed_at)
            for kind, times in latencies.items():
                print(f"{kind} → list_changed, ms: {[round(x) for x in times]}")
                assert median(times) < 100, (kind, times)


SET_STATE = (
    "async (id) => { const at = Date.now(); await chrome.windows.update(id, {state: '%s'}); return at; }"
)
MINIMIZE = SET_STATE % "minimized"
RESTORE = SET_STATE % "normal"
"""Minimize / restore a window from the worker; each returns the worker's `Date.now()` just before."""


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
            # (Another realm's Function.prototype.toString shows the Proxy: docs/extension.md.)
            assert shape["toString"] == "function toString() { [native code] }"
            assert shape["toStringShape"] == shape["frameToStringShape"], shape
            assert shape["callString"] == shape["top"]["text"]
            assert shape["plainFunction"] == "function f(a) { return a; }"
    finally:
        await page.close()
