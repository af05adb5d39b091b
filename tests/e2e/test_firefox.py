"""The Firefox build of the extension in Firefox ESR (Debian's `firefox-esr`), driven through
Marionette, with the native host registered by `webctx install --browser firefox`: the provider comes
up and answers `current`, `webctx doctor` passes, and the popup's switch removes and restores the
descriptor (SPEC §3, §6). Skipped when Firefox is not installed."""

from __future__ import annotations

import asyncio
import base64
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from native_host import paths
from native_host.host_client import HostClient
from native_host.install import doctor, firefox
from tests.e2e.firefox import ELEMENT_KEY, EXTENSION_BASE, FIREFOX, Marionette, start_firefox, stop_firefox
from tests.e2e.harness import RunningBrowser, end_leftovers
from tests.e2e.png import background_share, has_colour_near, read_png
from tests.e2e.test_popup import GREEN, GREY

pytestmark = pytest.mark.skipif(FIREFOX is None, reason="Firefox is not installed (apt install firefox-esr)")


def _open_extension_page(session: Marionette, url: str) -> None:
    """Open `url` in a new selected tab and point the session at it. Marionette refuses to navigate a
    content tab to moz-extension://, so the tab is opened from the browser's chrome context."""
    before = set(session.command("WebDriver:GetWindowHandles"))
    session.command("Marionette:SetContext", {"value": "chrome"})
    session.command("WebDriver:ExecuteScript", {"args": [url], "script": (
        "const principal = Services.scriptSecurityManager.getSystemPrincipal();"
        "gBrowser.selectedTab = gBrowser.addTab(arguments[0], {triggeringPrincipal: principal});"
    )})
    session.command("Marionette:SetContext", {"value": "content"})
    (handle,) = set(session.command("WebDriver:GetWindowHandles")) - before
    session.command("WebDriver:SwitchToWindow", {"handle": handle})


async def _state_text(session: Marionette, wanted: str, limit_s: float = 10.0) -> None:
    script = "return document.getElementById('state')?.textContent ?? ''"
    text = ""
    async with asyncio.timeout(limit_s):
        while text != wanted:
            reply = await asyncio.to_thread(session.command, "WebDriver:ExecuteScript", {"script": script})
            text = reply["value"]
            await asyncio.sleep(0.05)


async def _screenshot_renders(session: Marionette, colour: tuple[int, int, int]) -> None:
    """The state line, screenshotted: not blank, and drawn in its state's colour."""
    found = {"using": "css selector", "value": "#state"}
    state = (await asyncio.to_thread(session.command, "WebDriver:FindElement", found))["value"][ELEMENT_KEY]
    shot = await asyncio.to_thread(session.command, "WebDriver:TakeScreenshot", {"id": state})
    _, _, pixels = read_png(base64.b64decode(shot["value"]))
    assert background_share(pixels) < 0.97, "the popup's state line is blank"
    assert has_colour_near(pixels, colour), "the popup's state line is not drawn in its colour"


async def test_firefox_loads_the_build_and_becomes_a_provider(tmp_path: Path, isolated_home: Path) -> None:
    webctx = Path(sys.executable).with_name("webctx")
    command = [str(webctx), "install", "--browser", "firefox"]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    build = firefox.build_firefox(tmp_path / "firefox-extension")
    process, session = await asyncio.to_thread(start_firefox, tmp_path / "profile")
    # Only RunningBrowser's descriptor waiter is used: there is no Playwright context for Firefox.
    no_context: Any = None
    watcher = RunningBrowser(no_context, no_context, tmp_path / "profile", paths.providers_dir())
    try:
        await asyncio.to_thread(session.command, "Addon:Install", {"path": str(build), "temporary": True})
        descriptor = await watcher.descriptor(timeout_s=30.0)
        assert (descriptor.bundle_id, descriptor.name) == ("org.mozilla.firefox", "Firefox")
        answer = await HostClient(folder=watcher.providers, timeout_s=10.0).current(descriptor.pid)
        assert answer.raw["root"]["role"] == "Application"
        assert answer.raw["root"].get("title") == "Firefox"
        checks = await asyncio.to_thread(doctor.diagnose, browser="firefox", home=isolated_home)
        assert [c for c in checks if not c.ok] == []
        # The popup's switch, in Firefox too: off removes the descriptor, on brings a new one.
        path = watcher.providers / f"{descriptor.bundle_id}-{descriptor.pid}.json"
        await asyncio.to_thread(_open_extension_page, session, EXTENSION_BASE + "popup/popup.html")
        await _state_text(session, "Provider on: connected")
        await _screenshot_renders(session, GREEN)
        found = {"using": "css selector", "value": "#enabled"}
        switch = await asyncio.to_thread(session.command, "WebDriver:FindElement", found)
        click = {"id": switch["value"][ELEMENT_KEY]}
        await asyncio.to_thread(session.command, "WebDriver:ElementClick", click)
        async with asyncio.timeout(10):
            while path.exists():
                await asyncio.sleep(0.05)
        await _state_text(session, "Provider off")
        await _screenshot_renders(session, GREY)
        await asyncio.to_thread(session.command, "WebDriver:ElementClick", click)
        again = await watcher.descriptor(timeout_s=15.0, not_instance=descriptor.instance)
        assert again.listener_pid != descriptor.listener_pid
    finally:
        await asyncio.to_thread(stop_firefox, process, session)
        end_leftovers(watcher.host_pids)
