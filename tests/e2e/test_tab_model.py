"""The service worker's tab model (extension/service_worker/tab_model.js) stays equal to the
browser's own `chrome.windows.getAll({populate: true})` through a scripted sequence of tab and
window changes, kept by events alone (docs/internals/extension.md "Tab model")."""

from __future__ import annotations

import asyncio
from typing import Any

from native_host.host import HostClient
from tests.e2e.harness import RunningBrowser
from tests.e2e.transitions import stop_service_worker

#: The worker's debug check: one line per difference (ids and field names), [] when equal.
DIFF = "() => globalThis.__webctxTabModelDiff()"


async def settled_diff(browser: RunningBrowser, *, timeout_s: float = 5.0) -> list[str]:
    """The model's difference from the browser once events have arrived: polled until empty or
    `timeout_s`, then the last one."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        diff: list[str] = await browser.worker_eval(DIFF)
        if not diff or asyncio.get_running_loop().time() > deadline:
            return diff
        await asyncio.sleep(0.1)


async def chrome(browser: RunningBrowser, script: str, arg: Any = None) -> Any:
    """Run `script` (an async function of `arg`) in the worker, where `chrome.*` is available."""
    return await browser.worker_eval(script, arg)


async def test_the_tab_model_follows_opens_closes_moves_navigations_and_windows(
    browser: RunningBrowser, page_server: str
) -> None:
    first = await browser.new_page(f"{page_server}/index.html")
    await browser.descriptor()
    assert await settled_diff(browser) == []

    url = f"{page_server}/index.html"
    # Opens: two background tabs, one foreground.
    made = await chrome(
        browser,
        """async (url) => {
             const a = await chrome.tabs.create({ url: url + "?a", active: false });
             const b = await chrome.tabs.create({ url: url + "?b", active: false, index: 0 });
             const c = await chrome.tabs.create({ url: url + "?c", active: true });
             return [a.id, b.id, c.id, a.windowId];
           }""",
        url,
    )
    a, b, c, window_id = made
    assert await settled_diff(browser) == []

    # Moves within the window, activation, a navigation (url and title change) and a reload.
    await chrome(
        browser,
        """async ([a, b, c]) => {
             await chrome.tabs.move(c, { index: 0 });
             await chrome.tabs.move(b, { index: -1 });
             await chrome.tabs.update(a, { active: true });
           }""",
        [a, b, c],
    )
    await first.goto(f"{page_server}/index.html?navigated#x")
    await first.evaluate("() => { document.title = 'renamed by the page'; }")
    assert await settled_diff(browser) == []

    # A new window; a tab moved into it (detach + attach) and back; a window closed with its tabs.
    other = await chrome(
        browser,
        """async ([url, a]) => {
             const w = await chrome.windows.create({ url: url + "?w" });
             await chrome.tabs.move(a, { windowId: w.id, index: 0 });
             return w.id;
           }""",
        [url, a],
    )
    assert await settled_diff(browser) == []
    await chrome(
        browser,
        """async ([a, windowId]) => {
             await chrome.tabs.move(a, { windowId, index: 1 });
             await chrome.tabs.update(a, { active: true });
           }""",
        [a, window_id],
    )
    assert await settled_diff(browser) == []
    second = await chrome(
        browser,
        "async (url) => (await chrome.windows.create({ url: [url + '?x', url + '?y'] })).id",
        url,
    )
    await chrome(browser, "async (id) => { await chrome.windows.remove(id); }", second)
    assert await settled_diff(browser) == []

    # Closes: one tab by the API, one by the page; the emptied window's last tab.
    await chrome(browser, "async (id) => { await chrome.tabs.remove(id); }", c)
    await first.close()
    await chrome(
        browser,
        """async (windowId) => {
             const tabs = await chrome.tabs.query({ windowId });
             await chrome.tabs.remove(tabs.map((t) => t.id));
           }""",
        other,
    )
    assert await settled_diff(browser) == []

    # Many changes at once, not awaited one by one: the events still leave the model right.
    await chrome(
        browser,
        """async (url) => {
             const make = (i) => chrome.tabs.create({ url: url + "?n" + i, active: i % 3 === 0 });
             const made = await Promise.all(Array.from({ length: 8 }, (_, i) => make(i)));
             await Promise.all(made.slice(0, 4).map((t, i) => chrome.tabs.move(t.id, { index: i })));
             await chrome.tabs.remove(made.slice(4, 6).map((t) => t.id));
           }""",
        url,
    )
    assert await settled_diff(browser) == []


async def test_a_restarted_worker_seeds_its_model_again_and_follows_events(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    first = await browser.new_page(f"{page_server}/index.html")
    await browser.new_page(f"{page_server}/other.html")
    old = await browser.descriptor()
    await stop_service_worker(browser.context)
    # The worker restarts on its next event (here a tab loading a page), its memory empty.
    await browser.new_page(f"{page_server}/index.html?after-restart")
    new = await browser.descriptor(not_instance=old.instance)

    async def pages() -> tuple[list[str], str]:
        """The Page urls of the one window in tab-strip order, and the focused one's url."""
        root = (await host.current(new.pid)).raw["root"]
        [window] = [w for w in root["children"] if w["role"] == "Window"]
        listed = [p for p in window["children"] if p["role"] == "Page"]
        return [p.get("url", "") for p in listed], next(p["url"] for p in listed if p.get("focused"))

    urls, focused = await pages()
    assert urls[-3:] == [
        f"{page_server}/index.html",
        f"{page_server}/other.html",
        f"{page_server}/index.html?after-restart",
    ]
    assert focused == f"{page_server}/index.html?after-restart"
    # Events after the restart reach the new model: activation, navigation, close.
    await first.bring_to_front()
    await first.goto(f"{page_server}/other.html?moved-on")
    await asyncio.sleep(0.2)
    urls, focused = await pages()
    assert focused == f"{page_server}/other.html?moved-on"
    await first.close()
    await asyncio.sleep(0.2)
    urls, _ = await pages()
    assert f"{page_server}/other.html?moved-on" not in urls
