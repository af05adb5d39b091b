"""Opening the popup as the toolbar bubble would show it, and checks every popup test shares
: the popup in a popup-type window of its own, so the page the user is on stays the active
tab of the last-focused normal window (what the popup's "This site" section acts on)."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Page, expect

from tests.e2e.conftest import EXTENSION_ID
from tests.e2e.harness import RunningBrowser

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"


async def open_popup(browser: RunningBrowser, *, width: int = 360) -> Page:
    """Open the popup in a popup window of its own; wait for its first full render (`data-ready`)."""
    before = {id(p) for p in browser.context.pages}
    create = "async (url) => { await chrome.windows.create({type: 'popup', url, width: 400, height: 600}); }"
    await browser.worker_eval(create, POPUP)
    async with asyncio.timeout(10):
        while not (new := [p for p in browser.context.pages if p.url == POPUP and id(p) not in before]):
            await asyncio.sleep(0.05)
    popup = new[0]
    await popup.set_viewport_size({"width": width, "height": 600})
    await expect(popup.locator("body")).to_have_attribute("data-ready", "true", timeout=10_000)
    return popup


async def action_look(browser: RunningBrowser) -> dict[str, Any]:
    """The toolbar button as the browser holds it now: badge text and tooltip (chrome.action), and
    the icon the worker last set with the browser's error, if any (`__webctxActionLook`,
    debug_hooks.js: the browser has no getter for the icon)."""
    look: dict[str, Any] = await browser.worker_eval(
        """async () => {
          const shown = globalThis.__webctxActionLook?.();
          return {badge: await chrome.action.getBadgeText({}), title: await chrome.action.getTitle({}),
                  icon: shown?.path?.["16"] ?? "", error: shown?.error ?? "never set"};
        }"""
    )
    return look


async def wait_for_look(
    browser: RunningBrowser, title: str, badge: str, icon: str, timeout_s: float = 10.0
) -> None:
    """Wait until the toolbar button shows `title`, `badge` and the icon set `icon` ("icon",
    "icon-off", "icon-broken"), set without error; AssertionError naming what it shows."""
    wanted = {"badge": badge, "title": title, "icon": f"/popup/icons/{icon}-16.png", "error": ""}
    look: dict[str, Any] = {}
    try:
        async with asyncio.timeout(timeout_s):
            while (look := await action_look(browser)) != wanted:
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"the toolbar shows {look}, not {wanted}") from None


SET_STATUS = "async (status) => { await chrome.storage.session.set({status: {...status, at: Date.now()}}); }"
"""Write a connection status as native_port.js would (for states a test cannot cause for real)."""

CONTRAST = """() => {
  // WCAG 2.1 relative luminance and contrast of every visible text against its painted background.
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b]
    .map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!el.checkVisibility() || !hasText) continue;
    const fg = lum(rgb(getComputedStyle(el).color)), bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    out.push({text: el.textContent.trim().slice(0, 40), ratio: Math.round(ratio * 100) / 100});
  }
  return out;
}"""
"""Every visible text element of the page and its contrast ratio against its background."""
