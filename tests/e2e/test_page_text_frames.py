"""A frame of another site is part of the page's readable text where it shows, read in its own
document, unless its site is excluded (docs/internals/extension.md "The page's text"; content/page_text.js
marks it, service_worker/page_frames.js reads and merges it): then none of its text appears, nor
that of the editor frame it writes into.

The real browser, extension and native host; the text is read as a desktop host reads it
(`resources/read` of the Page's text link). The allowed page is served from 127.0.0.1
(`page_server`), the other site is `localhost` (`other_origin`): tests/pages/excluded_frame.html
around excluded_child.html.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.e2e.page_resources_harness import (
    current_until,
    links_of,
    page_with_url,
    read_text,
    set_settings,
    uri_of,
)
from tests.e2e.page_tools_harness import ToolsBrowser, launch

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOP = "An allowed page around a frame of another site."
BALANCE = "Account balance 98765 for Quillon Marsh"
"""excluded_child.html's paragraph."""
DRAFT = "Draft:"
"""The text of the about:blank editor frame excluded_child.html?mode=blank writes."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tb(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ToolsBrowser]:
    """One browser for the module."""
    async with launch("polyfill", tmp_path_factory.mktemp("page-text-frames"), deadline_ms=None) as running:
        yield running


async def page_text(tb: ToolsBrowser, url: str, ready: str) -> str:
    """Open `url`, wait until its frames show `ready`, and read its text as a desktop host does."""
    page = await tb.running.new_page(url)
    try:
        await page.bring_to_front()
        async with asyncio.timeout(20):
            while not any([await f.locator(f"text={ready}").count() for f in page.frames]):
                await asyncio.sleep(0.05)
        answer = await current_until(
            tb, lambda a: "text" in links_of(page_with_url(a, url) or {}), timeout_s=20
        )
        shown = page_with_url(answer, url)
        assert shown is not None
        async with tb.session() as session:
            return (await read_text(session, uri_of(tb.descriptor.instance, shown["id"], "text"))).text
    finally:
        await page.close()


async def test_a_frame_of_another_site_is_read_where_it_shows(
    tb: ToolsBrowser, page_server: str, other_origin: str
) -> None:
    text = await page_text(tb, f"{page_server}/excluded_frame.html?child={other_origin}&mode=text", "98765")
    assert TOP in text and BALANCE in text, text
    assert text.index(TOP) < text.index(BALANCE), text
    assert "webctxframe" not in text, text


async def test_the_editor_frame_inside_a_frame_of_another_site_is_read_too(
    tb: ToolsBrowser, page_server: str, other_origin: str
) -> None:
    text = await page_text(tb, f"{page_server}/excluded_frame.html?child={other_origin}&mode=blank", DRAFT)
    assert BALANCE in text and DRAFT in text, text


@pytest.mark.parametrize("mode", ["text", "blank"])
async def test_an_excluded_sites_frame_never_appears_in_the_page_text(
    tb: ToolsBrowser, page_server: str, other_origin: str, mode: str
) -> None:
    await set_settings(tb.running, excludedSites=["localhost"])
    try:
        ready = "98765" if mode == "text" else DRAFT
        text = await page_text(
            tb, f"{page_server}/excluded_frame.html?child={other_origin}&mode={mode}", ready
        )
        assert TOP in text, text
        assert "98765" not in text and DRAFT not in text and "Quillon" not in text, text
        assert "webctxframe" not in text, text
    finally:
        await set_settings(tb.running, excludedSites=[])
