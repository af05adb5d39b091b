"""Hostile and unusual selection text still gives valid JSON and the right text (design.md §2)."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.tree import selected_texts

CAP_BYTES = 16 * 1024


async def _set_text(page: Any, element_id: str, script_text: str) -> None:
    await page.evaluate(
        "([id, t]) => { document.getElementById(id).textContent = t; }", [element_id, script_text]
    )


async def test_emoji_and_right_to_left_text_arrive_unchanged(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await select_text(page, "unicode")
    await asyncio.sleep(0.05)
    [text] = selected_texts(await ask_current(descriptor))
    assert text["content"][0]["text"] == "Emoji 😀👍🏽 and right-to-left: שלום עולם, مرحبا بالعالم."


async def test_lone_surrogates_are_replaced_and_never_break_json(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await page.evaluate(
        "() => { document.getElementById('big').textContent = 'left \\uD800 mid \\uDC00 right'; }"
    )
    await select_text(page, "big")
    await asyncio.sleep(0.05)
    [text] = selected_texts(await ask_current(descriptor))
    assert text["content"][0]["text"] == "left \ufffd mid \ufffd right"


async def test_a_megabyte_selection_is_capped_with_truncated_and_length(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await page.evaluate("() => { document.getElementById('big').textContent = 'é'.repeat(1 << 20); }")
    await select_text(page, "big")
    await asyncio.sleep(0.05)
    [text] = selected_texts(await ask_current(descriptor))
    body = text["content"][0]["text"]
    assert set(body) == {"é"}
    assert len(body.encode("utf-8")) <= CAP_BYTES
    assert len(body.encode("utf-8")) > CAP_BYTES - 4, "cut at the cap, on a code-point boundary"
    assert text["attributes"]["truncated"] is True
    assert text["attributes"]["length"] == 1 << 20
