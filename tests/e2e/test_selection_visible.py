"""A selected Text holds only what the user can see (docs/internals/protocol.md "Only what the user can
see"): text of hidden elements (the page text's hiding rules, content/hidden_text.js) is left out
of the selection's text and its `before`/`after`, and invisible characters are stripped
(content/text_clean.js), also in a field's value.

Real Chromium, the real extension and native host, real input through Playwright. The page is
tests/pages/visible_selection.html. Fixtures: tests/e2e/pointing_harness.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.async_api import Page

from native_host.host import HostClient
from tests.e2e.gestures import box_of, double_click_word, element_js, select_between, select_in_field
from tests.e2e.pointing_harness import Shared, ask, our_page, pointing_fixtures
from tests.e2e.tree import find_all

pytestmark = pytest.mark.asyncio(loop_scope="module")

shared, tab, host = pointing_fixtures("visible-selection")

WAIT_S = 20.0
"""How long a test waits for what must come (a loaded 2-core machine: generous)."""
TAGS = "".join(chr(c) for c in range(0xE0000, 0xE0080))
"""The Unicode tag characters (U+E0000 to U+E007F)."""


def selected(answer: dict[str, Any], url_part: str) -> list[dict[str, Any]]:
    """The selected Text elements in our Page."""
    page = our_page(answer, url_part)
    return find_all(page, lambda e: e["role"] == "Text" and bool(e.get("selected")))


async def until_selected(
    host: HostClient, shared: Shared, url: str, check: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    """Ask `current` until one selected Text passes `check`; that Text. Fails after WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while True:
        answer = await ask(host, shared)
        texts = selected(answer, url)
        if len(texts) == 1 and check(texts[0]):
            return texts[0]
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {WAIT_S} s; last answer {texts}")
        await asyncio.sleep(0.1)


def text_of(element: dict[str, Any]) -> str:
    """A Text element's content text."""
    return str(element["content"][0]["text"])


async def open_page(tab: Page, page_server: str, query: str = "") -> str:
    """Open visible_selection.html?`query` in front; the url part that names its Page."""
    await tab.goto(f"{page_server}/visible_selection.html?{query}")
    await tab.bring_to_front()
    return f"visible_selection.html?{query}"


async def test_a_page_selecting_hidden_lines_on_the_users_click_reports_only_the_visible_text(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    url = await open_page(tab, page_server, "inject")
    box = await box_of(tab, element_js("v"))
    await tab.mouse.click(box["x"] + 5, box["y"] + box["h"] / 2)  # the user clicks once
    selection = await tab.evaluate("() => getSelection().toString()")
    assert "INJECTED" in selection and "TRANSPARENT-INJECT" in selection  # the page did select them
    text = await until_selected(host, shared, url, lambda t: "Click anywhere." in text_of(t), "the selection")
    assert text_of(text) == "Click anywhere.", text
    assert text["attributes"].get("hiddenOmitted") is True, text
    assert "INJECT" not in str(text.get("attributes")), text


async def test_a_triple_click_on_a_paragraph_with_tag_characters_strips_them(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    url = await open_page(tab, page_server)
    box = await box_of(tab, element_js("tags"))
    await tab.mouse.click(box["x"] + 20, box["y"] + box["h"] / 2, click_count=3)
    text = await until_selected(
        host, shared, url, lambda t: "Visible tagged" in text_of(t), "the triple-click"
    )
    assert text_of(text).strip() == "Visible tagged words here.", ascii(text_of(text))
    assert not any(c in TAGS for c in str(text)), ascii(text)
    assert "hiddenOmitted" not in text.get("attributes", {}), text


async def test_a_drag_across_an_sr_only_and_a_display_none_span_leaves_their_text_out(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    url = await open_page(tab, page_server)
    first = "document.getElementById('mixed').firstChild"
    last = "document.getElementById('mixed').lastChild"
    await select_between(tab, (first, 0), (last, len("end.")))
    text = await until_selected(host, shared, url, lambda t: text_of(t).startswith("Start"), "the drag")
    assert text_of(text) == "Start middle end.", text
    assert "SECRET" not in str(text), text


async def test_the_context_of_a_double_clicked_word_leaves_hidden_text_out(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    url = await open_page(tab, page_server)
    await double_click_word(tab, element_js("word"), 0, len("target"))
    text = await until_selected(host, shared, url, lambda t: text_of(t) == "target", "the double-click")
    attributes = text["attributes"]
    assert attributes["before"].strip().endswith("Words before"), attributes
    assert attributes["after"].strip().startswith("words after"), attributes
    assert "CTX-" not in str(attributes), attributes


async def test_a_selection_in_a_field_keeps_its_value_but_strips_tag_characters(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    url = await open_page(tab, page_server)
    # The tag characters extend the "d" before them (one grapheme): one arrow press per letter.
    await select_in_field(tab, "document.getElementById('ta')", 0, len("typed text"))
    text = await until_selected(
        host, shared, url, lambda t: text_of(t).startswith("typed"), "the field selection"
    )
    assert text_of(text) == "typed text", ascii(text_of(text))


async def test_a_select_all_over_more_elements_than_a_read_judges_is_cut_there(
    tab: Page, page_server: str, host: HostClient, shared: Shared
) -> None:
    # 8,000 one-letter paragraphs: a read judges at most 5,000 elements (content/visible_text.js)
    # and reports no text it did not judge; the cut says so (`truncated`, the whole length).
    url = await open_page(tab, page_server, "many")
    box = await box_of(tab, element_js("v"))
    await tab.mouse.click(box["x"] + 5, box["y"] + box["h"] / 2)
    await tab.keyboard.press("Control+A")
    text = await until_selected(
        host, shared, url, lambda t: "Click anywhere." in text_of(t), "the select-all"
    )
    lines = text_of(text).split("\n")
    assert 4000 < lines.count("x") < 5000, len(lines)
    assert text["attributes"].get("truncated") is True, text["attributes"]
    assert text["attributes"]["length"] > len(text_of(text)), text["attributes"]
