"""`current` from a real browser, read through the reference desktop host (design.md §1.1, §2)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.tree import find_all, find_one, selected_texts


async def test_selected_text_reaches_the_host_inside_its_page_with_the_focus_path(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    await select_text(page, "para")
    await asyncio.sleep(0.05)  # design.md §4 freshness: a change made ≥ 50 ms before must show
    answer = await ask_current(descriptor)

    assert set(answer) == {"protocol", "instance", "root"}
    assert answer["protocol"] == "0.2.0"
    assert answer["instance"] == descriptor.instance
    root = answer["root"]
    assert root["id"] == "app" and root["role"] == "Application"
    window = find_one(root, lambda e: e["role"] == "Window" and e.get("focused"))
    pages = [c for c in window.get("children", []) if c["role"] == "Page"]
    ours = [p for p in pages if p.get("url") == f"{page_server}/index.html"]
    assert len(ours) == 1
    ours_page = ours[0]
    assert ours_page["subrole"] == "tab"
    assert ours_page["title"] == "webctx test page"
    assert ours_page.get("focused") is True
    assert ours_page["id"].startswith("tab-")
    texts = [c for c in ours_page.get("children", []) if c["role"] == "Text"]
    assert len(texts) == 1
    text = texts[0]
    assert text["selected"] is True
    assert text["content"] == [
        {
            "type": "text",
            "text": "The quick brown fox jumps over the lazy dog. "
            "Selected text should reach the desktop host.",
        }
    ]
    # The focus path has no gaps: the focused window, then its focused page, nothing else focused.
    focused = find_all(root, lambda e: bool(e.get("focused")))
    assert [e["role"] for e in focused] == ["Window", "Page"]


async def test_selection_change_is_fresh_after_50_ms(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    seen = []
    for element_id, expected_start in (
        ("intro", "The engine"),
        ("outro", "Many persons"),
        ("para", "The quick"),
    ):
        await select_text(page, element_id)
        await asyncio.sleep(0.05)
        texts = selected_texts(await ask_current(descriptor))
        assert len(texts) == 1
        assert texts[0]["content"][0]["text"].startswith(expected_start)
        seen.append(texts[0]["id"])
    assert len(set(seen)) == 3, "each passage gets its own id"


@pytest.mark.parametrize("legacy", [True, False], ids=["2025-11-25", "2026-07-28"])
async def test_both_mcp_protocol_eras_call_current(
    browser: RunningBrowser, page_server: str, ask_current: Any, legacy: bool
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    answer = await ask_current(descriptor, legacy=legacy)
    assert answer["instance"] == descriptor.instance
    assert answer["root"]["role"] == "Application"


async def test_two_windows_and_several_tabs_report_visible_and_focused_as_the_spec_says(
    browser: RunningBrowser, page_server: str, ask_current: Any
) -> None:
    await browser.new_page(f"{page_server}/index.html")
    descriptor = await browser.descriptor()
    # A second window with three tabs, the middle one active, and focus on that window.
    second = await browser.worker_eval(
        """async ([a, b]) => {
             const w = await chrome.windows.create({url: a, focused: true});
             await chrome.tabs.create({windowId: w.id, url: b, active: true});
             await chrome.tabs.create({windowId: w.id, url: a, active: false});
             await chrome.windows.update(w.id, {focused: true});
             return w.id; }""",
        [f"{page_server}/index.html", f"{page_server}/other.html"],
    )
    assert isinstance(second, int)
    await asyncio.sleep(0.3)  # tabs finish loading their titles
    root = (await ask_current(descriptor))["root"]
    windows = [c for c in root["children"] if c["role"] == "Window"]
    assert len(windows) >= 2
    focused_windows = [w for w in windows if w.get("focused")]
    assert len(focused_windows) == 1
    focused_window = focused_windows[0]
    tabs = focused_window["children"]
    assert [t.get("url", "").rsplit("/", 1)[-1] for t in tabs] == ["index.html", "other.html", "index.html"]
    # Only the active tab of the focused window is focused; the others are background tabs.
    assert [bool(t.get("focused")) for t in tabs] == [False, True, False]
    assert [t.get("visible", True) for t in tabs] == [False, True, False]
    for window in windows:
        assert "visible" not in window or window["visible"] is True
        if window is not focused_window:
            assert not window.get("focused")
            assert not any(t.get("focused") for t in window.get("children", []))
            assert sum(1 for t in window.get("children", []) if t.get("visible", True)) == 1
    ids = [e["id"] for e in find_all(root, lambda e: True)]
    assert len(ids) == len(set(ids)), "ids are unique"
