"""PDFs (docs/internals/extension.md "A PDF's text", "PDFs in the tree"; design.md §1.3, §2): a PDF tab's
text is its Page's text resource, read by pdf.js with a mark per page; a PDF shown in an iframe,
an <embed> or an <object> is a Document with subrole `pdf` inside its Page; while Chromium's own
viewer shows a PDF, its Document says that the selection cannot be read there.

Real PDFs: tests/pages/hello.pdf, and PDFs written at test time by tests/support/pdf_writer.py
(several pages, a title, a page without text), served from a folder of their own over http.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.page_resources_harness import (
    current_until,
    page_of,
    page_with_url,
    read_text,
    refusal,
    set_settings,
    uri_of,
)
from tests.e2e.page_tools_harness import ToolsBrowser, launch
from tests.e2e.tree import find_all
from tests.support.pages import served_pages
from tests.support.pdf_writer import pdf_bytes

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = Path(__file__).resolve().parent.parent / "pages"
REPORT_PAGES = [
    ["Quarterly report", "Revenue grew in every region."],
    ["Second page: costs", "Costs fell by a tenth."],
    ["Third page: outlook <b>bold</b> & more", "The outlook is steady."],
]
"""The lines of each page of report.pdf (the third has text that looks like HTML)."""


@pytest.fixture(scope="module")
def pdf_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A folder of PDFs written now (report.pdf: 3 pages and a title; blank.pdf: a page without
    text) with tests/pages' pdf_frames.html and hello.pdf, served over http; yields the base URL."""
    folder = tmp_path_factory.mktemp("pdfs")
    (folder / "report.pdf").write_bytes(pdf_bytes(REPORT_PAGES, title="The quarterly report"))
    (folder / "blank.pdf").write_bytes(pdf_bytes([[]]))
    for name in ("pdf_frames.html", "hello.pdf"):
        shutil.copy(PAGES / name, folder / name)
    with served_pages(folder) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tb(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ToolsBrowser]:
    """One browser for the module, the product's deadlines, allowed in file:// pages (as if the user
    had switched "Allow access to file URLs" on)."""
    async with launch(
        "polyfill", tmp_path_factory.mktemp("pdf"), deadline_ms=None, allow_file_access=True
    ) as running:
        yield running


async def test_a_pdf_tab_reads_as_its_text_with_a_mark_per_page(tb: ToolsBrowser, pdf_server: str) -> None:
    url = f"{pdf_server}/report.pdf"
    tab = await tb.running.new_page(url)
    try:
        page = await page_of(tb, url)
        async with tb.session() as session:
            contents = await read_text(session, uri_of(tb.descriptor.instance, page["id"], "text"))
    finally:
        await tab.close()
    text, meta = contents.text, contents.meta or {}
    print(f"report.pdf Markdown, _meta {meta}:\n{text}")
    assert meta.get("source") == "pdf" and meta.get("truncated") is False, meta
    assert meta.get("bytes") == len(text.encode("utf-8")), meta
    lines = text.splitlines()
    assert lines[0] == "# The quarterly report", lines[:3]
    marks = [line for line in lines if line.startswith("## Page ")]
    assert marks == ["## Page 1 of 3", "## Page 2 of 3", "## Page 3 of 3"]
    # Each page's lines follow its mark, in order, as the PDF shows them.
    at = 0
    for n, page_lines in enumerate(REPORT_PAGES, start=1):
        at = lines.index(f"## Page {n} of 3", at)
        following = [line for line in lines[at + 1 :] if line][: len(page_lines)]
        expected = [
            line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for line in page_lines
        ]
        assert following == expected, (n, following)


async def test_a_pdf_without_text_is_a_failed_read_that_says_why(tb: ToolsBrowser, pdf_server: str) -> None:
    url = f"{pdf_server}/blank.pdf"
    tab = await tb.running.new_page(url)
    try:
        page = await page_of(tb, url)
        async with tb.session() as session:
            message = await refusal(
                session, uri_of(tb.descriptor.instance, page["id"], "text"), "read_failed"
            )
    finally:
        await tab.close()
    assert "hold no text" in message, message


BOX_SIZE = (
    "(id) => { const r = document.getElementById(id).getBoundingClientRect(); return [r.width, r.height]; }"
)
"""The CSS px size of the element with id `id` in a page."""


async def test_a_local_pdf_is_read_once_local_files_are_switched_on(
    tb: ToolsBrowser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.mktemp("local-pdf") / "local report.pdf"
    path.write_bytes(pdf_bytes([["A local PDF, read from the disk"]]))
    url = path.as_uri()
    await set_settings(tb.running, localFiles=True)
    tab = await tb.running.new_page(url)
    try:
        page = await page_of(tb, url)
        async with tb.session() as session:
            contents = await read_text(session, uri_of(tb.descriptor.instance, page["id"], "text"))
    finally:
        await tab.close()
        await set_settings(tb.running, localFiles=False)
    assert contents.text.splitlines()[:3] == ["## Page 1 of 1", "", "A local PDF, read from the disk"], (
        contents.text
    )
    assert (contents.meta or {}).get("source") == "pdf"


def documents(page: dict[str, Any]) -> list[dict[str, Any]]:
    """The Document elements anywhere inside a Page element."""
    return find_all(page, lambda e: e.get("role") == "Document")


@pytest.mark.parametrize("how", ["iframe", "embed", "object"])
async def test_a_pdf_inside_a_page_is_a_document_with_subrole_pdf(
    tb: ToolsBrowser, pdf_server: str, how: str
) -> None:
    url = f"{pdf_server}/pdf_frames.html?{how}"
    pdf_url = f"{pdf_server}/hello.pdf"
    tab = await tb.running.new_page(url)
    try:
        await tab.bring_to_front()
        answer = await current_until(tb, lambda a: bool(documents(page_with_url(a, url) or {})))
        page = page_with_url(answer, url)
        assert page is not None
        [document] = documents(page)
        # The Document is where the PDF is drawn: inside the page's <iframe>/<embed>/<object>.
        box = await tab.evaluate(BOX_SIZE, how)
        async with tb.session() as session:
            where = await session.location(document["id"])
    finally:
        await tab.close()
    assert document["subrole"] == "pdf" and document["url"] == pdf_url, document
    assert document["title"] == "hello.pdf", document
    assert document["attributes"] == {"selection": "unreadable"}, document
    assert where.state == "visible" and where.rects, where
    assert abs(where.rects[0].w - box[0]) <= 2 and abs(where.rects[0].h - box[1]) <= 2, (where, box)


async def test_the_browsers_pdf_viewer_says_its_selection_cannot_be_read(
    tb: ToolsBrowser, pdf_server: str
) -> None:
    url = f"{pdf_server}/hello.pdf"
    tab = await tb.running.new_page(url)
    try:
        await tab.bring_to_front()
        answer = await current_until(tb, lambda a: bool(documents(page_with_url(a, url) or {})))
    finally:
        await tab.close()
    page = page_with_url(answer, url)
    assert page is not None
    [document] = documents(page)
    attributes = document.get("attributes", {})
    assert attributes.get("selection") == "unreadable", document
    assert "the Page's text resource (read_page)" in attributes.get("note", ""), document
