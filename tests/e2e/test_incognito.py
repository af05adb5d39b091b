"""Incognito windows are reported only after the user opts in (design.md §2 "Never reported"; §5).

A real Chromium whose profile allows webctx in incognito (harness.seed_profile `allow_incognito`,
as if the user had switched "Allow in Incognito" on). An incognito window shows
tests/pages/other.html with its paragraph selected by a real drag (DevTools input). By default the
desktop host (the reference host client over real HTTP) sees neither the window, the page nor
the selection; after the user ticks "Report incognito windows too" in the options page it sees
all three; unticked, they are gone again. Excluded sites apply live to incognito pages too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Page, expect

from native_host.host import HostClient
from tests.e2e.conftest import EXTENSION_ID, launched_browser
from tests.e2e.devtools_http import DEVTOOLS_PORT_ARG, DevTools
from tests.e2e.harness import RunningBrowser
from tests.e2e.tree import find_all, selected_texts

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
SELECTED = "Une autre page, ouverte dans un autre onglet."

OPEN_INCOGNITO = """async (url) => {
  const win = await chrome.windows.create({incognito: true, url});
  const tabId = win.tabs[0].id;
  for (let i = 0; i < 200; i += 1) {
    const tab = await chrome.tabs.get(tabId);
    if (tab.status === "complete" && tab.url === url) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {incognito: win.incognito};
}"""
"""Open `url` in a new incognito window (run in the service worker, which reaches incognito tabs
because webctx is allowed there); the test then selects its paragraph with a real drag."""

SELECTION = """async () => {
  const [tab] = await chrome.tabs.query({url: "*://*/other.html"});
  const [{result}] = await chrome.scripting.executeScript({
    target: {tabId: tab.id}, func: () => getSelection().toString()});
  return result;
}"""
"""The incognito page's selected text, read in the service worker."""


def _selected(answer: dict[str, Any]) -> list[str]:
    return [t["content"][0]["text"] for t in selected_texts(answer)]


async def _answer(host: HostClient) -> dict[str, Any]:
    return (await host.current()).raw


def _incognito_page(answer: dict[str, Any], url: str) -> list[dict[str, Any]]:
    return find_all(answer["root"], lambda e: e["role"] == "Page" and e.get("url") == url)


async def _save(options: Page) -> None:
    await expect(options.locator("#saved")).to_have_text("Saved; applied at once.", timeout=5_000)
    await options.evaluate("document.getElementById('saved').textContent = ''")


async def _shown(browser: RunningBrowser, host: HostClient, url: str) -> dict[str, Any]:
    """`current` once the incognito page and its selection are in it (a settings change is applied
    from storage.onChanged, a moment after the options page saved)."""
    answer = await _answer(host)
    for _ in range(40):
        if _incognito_page(answer, url) and SELECTED in _selected(answer):
            return answer
        answer = await _answer(host)
    return answer


async def test_incognito_is_reported_only_while_the_user_opts_in_and_excluded_sites_apply_live(
    tmp_path: Path, page_server: str
) -> None:
    udd = tmp_path / "udd"
    async with launched_browser(udd, allow_incognito=True, extra_args=(DEVTOOLS_PORT_ARG,)) as browser:
        await browser.descriptor()
        host = HostClient(folder=browser.providers, timeout_s=10.0)
        assert await browser.worker_eval("() => chrome.extension.isAllowedIncognitoAccess()")
        url = f"{page_server}/other.html"
        opened = await browser.worker_eval(OPEN_INCOGNITO, url)
        assert opened == {"incognito": True}
        # Playwright's context does not reach incognito pages; DevTools does (trusted input).
        devtools = DevTools(browser.user_data_dir)
        await devtools.drag_across(await devtools.page("/other.html"), "document.getElementById('p')")
        assert await browser.worker_eval(SELECTION) == SELECTED

        def hidden(answer: dict[str, Any]) -> bool:
            return not _incognito_page(answer, url) and SELECTED not in _selected(answer)

        # Default: never reported (design.md §2).
        default = await _answer(host)
        assert hidden(default), default
        assert len(find_all(default["root"], lambda e: e["role"] == "Window")) == 1  # the normal one

        options = await browser.context.new_page()
        await options.goto(OPTIONS)
        await expect(options.locator("#incognito")).not_to_be_checked()
        await options.locator("#incognito").check()
        await _save(options)
        await expect(options.locator("#incognito-note")).to_be_hidden()  # allowed: nothing to fix
        shown = await _shown(browser, host, url)
        [page] = _incognito_page(shown, url)
        assert page["title"] == "Other page"
        assert _selected(shown) == [SELECTED]
        assert len(find_all(shown["root"], lambda e: e["role"] == "Window")) == 2

        # Excluded sites hold for incognito pages too, and apply live both ways.
        await options.locator("#excluded-sites").fill("127.0.0.1")
        await options.locator("#excluded-sites").blur()
        await _save(options)
        assert hidden(await _answer(host))
        await options.locator("#excluded-sites").fill("")
        await options.locator("#excluded-sites").blur()
        await _save(options)
        assert _incognito_page(await _shown(browser, host, url), url)

        # Off again: gone.
        await options.locator("#incognito").uncheck()
        await _save(options)
        assert hidden(await _answer(host))
