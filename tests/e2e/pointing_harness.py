"""Harness for the pointing suite (test_pointing_location.py, test_pointing_selection.py): what the
user points at, in a real browser, held to exact values.

One browser serves a whole module (launching one costs seconds): a headless Chromium without
Playwright's viewport emulation, its window at (100, 50) points, so pages see the real window
geometry. Headless Chromium draws no toolbars but reports its viewport 87 points below the window's
top (chromium-recipe.md §3: inner height = outer height - 87), so the viewport's screen origin is
(100, 137) points. Each test opens its own tab and closes it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser, isolated_environment
from tests.e2e.tree import find_one

Shared = tuple[RunningBrowser, Descriptor]
"""The module's browser and its provider's descriptor."""

WINDOW_X, WINDOW_Y = 100, 50
"""Where `--window-position` puts the window, in points."""
HEADLESS_TOOLBAR_PT = 87
"""Headless Chromium's viewport sits this far below the window's top (chromium-recipe.md §3)."""
ORIGIN = (WINDOW_X, WINDOW_Y + HEADLESS_TOOLBAR_PT)
"""The top viewport's screen origin, in points."""
TOLERANCE_PT = 1.0
"""How far a located rect may be from the page's own measurement, in points (sub-pixel rounding)."""


def pointing_fixtures(prefix: str) -> tuple[Any, Any, Any]:
    """The module's fixtures `shared` (module scope: the browser, its folders under a `<prefix>` temp
    folder, and its provider's descriptor), `tab` and `host`. Use as
    `shared, tab, host = pointing_fixtures("name")`."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module")
    async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Shared]:
        """The module's browser and its provider's descriptor."""
        udd = tmp_path_factory.mktemp(prefix) / "udd"
        args = (f"--window-position={WINDOW_X},{WINDOW_Y}", "--window-size=900,700")
        with isolated_environment(udd.parent):  # the module's browser starts before any test's HOME
            async with launched_browser(udd, extra_args=args, real_window=True) as running:
                descriptor = await running.descriptor()
                yield running, descriptor

    @pytest_asyncio.fixture(loop_scope="module")
    async def tab(shared: Shared) -> AsyncIterator[Page]:
        """A new tab of the module's browser, closed after the test."""
        page = await shared[0].context.new_page()
        try:
            yield page
        finally:
            if not page.is_closed():
                await page.close()

    @pytest_asyncio.fixture(loop_scope="module")
    async def host(shared: Shared) -> HostClient:
        """The reference desktop host, reading the module browser's providers folder."""
        return HostClient(folder=shared[0].providers, timeout_s=10.0)

    return shared, tab, host


async def ask(host: HostClient, shared: Shared) -> dict[str, Any]:
    """`current` through the reference host, after the 50 ms design.md §1.1 allows."""
    await asyncio.sleep(0.06)
    result = await host.current(shared[1].pid)
    return result.raw


async def ask_until(
    host: HostClient,
    shared: Shared,
    check: Callable[[dict[str, Any]], bool],
    what: str,
    limit_s: float = 10.0,
) -> dict[str, Any]:
    """Ask `current` (as `ask`) until `check(answer)` holds; the answer. Fails after `limit_s`
    seconds with the last answer."""
    deadline = time.monotonic() + limit_s
    while True:
        answer = await ask(host, shared)
        if check(answer):
            return answer
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {limit_s} s; last answer {answer}")
        await asyncio.sleep(0.1)


async def locate(host: HostClient, element_id: str) -> dict[str, Any]:
    """`location` through the reference host (the id goes to the provider that issued it)."""
    return (await host.location(element_id)).to_wire()


def our_page(answer: dict[str, Any], url_part: str) -> dict[str, Any]:
    """The Page element whose url contains `url_part`."""
    return find_one(answer["root"], lambda e: e["role"] == "Page" and url_part in e.get("url", ""))


def close(actual: dict[str, float], expected: dict[str, float]) -> bool:
    """Whether rects `{x, y, w, h}` agree within TOLERANCE_PT on every side."""
    return all(abs(actual[k] - expected[k]) <= TOLERANCE_PT for k in ("x", "y", "w", "h"))
