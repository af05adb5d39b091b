"""`location` (design.md §1.2) of a selection in a CSS-transformed iframe: scaled,
translated and scaled, zoomed (CSS `zoom`), under a scaled ancestor, a scaled frame inside a
scaled frame, same-origin and cross-origin, exact within 2 pt; rotated, the bounding box of the
rotated passage. The word is selected by a real double-click at the place the test computes from
the page's CSS: the gesture lands on the word only if that place is where the browser shows it,
so the expected rect is the real screen position (the harness maps the top viewport to the
screen: pointing_harness.ORIGIN).

Pages: tests/pages/transformed.html (an iframe at (300, 200), 400 x 150, its transform `t`, a
wrapper's `wrap`), outer.html (`t`: its inner iframe at (20, 10), 300 x 120, transformed),
frame.html (the words at (10, 30)).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from urllib.parse import quote

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.pointing_harness import ORIGIN, Shared, ask, locate, pointing_fixtures
from tests.e2e.test_pointing_selection import wait_for_content_scripts, wait_for_frame
from tests.e2e.tree import selected_texts

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("location-transformed")

TOLERANCE_PT = 2.0
"""Exact within 2 pt."""

Point = tuple[float, float]
Map = Callable[[Point], Point]
Matrix = tuple[float, float, float, float]
"""The linear part (a, b, c, d) of a CSS matrix: X = a·x + c·y, Y = b·x + d·y."""


def scale(s: float) -> Matrix:
    return (s, 0.0, 0.0, s)


def rotate(deg: float) -> Matrix:
    r = math.radians(deg)
    return (math.cos(r), math.sin(r), -math.sin(r), math.cos(r))


def through_iframe(left: float, top: float, w: float, h: float, m: Matrix, shift: Point = (0, 0)) -> Map:
    """A child viewport point → its parent's viewport, through an iframe (no border, no padding)
    at (left, top), w x h, transformed by `m` then moved by `shift` around its centre (CSS's
    default transform-origin)."""
    ox, oy = left + w / 2, top + h / 2

    def to_parent(p: Point) -> Point:
        x, y = left + p[0] - ox, top + p[1] - oy
        return ox + m[0] * x + m[2] * y + shift[0], oy + m[1] * x + m[3] * y + shift[1]

    return to_parent


def about_origin(m: Matrix) -> Map:
    """A transform with transform-origin 0 0 at the viewport's top-left (transformed.html's wrapper)."""
    return lambda p: (m[0] * p[0] + m[2] * p[1], m[1] * p[0] + m[3] * p[1])


def compose(*maps: Map) -> Map:
    """Innermost first."""

    def run(p: Point) -> Point:
        for f in maps:
            p = f(p)
        return p

    return run


def mapped_box(f: Map, rect: list[float]) -> dict[str, float]:
    """The bounding box, top-viewport CSS px, of the rect `[x, y, w, h]` through `f`."""
    x, y, w, h = rect
    corners = [f((x, y)), f((x + w, y)), f((x, y + h)), f((x + w, y + h))]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return {"x": min(xs), "y": min(ys), "w": max(xs) - min(xs), "h": max(ys) - min(ys)}


WORD_RECT = """() => { const t = document.getElementById('inner').firstChild;
  const r = document.createRange(); r.setStart(t, 6); r.setEnd(t, 12);
  const q = r.getBoundingClientRect(); return [q.x, q.y, q.width, q.height]; }"""
"""The word `inside` of frame.html's `Words inside the frame`, in the frame's CSS px."""

TOP = (300, 200, 400, 150)
"""transformed.html's iframe: left, top, width, height (CSS px)."""
INNER = (20, 10, 300, 120)
"""outer.html's inner iframe."""

CASES: dict[str, tuple[str, str, str, Map]] = {
    # name: (the iframe's `t`, the wrapper's `wrap`, outer.html's inner `t` or "" for no nesting, map)
    # CSS zoom 0.8 on the iframe: its left and top are zoomed too, and its content.
    "zoom": ("", "", "", lambda p: (0.8 * (300 + p[0]), 0.8 * (200 + p[1]))),
    "scale": ("scale(0.8)", "", "", through_iframe(*TOP, scale(0.8))),
    # A pure translation was already placed right before; with a scale it was not.
    "translate-scale": (
        "translate(30px, -20px) scale(0.9)", "", "", through_iframe(*TOP, scale(0.9), (30, -20)),
    ),
    "scaled-ancestor": (
        "", "scale(0.75)", "", compose(through_iframe(*TOP, scale(1)), about_origin(scale(0.75))),
    ),
    "scale-in-scale": (
        "scale(0.8)", "", "scale(0.5)",
        compose(through_iframe(*INNER, scale(0.5)), through_iframe(*TOP, scale(0.8))),
    ),
    "rotate": ("rotate(10deg)", "", "", through_iframe(*TOP, rotate(10))),
}  # fmt: skip


@pytest.mark.parametrize("origin", ["same", "cross"])
@pytest.mark.parametrize("case", list(CASES))
async def test_a_selection_in_a_transformed_frame_is_located_where_it_shows(
    tab: Page,
    page_server: str,
    other_origin: str,
    host: HostClient,
    shared: Shared,
    case: str,
    origin: str,
) -> None:
    transform, wrap, inner_transform, to_top = CASES[case]
    base = page_server if origin == "same" else other_origin
    frame_url = f"{base}/frame.html"
    if inner_transform:
        frame_url = f"{base}/outer.html?t={quote(inner_transform)}&inner={quote(frame_url, safe='')}"
    query = f"frame={quote(frame_url, safe='')}&t={quote(transform)}&wrap={quote(wrap)}"
    if case == "zoom":
        query += "&zoom=0.8"
    await tab.goto(f"{page_server}/transformed.html?{query}")
    await tab.bring_to_front()
    frame = await wait_for_frame(tab, "/frame.html")
    await wait_for_content_scripts(shared, "transformed.html", frames=3 if inner_transform else 2)

    # A real double-click where the test says the word shows: it selects the word only if so.
    word = mapped_box(to_top, await frame.evaluate(WORD_RECT))
    await tab.mouse.dblclick(word["x"] + word["w"] / 2, word["y"] + word["h"] / 2)
    assert await frame.evaluate("() => getSelection().toString()") == "inside"
    selected = await frame.evaluate(
        "() => { const q = getSelection().getRangeAt(0).getBoundingClientRect();"
        " return [q.x, q.y, q.width, q.height]; }"
    )
    expected = mapped_box(to_top, selected)

    [text] = selected_texts(await ask(host, shared))
    assert text["content"] == [{"type": "text", "text": "inside"}]
    where = await locate(host, text["id"])
    assert where["state"] == "visible"
    [rect] = where["rects"]
    x0, y0 = ORIGIN
    want = {"x": x0 + expected["x"], "y": y0 + expected["y"], "w": expected["w"], "h": expected["h"]}
    print(case, origin, rect, want)
    assert all(abs(rect[k] - want[k]) <= TOLERANCE_PT for k in want), (rect, want)
