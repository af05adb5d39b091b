"""An excluded site stays excluded by its documents' origin, not only by their address
(docs/internals/protocol.md "Excluded sites"): the about:blank or srcdoc editor frame an excluded frame
writes into, the about:blank window an excluded page opens and writes into, a triple-click in an
excluded frame that `current` pulls right after the page loads, a screenshot of an allowed page
that shows an excluded frame; and file:// pages are off unless "Share local files (file://)" is on
(the popup on such a page says so).

Every gesture is real input (page.mouse, page.keyboard). The allowed pages are served from
127.0.0.1 (`page_server`), the excluded site is `localhost` (`other_origin`, the same pages on
another port). One browser for the module (the page-resources harness, file access allowed as if
the user had switched it on in chrome://extensions); each test puts back the settings it changed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from tests.e2e.page_resources_harness import (
    current_until,
    links_of,
    page_with_url,
    read_text,
    refusal,
    set_settings,
    uri_of,
)
from tests.e2e.page_tools_harness import ToolsBrowser, launch
from tests.e2e.popup_harness import open_popup
from tests.e2e.tree import find_all, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXCLUDED = "localhost"
BALANCE = "98765"
"""In excluded_child.html's #balance paragraph."""
TYPED = "Wire 5000 to Quillon"
STATEMENT = "Zanzibar"
"""In the title and text of the window excluded_child.html?mode=opener writes."""
RACE_REPEATS = 4


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tb(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ToolsBrowser]:
    """One browser for the module; the extension may run in file:// pages."""
    root = tmp_path_factory.mktemp("exclusion-origins")
    async with launch("polyfill", root, deadline_ms=None, allow_file_access=True) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module")
async def excluded(tb: ToolsBrowser) -> AsyncIterator[None]:
    """`localhost` in the excluded sites for the test."""
    await set_settings(tb.running, excludedSites=[EXCLUDED])
    try:
        yield
    finally:
        await set_settings(tb.running, excludedSites=[], screenshots=False, localFiles=False)


async def current(tb: ToolsBrowser) -> dict[str, Any]:
    """One `current` through the reference host (real HTTP, real token)."""
    async with tb.session() as session:
        return (await session.current()).raw


def leaks(answer: dict[str, Any], *secrets: str) -> list[str]:
    """Those of `secrets` found anywhere in the answer (selections, field text, titles, urls)."""
    text = json.dumps(answer, ensure_ascii=False)
    return [secret for secret in secrets if secret in text]


async def until_page(tb: ToolsBrowser, url: str) -> dict[str, Any]:
    """An answer that lists the allowed page at `url` (the tree follows the tab within ~100 ms)."""
    return await current_until(tb, lambda a: page_with_url(a, url) is not None, timeout_s=20.0)


def blank_pages_in(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pages of about:blank tabs in an answer."""
    return find_all(answer["root"], lambda e: e.get("role") == "Page" and e.get("url") == "about:blank")


async def frame_with(page: Page, selector: str, written: bool = False) -> Any:
    """The frame of `page` holding `selector` (waiting until one does, and for `window.written`)."""
    async with asyncio.timeout(20):
        while True:
            for frame in page.frames:
                try:
                    found = await frame.query_selector(selector) is not None
                    if found and (not written or await frame.evaluate("() => window.written === true")):
                        return frame
                except Exception:  # a frame navigating away under the query
                    continue
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("mode", ["blank", "srcdoc", "sandboxed"])
async def test_an_editor_frame_an_excluded_frame_writes_shares_no_selection_nor_field_text(
    tb: ToolsBrowser, page_server: str, other_origin: str, excluded: None, mode: str
) -> None:
    url = f"{page_server}/excluded_frame.html?child={other_origin}&mode={mode}"
    page = await tb.running.new_page(url)
    try:
        await page.bring_to_front()
        editor = await frame_with(page, "#words")
        await frame_with(page, "#editor", written=True)
        box = await page.frame_locator("#bank").frame_locator("#editor").locator("#words").bounding_box()
        assert box is not None
        # Click after the end of "Draft:", type, then select the line with Shift+Home.
        await page.mouse.click(box["x"] + box["width"] + 20, box["y"] + box["height"] / 2)
        await page.keyboard.press("End")
        await page.keyboard.type(f" {TYPED}")
        await page.keyboard.press("Shift+Home")
        assert TYPED in await editor.evaluate("() => getSelection().toString()")
        address = await editor.evaluate("() => location.href")
        assert address == ("about:blank" if mode == "blank" else "about:srcdoc")
        if mode == "sandboxed":
            assert await editor.evaluate("() => self.origin") == "null"
        # Pulled (just after the gesture) and pushed (after the worker's settling time) answers.
        for delay_s in (0.0, 0.1, 0.5, 1.0):
            await asyncio.sleep(delay_s)
            answer = await until_page(tb, url)
            assert leaks(answer, TYPED, "Draft:") == [], (delay_s, selected_texts(answer))
    finally:
        await page.close()


async def test_a_window_an_excluded_page_opens_and_writes_is_not_shared(
    tb: ToolsBrowser, other_origin: str, excluded: None
) -> None:
    opener = await tb.running.new_page(f"{other_origin}/excluded_child.html?mode=opener")
    try:
        blank_pages = len(blank_pages_in(await current(tb)))  # the profile's first tab is one
        box = await opener.locator("#open").bounding_box()
        assert box is not None
        async with tb.running.context.expect_page() as popup_info:
            await opener.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        popup = await popup_info.value
        await popup.wait_for_selector("#statement")
        await popup.bring_to_front()
        assert popup.url == "about:blank"
        # The user selects the statement with a real drag.
        words = await popup.locator("#statement").bounding_box()
        assert words is not None
        y = words["y"] + words["height"] / 2
        await popup.mouse.move(words["x"] + 1, y)
        await popup.mouse.down()
        await popup.mouse.move(words["x"] + words["width"] / 2, y, steps=5)
        await popup.mouse.move(words["x"] + words["width"] - 1, y, steps=5)
        await popup.mouse.up()
        assert STATEMENT in await popup.evaluate("() => getSelection().toString()")
        for delay_s in (0.0, 0.1, 0.5, 1.0):
            await asyncio.sleep(delay_s)
            answer = await current(tb)
            # The same as the excluded page itself: no Page for it (nor its title), nothing of its text.
            assert leaks(answer, STATEMENT) == [], (delay_s, selected_texts(answer))
            assert len(blank_pages_in(answer)) == blank_pages, blank_pages_in(answer)
        await popup.close()
    finally:
        await opener.close()


async def test_a_triple_click_in_an_excluded_frame_right_after_load_is_not_pulled_into_current(
    tb: ToolsBrowser, page_server: str, other_origin: str, excluded: None
) -> None:
    url = f"{page_server}/excluded_frame.html?child={other_origin}&mode=text"
    page = await tb.running.context.new_page()
    try:
        for n in range(RACE_REPEATS):
            await page.goto(url)
            await page.bring_to_front()
            bank = await frame_with(page, "#balance")
            box = await page.frame_locator("#bank").locator("#balance").bounding_box()
            assert box is not None
            await page.mouse.click(box["x"] + 30, box["y"] + box["height"] / 2, click_count=3)
            answer = await current(tb)  # at once: the tab pushed within the settling time, so pulled
            assert BALANCE in await bank.evaluate("() => getSelection().toString()"), n
            assert leaks(answer, BALANCE) == [], (n, selected_texts(answer))
            answer = await until_page(tb, url)
            assert leaks(answer, BALANCE) == [], (n, selected_texts(answer))
    finally:
        await page.close()


async def test_a_screenshot_of_an_allowed_page_showing_an_excluded_frame_is_refused(
    tb: ToolsBrowser, page_server: str, other_origin: str, excluded: None
) -> None:
    url = f"{page_server}/excluded_frame.html?child={other_origin}&mode=text"
    await set_settings(tb.running, screenshots=True)
    page = await tb.running.new_page(url)
    try:
        await page.bring_to_front()
        await frame_with(page, "#balance")
        answer = await current_until(tb, lambda a: "screenshot" in links_of(page_with_url(a, url) or {}))
        top = page_with_url(answer, url)
        assert top is not None
        shot = uri_of(tb.descriptor.instance, top["id"], "screenshot")
        async with tb.session() as session:
            message = await refusal(session, shot, "not_shared")
            assert f"shows a frame of an excluded site ({EXCLUDED})" in message, message
            fix = "remove it from Excluded sites in webctx's options to allow screenshots of this page"
            assert fix in message, message
            # The same page without the exclusion is captured: the frame alone refused it.
            await set_settings(tb.running, excludedSites=[])
            result = await session.read_resource(shot)
            assert result.contents and result.contents[0].uri == shot
    finally:
        await page.close()


async def test_a_local_file_is_not_shared_until_the_user_switches_local_files_on(
    tb: ToolsBrowser, tmp_path: Path
) -> None:
    path = tmp_path / "tax-return.html"
    path.write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Tax return Ostrava</title></head>'
        '<body><p id="income" style="font: 16px monospace">Taxable income 123456 for Quillon Marsh</p>'
        "</body></html>",
        encoding="utf-8",
    )
    url = path.as_uri()
    page = await tb.running.new_page(url)
    try:
        await page.bring_to_front()
        box = await page.locator("#income").bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + 5, box["y"] + box["height"] / 2, click_count=3)
        assert "123456" in await page.evaluate("() => getSelection().toString()")
        # Off by default: no Page, no selection, for the pulled and the pushed answer.
        for delay_s in (0.0, 0.5):
            await asyncio.sleep(delay_s)
            answer = await current(tb)
            assert page_with_url(answer, url) is None
            assert leaks(answer, "123456", "Ostrava") == [], selected_texts(answer)
        # The popup on the file says so, and how to switch it on.
        popup = await open_popup(tb.running)
        try:
            await expect(popup.locator("#site-state")).to_have_text(
                "This local file is not shared: local files are off. "
                'To share it, switch on "Share local files (file://)" in Settings.'
            )
        finally:
            await popup.close()

        await set_settings(tb.running, localFiles=True)
        answer = await current_until(tb, lambda a: "text" in links_of(page_with_url(a, url) or {}))
        assert any("123456" in t["content"][0]["text"] for t in selected_texts(answer))
        shown = page_with_url(answer, url)
        assert shown is not None
        text_uri = uri_of(tb.descriptor.instance, shown["id"], "text")
        async with tb.session() as session:
            assert "Taxable income 123456" in (await read_text(session, text_uri)).text

            # Switched off again: gone from `current`, and its text is refused.
            await set_settings(tb.running, localFiles=False)
            answer = await current_until(tb, lambda a: page_with_url(a, url) is None)
            assert leaks(answer, "123456", "Ostrava") == []
            message = await refusal(session, text_uri, "not_shared")
            assert 'switch on "Share local files (file://)"' in message, message
    finally:
        await set_settings(tb.running, localFiles=False)
        await page.close()
