"""Where what the user points at is on screen, in a real browser (`location`, design.md §1.2), held to
exact values: a selection's rects per line in points, zoom, scrolled out and background tabs,
ids following their passage through edits, gone ids, the window and the page, a minimized window,
a long selection.

Geometry and fixtures: tests/e2e/pointing_harness.py (one browser for the module, its window at
(100, 50) points; each test opens its own tab and closes it).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import double_click_word, element_js, on_users_click, select_between
from tests.e2e.pointing_harness import (
    ORIGIN,
    TOLERANCE_PT,
    WINDOW_X,
    WINDOW_Y,
    Shared,
    ask,
    ask_until,
    close,
    locate,
    our_page,
    pointing_fixtures,
)
from tests.e2e.tree import find_all, find_one, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

# One browser for the module, a new tab per test, the reference host reading its providers folder.
shared, tab, host = pointing_fixtures("pointing-location")


SELECT_BOTH_LINES = """() => { const r = document.createRange();
  r.setStart(document.getElementById('line1').firstChild, 0);
  r.setEnd(document.getElementById('line2').firstChild, 3);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  return [...r.getClientRects()].map(q => q.width); }"""
"""The API path (a page script selects, from its handler of the user's click: `on_users_click`),
kept for the zoomed page, where the mouse's units are not CSS px; the other tests select the same
passage with real input (`select_both_lines`)."""


async def select_both_lines(page: Page) -> None:
    """Line 1 and `for` on line 2, as a user selects them: a click, then a Shift+click."""
    await select_between(page, (element_js("line1"), 0), (element_js("line2"), 3))


async def line_widths_css(page: Page) -> tuple[float, float]:
    """The CSS px widths of line 1 and of `for` on line 2, measured by the page itself."""
    return tuple(  # type: ignore[return-value]
        await page.evaluate(
            """() => { const w = (node, a, b) => { const r = document.createRange();
              r.setStart(node, a); r.setEnd(node, b); return r.getBoundingClientRect().width; };
              const l1 = document.getElementById('line1').firstChild;
              const l2 = document.getElementById('line2').firstChild;
              return [w(l1, 0, l1.length), w(l2, 0, 3)]; }"""
        )
    )


async def test_a_two_line_selection_is_located_one_rect_per_line_in_points(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html")
    await select_both_lines(tab)
    w1, w2 = await line_widths_css(tab)
    page = our_page(await ask(host, shared), "pointing.html")
    assert page["attributes"]["lang"] == "de"
    [text] = [c for c in page["children"] if c["role"] == "Text"]
    assert text["content"][0]["text"] == "Ada wrote the first programfor"  # absolutely placed: no line break
    where = await locate(host, text["id"])
    print(where)
    x0, y0 = ORIGIN
    assert where["state"] == "visible"
    assert len(where["rects"]) == 2
    assert close(where["rects"][0], {"x": x0 + 100, "y": y0 + 50, "w": w1, "h": 20}), where
    assert close(where["rects"][1], {"x": x0 + 100, "y": y0 + 70, "w": w2, "h": 20}), where
    assert close(where["avoid"], {"x": x0 + 100, "y": y0 + 50, "w": max(w1, w2), "h": 40}), where
    # After a pointer event the origin comes from `screenX - clientX·zoom`: the same place.
    await tab.mouse.move(400, 300)
    await tab.mouse.move(420, 310)
    assert await locate(host, text["id"]) == where


async def set_zoom(shared: Shared, factor: float) -> None:
    """chrome.tabs.setZoom on the active tab (the way the user's Ctrl+/- does it)."""
    await shared[0].worker_eval(
        """async (f) => { const [t] = await chrome.tabs.query({active: true, lastFocusedWindow: true});
           await chrome.tabs.setZoom(t.id, f); }""",
        factor,
    )


async def test_at_150_percent_zoom_css_px_become_one_and_a_half_points(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?zoom")
    await tab.bring_to_front()
    await set_zoom(shared, 1.5)
    try:
        async with asyncio.timeout(5):
            while await tab.evaluate("() => devicePixelRatio") != 1.5:
                await asyncio.sleep(0.05)
        await on_users_click(tab, SELECT_BOTH_LINES)
        w1, w2 = await line_widths_css(tab)
        page = our_page(await ask(host, shared), "pointing.html?zoom")
        [text] = [c for c in page["children"] if c["role"] == "Text"]
        where = await locate(host, text["id"])
        x0, y0 = ORIGIN
        assert where["state"] == "visible"
        assert close(where["rects"][0], {"x": x0 + 150, "y": y0 + 75, "w": w1 * 1.5, "h": 28.5}), where
        assert close(where["rects"][1], {"x": x0 + 150, "y": y0 + 105, "w": w2 * 1.5, "h": 28.5}), where
    finally:
        await set_zoom(shared, 1.0)


async def test_scrolled_out_offscreen_back_visible_background_tab_offscreen(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?states")
    await tab.bring_to_front()
    await select_both_lines(tab)
    [text] = [c for c in our_page(await ask(host, shared), "?states")["children"] if c["role"] == "Text"]
    await tab.evaluate("() => document.getElementById('far').scrollIntoView()")
    where = await locate(host, text["id"])
    assert where["state"] == "offscreen"
    assert where["rects"][0]["y"] < ORIGIN[1], "scrolled up and out: above the viewport"
    await tab.evaluate("() => scrollTo(0, 0)")
    assert (await locate(host, text["id"]))["state"] == "visible"

    other = await shared[0].context.new_page()
    try:
        await other.goto(f"{page_server}/index.html")
        await other.bring_to_front()
        assert (await locate(host, text["id"]))["state"] == "offscreen"
        page_id = our_page(await ask(host, shared), "?states")["id"]
        assert (await locate(host, page_id))["state"] == "offscreen"
    finally:
        await other.close()


async def test_ids_follow_their_passage_through_edits_and_are_gone_when_it_is(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?edits")
    await tab.bring_to_front()
    await double_click_word(tab, element_js("line2"), 4, 7)  # "the"
    [first] = selected_texts(await ask(host, shared))
    assert first["content"][0]["text"] == "the"
    before = (await locate(host, first["id"]))["rects"][0]

    # The user selects something else: the old id still names the old passage.
    await select_both_lines(tab)
    [second] = selected_texts(await ask(host, shared))
    assert second["id"] != first["id"]
    assert close((await locate(host, first["id"]))["rects"][0], before)

    # Text inserted before the passage: its rect moves right by the inserted text's width.
    shift = await tab.evaluate(
        """() => { const t = document.getElementById('line2').firstChild; t.insertData(0, 'XXXX');
           const r = document.createRange(); r.setStart(t, 0); r.setEnd(t, 4);
           return r.getBoundingClientRect().width; }"""
    )
    moved = (await locate(host, first["id"]))["rects"][0]
    assert close(moved, {**before, "x": before["x"] + shift}), (before, moved, shift)

    # The passage deleted: gone, no rects.
    await tab.evaluate("() => document.getElementById('line2').firstChild.deleteData(0, 12)")
    assert await locate(host, first["id"]) == {"state": "gone", "rects": []}


async def test_closed_tab_and_navigated_document_are_gone(
    page_server: str, host: HostClient, shared: Shared
) -> None:
    page = await shared[0].context.new_page()
    await page.goto(f"{page_server}/pointing.html?gone")
    await select_both_lines(page)
    answer = await ask(host, shared)
    page_id = our_page(answer, "?gone")["id"]
    [text] = selected_texts(answer)
    await page.goto(f"{page_server}/index.html")
    assert (await locate(host, text["id"]))["state"] == "gone"
    assert (await locate(host, page_id))["state"] == "visible", "the tab itself is still there"
    await page.close()
    assert await locate(host, page_id) == {"state": "gone", "rects": []}


async def test_unknown_and_malformed_ids_are_errors(host: HostClient, shared: Shared) -> None:
    from native_host.host import open_session

    async with open_session(shared[1], timeout_s=10.0) as session:
        unknown = await session.call_tool("location", {"id": "sel-987654"})
        malformed = await session.call_tool("location", {"id": "not an id!"})
    assert unknown.is_error and unknown.structured_content == {
        "error": {"code": "unknown_id", "message": unknown.structured_content["error"]["message"]}
    }
    assert malformed.is_error and malformed.structured_content is not None
    assert malformed.structured_content["error"]["code"] == "invalid_id"


async def test_window_and_page_locations(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?window")
    await tab.bring_to_front()
    answer = await ask(host, shared)
    window = find_one(answer["root"], lambda e: e["role"] == "Window")
    page = our_page(answer, "?window")
    where = await locate(host, window["id"])
    assert where == {"state": "visible", "rects": [{"x": WINDOW_X, "y": WINDOW_Y, "w": 900, "h": 700}]}
    inner = await tab.evaluate("() => [innerWidth, innerHeight]")
    where = await locate(host, page["id"])
    assert where["state"] == "visible"
    assert close(where["rects"][0], {"x": ORIGIN[0], "y": ORIGIN[1], "w": inner[0], "h": inner[1]}), where
    assert "window" not in where, "headless: no OS window"


async def test_a_page_in_a_minimized_window_is_offscreen(
    page_server: str, host: HostClient, shared: Shared
) -> None:
    browser = shared[0]
    window_id = await browser.worker_eval(
        "async (url) => (await chrome.windows.create({url, focused: true})).id",
        f"{page_server}/index.html?min",
    )
    try:
        async with asyncio.timeout(10):
            while True:
                answer = await ask(host, shared)
                found = find_all(answer["root"], lambda e: "index.html?min" in e.get("url", ""))
                if found:
                    break
        page_id = found[0]["id"]
        assert (await locate(host, page_id))["state"] == "visible"
        await browser.worker_eval("(id) => chrome.windows.update(id, {state: 'minimized'})", window_id)
        async with asyncio.timeout(5):
            while (await locate(host, page_id))["state"] != "offscreen":
                await asyncio.sleep(0.1)
    finally:
        await browser.worker_eval("(id) => chrome.windows.remove(id)", window_id)


async def test_a_long_selection_sends_only_rects_near_the_viewport_and_avoid_is_what_shows(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    """A selection of 6000 lines (108,000 CSS px tall), scrolled to its middle: `location` sends the
    lines within one viewport of the viewport and `avoid` is the selection as far as the viewport
    shows it (docs/internals/protocol.md "location": long selections), not the whole 108,000 px."""
    await tab.goto(f"{page_server}/pointing.html")
    inner_w, inner_h = await tab.evaluate(
        """() => { document.body.innerHTML = '<div id="long" style="font: 16px/18px monospace; margin: 0">'
             + Array.from({length: 6000}, (_, i) => 'line ' + i).join('<br>') + '</div>';
           document.body.style.margin = '0';
           window.scrollTo(0, 54000);
           return [innerWidth, innerHeight]; }"""
    )
    await on_users_click(
        tab,
        """() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('long'));
                   const s = getSelection(); s.removeAllRanges(); s.addRange(r); }""",
    )
    # The subject is `location`, not how soon a 6,000-line selection is read: wait for its Text.
    def has_text(answer: dict[str, Any]) -> bool:
        return any(c["role"] == "Text" for c in our_page(answer, "pointing.html").get("children", []))

    page = our_page(await ask_until(host, shared, has_text, "the long selection's Text"), "pointing.html")
    [text] = [c for c in page["children"] if c["role"] == "Text"]
    where = await locate(host, text["id"])
    x0, y0 = ORIGIN
    assert where["state"] == "visible"
    assert 0 < len(where["rects"]) <= 3 * inner_h / 18 + 4, len(where["rects"])
    for rect in where["rects"]:
        assert y0 - inner_h - 18 <= rect["y"] <= y0 + 2 * inner_h, rect
    avoid = where["avoid"]
    print(len(where["rects"]), "rects; avoid", avoid, "viewport", inner_w, inner_h)
    assert abs(avoid["y"] - y0) <= TOLERANCE_PT and abs(avoid["h"] - inner_h) <= TOLERANCE_PT, avoid
    assert abs(avoid["x"] - x0) <= TOLERANCE_PT and 0 < avoid["w"] <= inner_w, avoid
