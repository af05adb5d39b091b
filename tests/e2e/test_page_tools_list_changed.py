"""Page tools end to end (design.md §5), `notifications/tools/list_changed`: a toolchange, a tab switch,
a minimize and a restore reach clients of both MCP eras within 100 ms (the median of SAMPLES), and
a toolchange flood is coalesced while the host stays responsive.

The whole module runs twice: against the browser's native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill (flag off). One browser per mode serves every test of the module;
each test opens its own tab and closes it (tests/e2e/page_tools_harness.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from statistics import median

import pytest
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    REGISTER,
    SCRIPTS,
    TOOLS_PAGE,
    ToolsBrowser,
    browser_per_mode,
    monotonic_ms,
    page_in_new_tab,
    page_tools_of,
    text_of,
    wait_for_tools,
    watch_list_changed,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

SAMPLES = 9
"""Samples per list_changed latency check; the check is on their median (5 flaked once at load 9)."""
ACTIVATE_TAB = (
    "async (url) => { const [tab] = await chrome.tabs.query({url});"
    " const at = Date.now(); await chrome.tabs.update(tab.id, {active: true}); return at; }"
)
"""Switch to the tab showing `url`, as the user would (run in the service worker); return the
worker's `Date.now()` just before the switch."""
TOOLCHANGE_FLOOD_JS = (SCRIPTS / "toolchange_flood.js").read_text(encoding="utf-8")
SET_STATE = (
    "async (id) => { const at = Date.now(); await chrome.windows.update(id, {state: '%s'}); return at; }"
)
MINIMIZE = SET_STATE % "minimized"
RESTORE = SET_STATE % "normal"
"""Minimize / restore a window from the worker; each returns the worker's `Date.now()` just before."""


# One browser per WebMCP mode for the whole module.
tb = browser_per_mode("page-tools-list-changed")

# tests/pages/tools.html in a new tab, its tools registered; closed after the test.
tools_page = page_in_new_tab(TOOLS_PAGE)


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


async def test_minimizing_the_window_hides_its_page_tools_and_restoring_shows_them(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url))
        async with watch_list_changed(tb.descriptor, legacy=False) as watcher:
            # Headless Chromium: minimizing fires no event (the worker's 100 ms window-state poll
            # sees it), restoring fires windows.onFocusChanged (docs/internals/extension.md).
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
            # design.md §5: list_changed within 100 ms of a minimize or a restore (the median of SAMPLES,
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
