"""The popup's provider switch and the options page, in a real Chromium (design.md §3 "switched off", §5).

Switching the provider off closes the native port: the native host removes its descriptor and closes
its MCP port as it exits; switching it on starts a new native host and instance. The popup is
screenshotted in each state and each screenshot is checked to render: not blank, and the state line
drawn in its state's colour, beside the same text in the DOM.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Page, async_playwright, expect

from native_host import __version__
from native_host.install import doctor
from native_host.protocol.processes import process_alive
from native_host.protocol.version import PROTOCOL_VERSION, UPDATE_EXTENSION_FIX
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM, EXTENSION, EXTENSION_ID, launched_browser
from tests.e2e.harness import RunningBrowser, seed_profile
from tests.e2e.png import background_share, has_colour_near, read_png
from tests.e2e.tree import walk

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"
GREEN, GREY, RED = (0x13, 0x73, 0x33), (0x5F, 0x63, 0x68), (0xB3, 0x26, 0x1E)


async def _gone(path: Path, pid: int, limit_s: float) -> None:
    async with asyncio.timeout(limit_s):
        while path.exists() or process_alive(pid):
            await asyncio.sleep(0.05)


def _port_closed(endpoint: str) -> bool:
    port = urlsplit(endpoint).port
    assert port is not None
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", port)) != 0


async def _check_screenshot(
    page: Page, tmp_path: Path, name: str, text: str, colour: tuple[int, int, int]
) -> None:
    await expect(page.locator("#state")).to_have_text(text, timeout=10_000)
    shot = await page.screenshot(path=str(tmp_path / f"popup-{name}.png"))
    width, height, pixels = read_png(shot)
    assert width >= 200 and height >= 50
    assert background_share(pixels) < 0.97, f"the {name} popup screenshot is blank"
    # The text can be in the DOM a frame before it is painted: look again until a deadline.
    deadline = time.monotonic() + 5.0
    while True:
        _, _, state_pixels = read_png(await page.locator("#state").screenshot())
        if has_colour_near(state_pixels, colour) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.1)
    assert has_colour_near(state_pixels, colour), f"the {name} state line is not drawn in its colour"


async def test_switching_the_provider_off_and_on_removes_and_restores_the_descriptor(
    browser: RunningBrowser, tmp_path: Path, ask_current: Any
) -> None:
    first = await browser.descriptor()
    assert first.listener_pid is not None
    path = browser.providers / f"{first.bundle_id}-{first.pid}.json"
    popup = await browser.context.new_page()
    await popup.set_viewport_size({"width": 380, "height": 220})
    await popup.goto(POPUP)
    await _check_screenshot(popup, tmp_path, "on", "Provider on: connected", GREEN)
    await expect(popup.locator("#versions")).to_be_hidden()  # the same release on both sides
    port = urlsplit(first.endpoint).port
    # The count is there without a host asking (popup_status.js), and stays so after a `current`.
    detail = f"MCP endpoint on 127.0.0.1:{port} · 0 pages with tools"
    await expect(popup.locator("#detail")).to_have_text(detail, timeout=5_000)
    await ask_current(first)
    await expect(popup.locator("#detail")).to_have_text(detail, timeout=5_000)

    await popup.locator("#enabled").uncheck()
    await _gone(path, first.listener_pid, 5.0)
    assert _port_closed(first.endpoint)
    await _check_screenshot(popup, tmp_path, "off", "Provider off", GREY)

    await popup.locator("#enabled").check()
    second = await browser.descriptor(not_instance=first.instance, timeout_s=15.0)
    assert second.listener_pid != first.listener_pid
    await _check_screenshot(popup, tmp_path, "on-again", "Provider on: connected", GREEN)
    # The last link of `webctx doctor`, against this real provider.
    live = await asyncio.to_thread(doctor.check_live, browser.providers)
    assert live.ok, live.message


async def test_doctor_reports_every_link_ok_for_a_working_browser(browser: RunningBrowser) -> None:
    await browser.descriptor()
    checks = await asyncio.to_thread(doctor.diagnose, user_data_dir=browser.user_data_dir)
    assert [c for c in checks if not c.ok] == []
    assert [c.name for c in checks][-2:] == ["provider.live", "versions"]
    # `versions` read what the running extension said in its hello (the descriptor records it).
    assert "runs that pair" in checks[-1].message, checks[-1].message


async def test_an_excluded_site_is_not_reported_and_settings_are_stored(
    browser: RunningBrowser, page_server: str, ask_current: object
) -> None:
    descriptor = await browser.descriptor()
    await browser.new_page(f"{page_server}/index.html")
    options = await browser.context.new_page()
    await options.goto(OPTIONS)
    await options.locator("#excluded-sites").fill("127.0.0.1")
    await options.locator("#incognito").check()  # any change saves the whole form
    await expect(options.locator("#saved")).to_have_text("Saved; applied at once.", timeout=5_000)
    await expect(options.locator("#incognito-note")).to_be_visible()  # not allowed in incognito here
    stored = await browser.worker_eval("async () => (await chrome.storage.local.get('settings')).settings")
    assert stored["excludedSites"] == ["127.0.0.1"] and stored["incognito"] is True
    answer = await ask_current(descriptor)  # type: ignore[operator]
    urls = [e.get("url", "") for e in walk(answer["root"])]
    assert not any(url.startswith(page_server) for url in urls), urls


async def test_without_the_host_the_popup_names_the_install_command(tmp_path: Path) -> None:
    profile = tmp_path / "udd"
    seed_profile(profile)  # no `webctx install`: Chromium finds no host manifest
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS
        )
        try:
            popup = await context.new_page()
            await popup.set_viewport_size({"width": 380, "height": 220})
            await popup.goto(POPUP)
            label = "Provider on: native host not installed"
            await _check_screenshot(popup, tmp_path, "not-installed", label, RED)
            await expect(popup.locator("#detail")).to_have_text("Specified native messaging host not found.")
            await expect(popup.locator("#fix-command")).to_have_text("webctx install --browser chromium")
        finally:
            await context.close()


async def test_the_popup_counts_the_pages_with_tools_live_without_a_host_asking(
    browser: RunningBrowser, page_server: str
) -> None:
    await browser.descriptor()
    tools_page = await browser.new_page(f"{page_server}/tools.html")
    await tools_page.wait_for_function("window.registered === true", timeout=10_000)
    # The popup in a window of its own, as the toolbar bubble is: the tools tab stays the visible page.
    await browser.worker_eval("async (url) => { await chrome.windows.create({type: 'popup', url}); }", POPUP)
    async with asyncio.timeout(10):
        while not (popups := [p for p in browser.context.pages if p.url == POPUP]):
            await asyncio.sleep(0.05)
    detail = popups[0].locator("#detail")
    await expect(detail).to_have_text(re.compile(r"· 1 page with tools$"), timeout=10_000)
    await tools_page.close()
    await expect(detail).to_have_text(re.compile(r"· 0 pages with tools$"), timeout=5_000)


async def test_a_version_mismatch_with_the_native_host_says_which_side_to_update(tmp_path: Path) -> None:
    """An extension of another webctx release than the native host (here a copy
    of extension/ whose manifest says 0.0.1, so the extension is the older side) still connects,
    but the worker's status carries `versionMismatch` and the popup says so in words, with the
    fix, in one line; the state line stays "connected"."""
    old = tmp_path / "extension-0.0.1"
    shutil.copytree(EXTENSION, old)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    manifest["version"] = "0.0.1"
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    # The last of a repeated switch wins: the copy replaces extension/ (same key, same id).
    args = (f"--disable-extensions-except={old}", f"--load-extension={old}")
    async with launched_browser(tmp_path / "udd", extra_args=args) as browser:
        await browser.descriptor()
        message = (
            f"The extension is webctx 0.0.1 (protocol {PROTOCOL_VERSION}) but the native host is "
            f"webctx {__version__} (protocol {PROTOCOL_VERSION}): {UPDATE_EXTENSION_FIX}."
        )
        read = "async () => (await chrome.storage.session.get('status')).status"
        async with asyncio.timeout(10):  # the status is written a moment after the hello reply
            while (status := await browser.worker_eval(read) or {}).get("state") != "connected":
                await asyncio.sleep(0.05)
        assert status["versionMismatch"] == {
            "extension": {"version": "0.0.1", "protocol": PROTOCOL_VERSION},
            "host": {"version": __version__, "protocol": PROTOCOL_VERSION},
            "update": "extension",
            "message": message,
        }
        popup = await browser.context.new_page()
        await popup.set_viewport_size({"width": 380, "height": 320})
        await popup.goto(POPUP)
        await _check_screenshot(popup, tmp_path, "mismatch", "Provider on: connected", GREEN)
        await expect(popup.locator("#versions")).to_have_text(f"Version mismatch: {message}")
        await expect(popup.locator("#versions")).to_be_visible()
