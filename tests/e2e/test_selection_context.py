"""A selection's `before` / `after` are the text the user sees around it (docs/internals/protocol.md "Only
what the user can see"; content/visible_text.js `contextText`): no label only a screen reader
gets (the "visually hidden" pattern), no `aria-hidden` decoration (an icon's letter, a code
editor's line-number gutter), and a line break where a block ends, so two paragraphs are not glued
together.

Real Chromium, the real extension and native host, real mouse drags and Shift+arrows. The page is
tests/pages/context.html. Fixtures: tests/e2e/pointing_harness.py.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import double_click_word, drag_select, element_js
from tests.e2e.pointing_harness import Shared, ask_until, our_page, pointing_fixtures
from tests.e2e.tree import find_all

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("selection-context")

until = functools.partial(ask_until, limit_s=20.0)
"""Ask `current` until a check holds (a loaded 2-core machine: generous)."""


def selected(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The selected Text elements of the context page."""
    page = our_page(answer, "context.html")
    return find_all(page, lambda e: e["role"] == "Text" and bool(e.get("selected")))


def selected_is(text: str) -> Any:
    """A check: the page has one selected Text, `text`."""
    return lambda answer: [t["content"][0]["text"] for t in selected(answer)] == [text]


async def open_page(tab: Page, page_server: str) -> None:
    """Open the context page in front."""
    await tab.goto(f"{page_server}/context.html")
    await tab.bring_to_front()


async def test_a_paragraphs_context_is_the_seen_text_with_line_breaks_between_blocks(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await open_page(tab, page_server)
    await drag_select(tab, element_js("second"), 0, 8)
    answer = await until(host, shared, selected_is("Bicycles"), "the drag over 'Bicycles'")
    [text] = selected(answer)
    before, after = text["attributes"]["before"], text["attributes"]["after"]
    # The editor's screen-reader labels and icon letters are not what the user reads before it.
    assert before == "Cars wait at the crossing.\n", before
    assert after.startswith(" go first, then the cars.\n"), after
    # The code below: its lines, one per line, without the gutter's numbers.
    assert "997" not in after and "999" not in after, after
    assert after.endswith("const a = 1;\nconst b = a + 1;\nreturn b;"), after


async def test_a_code_lines_context_has_no_gutter_numbers(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    await open_page(tab, page_server)
    # A double-click on "const" of line 2, then Shift+arrows over " b": real keyboard selection.
    await double_click_word(tab, element_js("line2"), 0, 5)
    for _ in range(2):
        await tab.keyboard.press("Shift+ArrowRight")
    answer = await until(host, shared, selected_is("const b"), "Shift+arrows in the code")
    [text] = selected(answer)
    before, after = text["attributes"]["before"], text["attributes"]["after"]
    assert before.endswith("then the cars.\nconst a = 1;\n"), before
    assert not any(number in before for number in ("997", "998", "999")), before
    assert after == " = a + 1;\nreturn b;", after
