"""The Firefox build of the extension in Firefox ESR (Debian's `firefox-esr`), driven through
Marionette, with the native host registered by `webctx install --browser firefox`: the provider comes
up and answers `current`, `webctx doctor` passes, and the popup's switch removes and restores the
descriptor (design.md §3, §6). Skipped when Firefox is not installed."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
from pathlib import Path
from statistics import median
from typing import Any
from urllib.parse import quote

import pytest

from native_host import paths
from native_host.host import HostClient
from native_host.install import doctor, firefox
from tests.e2e.firefox import ELEMENT_KEY, EXTENSION_BASE, FIREFOX, Marionette, start_firefox, stop_firefox
from tests.e2e.harness import RunningBrowser, end_leftovers
from tests.e2e.page_tools_harness import (
    monotonic_ms,
    page_tools_of,
    text_of,
    wait_for_tools,
    watch_list_changed,
)
from tests.e2e.png import background_share, has_colour_near, read_png
from tests.e2e.test_popup import GREEN, GREY
from tests.e2e.tree import find_all

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


async def _script(session: Marionette, script: str, *args: Any) -> Any:
    """Run `script` (a function body; `arguments` holds `args`) in the selected tab's page."""
    params = {"script": script, "args": list(args)}
    reply = await asyncio.to_thread(session.command, "WebDriver:ExecuteScript", params)
    return reply["value"]


async def _on_users_click(session: Marionette, selector: str, script: str) -> Any:
    """Run `script` (a function body) as the page's handler of a real click on the middle of the
    element `selector` names in the current frame (WebDriver:PerformActions: trusted input); its
    return value (JSON). A page script's selection counts as the user's only right after the
    user's input (docs/internals/protocol.md "Only the user's selection")."""
    await _script(
        session,
        """const body = arguments[0]; delete document.documentElement.dataset.clicked;
           addEventListener("click", () => {
             document.documentElement.dataset.clicked = JSON.stringify(new Function(body)() ?? null);
           }, {capture: true, once: true});""",
        script,
    )
    found = {"using": "css selector", "value": selector}
    element = (await asyncio.to_thread(session.command, "WebDriver:FindElement", found))["value"]
    move = {"type": "pointerMove", "x": 0, "y": 0, "origin": {ELEMENT_KEY: element[ELEMENT_KEY]}}
    click = [move, {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
    mouse = {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": click}
    await asyncio.to_thread(session.command, "WebDriver:PerformActions", {"actions": [mouse]})
    await asyncio.to_thread(session.command, "WebDriver:ReleaseActions", {})
    async with asyncio.timeout(10):
        read = "return document.documentElement.dataset.clicked ?? null;"
        while (done := await _script(session, read)) is None:
            await asyncio.sleep(0.05)
    return json.loads(done)


def _is_text(element: dict[str, Any]) -> bool:
    return bool(element["role"] == "Text")


def _is_page(element: dict[str, Any]) -> bool:
    return bool(element["role"] == "Page")


def _close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    return all(abs(actual[k] - expected[k]) <= 1.0 for k in expected)


async def test_firefox_reports_pointing_and_answers_location(
    tmp_path: Path, isolated_home: Path, page_server: str, other_origin: str
) -> None:
    """Firefox has no documentId: documents are keyed by frame id and the content script's token
    (docs/internals/extension.md). A selection shows as Text with `before`/`after`, the focused field as a
    textbox Group, `location` answers rects in points (no `window`: headless), and a navigated
    document's ids answer `gone`. Nested iframes are nested frame Groups, located through both."""
    webctx = Path(sys.executable).with_name("webctx")
    command = [str(webctx), "install", "--browser", "firefox"]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    build = firefox.build_firefox(tmp_path / "firefox-extension")
    process, session = await asyncio.to_thread(start_firefox, tmp_path / "profile")
    no_context: Any = None
    watcher = RunningBrowser(no_context, no_context, tmp_path / "profile", paths.providers_dir())
    try:
        await asyncio.to_thread(session.command, "Addon:Install", {"path": str(build), "temporary": True})
        descriptor = await watcher.descriptor(timeout_s=30.0)
        host = HostClient(folder=watcher.providers, timeout_s=10.0)
        navigate = {"url": f"{page_server}/pointing.html"}
        await asyncio.to_thread(session.command, "WebDriver:Navigate", navigate)
        select_wrote = """const node = document.getElementById('line1').firstChild;
            const r = document.createRange(); r.setStart(node, 4); r.setEnd(node, 9);
            getSelection().removeAllRanges(); getSelection().addRange(r);
            const b = r.getBoundingClientRect(); return [b.x, b.y, b.width, b.height];"""
        texts: list[dict[str, Any]] = []
        async with asyncio.timeout(15):  # until the content script has pushed the selection
            while not texts:
                box = await _on_users_click(session, "#line1", select_wrote)
                await asyncio.sleep(0.1)
                answer = (await host.current(descriptor.pid)).raw
                texts = [e for e in find_all(answer["root"], _is_text) if e.get("selected")]
        [text] = texts
        assert text["content"] == [{"type": "text", "text": "wrote"}]
        before = text["attributes"]["before"]
        assert before.strip() == "Ada" and before.endswith("Ada ")
        # Two paragraphs: a line break between them
        # (docs/internals/protocol.md "The context is what a reader sees").
        assert text["attributes"]["after"].startswith(" the first program\nfor the Analytical Engine.")
        [page] = [e for e in find_all(answer["root"], _is_page) if "pointing.html" in e["url"]]
        viewport = (await host.location(page["id"])).to_wire()
        assert viewport["state"] == "visible" and "window" not in viewport
        x0, y0 = viewport["rects"][0]["x"], viewport["rects"][0]["y"]
        where = (await host.location(text["id"])).to_wire()
        assert where["state"] == "visible" and "window" not in where, where
        expected = {"x": x0 + box[0], "y": y0 + box[1], "w": box[2], "h": box[3]}
        assert len(where["rects"]) == 1 and _close(where["rects"][0], expected), (where, expected)

        # The caret in a field: a focused textbox Group with the field's text, located.
        field_box = await _script(
            session,
            "const f = document.getElementById('name'); f.focus(); f.setSelectionRange(3, 3);"
            " const b = f.getBoundingClientRect(); return [b.x, b.y, b.width, b.height];",
        )
        await asyncio.sleep(0.1)
        answer = (await host.current(descriptor.pid)).raw
        [box_group] = find_all(answer["root"], lambda e: e.get("subrole") == "textbox")
        assert box_group.get("focused") is True and box_group.get("title") == "Your name"
        assert box_group["content"] == [{"type": "text", "text": "Charles Babbage"}]
        focused = find_all(answer["root"], lambda e: bool(e.get("focused")))
        assert [e["role"] for e in focused] == ["Window", "Page", "Group"]
        field_where = (await host.location(box_group["id"])).to_wire()
        fx, fy, fw, fh = field_box
        field_expected = {"x": x0 + fx, "y": y0 + fy, "w": fw, "h": fh}
        assert field_where["state"] == "visible", field_where
        assert _close(field_where["rects"][0], field_expected), (field_where, field_expected)

        # Navigated: the same frame now holds another document; the old ids are gone.
        navigate = {"url": f"{page_server}/index.html"}
        await asyncio.to_thread(session.command, "WebDriver:Navigate", navigate)
        await asyncio.sleep(0.3)
        assert (await host.location(text["id"])).to_wire()["state"] == "gone"
        assert (await host.location(box_group["id"])).to_wire()["state"] == "gone"

        # Nested frames: top (127.0.0.1) → outer.html (localhost) → frame.html (localhost).
        inner_url = f"{other_origin}/frame.html"
        outer = f"{other_origin}/outer.html?inner={inner_url}"
        navigate = {"url": f"{page_server}/pointing.html?frame={quote(outer, safe='')}"}
        await asyncio.to_thread(session.command, "WebDriver:Navigate", navigate)
        for selector in ("#frame", "#nested"):
            found = {"using": "css selector", "value": selector}
            iframe = (await asyncio.to_thread(session.command, "WebDriver:FindElement", found))["value"]
            into = {"element": iframe[ELEMENT_KEY]}
            await asyncio.to_thread(session.command, "WebDriver:SwitchToFrame", into)
        select_inner = """const p = document.getElementById('inner');
            const r = document.createRange(); r.selectNodeContents(p);
            getSelection().removeAllRanges(); getSelection().addRange(r);
            const b = r.getBoundingClientRect(); return [b.x, b.y, b.width, b.height];"""
        groups: list[dict[str, Any]] = []
        async with asyncio.timeout(15):
            while len(groups) < 2:
                inner_box = await _on_users_click(session, "#inner", select_inner)
                await asyncio.sleep(0.2)
                answer = (await host.current(descriptor.pid)).raw
                groups = find_all(answer["root"], lambda e: e.get("subrole") == "frame")
        await asyncio.to_thread(session.command, "WebDriver:SwitchToParentFrame", {})
        await asyncio.to_thread(session.command, "WebDriver:SwitchToParentFrame", {})
        [outer_group, inner_group] = groups
        assert outer_group["url"] == outer and inner_group["url"] == inner_url
        assert inner_group in outer_group["children"]
        [inner_text] = [c for c in inner_group["children"] if c["role"] == "Text"]
        inner_where = (await host.location(inner_text["id"])).to_wire()
        ix, iy, iw, ih = inner_box
        expected = {"x": x0 + 300 + 20 + ix, "y": y0 + 200 + 10 + iy, "w": iw, "h": ih}
        assert inner_where["state"] == "visible", inner_where
        assert _close(inner_where["rects"][0], expected), (inner_where, expected)
        group_where = (await host.location(inner_group["id"])).to_wire()
        group_expected = {"x": x0 + 320, "y": y0 + 210, "w": 300, "h": 120}
        assert _close(group_where["rects"][0], group_expected), group_where
    finally:
        await asyncio.to_thread(stop_firefox, process, session)
        end_leftovers(watcher.host_pids)


_PAGE = "const w = window.wrappedJSObject ?? window;"
"""Marionette's scripts may see the page through an Xray wrapper: its own globals are on wrappedJSObject."""


async def _page_events(session: Marionette) -> list[str]:
    events: list[str] = await _script(session, _PAGE + "return [...(w.events ?? [])];")
    return events


async def _until_event(session: Marionette, event: str, limit_s: float = 5.0) -> None:
    async with asyncio.timeout(limit_s):
        while event not in await _page_events(session):
            await asyncio.sleep(0.05)


async def test_firefox_exposes_and_calls_the_page_tools(
    tmp_path: Path, isolated_home: Path, page_server: str
) -> None:
    """The Firefox build's polyfill (a `"world": "MAIN"` content script at document_start) gives the
    page `document.modelContext`; its tools reach `tools/list` through the reference host, keyed by
    the document's token (no documentId in Firefox: docs/internals/extension.md "Page tools in Firefox").
    A call returns its result, input violating the schema is rejected before `execute`, a cancelled
    call aborts the page's signal, a navigation mid-call is "page gone", and navigating away
    removes the tools with `list_changed` (design.md §5)."""
    webctx = Path(sys.executable).with_name("webctx")
    command = [str(webctx), "install", "--browser", "firefox"]
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    build = firefox.build_firefox(tmp_path / "firefox-extension")
    process, session = await asyncio.to_thread(start_firefox, tmp_path / "profile")
    no_context: Any = None
    watcher = RunningBrowser(no_context, no_context, tmp_path / "profile", paths.providers_dir())
    try:
        await asyncio.to_thread(session.command, "Addon:Install", {"path": str(build), "temporary": True})
        descriptor = await watcher.descriptor(timeout_s=30.0)
        host = HostClient(folder=watcher.providers, timeout_s=15.0)
        url = f"{page_server}/tools.html"
        await asyncio.to_thread(session.command, "WebDriver:Navigate", {"url": url})
        registered = _PAGE + "return w.registered === true ? 'yes' : String(w.registerError ?? '');"
        assert await _script(session, registered) == "yes", await _script(session, registered)
        mode = await _script(session, "return document.getElementById('mode').textContent")
        assert mode == "has modelContext"  # the polyfill ran in the page's world before its scripts

        async with host.session(descriptor.pid) as mcp:
            found = await wait_for_tools(mcp, lambda ts: "order" in page_tools_of(ts, url), timeout_s=15.0)
            ours = page_tools_of(found, url)
            assert {"add", "slow", "order", "navigate"} <= set(ours)
            assert (ours["add"].meta or {})["origin"] == page_server

            result = await mcp.call_tool(ours["add"].name, {"a": 2, "b": 3})
            assert not result.is_error and result.structured_content == {"result": 5}
            assert text_of(result) == "5"

            wrong = await mcp.call_tool(ours["order"].name, {"item": "tea", "qty": "two"})
            assert wrong.is_error is True and "qty" in text_of(wrong)
            assert "order:ran" not in await _page_events(session)
            ok = await mcp.call_tool(ours["order"].name, {"item": "tea", "qty": 2})
            assert not ok.is_error and ok.structured_content == {"ordered": {"item": "tea", "qty": 2}}

            call = asyncio.ensure_future(mcp.call_tool(ours["slow"].name, {}))
            await _until_event(session, "slow:started")
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await _until_event(session, "slow:aborted")
            await _until_event(session, "toolcancel:slow")
            again = await mcp.call_tool(ours["greet"].name, {})
            assert text_of(again) == "hello from the page"
            samples = []  # reported, not asserted: the machine is shared (docs/internals/extension.md)
            for _ in range(30):
                begun = monotonic_ms()
                await mcp.call_tool(ours["greet"].name, {})
                samples.append(monotonic_ms() - begun)
            print(f"page-tool call: median {median(samples):.1f} ms of {len(samples)}")

            async with asyncio.timeout(10):  # well before the 60 s deadline
                gone = await mcp.call_tool(ours["navigate"].name, {})
            assert gone.is_error is True and "page gone" in text_of(gone).lower(), text_of(gone)
            await wait_for_tools(mcp, lambda ts: not page_tools_of(ts, url), timeout_s=5.0)

        # Back to the tools page, then away: the tools leave tools/list with list_changed.
        await asyncio.to_thread(session.command, "WebDriver:Navigate", {"url": url})
        async with (
            watch_list_changed(descriptor, legacy=False) as changes,
            host.session(descriptor.pid) as mcp,
        ):
            await wait_for_tools(mcp, lambda ts: "add" in page_tools_of(ts, url), timeout_s=15.0)
            await asyncio.sleep(0.3)  # let the list settle: later notifications are the navigation's
            seen = len(changes.times)
            started = monotonic_ms()
            away = {"url": f"{page_server}/index.html"}
            await asyncio.to_thread(session.command, "WebDriver:Navigate", away)
            arrived = await changes.next_after(seen, timeout_s=5.0)
            assert not page_tools_of(await mcp.list_tools(), url)
            print(f"list_changed {arrived - started:.0f} ms after Navigate was sent (it returns on load)")

            # Back (from the back/forward cache when Firefox keeps the page there): the tools
            # are reported again on a new port and run.
            await asyncio.to_thread(session.command, "WebDriver:Back", {})
            found = await wait_for_tools(mcp, lambda ts: "add" in page_tools_of(ts, url), timeout_s=10.0)
            back = await mcp.call_tool(page_tools_of(found, url)["add"].name, {"a": 1, "b": 2})
            assert not back.is_error and text_of(back) == "3"
    finally:
        await asyncio.to_thread(stop_firefox, process, session)
        end_leftovers(watcher.host_pids)
