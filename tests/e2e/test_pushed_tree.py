"""The pushed tree (docs/internals/protocol.md "Pushed tree"): the native host answers `current` from the
tree the worker pushed, and a change made 50 ms before the request is in the answer (design.md §4
"Freshness") — a selection, a tab switch, a new tab, window focus, minimize/restore in headless
Chromium (no event: the worker's window-state poll). Headless Chromium moves the focus only to
a window it creates, so the focus test opens windows; moving it between windows is tested headed
(test_x11.py). Each change is repeated 10 times and every
answer must hold; the host's log tells how many answers still needed a round trip (pulls)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

from native_host import paths
from native_host.provider.descriptor_files import Descriptor
from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.tree import find_all, selected_texts

REPEATS = 10
FRESH_S = 0.05
"""design.md §4: a change made ≥ 50 ms before the request must show."""
PULL = re.compile(r"request h-\d+ current answered in")

Ask = Callable[..., Awaitable[dict[str, Any]]]


def pulls() -> int:
    """How many `current` requests the native host sent to the worker so far (its debug log)."""
    log = paths.log_dir() / "native-host.log"
    return len(PULL.findall(log.read_text(encoding="utf-8"))) if log.exists() else 0


async def settled(ask_current: Ask, descriptor: Descriptor, timeout_s: float = 10.0) -> None:
    """Wait until `current` is answered from the pushed tree (no new pull for an answer)."""
    async with asyncio.timeout(timeout_s):
        while True:
            before = pulls()
            await ask_current(descriptor)
            if pulls() == before:
                return
            await asyncio.sleep(0.1)


def focused_page(answer: dict[str, Any]) -> dict[str, Any]:
    [page] = find_all(answer["root"], lambda e: e["role"] == "Page" and bool(e.get("focused")))
    return page


async def test_tab_switches_and_selections_50_ms_before_current_are_in_the_answer(
    browser: RunningBrowser, page_server: str, ask_current: Ask
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    tabs = await browser.worker_eval(
        """async (url) => {
             const [active] = await chrome.tabs.query({active: true, lastFocusedWindow: true});
             const other = await chrome.tabs.create({url, active: false});
             return [active.id, other.id]; }""",
        f"{page_server}/other.html",
    )
    await asyncio.sleep(0.5)  # the other tab loads
    await settled(ask_current, descriptor)
    before = pulls()
    for n in range(REPEATS):
        tab_id, name = (tabs[1], "other.html") if n % 2 == 0 else (tabs[0], "index.html")
        await browser.worker_eval("(id) => chrome.tabs.update(id, {active: true})", tab_id)
        await asyncio.sleep(FRESH_S)
        assert focused_page(await ask_current(descriptor))["url"].endswith(name), n
    print(f"tab switch: {pulls() - before} of {REPEATS} answers pulled")

    await browser.worker_eval("(id) => chrome.tabs.update(id, {active: true})", tabs[0])
    for n in range(REPEATS):
        element_id, start = [("intro", "The engine"), ("outro", "Many persons"), ("para", "The quick")][n % 3]
        await select_text(page, element_id)
        await asyncio.sleep(FRESH_S)
        texts = selected_texts(await ask_current(descriptor))
        assert len(texts) == 1 and texts[0]["content"][0]["text"].startswith(start), n


async def test_new_tabs_and_window_focus_50_ms_before_current_are_in_the_answer(
    browser: RunningBrowser, page_server: str, ask_current: Ask
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await settled(ask_current, descriptor)
    before = pulls()
    for n in range(REPEATS):
        await browser.worker_eval(
            "(url) => chrome.tabs.create({url, active: true})", f"{page_server}/index.html?n={n}"
        )
        await asyncio.sleep(FRESH_S)
        assert focused_page(await ask_current(descriptor))["url"].endswith(f"?n={n}"), n
    print(f"new tab: {pulls() - before} of {REPEATS} answers pulled")
    before = pulls()

    # Headless Chromium moves the focus only to a window it creates (chrome.windows.update and
    # bringToFront leave getLastFocused as it was): each round opens a focused window.
    for n in range(REPEATS):
        await browser.worker_eval(
            "(url) => chrome.windows.create({url, focused: true})", f"{page_server}/other.html?w={n}"
        )
        await asyncio.sleep(FRESH_S)
        answer = await ask_current(descriptor)
        [window] = find_all(answer["root"], lambda e: e["role"] == "Window" and bool(e.get("focused")))
        assert [c.get("url", "") for c in window["children"]] == [f"{page_server}/other.html?w={n}"], n
    print(f"new focused window: {pulls() - before} of {REPEATS} answers pulled")


async def test_minimize_and_restore_in_headless_50_ms_before_current_are_in_the_answer(
    browser: RunningBrowser, page_server: str, ask_current: Ask
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    window_id = await browser.worker_eval(
        "async (url) => (await chrome.windows.create({url, focused: true})).id", f"{page_server}/other.html"
    )
    await asyncio.sleep(0.5)
    await settled(ask_current, descriptor)
    before = pulls()
    for n in range(REPEATS):
        state = "minimized" if n % 2 == 0 else "normal"
        await browser.worker_eval("([id, state]) => chrome.windows.update(id, {state})", [window_id, state])
        await asyncio.sleep(FRESH_S)
        answer = await ask_current(descriptor)
        [window] = [
            w
            for w in find_all(answer["root"], lambda e: e["role"] == "Window")
            if any(c.get("url", "").endswith("other.html") for c in w.get("children", []))
        ]
        assert window.get("visible", True) is (state == "normal"), n
    print(f"minimize/restore: {pulls() - before} of {REPEATS} answers pulled")


EXCLUDE = """async (sites) => {
  const {settings} = await chrome.storage.local.get('settings');
  await chrome.storage.local.set({settings: {...(settings ?? {}), excludedSites: sites}}); }"""
"""Set the excluded sites (the popup's and options page's setting), keeping the other settings."""


async def test_a_selection_changed_while_its_site_was_excluded_shows_once_it_is_not(
    browser: RunningBrowser, page_server: str, ask_current: Ask
) -> None:
    """What a page reports while its site is excluded is dropped (design.md §2); its earlier report is
    stale from then on, so after the exclusion is lifted `current` shows the page as it is now."""
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await select_text(page, "intro")
    await settled(ask_current, descriptor)
    try:
        for element_id, start in (("", ""), ("outro", "Many persons")):
            await browser.worker_eval(EXCLUDE, ["127.0.0.1"])
            await asyncio.sleep(0.3)
            if element_id:
                await select_text(page, element_id)
            else:
                await page.evaluate("() => getSelection().removeAllRanges()")
            await asyncio.sleep(0.5)  # past the content script's throttle and the 250 ms settling
            await browser.worker_eval(EXCLUDE, [])
            await asyncio.sleep(FRESH_S)
            texts = selected_texts(await ask_current(descriptor))
            starts = [t["content"][0]["text"][: len(start)] for t in texts]
            assert starts == ([start] if start else []), element_id
    finally:
        await browser.worker_eval(EXCLUDE, [])


async def test_a_change_of_the_page_language_50_ms_before_current_is_in_the_answer(
    browser: RunningBrowser, page_server: str, ask_current: Ask
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await settled(ask_current, descriptor)
    for n, lang in enumerate(["de", "fr-CA", "en"] * 2):
        await page.evaluate("(lang) => { document.documentElement.lang = lang; }", lang)
        await asyncio.sleep(FRESH_S)
        assert focused_page(await ask_current(descriptor)).get("attributes", {}).get("lang") == lang, n
