"""What the user points at, in a real browser: selections in every kind of place, the focused field,
hover, `lang` (SPEC §2), and where it all is on screen (`location`, SPEC §1.2), held to exact values.

One browser serves the whole module (launching one costs seconds): a headless Chromium without
Playwright's viewport emulation, its window at (100, 50) points, so pages see the real window
geometry. Headless Chromium draws no toolbars but reports its viewport 87 points below the window's
top (chromium-recipe.md §3: inner height = outer height − 87), so the viewport's screen origin is
(100, 137) points. Each test opens its own tab and closes it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from native_host.host_client import HostClient
from native_host.wire import Descriptor
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser
from tests.e2e.tree import find_all, find_one, selected_texts, walk

pytestmark = pytest.mark.asyncio(loop_scope="module")

WINDOW_X, WINDOW_Y = 100, 50
"""Where `--window-position` puts the window, in points."""
HEADLESS_TOOLBAR_PT = 87
"""Headless Chromium's viewport sits this far below the window's top (chromium-recipe.md §3)."""
ORIGIN = (WINDOW_X, WINDOW_Y + HEADLESS_TOOLBAR_PT)
"""The top viewport's screen origin, in points."""
TOLERANCE_PT = 1.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[RunningBrowser, Descriptor]]:
    """The module's browser and its provider's descriptor."""
    udd = tmp_path_factory.mktemp("pointing") / "udd"
    args = (f"--window-position={WINDOW_X},{WINDOW_Y}", "--window-size=900,700")
    async with launched_browser(udd, extra_args=args, real_window=True) as running:
        descriptor = await running.descriptor()
        yield running, descriptor


@pytest_asyncio.fixture(loop_scope="module")
async def tab(shared: tuple[RunningBrowser, Descriptor]) -> AsyncIterator[Page]:
    """A new tab of the module's browser, closed after the test."""
    page = await shared[0].context.new_page()
    try:
        yield page
    finally:
        if not page.is_closed():
            await page.close()


@pytest_asyncio.fixture(loop_scope="module")
async def host(shared: tuple[RunningBrowser, Descriptor]) -> HostClient:
    """The reference desktop host, reading the module browser's providers folder."""
    return HostClient(folder=shared[0].providers, timeout_s=10.0)


async def ask(host: HostClient, shared: tuple[RunningBrowser, Descriptor]) -> dict[str, Any]:
    """`current` through the reference host, after the 50 ms the SPEC allows (§4 freshness)."""
    await asyncio.sleep(0.06)
    result = await host.current(shared[1].pid)
    return result.raw


async def locate(host: HostClient, element_id: str) -> dict[str, Any]:
    """`location` through the reference host (the id goes to the provider that issued it)."""
    return (await host.location(element_id)).to_wire()


def our_page(answer: dict[str, Any], url_part: str) -> dict[str, Any]:
    """The Page element whose url contains `url_part`."""
    return find_one(answer["root"], lambda e: e["role"] == "Page" and url_part in e.get("url", ""))


def close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    return all(abs(actual[k] - expected[k]) <= TOLERANCE_PT for k in ("x", "y", "w", "h"))


SELECT_BOTH_LINES = """() => { const r = document.createRange();
  r.setStart(document.getElementById('line1').firstChild, 0);
  r.setEnd(document.getElementById('line2').firstChild, 3);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  return [...r.getClientRects()].map(q => q.width); }"""


async def line_widths_css(page: Page) -> tuple[float, float]:
    """The CSS px widths of line 1 and of `for` on line 2, measured by the page itself."""
    return tuple(  # type: ignore[return-value]
        await page.evaluate(
            """() => { const w = (node, a, b) => { const r = document.createRange();
              r.setStart(node, a); r.setEnd(node, b); return r.getBoundingClientRect().width; };
              const l1 = document.getElementById('line1').firstChild, l2 = document.getElementById('line2').firstChild;
              return [w(l1, 0, l1.length), w(l2, 0, 3)]; }"""
        )
    )


async def test_a_two_line_selection_is_located_one_rect_per_line_in_points(
    tab: Page, page_server: str, host: HostClient, shared: tuple[RunningBrowser, Descriptor]
) -> None:
    await tab.goto(f"{page_server}/pointing.html")
    await tab.evaluate(SELECT_BOTH_LINES)
    w1, w2 = await line_widths_css(tab)
    page = our_page(await ask(host, shared), "pointing.html")
    assert page["attributes"]["lang"] == "de"
    [text] = [c for c in page["children"] if c["role"] == "Text"]
    assert text["content"][0]["text"] == "Ada wrote the first programfor"  # absolutely placed: no line break
    where = await locate(host, text["id"])
    print(where)
    x0, y0 = ORIGIN
    assert where["state"] == "visible"
    assert len(where["rects"]) == 2
    assert close(where["rects"][0], {"x": x0 + 100, "y": y0 + 50, "w": w1, "h": 20}), where
    assert close(where["rects"][1], {"x": x0 + 100, "y": y0 + 70, "w": w2, "h": 20}), where
    assert close(where["avoid"], {"x": x0 + 100, "y": y0 + 50, "w": max(w1, w2), "h": 40}), where
