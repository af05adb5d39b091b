"""Code editors that keep their text or selection outside the DOM, in a real browser with real
input (docs/internals/extension.md "Code editors"): Monaco in its EditContext mode (Chromium's default: an
empty DOM selection, the focus on `div.native-edit-context`) and its textarea mode
(`editContext: false`: a 1 by 1 px hidden textarea holding an excerpt), CodeMirror 6 (virtualised: the
DOM holds only the lines in view). `current` gives the editor's own text (`attributes.editor` names
the editor read; `truncated` and the whole `length` past the cap) and `location` the rects the editor
draws the selection with, not the hidden textarea's.

Pages: tests/e2e/editor_pages.py builds them from the npm packages at test time. Geometry and
fixtures: tests/e2e/pointing_harness.py (one browser for the module; each test opens its own tab).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.editor_pages import MONACO_LINES, build_editor_pages
from tests.e2e.pointing_harness import ORIGIN, Shared, ask_until, close, locate, pointing_fixtures
from tests.e2e.tree import find_all, selected_texts
from tests.support.pages import served_pages

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("code-editors")

MONACO_LAYER = ".view-overlays .selected-text"
CODEMIRROR_LAYER = ".cm-selectionBackground"
MONACO_MODES = ["monaco.html", "monaco.html?textarea"]
CODEMIRROR_SELECTED = (
    "() => { const s = window.editor.state; return s.sliceDoc(s.selection.main.from, s.selection.main.to); }"
)
"""CodeMirror's own selected text, as the page reads it."""


@pytest.fixture(scope="module")
def editor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The editor pages (editor_pages.py), built into a temp folder and served on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("editor-pages")
    build_editor_pages(folder)
    with served_pages(folder) as url:
        yield url


async def open_editor(page: Page, url: str) -> None:
    """Open an editor page and wait until its editor is up."""
    await page.goto(url)
    await page.wait_for_function("document.title === 'ready'", timeout=30_000)


async def line_start(page: Page, line: int) -> tuple[float, float]:
    """Viewport CSS px of a point just right of the start of `line` (1-based), as the editor draws it."""
    x, y = await page.evaluate(
        """(n) => { const e = window.editor;
          if (e.state) {
            const c = e.coordsAtPos(e.state.doc.line(n).from);
            return [c.left + 1, (c.top + c.bottom) / 2];
          }
          const p = e.getScrolledVisiblePosition({lineNumber: n, column: 1});
          const b = e.getDomNode().getBoundingClientRect();
          return [b.left + p.left + 1, b.top + p.top + p.height / 2]; }""",
        line,
    )
    return float(x), float(y)


async def click_line(page: Page, line: int) -> None:
    """A real click at the start of `line`, then Home (the caret at its first column)."""
    x, y = await line_start(page, line)
    await page.mouse.click(x, y)
    await page.keyboard.press("Home")


async def drawn_rects(page: Page, layer: str) -> list[dict[str, float]]:
    """The editor's drawn selection elements (`layer` inside the editor's outer element), each cut
    to that element's box: viewport CSS px, as the page measures them."""
    rects: list[dict[str, float]] = await page.evaluate(
        """(layer) => { const root = document.querySelector('.monaco-editor, .cm-editor');
          const b = root.getBoundingClientRect();
          return [...root.querySelectorAll(layer)].map((e) => e.getBoundingClientRect()).map((r) => {
            const x = Math.max(r.left, b.left), y = Math.max(r.top, b.top);
            return {x, y, w: Math.min(r.right, b.right) - x, h: Math.min(r.bottom, b.bottom) - y}; })
            .filter((r) => r.w > 0 && r.h > 0); }""",
        layer,
    )
    return rects


def whole(length: int) -> Any:
    """A check on a Text: its `attributes.length` is `length` (a truncated Text's whole length)."""
    return lambda text: text.get("attributes", {}).get("length") == length


def in_points(css: dict[str, float]) -> dict[str, float]:
    """A top-frame rect in CSS px as `location` gives it: on screen, in points (zoom 1)."""
    return {"x": ORIGIN[0] + css["x"], "y": ORIGIN[1] + css["y"], "w": css["w"], "h": css["h"]}


async def the_text(host: HostClient, shared: Shared, check: Any, what: str) -> dict[str, Any]:
    """The one selected Text of `current` once `check(text)` holds."""

    def ok(answer: dict[str, Any]) -> bool:
        texts = selected_texts(answer)
        return len(texts) == 1 and check(texts[0])

    return selected_texts(await ask_until(host, shared, ok, what))[0]


async def assert_located_where_drawn(host: HostClient, page: Page, text: dict[str, Any], layer: str) -> None:
    """`location` of the Text gives the rects the editor draws its selection with."""
    drawn = await drawn_rects(page, layer)
    assert drawn, "the editor draws no selection"
    where = await locate(host, text["id"])
    assert where["state"] == "visible", where
    assert len(where["rects"]) == len(drawn), (where, drawn)
    for got, css in zip(where["rects"], drawn, strict=True):
        assert close(got, in_points(css)), (got, in_points(css))


async def focused_box(host: HostClient, shared: Shared) -> dict[str, Any]:
    """The one focused textbox Group of `current`, once it has content."""

    def boxes(answer: dict[str, Any]) -> list[dict[str, Any]]:
        return find_all(answer["root"], lambda e: e.get("subrole") == "textbox" and e.get("focused") is True)

    answer = await ask_until(
        host, shared, lambda a: len(boxes(a)) == 1 and "content" in boxes(a)[0], "the textbox"
    )
    return boxes(answer)[0]


def monaco_lines(first: int, last: int) -> str:
    """Lines `first..last` (0-based, inclusive) of the Monaco pages' document."""
    return "\n".join(f"line {i} alpha beta gamma" for i in range(first, last + 1))


@pytest.mark.parametrize("url", MONACO_MODES)
async def test_monaco_shift_arrow_selection_is_read_from_the_editor_and_located_where_drawn(
    tab: Page, editor_server: str, host: HostClient, shared: Shared, url: str
) -> None:
    await open_editor(tab, f"{editor_server}/{url}")
    await click_line(tab, 3)
    focused = await tab.evaluate("() => document.activeElement.className")
    assert ("inputarea" in focused) == ("textarea" in url), focused  # the mode the test means
    for _ in range(2):
        await tab.keyboard.press("Shift+ArrowDown")
    await tab.keyboard.press("Shift+End")
    expected = monaco_lines(2, 4)
    text = await the_text(host, shared, lambda t: t["content"][0]["text"] == expected, "Monaco's three lines")
    # Where Monaco draws the three lines, not its hidden textarea (`editContext: false`).
    await assert_located_where_drawn(host, tab, text, MONACO_LAYER)
    assert text["attributes"]["editor"] == "monaco", text
    assert text["attributes"]["before"].endswith("line 1 alpha beta gamma "), text
    assert "truncated" not in text["attributes"] and "partial" not in text["attributes"], text
    # The Text sits in the focused textbox (the EditContext element, or the hidden textarea),
    # whose content is Monaco's document, not the textarea's excerpt.
    box = await focused_box(host, shared)
    assert [c["id"] for c in box["children"]] == [text["id"]], box
    assert box["attributes"]["length"] == len(monaco_lines(0, MONACO_LINES - 1)), box["attributes"]
    assert box["content"][0]["text"].startswith(monaco_lines(0, 9)), box["content"]


@pytest.mark.parametrize("url", MONACO_MODES)
async def test_monaco_select_all_gives_the_whole_document_length(
    tab: Page, editor_server: str, host: HostClient, shared: Shared, url: str
) -> None:
    await open_editor(tab, f"{editor_server}/{url}")
    await click_line(tab, 10)
    await tab.keyboard.press("Control+a")
    doc = monaco_lines(0, MONACO_LINES - 1)
    text = await the_text(host, shared, whole(len(doc)), "the whole length")
    body = text["content"][0]["text"]
    assert text["attributes"]["truncated"] is True, text["attributes"]
    assert len(body) < len(doc) and doc.startswith(body), len(body)  # the worker's 16 KiB cap
    assert text["attributes"]["editor"] == "monaco"
    await assert_located_where_drawn(host, tab, text, MONACO_LAYER)


async def test_codemirror_select_all_in_a_virtualised_document_is_truncated_with_its_whole_length(
    tab: Page, editor_server: str, host: HostClient, shared: Shared
) -> None:
    await open_editor(tab, f"{editor_server}/codemirror.html")
    await click_line(tab, 5)
    await tab.keyboard.press("Control+a")
    doc: str = await tab.evaluate("() => window.doc")
    in_dom = await tab.evaluate("() => String(getSelection()).length")
    assert in_dom < len(doc) // 10, in_dom  # virtualised: the DOM holds a small part
    text = await the_text(host, shared, whole(len(doc)), "the whole length")
    body = text["content"][0]["text"]
    attributes = text["attributes"]
    assert attributes["truncated"] is True and attributes["editor"] == "codemirror", attributes
    assert len(body) > in_dom and doc.startswith(body), len(body)
    await assert_located_where_drawn(host, tab, text, CODEMIRROR_LAYER)
    # The focused textbox holds the editor's document, not the lines the DOM holds.
    box = await focused_box(host, shared)
    assert box["attributes"] == {"truncated": True, "length": len(doc)}, box.get("attributes")
    assert doc.startswith(box["content"][0]["text"]) and len(box["content"][0]["text"]) > in_dom


async def test_codemirror_mouse_drag_across_lines_is_read_from_the_editor_and_located_where_drawn(
    tab: Page, editor_server: str, host: HostClient, shared: Shared
) -> None:
    await open_editor(tab, f"{editor_server}/codemirror.html")
    x0, y0 = await line_start(tab, 2)
    x1, y1 = await line_start(tab, 6)
    await tab.mouse.move(x0 + 30, y0)
    await tab.mouse.down()
    await tab.mouse.move(x1 + 120, y1, steps=8)
    await tab.mouse.up()
    expected: str = await tab.evaluate(CODEMIRROR_SELECTED)
    assert expected.count("\n") == 4, expected
    text = await the_text(host, shared, lambda t: t["content"][0]["text"] == expected, "the dragged lines")
    await assert_located_where_drawn(host, tab, text, CODEMIRROR_LAYER)
    assert text["attributes"]["editor"] == "codemirror", text
    assert "truncated" not in text["attributes"], text


async def test_codemirror_shift_page_down_far_past_the_rendered_lines_reads_them_all(
    tab: Page, editor_server: str, host: HostClient, shared: Shared
) -> None:
    await open_editor(tab, f"{editor_server}/codemirror.html")
    await click_line(tab, 3)
    for _ in range(30):
        await tab.keyboard.press("Shift+PageDown")
    expected: str = await tab.evaluate(CODEMIRROR_SELECTED)
    in_dom = await tab.evaluate("() => String(getSelection()).length")
    assert expected.count("\n") > 500 and in_dom < len(expected) // 4, (expected.count("\n"), in_dom)
    text = await the_text(host, shared, whole(len(expected)), "the whole length")
    assert text["attributes"]["editor"] == "codemirror" and text["attributes"]["truncated"] is True
    assert expected.startswith(text["content"][0]["text"])
    await assert_located_where_drawn(host, tab, text, CODEMIRROR_LAYER)


async def test_a_selection_in_monacos_find_box_is_the_find_boxs_not_the_editors(
    tab: Page, editor_server: str, host: HostClient, shared: Shared
) -> None:
    await open_editor(tab, f"{editor_server}/monaco.html")
    await click_line(tab, 3)
    await tab.keyboard.press("Shift+End")
    await tab.keyboard.press("Control+f")
    await tab.wait_for_function("document.activeElement.closest('.find-widget') !== null")
    await tab.keyboard.type("beta gamma")
    await tab.keyboard.press("Shift+Home")
    text = await the_text(
        host, shared, lambda t: t["content"][0]["text"] == "beta gamma", "the find box's text"
    )
    assert "editor" not in text.get("attributes", {}), text


async def test_monaco_out_of_reach_in_textarea_mode_says_the_text_is_partial(
    tab: Page, editor_server: str, host: HostClient, shared: Shared
) -> None:
    await open_editor(tab, f"{editor_server}/monaco.html?textarea&noglobal")
    await click_line(tab, 10)
    await tab.keyboard.press("Control+a")
    excerpt: str = await tab.evaluate(
        "() => { const t = document.activeElement; return t.value.slice(t.selectionStart, t.selectionEnd); }"
    )
    assert 0 < len(excerpt) < len(monaco_lines(0, MONACO_LINES - 1)), len(excerpt)  # Monaco's excerpt
    text = await the_text(
        host, shared, lambda t: t.get("attributes", {}).get("partial") is True, "a partial Text"
    )
    assert text["attributes"]["editor"] == "monaco", text["attributes"]
    assert text["content"][0]["text"] == excerpt
    await assert_located_where_drawn(host, tab, text, MONACO_LAYER)
