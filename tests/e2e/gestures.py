"""How e2e tests make a selection or move focus: with real input (the default) or through the DOM
API.

A test whose subject is "the user selects / focuses" drives it with real input events, as a user's
hand would: `page.mouse` double-clicks and drags, `page.keyboard` Shift+arrows, focus by a click.
Chromium handles real gestures differently from `Selection.addRange` (inside a shadow root a real
gesture leaves the document selection spanning the host), so a test that selects with the
API can pass while users see nothing. `Input.API` stays for the tests about the API path itself
(a page script that selects), so both paths stay covered. webctx reports a page script's selection
only right after the user's own input (docs/internals/protocol.md "Only the user's selection"), so the API
path runs the page's script from its handler of a real click (`on_users_click`), as a page's
"select this" button does.

Targets are named by a JavaScript expression evaluated in the page (`TargetJs`) that returns the
Text node or element, so a target inside a shadow root (open or closed, as far as the page's own
script can reach it) is named the same way as one in the light DOM. Positions are measured with
the page's own `Range.getBoundingClientRect` (CSS px in the frame's viewport; the tests' pages have
no zoom, so CSS px are Playwright's mouse units).
"""

from __future__ import annotations

import enum
from typing import Any

from playwright.async_api import Frame, Page

TargetJs = str
"""A JavaScript expression, evaluated in the page, giving a Text node (or an element whose first
child is one), e.g. `"document.getElementById('host').shadowRoot.querySelector('p')"`."""


class Input(enum.Enum):
    """How a gesture is made: `REAL` input events (mouse, keyboard) or the DOM `API`."""

    REAL = "real"
    API = "api"


async def on_users_click(
    page: Page | Frame, function_js: str, arg: Any = None, *, key: str | None = None
) -> Any:
    """Run `function_js` (a JavaScript function expression of one argument, called with `arg`) as
    the page's own script from its handler of the user's next click, then make that click with the
    real mouse, 2 px inside the frame's top-left corner (the tests' pages leave it empty); with
    `key` (e.g. "Shift"), from its `keydown` handler of that real key press instead (focus stays).
    Returns what the function returned. A page script's selection counts as the user's only right
    after the user's input (docs/internals/protocol.md "Only the user's selection")."""
    await page.evaluate(
        """([source, arg, type]) => { window.__testInput = new Promise((resolve, reject) => addEventListener(
             type, () => { try { resolve((0, eval)("(" + source + ")")(arg)); } catch (e) { reject(e); } },
             {capture: true, once: true})); }""",
        [function_js, arg, "keydown" if key else "click"],
    )
    top = page if isinstance(page, Page) else page.page
    if key:
        await top.keyboard.press(key)
    else:
        dx, dy = await frame_origin(page)
        await top.mouse.click(dx + 2, dy + 2)
    return await page.evaluate("() => window.__testInput")


def element_js(element_id: str) -> TargetJs:
    """The target expression for the element with id `element_id` in the light DOM."""
    return f"document.getElementById({element_id!r})"


_TEXT = "(() => { const t = (%s); return t.nodeType === 3 ? t : t.firstChild; })()"
"""Wraps a TargetJs into the Text node it names."""


async def word_center(page: Page | Frame, target: TargetJs, start: int, end: int) -> tuple[float, float]:
    """The centre of characters `[start, end)` of the target's text, CSS px in the viewport."""
    x, y = await page.evaluate(
        f"""([a, b]) => {{ const t = {_TEXT % target}; const r = document.createRange();
              r.setStart(t, a); r.setEnd(t, b); const box = r.getBoundingClientRect();
              return [box.x + box.width / 2, box.y + box.height / 2]; }}""",
        [start, end],
    )
    return float(x), float(y)


async def text_rect(page: Page | Frame, target: TargetJs, start: int, end: int) -> dict[str, float]:
    """`{x, y, w, h}` of characters `[start, end)` of the target's text, CSS px in the viewport."""
    x, y, w, h = await page.evaluate(
        f"""([a, b]) => {{ const t = {_TEXT % target}; const r = document.createRange();
              r.setStart(t, a); r.setEnd(t, b); const box = r.getBoundingClientRect();
              return [box.x, box.y, box.width, box.height]; }}""",
        [start, end],
    )
    return {"x": float(x), "y": float(y), "w": float(w), "h": float(h)}


async def double_click_word(
    page: Page | Frame, target: TargetJs, start: int, end: int, *, how: Input = Input.REAL
) -> None:
    """Select the word at `[start, end)` of the target's text (in a Page, or in a Frame: the
    frame's offset is added): a real double-click on its middle,
    or (`Input.API`) a Range over exactly those characters added to the document's selection by the
    page's handler of a real click (`on_users_click`)."""
    if how is Input.API:
        await on_users_click(
            page,
            f"""([a, b]) => {{ const t = {_TEXT % target}; const r = document.createRange();
                  r.setStart(t, a); r.setEnd(t, b);
                  getSelection().removeAllRanges(); getSelection().addRange(r); }}""",
            [start, end],
        )
        return
    x, y = await word_center(page, target, start, end)
    dx, dy = await frame_origin(page)
    top = page if isinstance(page, Page) else page.page
    await top.mouse.dblclick(dx + x, dy + y)


async def drag_select(
    page: Page, target: TargetJs, start: int, end: int, *, how: Input = Input.REAL, backward: bool = False
) -> None:
    """Select characters `[start, end)` of the target's text (one line): a real mouse drag from the
    left edge of character `start` to the right edge of character `end - 1` (from right to left
    when `backward`), or (`Input.API`) a Range over them."""
    if how is Input.API:
        await double_click_word(page, target, start, end, how=Input.API)
        return
    first = await text_rect(page, target, start, start + 1)
    last = await text_rect(page, target, end - 1, end)
    y = first["y"] + first["h"] / 2
    left = (first["x"] + 0.5, y)
    right = (last["x"] + last["w"] - 0.5, y)
    begin, finish = (right, left) if backward else (left, right)
    await page.mouse.move(*begin)
    await page.mouse.down()
    await page.mouse.move(*finish, steps=8)
    await page.mouse.up()


async def select_between(
    page: Page, start: tuple[TargetJs, int], end: tuple[TargetJs, int], *, how: Input = Input.REAL
) -> None:
    """Select from character `start[1]` of one Text to character `end[1]` (exclusive) of another,
    across lines or elements: a real click on the left part of the first character and a
    Shift+click on the right part of the last one, or (`Input.API`) a Range between them."""
    if how is Input.API:
        await on_users_click(
            page,
            f"""([a, b]) => {{ const r = document.createRange();
                  r.setStart({_TEXT % start[0]}, a); r.setEnd({_TEXT % end[0]}, b);
                  getSelection().removeAllRanges(); getSelection().addRange(r); }}""",
            [start[1], end[1]],
        )
        return
    first = await text_rect(page, start[0], start[1], start[1] + 1)
    last = await text_rect(page, end[0], end[1] - 1, end[1])
    await page.mouse.click(first["x"] + min(1.0, first["w"] / 4), first["y"] + first["h"] / 2)
    await page.keyboard.down("Shift")
    try:
        await page.mouse.click(last["x"] + last["w"] - min(1.0, last["w"] / 4), last["y"] + last["h"] / 2)
    finally:
        await page.keyboard.up("Shift")


async def select_element_text(page: Page | Frame, element_id: str, *, how: Input = Input.REAL) -> None:
    """Select the whole text of the light-DOM element `element_id`, from its first to its last
    non-blank character: a real click before the first one and a Shift+click after the last one
    (each scrolled into view first, so a text longer than the viewport works as a user's would),
    or (`Input.API`) `Range.selectNodeContents` (the old `harness.select_text`)."""
    if how is Input.API:
        await on_users_click(
            page,
            """id => { const r = document.createRange(); r.selectNodeContents(document.getElementById(id));
                       const s = getSelection(); s.removeAllRanges(); s.addRange(r); }""",
            element_id,
        )
        return
    top = page if isinstance(page, Page) else page.page
    dx, dy = await frame_origin(page)
    first = await _edge_char(page, element_id, last=False)
    await top.mouse.click(dx + first["x"] + min(1.0, first["w"] / 4), dy + first["y"] + first["h"] / 2)
    end = await _edge_char(page, element_id, last=True)
    await top.keyboard.down("Shift")
    try:
        x = dx + end["x"] + end["w"] - min(1.0, end["w"] / 4)
        await top.mouse.click(x, dy + end["y"] + end["h"] / 2)
    finally:
        await top.keyboard.up("Shift")


async def frame_origin(page: Page | Frame) -> tuple[float, float]:
    """Where the frame's viewport starts in the top viewport, CSS px ((0, 0) for a Page or the
    main frame): its iframe's border box (Playwright measures it in the top viewport, through
    nested frames) plus the iframe's border and padding. Untransformed frames only."""
    if isinstance(page, Page) or page.parent_frame is None:
        return 0.0, 0.0
    element = await page.frame_element()
    box = await element.bounding_box()
    assert box is not None, "the frame is not rendered"
    left, top = await element.evaluate(
        """e => { const s = getComputedStyle(e), pad = (side) => parseFloat(s["padding" + side]);
                  return [e.clientLeft + pad("Left"), e.clientTop + pad("Top")]; }"""
    )
    return box["x"] + float(left), box["y"] + float(top)


async def _edge_char(page: Page | Frame, element_id: str, *, last: bool) -> dict[str, float]:
    """The viewport rect (CSS px) of the element's first (or last) non-blank character, a
    surrogate pair counted as one, after scrolling it to the viewport's middle if it is outside."""
    x, y, w, h = await page.evaluate(
        """([id, last]) => {
             const walker = document.createTreeWalker(document.getElementById(id), NodeFilter.SHOW_TEXT);
             let node = null;
             while (walker.nextNode()) {
               if (!walker.currentNode.data.trim()) continue;
               if (!node || last) node = walker.currentNode;
               if (!last) break;
             }
             const data = node.data;
             let a = last ? data.trimEnd().length - 1 : data.length - data.trimStart().length;
             const unit = data.charCodeAt(a);
             let b = a + 1;
             if (!last && unit >= 0xd800 && unit <= 0xdbff) b = a + 2;
             if (last && unit >= 0xdc00 && unit <= 0xdfff) a -= 1;
             const r = document.createRange(); r.setStart(node, a); r.setEnd(node, b);
             let box = r.getBoundingClientRect();
             if (box.top < 0 || box.bottom > innerHeight) {
               scrollBy(0, box.top - innerHeight / 2);
               box = r.getBoundingClientRect();
             }
             return [box.x, box.y, box.width, box.height];
           }""",
        [element_id, last],
    )
    return {"x": float(x), "y": float(y), "w": float(w), "h": float(h)}


async def select_in_field(
    page: Page, field: TargetJs, start: int, end: int, *, how: Input = Input.REAL
) -> None:
    """Focus an input/textarea and select `[start, end)` of its value (one line): a real click into
    it, Ctrl+Home, then arrows and Shift+arrows; or (`Input.API`) `focus()` + `setSelectionRange`."""
    if how is Input.API:
        await on_users_click(
            page, f"([a, b]) => {{ const f = {field}; f.focus(); f.setSelectionRange(a, b); }}", [start, end]
        )
        return
    await click_into(page, field)
    await page.keyboard.press("Control+Home")
    for _ in range(start):
        await page.keyboard.press("ArrowRight")
    for _ in range(end - start):
        await page.keyboard.press("Shift+ArrowRight")


async def click_into(page: Page, element: TargetJs) -> None:
    """Focus an element as a user does: a real click on its box's middle."""
    box = await box_of(page, element)
    await page.mouse.click(box["x"] + box["w"] / 2, box["y"] + box["h"] / 2)


async def box_of(page: Page | Frame, element: TargetJs) -> dict[str, float]:
    """`{x, y, w, h}` of the element's border box, CSS px in the viewport, as the page measures it."""
    x, y, w, h = await page.evaluate(
        f"() => {{ const b = ({element}).getBoundingClientRect(); return [b.x, b.y, b.width, b.height]; }}"
    )
    return {"x": float(x), "y": float(y), "w": float(w), "h": float(h)}
