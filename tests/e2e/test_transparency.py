"""The popup's "Shared now" and "Who read it", and `webctx activity`, in a real Chromium.

One browser for the module's single test (it is slow to start): a page with a selection; the popup
in its own popup-type window (so the page stays its window's active tab, as when the toolbar
button opens the popup); a desktop host over real MCP with its real token.
- "Shared now" names what `current` returned at the same moment: the page, its selection (ids and
  kinds) and a later selection after it changes.
- A read by a client that calls itself "Claude Code" 9.9.1 in `initialize`/clientInfo appears in
  the popup and in the provider's activity (what `webctx activity` reads) within 1 s, with that
  name; the `webctx activity` command prints it too.
- The toolbar badge shows "read" after the read and is clear again ~2 s later.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from playwright.async_api import Page, expect

from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from tests.e2e.conftest import EXTENSION_ID
from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.test_cli_tools import webctx
from tests.support.waiting import until

POPUP = f"chrome-extension://{EXTENSION_ID}/popup/popup.html"
READ_WITHIN_S = 1.0
"""A read shows in the popup and in `webctx activity` within 1 s."""


def expected_rows(root: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, id) of the focused (else first) window's shown page and its selection, from a
    `current` root: what the popup's "Shared now" must list."""
    windows = root.get("children") or []
    window = next((w for w in windows if w.get("focused")), windows[0])
    page = next(p for p in window.get("children") or [] if p.get("visible") is not False)
    rows = [("page", page["id"])]
    stack = list(reversed(page.get("children") or []))
    while stack:
        element = stack.pop()
        if element.get("role") == "Text" and element.get("selected"):
            rows.append(("selection", element["id"]))
        stack.extend(reversed(element.get("children") or []))
    return rows


async def popup_rows(popup: Page) -> list[tuple[str, str]]:
    """(what, id) of the popup's page and selection rows."""
    rows: list[list[str]] = await popup.eval_on_selector_all(
        "#shared-now li[data-id]", "items => items.map(li => [li.dataset.what, li.dataset.id])"
    )
    return [(what, id_) for what, id_ in rows if what in ("page", "selection")]


async def open_popup(browser: RunningBrowser) -> Page:
    """The popup page in its own popup-type window (the tree shows normal windows only)."""
    async with browser.context.expect_page() as opened:
        await browser.worker_eval(
            "url => chrome.windows.create({url, type: 'popup', width: 400, height: 600, focused: false})",
            POPUP,
        )
    popup = await opened.value
    await popup.wait_for_load_state()
    return popup


async def read_as(descriptor: Descriptor, name: str, version: str) -> dict[str, Any]:
    """Call `current` as a client that declares `name` `version` (2026-07-28: in every request's
    `_meta`); its structuredContent."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {descriptor.token}"}) as http,
        Client(
            streamable_http_client(descriptor.endpoint, http_client=http),
            client_info=types.Implementation(name=name, version=version),
            read_timeout_seconds=10,
        ) as client,
    ):
        result = await client.call_tool("current", {})
    assert result.structured_content is not None
    return result.structured_content


async def badge(browser: RunningBrowser) -> str:
    text: str = await browser.worker_eval("() => chrome.action.getBadgeText({})")
    return text


async def test_shared_now_matches_current_and_a_named_read_shows_in_popup_cli_and_badge(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    descriptor = await browser.descriptor()
    page = await browser.new_page(f"{page_server}/index.html")
    popup = await open_popup(browser)
    await expect(popup.locator("#never-shared")).to_contain_text("Never shared: password", timeout=10_000)

    # -- Shared now = current, at the same moment, and again after the selection moves -------------
    for paragraph in ("para", "intro"):
        await select_text(page, paragraph)
        deadline = time.monotonic() + 10.0
        while True:
            answer = await ask_current(descriptor)
            wanted = expected_rows(answer["root"])
            shown = await popup_rows(popup)
            if (len(wanted) == 2 and shown == wanted) or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        assert len(wanted) == 2, f"current has no selection yet: {wanted}"
        assert shown == wanted
    selection_row = popup.locator("#shared-now li[data-what=selection] .text")
    await expect(selection_row).to_have_text("“The engine might compose elaborate pieces of music…”")
    await expect(popup.locator("#shared-now li[data-what=page]")).to_contain_text("127.0.0.1")

    # -- a named read: popup, the provider's activity, the badge --------------------------------------
    await until(lambda: badge(browser), check=lambda text: text == "", timeout_s=10,
                message="the badge of ask_current's reads clear again")
    await read_as(descriptor, "Claude Code", "9.9.1")
    read_at = time.monotonic()
    line = popup.locator("#activity li[data-client='Claude Code']").first
    said = "Claude Code 9.9.1 read the selection in '"
    await expect(line).to_contain_text(said, timeout=READ_WITHIN_S * 1000)
    popup_s = time.monotonic() - read_at
    async with HostClient(folder=browser.providers, timeout_s=5.0).session(descriptor.pid) as session:
        entries = await session.activity()  # what `webctx activity` reads
    activity_s = time.monotonic() - read_at
    assert entries[0]["client"] == {"name": "Claude Code", "version": "9.9.1"}
    assert popup_s < READ_WITHIN_S and activity_s < READ_WITHIN_S, (popup_s, activity_s)
    saw_badge = False
    async with asyncio.timeout(6.0):  # lit at once, clear ~2 s later (margins: a shared machine)
        while (text := await badge(browser)) == "read" or not saw_badge:
            saw_badge = saw_badge or text == "read"
            assert saw_badge or time.monotonic() - read_at < 1.5, "the badge did not light after the read"
            await asyncio.sleep(0.05)
    assert time.monotonic() - read_at > 1.5, "the badge cleared too soon"

    # -- `webctx activity` as a user runs it -------------------------------------------------------------
    pid = str(descriptor.pid)
    code, out, err = await webctx("activity", "--pid", pid, providers=browser.providers)
    assert code == 0, err
    assert "Claude Code 9.9.1 read the selection in '" in out
    assert "The engine might compose" not in out  # never content


async def test_page_titles_and_client_names_are_shown_clean_and_direction_isolated(
    browser: RunningBrowser, page_server: str
) -> None:
    """A title with RLO and ESC, a client calling itself "Evil<ESC>[2J<LF>Claude<RLO><U+2028>Code<ZWSP>":
    the popup shows both stripped, each in its own `<bdi dir=auto>`, and `webctx activity` prints
    the name as one clean line."""
    descriptor = await browser.descriptor()
    page = await browser.new_page(f"{page_server}/index.html")
    await page.evaluate("document.title = 'Bank \\u202elapyap\\u202c \\u001b[31mx'")
    popup = await open_popup(browser)
    try:
        row = popup.locator("#shared-now li[data-what=page] .text")
        await expect(row).to_have_text("Bank lapyap [31mx — 127.0.0.1", timeout=10_000)
        title = row.locator("bdi")
        await expect(title).to_have_text("Bank lapyap [31mx")
        assert await title.evaluate("e => e.dir") == "auto"
        await read_as(descriptor, "Evil\x1b[2J\nClaude\u202e\u2028Code\u200b", "1\x07")
        line = popup.locator("#activity li").first
        await expect(line).to_contain_text("Evil[2J Claude Code 1 read the ", timeout=5_000)
        isolated = await line.locator("bdi").evaluate_all("els => els.map(e => [e.dir, e.textContent])")
        assert isolated[0] == ["auto", "Evil[2J Claude Code 1"], isolated
        shown = await line.inner_text()
        assert not any(c in shown for c in "\x1b\n\u202e\u2028\u200b\x07"), repr(shown)
    finally:
        await popup.close()
        await page.close()
    code, out, err = await webctx("activity", "--pid", str(descriptor.pid), providers=browser.providers)
    assert code == 0, err
    assert "Evil[2J Claude Code 1 read the " in out, out
    assert "\\x1b" not in out and "\\u202e" not in out and "\u2028" not in out, repr(out)
