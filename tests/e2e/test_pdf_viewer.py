"""webctx's PDF viewer (docs/internals/extension.md "A PDF's text"; design.md §2): with "Open PDFs in
webctx's viewer" on, a tab's PDF opens in the extension's viewer, whose text layer a real mouse drag
selects; that selection is the Page's Text in `current`, `location` finds it on screen, and the Page
is the PDF's (its address, its title, its text resource). Off (the default), the browser's own
viewer stays, and its Document's note says where to switch.

PDFs written at test time by tests/support/pdf_writer.py, served from a folder of their own over http.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.e2e.conftest import EXTENSION_ID
from tests.e2e.page_resources_harness import current_until, page_with_url, read_text, set_settings, uri_of
from tests.e2e.page_tools_harness import ToolsBrowser, launch
from tests.e2e.tree import find_all
from tests.support.pages import served_pages
from tests.support.pdf_writer import pdf_bytes

pytestmark = pytest.mark.asyncio(loop_scope="module")

LINES = [
    ["Quarterly report", "Revenue grew in every region."],
    ["Second page: costs", "Costs fell by a tenth."],
]
"""The lines of each page of report.pdf."""

VIEWER_PATH = "/viewer/viewer.html?file="
OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"


@pytest.fixture(scope="module")
def pdf_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """report.pdf (two pages, a title) served over http; yields the base URL."""
    folder = tmp_path_factory.mktemp("viewer-pdfs")
    (folder / "report.pdf").write_bytes(pdf_bytes(LINES, title="The quarterly report"))
    with served_pages(folder) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tb(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ToolsBrowser]:
    """One browser for the module, the product's deadlines, allowed in file:// pages (as if the user
    had switched "Allow access to file URLs" on)."""
    async with launch(
        "polyfill", tmp_path_factory.mktemp("pdf-viewer"), deadline_ms=None, allow_file_access=True
    ) as running:
        yield running


def texts(page: dict[str, Any]) -> list[dict[str, Any]]:
    """The Text elements anywhere inside a Page element."""
    return find_all(page, lambda e: e.get("role") == "Text")


def text_of(element: dict[str, Any]) -> str:
    """An element's text content blocks, joined."""
    blocks = element.get("content", [])
    return "".join(block.get("text", "") for block in blocks if block.get("type") == "text")


async def in_viewer(tab: Page, *, timeout_s: float = 15.0) -> None:
    """Wait until `tab` shows webctx's viewer with its first page's text layer drawn."""
    async with asyncio.timeout(timeout_s):
        while VIEWER_PATH not in tab.url:
            await asyncio.sleep(0.05)
    await tab.wait_for_selector(".textLayer span:has-text('Revenue grew')", timeout=timeout_s * 1000)


async def test_a_drag_in_webctxs_viewer_is_the_pdfs_selected_text(tb: ToolsBrowser, pdf_server: str) -> None:
    url = f"{pdf_server}/report.pdf"
    # Switched on as the user does: its checkbox in the options page.
    options = await tb.running.new_page(OPTIONS)
    try:
        await options.click("#pdf-viewer")
        await options.wait_for_function("document.getElementById('saved').textContent.startsWith('Saved')")
    finally:
        await options.close()
    tab = await tb.running.new_page(url)
    try:
        await tab.bring_to_front()
        await in_viewer(tab)
        span = tab.locator(".textLayer span", has_text="Revenue grew")
        box = await span.bounding_box()
        assert box is not None
        y = box["y"] + box["height"] / 2
        # A real drag across the words, from inside "Revenue" to the line's end.
        await tab.mouse.move(box["x"] + 2, y)
        await tab.mouse.down()
        await tab.mouse.move(box["x"] + box["width"] / 2, y, steps=5)
        await tab.mouse.move(box["x"] + box["width"] - 1, y, steps=5)
        await tab.mouse.up()
        answer = await current_until(
            tb, lambda a: any("grew in every" in text_of(t) for t in texts(page_with_url(a, url) or {}))
        )
        page = page_with_url(answer, url)
        assert page is not None
        [text] = [t for t in texts(page) if "grew in every" in text_of(t)]
        async with tb.session() as session:
            where = await session.location(text["id"])
            contents = await read_text(session, uri_of(tb.descriptor.instance, page["id"], "text"))
        # Back: the PDF in the browser's viewer again, kept there (its Document is reported, which
        # a tab sent on to the viewer never reports), not sent on to webctx's viewer once more.
        await tab.go_back()
        back = await current_until(
            tb, lambda a: bool(find_all(page_with_url(a, url) or {}, lambda e: e.get("role") == "Document"))
        )
        back_url = tab.url
    finally:
        await tab.close()
        await set_settings(tb.running, pdfViewer=False)
    print(f"Page {page}\nlocation {where}")
    assert page["url"] == url and page.get("title") == "The quarterly report", page
    assert text.get("selected") is True and text_of(text).rstrip() == "Revenue grew in every region.", text
    assert not find_all(page, lambda e: e.get("role") == "Document"), page  # no "unreadable" PDF Document
    assert "lang" not in page.get("attributes", {}), page  # the PDF has no /Lang; the viewer's own is none
    assert where.state == "visible" and where.rects, where
    assert back_url == url, (back_url, back)
    assert (contents.meta or {}).get("source") == "pdf", contents.meta
    assert "Costs fell by a tenth." in contents.text, contents.text


async def test_off_by_default_the_browsers_viewer_stays_and_says_where_to_switch(
    tb: ToolsBrowser, pdf_server: str
) -> None:
    url = f"{pdf_server}/report.pdf"
    tab = await tb.running.new_page(url)
    try:
        await tab.bring_to_front()
        answer = await current_until(
            tb, lambda a: bool(find_all(page_with_url(a, url) or {}, lambda e: e.get("role") == "Document"))
        )
        shown = tab.url
    finally:
        await tab.close()
    page = page_with_url(answer, url)
    assert page is not None and shown == url, (shown, page)
    [document] = find_all(page, lambda e: e.get("role") == "Document")
    assert document["attributes"]["selection"] == "unreadable", document
    assert "Open PDFs in webctx's viewer" in document["attributes"]["note"], document


async def test_a_local_pdf_opens_in_the_viewer_only_while_local_files_are_shared(
    tb: ToolsBrowser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("local-pdf") / "local.pdf"
    path.write_bytes(pdf_bytes(LINES, title="A local report"))
    url = path.as_uri()
    await set_settings(tb.running, pdfViewer=True, localFiles=False)
    tab = await tb.running.new_page(url)
    try:
        # Not shared: the browser's viewer stays (the tab's title is the file's, its address the file's).
        await tab.wait_for_function("document.contentType === 'application/pdf'")
        assert tab.url == url
        await tab.close()
        await set_settings(tb.running, localFiles=True)
        tab = await tb.running.new_page(url)
        await in_viewer(tab)
        answer = await current_until(
            tb, lambda a: (page_with_url(a, url) or {}).get("title") == "A local report"
        )
    finally:
        await tab.close()
        await set_settings(tb.running, pdfViewer=False, localFiles=False)
    page = page_with_url(answer, url)
    assert page is not None and page["url"] == url, page
