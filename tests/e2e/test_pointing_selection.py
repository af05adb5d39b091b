"""What the user points at, in a real browser: selections in every kind of place (frames two deep,
fields, contenteditable, shadow roots), sensitive fields, the focused field and the focus path,
hover, the PDF viewer (design.md §2), each located where that is the point (`location`, design.md §1.2).

Geometry and fixtures: tests/e2e/pointing_harness.py (one browser for the module, its window at
(100, 50) points; each test opens its own tab and closes it).
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import (
    click_into,
    double_click_word,
    element_js,
    on_users_click,
    select_element_text,
    select_in_field,
)
from tests.e2e.pointing_harness import ORIGIN, Shared, ask, close, locate, our_page, pointing_fixtures
from tests.e2e.tree import find_all, find_one, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

# One browser for the module, a new tab per test, the reference host reading its providers folder.
shared, tab, host = pointing_fixtures("pointing-selection")


async def box_css(page: Page, element_id: str) -> list[float]:
    """`[x, y, w, h]` of the element's border box, CSS px in the viewport, as the page measures it."""
    return list(
        await page.evaluate(
            "(id) => { const r = document.getElementById(id).getBoundingClientRect();"
            " return [r.x, r.y, r.width, r.height]; }",
            element_id,
        )
    )


async def wait_for_content_scripts(
    shared: Shared, url_part: str, *, frames: int, timeout_s: float = 10.0
) -> None:
    """Wait until webctx's content script runs in `frames` frames of the tab whose url contains
    `url_part` (they start at document_start; the tab may not list a frame yet). Raises TimeoutError
    after `timeout_s`."""
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
    await select_element_text(frame, "inner")  # a click and a Shift+click inside the frame
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
    await select_in_field(tab, element_js("name"), 8, 15)  # a click, then Shift+arrows
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
    await select_in_field(tab, element_js("notes"), 0, 10)
    box = find_one(our_page(await ask(host, shared), "?fields"), lambda e: e.get("subrole") == "textbox")
    assert box["title"] == "Notes" and box["children"][0]["content"][0]["text"] == "first line"

    # contenteditable: a DOM range inside the editing host's textbox Group.
    await double_click_word(tab, element_js("editor"), 9, 14)  # "words"; the click focuses it
    box = find_one(our_page(await ask(host, shared), "?fields"), lambda e: e.get("subrole") == "textbox")
    assert box["focused"] is True and box["content"][0]["text"] == "Editable words here"
    assert box["children"][0]["content"][0]["text"] == "words"

    # An open shadow root, selected by a page script with `addRange` right after the user's click
    # (the API path; real gestures in every kind of shadow root: test_shadow_selection.py).
    await on_users_click(
        tab,
        """() => { document.activeElement.blur();
           const p = document.getElementById('host').shadowRoot.getElementById('shadowed');
           const r = document.createRange(); r.setStart(p.firstChild, 5); r.setEnd(p.firstChild, 11);
           getSelection().removeAllRanges(); getSelection().addRange(r); }""",
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
        await click_into(tab, element_js(field))  # focus by a click, select all with the keyboard
        await tab.keyboard.press("Control+A")
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
    await tab.evaluate("(n) => { document.getElementById('notes').value = 'a'.repeat(n); }", size)
    await click_into(tab, element_js("notes"))  # the user clicks into the field, goes to its start
    await tab.keyboard.press("Control+Home")
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
    # A click before the frame's content script runs is reported only once it runs: wait for
    # the script in both frames, not a time.
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


async def test_a_removed_iframe_takes_its_selection_with_it(
    tab: Page, page_server: str, other_origin: str, host: HostClient, shared: Shared
) -> None:
    await tab.goto(f"{page_server}/pointing.html?frame={other_origin}/frame.html&removed")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "frame.html")
    await select_element_text(frame, "inner")  # a click and a Shift+click inside the frame
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
    await select_element_text(frame, "inner")  # a click and a Shift+click inside the frame
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
    await select_element_text(frame, "inner")  # a click and a Shift+click inside the frame
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
