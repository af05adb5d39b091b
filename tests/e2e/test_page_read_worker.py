"""`page.read` on the worker side in a real Chromium (extension/service_worker/page_read.js):
captureVisibleTab works in headless Chromium, the capture is scaled in the worker to 1600 px on its
longest side, the switches and the checks refuse with their codes, a background tab is never
activated for a screenshot, several screenshots at once are paced under the browser's quota, and
each Page in `current` carries its resource_links.

Driven through the worker's debug hook `__webctxPageRead` (sizes and shape only, never the image),
so it needs no host-side `page.read`; the whole path through the native host and MCP is
tests/e2e/test_page_resources*.py. One browser, at device scale factor 2 (a 1280 x 720 viewport
captures 2560 x 1440 px), so the scaling path runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from native_host.host import HostClient
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser
from tests.e2e.tree import find_all, find_one
from tests.support.waiting import until

ACTIVE_TAB = "async () => (await chrome.tabs.query({active: true, lastFocusedWindow: true}))[0].id"
READ = "async ([tabId, kind]) => globalThis.__webctxPageRead(tabId, kind)"


async def read(browser: RunningBrowser, tab_id: int, kind: str) -> dict[str, Any]:
    result: dict[str, Any] = await browser.worker_eval(READ, [tab_id, kind])
    return result


async def set_settings(browser: RunningBrowser, **changes: Any) -> None:
    """Change the stored settings as the options page does (the worker follows storage.onChanged)."""
    # Listeners run in the order they were added: once this one has heard the write, the worker's
    # own (added at start) has run, and the settings it applies in a then-callback queued before.
    await browser.worker_eval(
        """async (changes) => {
             const { settings } = await chrome.storage.local.get("settings");
             const heard = new Promise((resolve) => {
               const listener = () => { chrome.storage.local.onChanged.removeListener(listener); resolve(); };
               chrome.storage.local.onChanged.addListener(listener);
             });
             await chrome.storage.local.set({ settings: { ...(settings ?? {}), ...changes } });
             await heard;
           }""",
        changes,
    )


async def test_screenshots_are_scaled_paced_and_refused_by_the_checks(
    tmp_path: Path, page_server: str
) -> None:
    async with launched_browser(tmp_path / "udd", extra_args=("--force-device-scale-factor=2",)) as browser:
        await browser.new_page(f"{page_server}/index.html")
        descriptor = await browser.descriptor()
        tab_id = await browser.worker_eval(ACTIVE_TAB)

        # Off by default (design16: screenshots are opt-in).
        off = await read(browser, tab_id, "screenshot")
        assert (off["ok"], off["code"]) == (False, "switched_off")

        await set_settings(browser, screenshots=True)
        shot = await read(browser, tab_id, "screenshot")
        assert shot["ok"], shot
        assert shot["mimeType"] == "image/png"
        assert (shot["width"], shot["height"]) == (1600, 900)
        assert shot["scale"] == 0.625
        assert shot["devicePixelRatio"] == 2
        assert 1000 < shot["dataLength"] < 2 * 1024 * 1024
        size = shot["dataLength"] * 3 // 4
        print(f"screenshot 2560x1440 → 1600x900 PNG: {size} bytes in {shot['ms']:.0f} ms")

        # The tree: the active Page links its text and its screenshot under this instance.
        host = HostClient(folder=browser.providers, timeout_s=10.0)
        def our_page(root: dict[str, Any]) -> dict[str, Any]:
            return find_one(root, lambda e: e["role"] == "Page" and e.get("title") == "webctx test page")

        async def root_now() -> dict[str, Any]:
            root: dict[str, Any] = (await host.current(descriptor.pid)).raw["root"]
            return root

        root = await until(root_now, check=lambda root: len(our_page(root).get("content", [])) == 2,
                           retry_on=(AssertionError,),  # our page not in the tree yet
                           message="the pushed tree follows the settings change: two links")
        page = our_page(root)
        base = f"webctx://{descriptor.instance}/{page['id']}"
        assert page["content"] == [
            {"type": "resource_link", "uri": f"{base}/{kind}", "name": "webctx test page", "mimeType": mime}
            for kind, mime in (("text", "text/markdown"), ("screenshot", "image/png"))
        ]

        # Three at once: Chromium refuses a third call within its 1 s window; the worker paces them.
        start = time.monotonic()
        several = await browser.worker_eval(
            "async (t) => Promise.all([1, 2, 3].map(() => globalThis.__webctxPageRead(t, 'screenshot')))",
            tab_id,
        )
        assert [r["ok"] for r in several] == [True, True, True], several
        assert time.monotonic() - start > 1.0, "the third waited for the next window"

        # A background tab is not captured, and not activated for it.
        background = await browser.worker_eval(
            "async (url) => (await chrome.tabs.create({ url, active: false })).id",
            f"{page_server}/other.html",
        )
        refused = await read(browser, background, "screenshot")
        assert (refused["ok"], refused["code"]) == (False, "not_capturable")
        assert await browser.worker_eval(ACTIVE_TAB) == tab_id

        # An excluded site and a browser page are not shared (text or screenshot).
        await set_settings(browser, excludedSites=["127.0.0.1"])
        for kind in ("screenshot", "text"):
            excluded = await read(browser, tab_id, kind)
            assert (excluded["ok"], excluded["code"]) == (False, "not_shared"), kind
        await set_settings(browser, excludedSites=[])
        internal = await browser.worker_eval(
            "async () => (await chrome.tabs.create({ url: 'chrome://version/' })).id"
        )
        await until(lambda: browser.worker_eval(
            "async (id) => { const t = await chrome.tabs.get(id);"
            " return t.url === 'chrome://version/' && t.status === 'complete'; }",
            internal), message="chrome://version loaded")
        for kind in ("screenshot", "text"):
            answer = await read(browser, internal, kind)
            assert (answer["ok"], answer["code"]) == (False, "not_shared"), kind

        # Switched off again: refused at once, and the tree drops the screenshot link.
        await set_settings(browser, screenshots=False, pageText=False)
        await browser.worker_eval("async (tabId) => chrome.tabs.update(tabId, { active: true })", tab_id)
        for kind in ("screenshot", "text"):
            answer = await read(browser, tab_id, kind)
            assert (answer["ok"], answer["code"]) == (False, "switched_off"), kind
        root = await until(root_now, check=lambda root: not [
            p for p in find_all(root, lambda e: e["role"] == "Page") if p.get("content")
        ], message="the pushed tree drops the links")
        pages = find_all(root, lambda e: e["role"] == "Page")
        assert not [p for p in pages if p.get("content")], "no links left"
