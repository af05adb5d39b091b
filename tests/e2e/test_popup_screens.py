"""Screenshots of the popup in each state ("Done when"), taken in a real Chromium with the
real native host, and checked to render: not blank, the state's words on screen.

The pictures go to a temporary folder, or to $WEBCTX_POPUP_SHOTS when set: scripts/popup_screens.py
sets it to docs/popup/ and writes the list into docs/using.md. Each shot is one entry of the
`shots` list below, so a new state (the "shared now" list, the activity list) is one more entry.
The folder gets `index.json`: [{"name", "file", "caption", "state"}], in the order taken.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from playwright.async_api import Page, async_playwright, expect

from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM
from tests.e2e.harness import RunningBrowser, seed_profile, select_text
from tests.e2e.png import background_share, read_png
from tests.e2e.popup_harness import SET_STATUS, action_look, open_popup, wait_for_look

WIDTH = 360
"""The popup's width in the pictures: inside Chromium's toolbar bubble (at most 800 px) and the
300 to 400 px the popup is laid out for."""


def _folder(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("WEBCTX_POPUP_SHOTS") or tmp_path / "popup-shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def _shot(page: Page, folder: Path, shots: list[dict[str, str]], name: str, caption: str) -> None:
    """Screenshot the whole popup into `folder/popup-<name>.png`, check it rendered, list it."""
    state = await page.locator("#state").inner_text()
    await page.set_viewport_size({"width": WIDTH, "height": 120})  # full_page grows it to the content
    data = await page.screenshot(path=str(folder / f"popup-{name}.png"), full_page=True)
    width, height, pixels = read_png(data)
    assert width == WIDTH and height >= 120
    assert background_share(pixels) < 0.97, f"the {name} screenshot is blank"
    shots.append({"name": name, "file": f"popup-{name}.png", "caption": caption, "state": state})


def _write_index(folder: Path, shots: list[dict[str, str]]) -> None:
    index = folder / "index.json"
    before: list[dict[str, Any]] = json.loads(index.read_text()) if index.exists() else []
    names = {s["name"] for s in shots}
    merged = [s for s in before if s["name"] not in names] + shots
    index.write_text(json.dumps(merged, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


async def test_screenshots_of_the_popup_with_a_provider(
    browser: RunningBrowser, page_server: str, ask_current: Any, tmp_path: Path
) -> None:
    folder = _folder(tmp_path)
    shots: list[dict[str, str]] = []
    descriptor = await browser.descriptor()
    page = await browser.new_page(f"{page_server}/index.html")
    await select_text(page, "para")
    popup = await open_popup(browser, width=WIDTH)
    await expect(popup.locator("#state")).to_have_text("Provider on: connected", timeout=10_000)
    await _shot(popup, folder, shots, "connected", "Connected, on a page with a selection.")

    await ask_current(descriptor)  # a desktop host reads the context
    # Until the activity list lands this looks like "connected".
    await _shot(popup, folder, shots, "after-read", "After a desktop host read the context.")

    await popup.get_by_role("button", name="Don't share this site").click()
    await expect(popup.locator("#site-state")).to_have_text("127.0.0.1 is not shared: it is excluded.")
    await _shot(popup, folder, shots, "excluded", 'After "Don\'t share this site".')
    await popup.get_by_role("button", name="Share this site again").click()

    status = {"state": "mismatch", "words": "The native host is 0.2.0; this extension is 0.1.0.",
              "fix": "webctx install --browser chromium"}
    await browser.worker_eval(SET_STATUS, status)
    await expect(popup.locator("#state")).to_have_text("Provider on: version mismatch")
    await _shot(popup, folder, shots, "mismatch",
                "Version mismatch (the status written by the test, as the service worker would).")

    await popup.locator("#enabled").uncheck()
    await expect(popup.locator("#state")).to_have_text("Provider off")
    await wait_for_look(browser, "webctx: Provider off", "", "icon-off")
    await _shot(popup, folder, shots, "off", "Switched off.")
    _write_index(folder, shots)


async def test_screenshot_of_the_popup_without_a_native_host(tmp_path: Path, page_server: str) -> None:
    folder = _folder(tmp_path)
    shots: list[dict[str, str]] = []
    profile = tmp_path / "udd"
    seed_profile(profile)  # no `webctx install`: Chromium finds no host manifest
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS
        )
        try:
            worker = context.service_workers[0] if context.service_workers else None
            worker = worker or await context.wait_for_event("serviceworker", timeout=15_000)
            browser = RunningBrowser(context, worker, profile, tmp_path / "providers")
            page = await context.new_page()
            await page.goto(f"{page_server}/index.html")
            popup = await open_popup(browser, width=WIDTH)
            label = "Provider on: native host not installed"
            await expect(popup.locator("#state")).to_have_text(label, timeout=10_000)
            await expect(popup.locator("#fix-command")).to_have_text("webctx install --browser chromium")
            await wait_for_look(browser, "webctx: Provider on: native host not installed", "!", "icon-broken")
            assert (await action_look(browser))["badge"] == "!"
            caption = "Broken: the native host is not installed; the fix is shown."
            await _shot(popup, folder, shots, "broken", caption)
        finally:
            await context.close()
    _write_index(folder, shots)
