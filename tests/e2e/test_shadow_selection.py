"""Selections made by real input inside shadow roots: open, closed and nested
roots, a `display: contents` host, a contenteditable and form fields inside roots. Each is reported
as a selected Text placed like any other (in the Page, or in the focused textbox Group), located
within 2 pt, and its id follows the passage through an edit.

After a real gesture inside a shadow root Chromium's document selection spans the host from the
host's parent; the extension reaches the range with `getComposedRanges` and, for closed roots,
`chrome.dom.openOrClosedShadowRoot` (content/selection.js `shadowRange`). The `Input.API` variant
(`addRange` on a range inside an open root) stays covered in test_pointing_selection.py.

Page: tests/pages/shadow.html (`at(root, id)` names a node inside a root, for measuring only).
Geometry and fixtures: tests/e2e/pointing_harness.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import (
    Input,
    box_of,
    click_into,
    double_click_word,
    drag_select,
    frame_origin,
    on_users_click,
    select_in_field,
    text_rect,
)
from tests.e2e.pointing_harness import ORIGIN, Shared, ask, locate, our_page, pointing_fixtures
from tests.e2e.tree import find_all, find_one, selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("shadow-selection")

TOLERANCE_PT = 2.0
"""A located selection within 2 pt of where the page draws it."""


def near(actual: dict[str, float], expected: dict[str, float]) -> bool:
    """Whether rects `{x, y, w, h}` agree within TOLERANCE_PT on every side."""
    return all(abs(actual[k] - expected[k]) <= TOLERANCE_PT for k in ("x", "y", "w", "h"))


def on_screen(css: dict[str, float]) -> dict[str, float]:
    """A viewport rect in CSS px as screen points (the pages have no zoom)."""
    return {"x": ORIGIN[0] + css["x"], "y": ORIGIN[1] + css["y"], "w": css["w"], "h": css["h"]}


async def open_page(tab: Page, page_server: str, query: str) -> None:
    """Load shadow.html in `tab`, in front."""
    await tab.goto(f"{page_server}/shadow.html?{query}")
    await tab.bring_to_front()


async def the_selected_text(
    host: HostClient, shared: Shared, query: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`(page, text)`: our Page in a fresh `current` and its one selected Text."""
    answer = await ask(host, shared)
    [text] = selected_texts(answer)
    return our_page(answer, query), text


@pytest.mark.parametrize(
    ("root", "start", "end", "word"),
    [
        ("open", 6, 11, "bravo"),
        ("closed", 6, 10, "echo"),
        ("inner", 5, 10, "hotel"),  # an open root inside a closed one
        ("contents", 7, 11, "kilo"),  # the host is `display: contents`
    ],
)
async def test_a_double_clicked_word_in_a_shadow_root_is_a_located_selected_text(
    tab: Page, page_server: str, host: HostClient, shared: Shared, root: str, start: int, end: int, word: str
) -> None:
    query = f"dbl-{root}"
    await open_page(tab, page_server, query)
    target = f"at({root!r})"
    await double_click_word(tab, target, start, end, how=Input.REAL)
    assert await tab.evaluate("getSelection().toString()") == word  # what the user sees selected

    page, text = await the_selected_text(host, shared, query)
    assert text["content"] == [{"type": "text", "text": word}]
    assert text in page["children"]  # placed like any other: in the Page
    where = await locate(host, text["id"])
    assert where["state"] == "visible"
    expected = on_screen(await text_rect(tab, target, start, end))
    assert near(where["rects"][0], expected), (where, expected)


async def test_a_drag_in_a_closed_root_keeps_its_id_through_an_edit(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await open_page(tab, page_server, "drag-closed")
    await drag_select(tab, "at('closed')", 6, 18, backward=True)  # "echo foxtrot", right to left
    _, text = await the_selected_text(host, shared, "drag-closed")
    assert text["content"] == [{"type": "text", "text": "echo foxtrot"}]

    # The page edits the text before the passage: the live range moves with it, the id stays.
    await tab.evaluate("at('closed').firstChild.insertData(0, 'zulu zulu ')")
    _, again = await the_selected_text(host, shared, "drag-closed")
    assert again["id"] == text["id"]
    where = await locate(host, text["id"])
    expected = on_screen(await text_rect(tab, "at('closed')", 16, 28))
    assert where["state"] == "visible" and near(where["rects"][0], expected), (where, expected)

    # Deleting the passage makes the id `gone`.
    await tab.evaluate("at('closed').firstChild.deleteData(10, 18)")
    assert (await locate(host, text["id"]))["state"] == "gone"


async def test_a_selection_in_a_contenteditable_inside_a_closed_root_is_in_its_textbox(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await open_page(tab, page_server, "editor")
    await click_into(tab, "at('editor')")  # focus by a click, then select with the keyboard
    await double_click_word(tab, "at('editor')", 5, 13)
    answer = await ask(host, shared)
    box = find_one(our_page(answer, "editor"), lambda e: e.get("subrole") == "textbox")
    assert box["focused"] is True and box["content"] == [{"type": "text", "text": "mike november oscar"}]
    [text] = box["children"]
    assert text["selected"] is True and text["content"] == [{"type": "text", "text": "november"}]
    where = await locate(host, text["id"])
    expected = on_screen(await text_rect(tab, "at('editor')", 5, 13))
    assert near(where["rects"][0], expected), (where, expected)

    # Shift+arrows extend it; typing before it keeps the id on the passage.
    await tab.keyboard.press("Shift+ArrowRight")
    await tab.keyboard.press("Shift+ArrowRight")
    [text2] = selected_texts(await ask(host, shared))
    assert text2["content"] == [{"type": "text", "text": "november o"}] and text2["id"] == text["id"]


@pytest.mark.parametrize(
    ("root", "field", "kind", "start", "end", "word"),
    [
        ("fields", "f", "input", 5, 11, "quebec"),
        ("fields", "a", "textarea", 7, 12, "tango"),
        ("closedfields", "f", "input", 7, 14, "whiskey"),
    ],
)
async def test_keyboard_selection_in_a_field_inside_a_shadow_root_is_in_its_textbox(
    tab: Page,
    page_server: str,
    host: HostClient,
    shared: Shared,
    root: str,
    field: str,
    kind: str,
    start: int,
    end: int,
    word: str,
) -> None:
    query = f"field-{root}-{field}"
    await open_page(tab, page_server, query)
    target = f"at({root!r}, {field!r})"
    await select_in_field(tab, target, start, end, how=Input.REAL)
    answer = await ask(host, shared)
    box = find_one(our_page(answer, query), lambda e: e.get("subrole") == "textbox")
    assert box["focused"] is True
    assert [e["role"] for e in find_all(our_page(answer, query), lambda e: bool(e.get("focused")))] == [
        "Page",
        "Group",
    ]
    [text] = box["children"]
    assert text["selected"] is True and text["content"] == [{"type": "text", "text": word}]
    field_box = await box_of(tab, target)
    where = await locate(host, text["id"])
    assert near(where["rects"][0], on_screen(field_box)), where

    # The page's script edits the value before the passage, as the browser would announce it
    # (a composed `input` event), from its handler of the user's key press (a selection a script
    # moves with no input is not the user's): the passage moves and keeps its id; deleting it
    # makes it gone.
    await on_users_click(
        tab,
        f"""() => {{ const f = {target}; f.value = 'Mr ' + f.value;
              f.setSelectionRange({start + 3}, {end + 3});
              f.dispatchEvent(new InputEvent('input', {{bubbles: true, composed: true}})); }}""",
        key="Shift",
    )
    [moved] = selected_texts(await ask(host, shared))
    assert moved["id"] == text["id"] and moved["content"] == [{"type": "text", "text": word}]
    await tab.evaluate(
        f"""() => {{ const f = {target}; f.value = 'gone';
              f.dispatchEvent(new InputEvent('input', {{bubbles: true, composed: true}})); }}"""
    )
    assert (await locate(host, text["id"]))["state"] == "gone"


async def test_a_word_in_a_closed_root_inside_a_cross_origin_frame_sits_in_the_frame_group(
    tab: Page, page_server: str, other_origin: str, host: HostClient, shared: Shared
) -> None:
    """The frame's own content script reads its shadow roots: the Text is in the frame Group and is
    located through the iframe (at (300, 200) CSS px in pointing.html)."""
    frame_url = f"{other_origin}/shadow.html"
    await tab.goto(f"{page_server}/pointing.html?frame={frame_url}")
    await tab.bring_to_front()
    async with asyncio.timeout(10):
        while not [f for f in tab.frames if f != tab.main_frame and "shadow.html" in f.url]:
            await asyncio.sleep(0.05)
    [frame] = [f for f in tab.frames if f != tab.main_frame and "shadow.html" in f.url]
    await frame.wait_for_load_state()
    await double_click_word(frame, "at('closed')", 6, 10)  # "echo"
    answer = await ask(host, shared)
    group = find_one(our_page(answer, "pointing.html?frame="), lambda e: e.get("subrole") == "frame")
    [text] = [c for c in group.get("children", []) if c["role"] == "Text"]
    assert text["selected"] is True and text["content"] == [{"type": "text", "text": "echo"}]
    where = await locate(host, text["id"])
    dx, dy = await frame_origin(frame)
    inside = await text_rect(frame, "at('closed')", 6, 10)
    expected = on_screen({**inside, "x": inside["x"] + dx, "y": inside["y"] + dy})
    assert where["state"] == "visible" and near(where["rects"][0], expected), (where, expected)
