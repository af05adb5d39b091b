"""A page that stops `selectionchange`, `focusin` and `mouseover` at window capture cannot hide
the user's gestures (docs/internals/extension.md "Pages that fight back"; content/user_input.js,
report.js, focus_hover.js): webctx's listeners are on the window at capture from document_start,
and where the page's own listener came first (a frame the page wrote with document.open(), which
erases every listener, then stopped the events before webctx's could be added again) a trusted
`pointerup` / `keyup` re-reads the selection and the focus, and `pointerover` stands for a
`mouseover` the page kept back.

Real Chromium, the real extension and native host, real mouse drags, Shift+arrows, clicks and
pointer moves. The page is tests/pages/hostile_listeners.html. Fixtures:
tests/e2e/pointing_harness.py.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from playwright.async_api import Frame, Page

from native_host.host import HostClient
from tests.e2e.gestures import box_of, double_click_word, drag_select, element_js, frame_origin, text_rect
from tests.e2e.pointing_harness import Shared, ask_until, pointing_fixtures
from tests.e2e.tree import find_all

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("hostile-listeners")

until = functools.partial(ask_until, limit_s=20.0)
"""Ask `current` until a check holds (a loaded 2-core machine: generous)."""


def all_selected(answer: dict[str, Any]) -> list[str]:
    """The texts of every selected Text in the answer (frames included)."""
    texts = find_all(answer["root"], lambda e: e["role"] == "Text" and bool(e.get("selected")))
    return [t["content"][0]["text"] for t in texts]


async def open_page(tab: Page, page_server: str) -> Frame:
    """Open the page in front; its written frame, once written."""
    await tab.goto(f"{page_server}/hostile_listeners.html")
    await tab.bring_to_front()
    await tab.wait_for_function("() => document.body.dataset.ready === '1'")
    [frame] = [f for f in tab.frames if f.parent_frame is not None]
    return frame


async def drag_in_frame(tab: Page, frame: Frame, element_id: str, start: int, end: int) -> None:
    """A real mouse drag over characters `[start, end)` of a frame element's text (one line)."""
    ox, oy = await frame_origin(frame)
    first = await text_rect(frame, element_js(element_id), start, start + 1)
    last = await text_rect(frame, element_js(element_id), end - 1, end)
    y = oy + first["y"] + first["h"] / 2
    await tab.mouse.move(ox + first["x"] + 0.5, y)
    await tab.mouse.down()
    await tab.mouse.move(ox + (first["x"] + last["x"] + last["w"]) / 2, y, steps=4)
    await tab.mouse.move(ox + last["x"] + last["w"] - 0.5, y, steps=4)
    await tab.mouse.up()


async def test_a_drag_and_shift_arrows_are_reported_on_a_page_that_stops_the_events(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    frame = await open_page(tab, page_server)
    await drag_select(tab, element_js("para"), 0, 3)
    await until(host, shared, lambda a: all_selected(a) == ["Ada"], "a drag in the top document")
    # In the written frame the page's listeners run before webctx's.
    await drag_in_frame(tab, frame, "fsecond", 0, 8)
    await until(host, shared, lambda a: all_selected(a) == ["Lovelace"], "a drag in the written frame")
    await double_click_word(frame, element_js("fpara"), 0, 7)
    for _ in range(9):
        await tab.keyboard.press("Shift+ArrowRight")
    await until(host, shared, lambda a: all_selected(a) == ["Babbage designed"], "Shift+arrows in the frame")


async def test_the_focus_and_the_hover_are_reported_where_the_page_stops_their_events_first(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    frame = await open_page(tab, page_server)
    ox, oy = await frame_origin(frame)
    notes = await box_of(frame, element_js("fnotes"))
    await tab.mouse.click(ox + notes["x"] + notes["w"] / 2, oy + notes["y"] + notes["h"] / 2)

    def focused(answer: dict[str, Any]) -> bool:
        boxes = find_all(answer["root"], lambda e: e.get("subrole") == "textbox" and bool(e.get("focused")))
        return any(b.get("title") == "Frame notes" for b in boxes)

    await until(host, shared, focused, "the click into the frame's textarea")
    link = await box_of(frame, element_js("flink"))
    await tab.mouse.move(ox + link["x"] + link["w"] / 2, oy + link["y"] + link["h"] / 2, steps=3)

    def hovered(answer: dict[str, Any]) -> bool:
        found = find_all(answer["root"], lambda e: bool(e.get("hovered")))
        return [(e["role"], e.get("title")) for e in found] == [("Link", "Frame link")]

    await until(host, shared, hovered, "the pointer over the frame's link")
