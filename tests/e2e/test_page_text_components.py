"""The page's readable text is the whole page (design: docs/internals/extension.md "The page's text"): the
text inside shadow roots, open and closed, with each slot showing its light-DOM nodes (a Lit
component), and the text of frames the page can reach (same origin, `srcdoc`, `about:blank`: a
TinyMCE editor's iframe), each where it shows, in document order; nothing hidden.

Real Chromium and the real extension; the pages are built at session time from the npm releases in
node_modules (tests/support/component_pages.py: lit, tinymce). The worker's own injection is
replayed as in tests/e2e/test_page_text_extraction.py, with the files page_read.js names.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.e2e.conftest import launched_browser
from tests.e2e.harness import RunningBrowser, isolated_environment
from tests.support import component_pages
from tests.support.pages import served_pages

pytestmark = pytest.mark.asyncio(loop_scope="module")

WORKER_READ = Path(__file__).resolve().parents[2] / "extension" / "service_worker" / "page_read.js"
WAIT_MS = 30_000
"""How long a page may take to load and render its components (a loaded 2-core machine)."""


def page_text_files() -> list[str]:
    """The files the worker injects for a page-text read (page_read.js PAGE_TEXT_FILES), in order."""
    found = re.search(r"PAGE_TEXT_FILES = \[(.*?)\]", WORKER_READ.read_text(encoding="utf-8"), re.S)
    assert found, "PAGE_TEXT_FILES not found in page_read.js"
    return re.findall(r'"([^"]+)"', found.group(1))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The component pages over http on 127.0.0.1."""
    folder = component_pages.build(tmp_path_factory.mktemp("component-pages"))
    with served_pages(folder) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def running(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RunningBrowser]:
    """The module's Chromium with the extension."""
    udd = tmp_path_factory.mktemp("page-text-components") / "udd"
    with isolated_environment(udd.parent):
        async with launched_browser(udd) as browser:
            yield browser


async def ready_page(running: RunningBrowser, url: str) -> Page:
    """Open `url` and wait until its script says it is ready (`body.dataset.ready`)."""
    page = await running.context.new_page()
    await page.goto(url, wait_until="load", timeout=WAIT_MS)
    await page.wait_for_function("() => document.body.dataset.ready === '1'", timeout=WAIT_MS)
    return page


async def read_text(running: RunningBrowser, page: Page) -> dict[str, Any]:
    """Inject the page-text files into the top frame from the service worker, as the worker does,
    and call webctxPageText."""
    answer: dict[str, Any] = await running.worker_eval(
        """async ([url, files]) => {
            const [tab] = await chrome.tabs.query({ url });
            const target = { tabId: tab.id, frameIds: [0] };
            await chrome.scripting.executeScript({ target, files });
            const [{ result }] = await chrome.scripting.executeScript({
                target, func: () => globalThis.webctxPageText({ maxBytes: 262144 }) });
            return result;
        }""",
        [page.url, page_text_files()],
    )
    return answer


def in_order(text: str, parts: list[str]) -> None:
    """Assert every one of `parts` is in `text`, in that order."""
    at = -1
    for part in parts:
        found = text.find(part, at + 1)
        assert found > at, f"{part!r} missing or out of order in {text!r}"
        at = found


async def test_open_closed_and_nested_shadow_roots_are_read_in_document_order_with_their_slots(
    running: RunningBrowser, site: str
) -> None:
    page = await ready_page(running, f"{site}/lit.html")
    markdown = (await read_text(running, page))["markdown"]
    in_order(
        markdown,
        [
            "Light words before.",
            "Card 1",
            "Shadow text of card 1.",
            "slotted light words",
            "After the slot of card 1.",
            "Closed shadow words.",
            "Outer shadow words.",
            "Shadow text of card inner.",
            "slotted into the inner card",
            "Light words after.",
        ],
    )
    # A light node assigned to no slot is not rendered; a hidden part of a closed root is hidden.
    assert "unslotted light words" not in markdown
    assert "Hidden closed words" not in markdown
    await page.close()


async def test_a_tinymce_editors_iframe_text_is_part_of_the_page_text(
    running: RunningBrowser, site: str
) -> None:
    page = await ready_page(running, f"{site}/tinymce.html")
    markdown = (await read_text(running, page))["markdown"]
    in_order(
        markdown,
        ["Notes", "Editor paragraph about tidal power.", "A second editor paragraph.", "Below the editor."],
    )
    await page.close()


async def test_same_origin_srcdoc_and_blank_frames_are_read_where_they_show(
    running: RunningBrowser, site: str
) -> None:
    page = await ready_page(running, f"{site}/frames.html")
    await page.frame_locator("#same").locator("p").wait_for(timeout=WAIT_MS)
    markdown = (await read_text(running, page))["markdown"]
    in_order(
        markdown,
        [
            "Top words before.",
            "Same-origin frame words.",
            "Srcdoc frame words.",
            "Blank frame words.",
            "Top words after.",
        ],
    )
    assert "Hidden frame words" not in markdown
    await page.close()
