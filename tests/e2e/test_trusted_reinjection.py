"""After the extension is reloaded, the worker injects the content scripts again into open tabs
(docs/internals/extension.md); the user's input before that went unseen. A selection already there counts
as the user's only in a document the user has interacted with (sticky user activation, which no
script can set): docs/internals/protocol.md "Only the user's selection".

A fresh real Chromium with the real extension and host; the selection is made with a real drag.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from native_host.host import HostClient
from tests.e2e.gestures import drag_select, element_js
from tests.e2e.harness import RunningBrowser
from tests.e2e.tree import selected_texts

WAIT_S = 20.0
"""How long the test waits for what must come (a loaded 2-core machine: generous)."""
QUIET_S = 1.5
"""How long it watches `current` for what must not come (beyond the worker's 250 ms pull window)."""


PAGE_SELECTED = """async () => {
  const [tab] = await chrome.tabs.query({url: "*://*/trusted.html?hidden"});
  const [{result}] = await chrome.scripting.executeScript({
    target: {tabId: tab.id},
    func: () => [document.body.dataset.selected, navigator.userActivation.hasBeenActive]});
  if (result[1]) throw new Error("the untouched page has user activation");
  return result[0] === "1";
}"""
"""Run in the service worker: whether the untouched page has selected its passage (and has no
user activation, which would void the test)."""


async def _texts(host: HostClient, pid: int) -> list[str]:
    await asyncio.sleep(0.06)
    return [t["content"][0]["text"] for t in selected_texts((await host.current(pid)).raw)]


async def test_after_a_reload_a_selection_stays_the_users_only_where_the_user_acted(
    browser: RunningBrowser, page_server: str
) -> None:
    host = HostClient(folder=browser.providers, timeout_s=10.0)
    touched = await browser.new_page(f"{page_server}/trusted.html?plain")
    await drag_select(touched, element_js("para"), 0, 3)
    untouched = await browser.new_page(f"{page_server}/trusted.html?hidden")
    # Read through the worker, not Playwright's evaluate: Playwright evaluates with a user gesture,
    # which would give the page the very activation this test is about.
    deadline = time.monotonic() + WAIT_S
    while not await browser.worker_eval(PAGE_SELECTED):
        assert time.monotonic() < deadline, "the page did not select its hidden passage"
        await asyncio.sleep(0.1)
    old = await browser.descriptor()
    await browser.worker_eval("() => { chrome.runtime.reload(); }")
    new = await browser.descriptor(not_instance=old.instance)

    # The page that selected by itself, never touched by the user: nothing, before or after.
    await untouched.bring_to_front()
    deadline = time.monotonic() + QUIET_S
    while time.monotonic() < deadline:
        assert await _texts(host, new.pid) == [], "a page-made selection counted after the reload"

    # The page the user dragged in: the same selection, reported by the injected scripts.
    await touched.bring_to_front()
    deadline = time.monotonic() + WAIT_S
    seen: Any = None
    while (seen := await _texts(host, new.pid)) != ["Ada"]:
        assert time.monotonic() < deadline, f"the user's selection after the reload: {seen}"
        await asyncio.sleep(0.1)
