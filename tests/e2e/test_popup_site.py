"""The popup's one-click exclude, the toolbar icon per state, the options page's inline errors, and
the popup's accessibility, in a real Chromium with the real native host.

"Don't share this site" must take the page out of `current` and out of the page tools at once (no
reload), stay so after a browser restart (chrome.storage.local), and "Share this site again" must
bring both back. The toolbar's badge and tooltip follow the state (the broken icon of a missing native
host: test_popup_screens.py, with a profile that has none). The popup must be keyboard
operable, its controls labelled, its text at 4.5:1 contrast or more, and it must fit 300 and 400 px;
each state is shown in words. tests/e2e/test_popup_screens.py takes the screenshots.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from mcp import types
from playwright.async_api import Page, expect

from native_host.host import HostClient
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser
from tests.e2e.page_tools_harness import page_tools_of
from tests.e2e.popup_harness import CONTRAST, OPTIONS, SET_STATUS, open_popup, wait_for_look
from tests.e2e.tree import walk

READ_SETTINGS = "async () => (await chrome.storage.local.get('settings')).settings"

AT_ONCE_S = 5.0
""""At once": the page leaves `current` and the tools within this many seconds of the click, with
no reload. The worker applies storage.onChanged in milliseconds (0.2 to 0.4 s measured here, polls
included, at load 20); the margin is for a machine shared by 7 helpers, where one `current` round
trip can take a second."""


async def _page_urls(host: HostClient, pid: int) -> list[str]:
    answer = (await host.current(pid)).raw
    return [e.get("url", "") for e in walk(answer["root"]) if e.get("role") == "Page"]


async def _tools(host: HostClient, pid: int, url: str) -> dict[str, types.Tool]:
    return page_tools_of(await host.list_tools(pid), url)


async def _until(check: Any, timeout_s: float, what: str) -> float:
    """Poll the coroutine function `check` until it returns true; return the seconds it took."""
    start = time.monotonic()
    try:
        async with asyncio.timeout(timeout_s):
            while not await check():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"not within {timeout_s} s: {what}") from None
    return time.monotonic() - start


async def _tools_page(browser: RunningBrowser, page_server: str) -> Page:
    page = await browser.new_page(f"{page_server}/tools.html")
    await page.wait_for_function("window.registered === true", timeout=10_000)
    await page.bring_to_front()
    return page


async def test_one_click_exclude_takes_the_site_out_at_once_and_survives_a_restart(
    tmp_path: Path, page_server: str
) -> None:
    udd = tmp_path / "udd"
    async with launched_browser(udd, keep_profile=True) as browser:
        descriptor = await browser.descriptor()
        host = HostClient(folder=browser.providers, timeout_s=10.0)
        page = await _tools_page(browser, page_server)
        url = page.url
        # Shared before: the page is in `current` and its tools are exposed.
        await _until(lambda: _has_tools(host, descriptor.pid, url), 10.0, "the page's tools are exposed")
        assert url in await _page_urls(host, descriptor.pid)

        popup = await open_popup(browser)
        await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is shared with desktop AI hosts.")
        await popup.get_by_role("button", name="Don't share this site").click()
        gone = await _until(
            lambda: _gone(host, descriptor.pid, url), AT_ONCE_S, "the page leaves `current` and the tools"
        )
        await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is not shared: it is excluded.")
        await expect(popup.locator("#site-done")).to_have_text("127.0.0.1 is no longer shared.")
        await expect(popup.get_by_role("button", name="Share this site again")).to_be_focused()
        stored = await browser.worker_eval(READ_SETTINGS)
        assert stored["excludedSites"] == ["127.0.0.1"]
        print(f"excluded: gone from current and tools {gone * 1000:.0f} ms after the click")

    # A browser restart on the same profile: still excluded; "Share this site again" brings it back.
    async with launched_browser(udd) as again:
        descriptor = await again.descriptor()
        host = HostClient(folder=again.providers, timeout_s=10.0)
        page = await _tools_page(again, page_server)
        popup = await open_popup(again)
        await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is not shared: it is excluded.")
        assert url not in await _page_urls(host, descriptor.pid)
        assert not await _tools(host, descriptor.pid, url)
        await popup.get_by_role("button", name="Share this site again").click()
        back = await _until(lambda: _has_tools(host, descriptor.pid, url), 10.0, "the page's tools come back")
        assert url in await _page_urls(host, descriptor.pid)
        await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is shared with desktop AI hosts.")
        print(f"shared again: tools back {back * 1000:.0f} ms after the click")


async def _has_tools(host: HostClient, pid: int, url: str) -> bool:
    return bool(await _tools(host, pid, url))


async def _gone(host: HostClient, pid: int, url: str) -> bool:
    in_current, tools = url in await _page_urls(host, pid), await _tools(host, pid, url)
    if in_current or tools:
        print(f"still shared: in current {in_current}, tools {sorted(tools)}")
    return not in_current and not tools


async def test_the_options_page_shows_wrong_site_entries_inline_and_keeps_the_stored_list(
    browser: RunningBrowser,
) -> None:
    options = await browser.context.new_page()
    await options.goto(OPTIONS)
    box = options.get_by_label("Excluded sites, one per line")
    await box.fill("good.example\nbad_host\n*.fine.org foo*bar")
    await box.press("Tab")  # leaving the box is a change
    errors = options.locator("#excluded-errors")
    await expect(errors).to_be_visible()
    await expect(errors).to_contain_text('Line 2: "bad_host": not a host name')
    await expect(errors).to_contain_text('Line 3: "foo*bar": a * may only start the entry')
    await expect(box).to_have_attribute("aria-invalid", "true")
    await expect(box).to_have_value("good.example\nbad_host\n*.fine.org foo*bar")  # kept as typed
    stored = await browser.worker_eval(READ_SETTINGS)
    assert stored is None or stored["excludedSites"] == []
    await box.fill("good.example\n*.fine.org")
    await box.press("Tab")
    await expect(errors).to_be_hidden()
    await expect(box).to_have_attribute("aria-invalid", "false")
    await expect(options.locator("#saved")).to_have_text("Saved; applied at once.")
    stored = await browser.worker_eval(READ_SETTINGS)
    assert stored["excludedSites"] == ["good.example", "fine.org"]


STATES = [
    # (the status, written as native_port.js would; the words; the fix shown; the toolbar badge)
    ({"state": "connecting"}, "Provider on: connecting…", "", ""),
    (
        {"state": "disconnected", "error": "Native host has exited.", "fix": "webctx doctor"},
        "Provider on: native host error",
        "webctx doctor",
        "!",
    ),
    (
        {"state": "mismatch", "words": "The native host is 0.2.0; this extension is 0.1.0.",
         "fix": "webctx install --browser chromium"},
        "Provider on: version mismatch",
        "webctx install --browser chromium",
        "!",
    ),
]


async def test_the_popup_is_keyboard_operable_labelled_readable_and_says_each_state_as_the_toolbar_does(
    browser: RunningBrowser, page_server: str
) -> None:
    await browser.descriptor()
    await wait_for_look(browser, "webctx: Provider on: connected", "", "icon")
    await browser.new_page(f"{page_server}/index.html")
    popup = await open_popup(browser)
    # Labelled controls, reachable by role and name.
    switch = popup.get_by_role("checkbox", name="Provide context to desktop AI hosts")
    exclude = popup.get_by_role("button", name="Don't share this site")
    settings = popup.get_by_role("link", name="Settings…")
    await expect(popup.get_by_role("status").first).to_have_text("Provider on: connected", timeout=10_000)
    # Keyboard only: Tab reaches the switch, the site button and the link, in that order.
    await popup.keyboard.press("Tab")
    await expect(switch).to_be_focused()
    await popup.keyboard.press("Space")
    await expect(popup.locator("#state")).to_have_text("Provider off")
    await wait_for_look(browser, "webctx: Provider off", "", "icon-off")  # the grey icon, and its words
    await popup.keyboard.press("Space")
    await browser.descriptor()
    await wait_for_look(browser, "webctx: Provider on: connected", "", "icon")
    await popup.keyboard.press("Tab")
    await expect(exclude).to_be_focused()
    await popup.keyboard.press("Enter")
    await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is not shared: it is excluded.")
    await popup.keyboard.press("Enter")  # focus stays on the button, now "Share this site again"
    await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is shared with desktop AI hosts.")
    await popup.keyboard.press("Tab")
    await expect(settings).to_be_focused()
    await expect(popup.locator("#state")).to_have_text("Provider on: connected", timeout=10_000)

    async def readable(name: str) -> None:
        for width in (300, 400):
            await popup.set_viewport_size({"width": width, "height": 600})
            overflow = await popup.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            assert overflow <= 0, f"{name}: the popup is {overflow} px too wide at {width} px"
        low = [t for t in await popup.evaluate(CONTRAST) if t["ratio"] < 4.5]
        assert not low, f"{name}: text under 4.5:1 contrast: {low}"

    await readable("connected")
    for status, words, fix, badge in STATES:
        await browser.worker_eval(SET_STATUS, status)
        await expect(popup.locator("#state")).to_have_text(words)
        await wait_for_look(browser, f"webctx: {words}", badge, "icon-broken" if badge else "icon")
        if fix:
            await expect(popup.locator("#fix-command")).to_have_text(fix)
        else:
            await expect(popup.locator("#fix")).to_be_hidden()
        await readable(words)
    await switch.uncheck()
    await expect(popup.locator("#state")).to_have_text("Provider off")
    await wait_for_look(browser, "webctx: Provider off", "", "icon-off")  # off wins over a broken status
    await readable("off")
