"""What the user points at, in a real browser: selections in every kind of place, the focused field,
hover, `lang` (SPEC §2), and where it all is on screen (`location`, SPEC §1.2), held to exact values.

One browser serves the whole module (launching one costs seconds): a headless Chromium without
Playwright's viewport emulation, its window at (100, 50) points, so pages see the real window
geometry. Headless Chromium draws no toolbars but reports its viewport 87 points below the window's
top (chromium-recipe.md §3: inner height = outer height - 87), so the viewport's screen origin is
(100, 137) points. Each test opens its own tab and closes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

import pytest
import pytest_asyncio
from playwright.async_api import Page

from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser, isolated_environment
from tests.e2e.tree import find_all, find_one, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

Shared = tuple[RunningBrowser, Descriptor]
"""The module's browser and its provider's descriptor."""

WINDOW_X, WINDOW_Y = 100, 50
"""Where `--window-position` puts the window, in points."""
HEADLESS_TOOLBAR_PT = 87
"""Headless Chromium's viewport sits this far below the window's top (chromium-recipe.md §3)."""
ORIGIN = (WINDOW_X, WINDOW_Y + HEADLESS_TOOLBAR_PT)
"""The top viewport's screen origin, in points."""
TOLERANCE_PT = 1.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Shared]:
    """The module's browser and its provider's descriptor."""
    udd = tmp_path_factory.mktemp("pointing") / "udd"
    args = (f"--window-position={WINDOW_X},{WINDOW_Y}", "--window-size=900,700")
    with isolated_environment(udd.parent):  # the module's browser starts before any test's HOME
        async with launched_browser(udd, extra_args=args, real_window=True) as running:
            descriptor = await running.descriptor()
            yield running, descriptor


@pytest_asyncio.fixture(loop_scope="module")
async def tab(shared: Shared) -> AsyncIterator[Page]:
    """A new tab of the module's browser, closed after the test."""
    page = await shared[0].context.new_page()
    try:
        yield page
    finally:
        if not page.is_closed():
            await page.close()


@pytest_asyncio.fixture(loop_scope="module")
async def host(shared: Shared) -> HostClient:
    """The reference desktop host, reading the module browser's providers folder."""
    return HostClient(folder=shared[0].providers, timeout_s=10.0)


async def ask(host: HostClient, shared: Shared) -> dict[str, Any]:
    """`current` through the reference host, after the 50 ms the SPEC allows (§4 freshness)."""
    await asyncio.sleep(0.06)
    result = await host.current(shared[1].pid)
    return result.raw


async def locate(host: HostClient, element_id: str) -> dict[str, Any]:
    """`location` through the reference host (the id goes to the provider that issued it)."""
    return (await host.location(element_id)).to_wire()


def our_page(answer: dict[str, Any], url_part: str) -> dict[str, Any]:
    """The Page element whose url contains `url_part`."""
    return find_one(answer["root"], lambda e: e["role"] == "Page" and url_part in e.get("url", ""))


async def select_in_field(page: Page, element_id: str, start: int, end: int) -> None:
    """Focus an input/textarea and select `[start, end)` of its value."""
    await page.evaluate(
        "([id, a, b]) => { const f = document.getElementById(id); f.focus(); f.setSelectionRange(a, b); }",
        [element_id, start, end],
    )


async def box_css(page: Page, element_id: str) -> list[float]:
    """`[x, y, w, h]` of the element's border box, CSS px in the viewport, as the page measures it."""
    return list(
        await page.evaluate(
            "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " return [r.x, r.y, r.width, r.height]; }",
            element_id,
        )
    )


def close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    return all(abs(actual[k] - expected[k]) <= TOLERANCE_PT for k in ("x", "y", "w", "h"))


SELECT_BOTH_LINES = """() => { const r = document.createRange();
  r.setStart(document.getElementById('line1').firstChild, 0);
  r.setEnd(document.getElementById('line2').firstChild, 3);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  return [...r.getClientRects()].map(q => q.width); }"""


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
    await tab.evaluate(SELECT_BOTH_LINES)
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
        await tab.evaluate(SELECT_BOTH_LINES)
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
    await tab.evaluate(SELECT_BOTH_LINES)
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
    await tab.evaluate(
        """() => { const t = document.getElementById('line2').firstChild;
           const r = document.createRange(); r.setStart(t, 4); r.setEnd(t, 7);
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    [first] = selected_texts(await ask(host, shared))
    assert first["content"][0]["text"] == "the"
    before = (await locate(host, first["id"]))["rects"][0]

    # The user selects something else: the old id still names the old passage.
    await tab.evaluate(SELECT_BOTH_LINES)
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
    await page.evaluate(SELECT_BOTH_LINES)
    answer = await ask(host, shared)
    page_id = our_page(answer, "?gone")["id"]
    [text] = selected_texts(answer)
    await page.goto(f"{page_server}/index.html")
    assert (await locate(host, text["id"]))["state"] == "gone"
    assert (await locate(host, page_id))["state"] == "visible", "the tab itself is still there"
    await page.close()
    assert await locate(host, page_id) == {"state": "gone", "rects": []}


async def test_unknown_and_malformed_ids_are_errors(
    host: HostClient, shared: Shared
) -> None:
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


async def wait_for_content_scripts(
    shared: Shared, url_part: str, *, frames: int, timeout_s: float = 10.0
) -> None:
    """Wait until webctx's content script runs in `frames` frames of the tab whose url contains
    `url_part` (they run at document_idle, possibly after `load`). Raises TimeoutError after `timeout_s`."""
    async with asyncio.timeout(timeout_s):
        while True:
            ready = await shared[0].worker_eval(
                """async (part) => {
                     const [tab] = (await chrome.tabs.query({})).filter((t) => (t.url ?? "").includes(part));
                     if (!tab) return 0;
                     const results = await chrome.scripting.executeScript({
                       target: {tabId: tab.id, allFrames: true},
                       func: () => Boolean(globalThis.__webctx?.report)});
                     return results.filter((r) => r.result).length; }""",
                url_part,
            )
            if ready >= frames:
                return
            await asyncio.sleep(0.05)


def frame_of(page: Page, url_part: str) -> Any:
    """The page's subframe whose url, without its query, contains `url_part`."""
    [frame] = [f for f in page.frames if f != page.main_frame and url_part in f.url.split("?")[0]]
    return frame


async def wait_for_frame(page: Page, url_part: str) -> Any:
    async with asyncio.timeout(10):
        while not [f for f in page.frames if f != page.main_frame and url_part in f.url.split("?")[0]]:
            await asyncio.sleep(0.05)
        frame = frame_of(page, url_part)
        await frame.wait_for_load_state()
        return frame


@pytest.mark.parametrize("origin", ["same", "cross"])
async def test_a_selection_in_an_iframe_sits_in_a_frame_group_and_is_located_through_it(
    tab: Page,
    page_server: str,
    other_origin: str,
    host: HostClient,
    shared: Shared,
    origin: str,
) -> None:
    frame_url = f"{page_server if origin == 'same' else other_origin}/frame.html"
    await tab.goto(f"{page_server}/pointing.html?frame={frame_url}")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "frame.html")
    await frame.evaluate(
        """() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    width = await frame.evaluate(
        "() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));"
        " return r.getBoundingClientRect().width; }"
    )
    page = our_page(await ask(host, shared), "pointing.html?frame=")
    group = find_one(page, lambda e: e.get("subrole") == "frame")
    assert group["role"] == "Group" and group["url"] == frame_url
    [text] = [c for c in group["children"] if c["role"] == "Text"]
    assert text["content"] == [{"type": "text", "text": "Words inside the frame"}]
    # The iframe's content box is at (300, 200) CSS px; the text at (10, 30) inside it.
    where = await locate(host, text["id"])
    x0, y0 = ORIGIN
    assert where["state"] == "visible"
    assert close(where["rects"][0], {"x": x0 + 310, "y": y0 + 230, "w": width, "h": 19}), where
    frame_where = await locate(host, group["id"])
    assert close(frame_where["rects"][0], {"x": x0 + 300, "y": y0 + 200, "w": 400, "h": 150}), frame_where


async def test_selections_in_fields_contenteditable_and_shadow_roots(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?fields")
    await tab.bring_to_front()

    # An <input>: the selection (selectionStart/End) sits in the focused textbox Group.
    await select_in_field(tab, "name", 8, 15)
    page = our_page(await ask(host, shared), "?fields")
    box = find_one(page, lambda e: e.get("subrole") == "textbox")
    assert box["focused"] is True and box["title"] == "Your name"
    assert box["content"] == [{"type": "text", "text": "Charles Babbage"}]
    [text] = box["children"]
    assert text["content"] == [{"type": "text", "text": "Babbage"}] and text["selected"] is True
    assert [e["role"] for e in find_all(page, lambda e: bool(e.get("focused")))] == ["Page", "Group"]
    field_rect = await box_css(tab, "name")
    where = await locate(host, text["id"])
    x0, y0 = ORIGIN
    expected = {"x": x0 + field_rect[0], "y": y0 + field_rect[1], "w": field_rect[2], "h": field_rect[3]}
    assert close(where["rects"][0], expected), where
    assert close((await locate(host, box["id"]))["rects"][0], expected)
    # Typing before the field selection moves it; it keeps naming "Babbage".
    await tab.evaluate(
        """() => { const f = document.getElementById('name'); f.value = 'Mr ' + f.value;
           f.dispatchEvent(new Event('input', {bubbles: true})); f.setSelectionRange(0, 2); }"""
    )
    assert (await locate(host, text["id"]))["state"] == "visible"
    await tab.evaluate(
        """() => { const f = document.getElementById('name'); f.value = 'Mr Charles';
           f.dispatchEvent(new Event('input', {bubbles: true})); }"""
    )
    assert (await locate(host, text["id"]))["state"] == "gone"

    # A <textarea>.
    await select_in_field(tab, "notes", 0, 10)
    box = find_one(our_page(await ask(host, shared), "?fields"), lambda e: e.get("subrole") == "textbox")
    assert box["title"] == "Notes" and box["children"][0]["content"][0]["text"] == "first line"

    # contenteditable: a DOM range inside the editing host's textbox Group.
    await tab.evaluate(
        """() => { const e = document.getElementById('editor'); e.focus(); const r = document.createRange();
           r.setStart(e.firstChild, 9); r.setEnd(e.firstChild, 14);
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    box = find_one(our_page(await ask(host, shared), "?fields"), lambda e: e.get("subrole") == "textbox")
    assert box["focused"] is True and box["content"][0]["text"] == "Editable words here"
    assert box["children"][0]["content"][0]["text"] == "words"

    # An open shadow root.
    await tab.evaluate(
        """() => { document.activeElement.blur();
           const p = document.getElementById('host').shadowRoot.getElementById('shadowed');
           const r = document.createRange(); r.setStart(p.firstChild, 5); r.setEnd(p.firstChild, 11);
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    [text] = selected_texts(await ask(host, shared))
    assert text["content"][0]["text"] == "inside"
    assert (await locate(host, text["id"]))["state"] == "visible"


async def test_sensitive_fields_report_no_text_and_no_selection(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?secret")
    await tab.bring_to_front()
    for field in ("secret", "card"):
        await tab.evaluate(
            "(id) => { const f = document.getElementById(id); f.focus(); f.select(); }", field
        )
        answer = await ask(host, shared)
        box = find_one(our_page(answer, "?secret"), lambda e: e.get("subrole") == "textbox")
        assert box["focused"] is True
        assert "content" not in box and "children" not in box
        assert selected_texts(answer) == []
        assert "hunter2" not in str(answer) and "4111" not in str(answer)


async def test_the_caret_in_a_field_is_a_focused_textbox_at_the_end_of_the_focus_path(
    tab: Page, page_server: str, other_origin: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?frame={other_origin}/frame.html")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "frame.html")
    await frame.click("#framefield")
    answer = await ask(host, shared)
    focused = find_all(answer["root"], lambda e: bool(e.get("focused")))
    assert [e["role"] for e in focused] == ["Window", "Page", "Group", "Group"]
    assert focused[2]["subrole"] == "frame" and focused[3]["subrole"] == "textbox"
    assert focused[3]["content"] == [{"type": "text", "text": "frame field"}]


async def test_typing_in_a_large_field_keeps_current_up_to_date(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    """A large focused field's text is not pushed per keystroke (content/report.js `pending`), yet
    `current` reports it as typed: at once (the worker pulls) and after typing pauses (pushed)."""
    await tab.goto(f"{page_server}/pointing.html")
    await tab.bring_to_front()
    size = 200_000
    await tab.evaluate(
        "(n) => { const f = document.getElementById('notes'); f.value = 'a'.repeat(n);"
        " f.focus(); f.setSelectionRange(0, 0); }",
        size,
    )
    await asyncio.sleep(0.1)
    for typed in ("H", "He", "Hel", "Hell", "Hello"):
        await tab.keyboard.type(typed[-1])
        answer = (await host.current(shared[1].pid)).raw  # no settling time: the worker must pull
        [box] = find_all(answer["root"], lambda e: e.get("subrole") == "textbox")
        assert box["focused"] is True
        assert box["attributes"] == {"truncated": True, "length": size + len(typed)}
        assert box["content"][0]["text"].startswith(typed + "a")
    await asyncio.sleep(0.8)  # typing paused: the text was pushed, and the tab is no longer pulled
    answer = await ask(host, shared)
    [box] = find_all(answer["root"], lambda e: e.get("subrole") == "textbox")
    assert box["attributes"]["length"] == size + 5 and box["content"][0]["text"].startswith("Helloa")


async def test_hover_marks_the_innermost_link_or_image_only(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?hover")
    await tab.bring_to_front()
    await tab.hover("#link")
    answer = await ask(host, shared)
    [hovered] = find_all(answer["root"], lambda e: bool(e.get("hovered")))
    assert hovered["role"] == "Link" and hovered["title"] == "Next page"
    assert hovered["url"] == f"{page_server}/other.html"
    box = await box_css(tab, "link")
    where = await locate(host, hovered["id"])
    x0, y0 = ORIGIN
    assert close(where["rects"][0], {"x": x0 + box[0], "y": y0 + box[1], "w": box[2], "h": box[3]}), where
    await tab.hover("#img")
    [hovered] = find_all((await ask(host, shared))["root"], lambda e: bool(e.get("hovered")))
    assert hovered["role"] == "Image" and hovered["title"] == "A small square"
    await tab.mouse.move(5, 5)
    assert find_all((await ask(host, shared))["root"], lambda e: bool(e.get("hovered"))) == []


async def test_the_pdf_viewer_is_a_document_with_subrole_pdf(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/hello.pdf")
    await tab.bring_to_front()
    page = our_page(await ask(host, shared), "hello.pdf")
    [document] = [c for c in page.get("children", []) if c["role"] == "Document"]
    assert document["subrole"] == "pdf" and document["url"] == f"{page_server}/hello.pdf"
    assert document["title"] == page["title"]
    where = await locate(host, document["id"])
    assert where["state"] == "visible" and close(where["rects"][0], {**where["rects"][0], "x": ORIGIN[0]})


async def test_focus_inside_a_same_origin_frame_is_a_focused_frame_group_without_gaps(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?frame={page_server}/frame.html")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "frame.html")
    # The content scripts run at document_idle, which may come after the frame's `load`: a click
    # before the frame's script runs is reported only once it runs. Wait for that, not a time.
    await wait_for_content_scripts(shared, "pointing.html", frames=2)
    await frame.click("#inner")  # focus moves into the frame; no field, no selection
    # The frame pushes its focus when the click lands; under heavy load the push can reach the
    # worker later than ask()'s 60 ms, so poll (the shape asserted is the same, gaps included).
    async with asyncio.timeout(5):
        while True:
            answer = await ask(host, shared)
            focused = find_all(answer["root"], lambda e: bool(e.get("focused")))
            if len(focused) > 2:
                break
    assert [e["role"] for e in focused] == ["Window", "Page", "Group"]
    assert focused[2]["subrole"] == "frame" and focused[2]["url"] == f"{page_server}/frame.html"


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


async def test_a_removed_iframe_takes_its_selection_with_it(
    tab: Page, page_server: str, other_origin: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?frame={other_origin}/frame.html&removed")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "frame.html")
    await frame.evaluate(
        """() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    [text] = selected_texts(await ask(host, shared))
    await tab.evaluate("() => document.getElementById('frame').remove()")
    # Stay quiet past PUSH_SETTLED_MS (250 ms), so `current` answers from pushes, not a pull:
    # only the frame's own `pagehide` push can have told the worker it is gone.
    await asyncio.sleep(0.4)
    answer = await ask(host, shared)
    assert selected_texts(answer) == []
    assert find_all(answer["root"], lambda e: e.get("subrole") == "frame") == []
    assert (await locate(host, text["id"]))["state"] == "gone"


@pytest.mark.parametrize("inner_origin", ["outer", "top"])
async def test_a_selection_two_iframes_deep_is_located_through_both(
    tab: Page, page_server: str, other_origin: str, host: HostClient, shared: Shared, inner_origin: str
) -> None:
    """Page → Group(outer, localhost) → Group(frame) → Text, the inner frame same-origin with the
    outer frame (localhost) or with the top (127.0.0.1): each level located, ids stable across
    answers, and the focus path marks both Groups once focus is in the inner frame."""
    # top (127.0.0.1) ─ iframe at (300, 200) ─ outer.html (localhost) ─ iframe at (20, 10) ─ frame.html
    inner_url = f"{other_origin if inner_origin == 'outer' else page_server}/frame.html"
    outer = f"{other_origin}/outer.html?inner={inner_url}"
    await tab.goto(f"{page_server}/pointing.html?frame={quote(outer, safe='')}")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "/frame.html")
    await frame.evaluate(
        """() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    width = await frame.evaluate(
        "() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));"
        " return r.getBoundingClientRect().width; }"
    )
    [text] = selected_texts(await ask(host, shared))
    where = await locate(host, text["id"])
    x0, y0 = ORIGIN
    assert where["state"] == "visible"
    assert close(where["rects"][0], {"x": x0 + 330, "y": y0 + 240, "w": width, "h": 19}), where

    await frame.click("#inner")  # focus into the inner frame; the click keeps no selection
    await frame.evaluate(
        """() => { const r = document.createRange(); r.selectNodeContents(document.getElementById('inner'));
           getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    answers = [await ask(host, shared), await ask(host, shared)]
    page = our_page(answers[0], "pointing.html?frame=")
    [outer_group] = [c for c in page["children"] if c.get("subrole") == "frame"]
    assert outer_group["url"] == outer and outer_group.get("focused") is True
    [inner_group] = [c for c in outer_group["children"] if c.get("subrole") == "frame"]
    assert inner_group["url"] == inner_url and inner_group.get("focused") is True
    [inner_text] = [c for c in inner_group["children"] if c["role"] == "Text"]
    assert inner_text["content"] == [{"type": "text", "text": "Words inside the frame"}]
    focused = find_all(answers[0]["root"], lambda e: bool(e.get("focused")))
    assert [e["role"] for e in focused] == ["Window", "Page", "Group", "Group"]
    again = our_page(answers[1], "pointing.html?frame=")
    assert again["children"] == page["children"]  # ids stable
    # The outer iframe's content box is at (300, 200) CSS px, 400 x 150; the inner at (20, 10) in it.
    outer_where = await locate(host, outer_group["id"])
    assert outer_where["state"] == "visible"
    assert close(outer_where["rects"][0], {"x": x0 + 300, "y": y0 + 200, "w": 400, "h": 150}), outer_where
    inner_where = await locate(host, inner_group["id"])
    assert inner_where["state"] == "visible"
    assert close(inner_where["rects"][0], {"x": x0 + 320, "y": y0 + 210, "w": 300, "h": 120}), inner_where


async def test_a_long_selection_sends_only_rects_near_the_viewport_and_avoid_is_what_shows(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    """A selection of 6000 lines (108,000 CSS px tall), scrolled to its middle: `location` sends the
    lines within one viewport of the viewport and `avoid` is the selection as far as the viewport
    shows it (docs/protocol.md "location": long selections), not the whole 108,000 px."""
    await tab.goto(f"{page_server}/pointing.html")
    inner_w, inner_h = await tab.evaluate(
        """() => { document.body.innerHTML = '<div id="long" style="font: 16px/18px monospace; margin: 0">'
             + Array.from({length: 6000}, (_, i) => 'line ' + i).join('<br>') + '</div>';
           document.body.style.margin = '0';
           window.scrollTo(0, 54000);
           const r = document.createRange(); r.selectNodeContents(document.getElementById('long'));
           const s = getSelection(); s.removeAllRanges(); s.addRange(r);
           return [innerWidth, innerHeight]; }"""
    )
    page = our_page(await ask(host, shared), "pointing.html")
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
