"""The page on demand (design.md §2): each Page in `current` links its readable text (and,
when the user switched screenshots on, a capture of the active tab), and `resources/list` /
`resources/read` serve them in both MCP eras.

One browser (the page-tools harness, polyfill WebMCP: the pages here register no tools) serves the
whole module; each test opens its tabs and closes them, and puts back any setting it changed.
Pages: tests/pages/article.html (headings, a list, a table, a link and three secret fields the
test types into with the keyboard), long_article.html (~700 KB of text with multi-byte characters).
The stdio bridge, the CLI and the hostile page are in test_page_resources_paths.py.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp import types
from playwright.async_api import Page

from native_host.errors import WebctxError
from tests.e2e.gestures import click_into
from tests.e2e.page_resources_harness import (
    MAX_SIDE,
    OTHER_INSTANCE,
    TEXT_CAP,
    all_links,
    blob_bytes,
    close_tab,
    current_until,
    image_size,
    links_of,
    listed,
    no_lone_surrogates,
    open_background_tab,
    page_of,
    page_with_url,
    read_one,
    read_text,
    refusal,
    set_settings,
    uri_of,
)
from tests.e2e.page_tools_harness import ChangeWatcher, ToolsBrowser, launch, watch_list_changed
from tests.e2e.tree import find_all

pytestmark = pytest.mark.asyncio(loop_scope="module")

ARTICLE = "/article.html"
ARTICLE_TITLE = "The Analytical Engine, explained"
SECRETS = {"password": "hunter2-Zebra!", "card": "4111111111111111", "otp": "908172"}
"""What the test types into article.html's password, `cc-number` and `one-time-code` fields."""
ERAS = pytest.mark.parametrize("legacy", [True, False], ids=["2025-11-25", "2026-07-28"])


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tb(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[ToolsBrowser]:
    """One browser for the module, the product's deadlines (no WEBCTX_PAGE_TOOL_DEADLINE_MS)."""
    async with launch("polyfill", tmp_path_factory.mktemp("page-resources"), deadline_ms=None) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module")
async def article(tb: ToolsBrowser, page_server: str) -> AsyncIterator[Page]:
    """article.html in a new active tab, its secret fields filled with real keyboard input (a click
    into each field, then typing); closed after the test."""
    page = await tb.running.new_page(f"{page_server}{ARTICLE}")
    try:
        for field, secret in SECRETS.items():
            await click_into(page, f"document.getElementById({field!r})")
            await page.keyboard.type(secret)
        typed = await page.evaluate("(ids) => ids.map((id) => document.getElementById(id).value)", [*SECRETS])
        assert typed == list(SECRETS.values())
        yield page
    finally:
        await page.close()


def lines(text: str) -> list[str]:
    """`text`'s lines."""
    return text.splitlines()


@ERAS
async def test_an_article_links_its_text_and_reads_back_as_markdown_without_secrets(
    tb: ToolsBrowser, article: Page, page_server: str, legacy: bool
) -> None:
    url = f"{page_server}{ARTICLE}"
    instance = tb.descriptor.instance
    page = await page_of(tb, url)
    text_uri = uri_of(instance, page["id"], "text")
    links = links_of(page)
    # The link (design16.md "Links in the tree"); screenshots are off by default: no second link.
    assert links == {
        "text": {"type": "resource_link", "uri": text_uri, "name": ARTICLE_TITLE, "mimeType": "text/markdown"}
    }
    assert page.get("focused") is True

    async with tb.session(legacy=legacy) as session:
        assert session.protocol_version == ("2025-11-25" if legacy else "2026-07-28")
        # resources/list: the focused page's text first, as the tree names it.
        resources = await listed(session)
        assert resources, "resources/list is empty"
        first = resources[0]
        assert (first.uri, first.name, first.mime_type) == (text_uri, ARTICLE_TITLE, "text/markdown")
        assert sum(1 for r in resources if r.uri == text_uri) == 1

        contents = await read_text(session, text_uri)
        text = contents.text
        # The read is in the provider's activity (the popup's "Who read it"), without the text.
        entries = [e for e in await session.activity() if e.get("tool") == "resources/read"]
        assert entries and entries[0]["ok"] is True, entries
        assert entries[0]["elements"][0]["id"] == page["id"], entries[0]
        assert "Babbage" not in str(entries)
    print(f"article Markdown ({len(text.encode())} bytes):\n{text}")  # pytest -s shows it
    meta = contents.meta or {}
    assert meta.get("truncated") is False, meta
    assert meta.get("source") == "readability", meta
    assert meta.get("bytes") == len(text.encode("utf-8")), meta  # not cut: the whole Markdown
    assert not text.startswith("> webctx: truncated")

    # The text round-trips: every paragraph of the article as the page has it (those without a
    # link: a link becomes Markdown), with its structure as Markdown.
    paragraphs = await article.evaluate(
        "() => [...document.querySelectorAll('article p')].filter((p) => !p.querySelector('a'))"
        ".map((p) => p.textContent)"
    )
    assert len(paragraphs) == 4
    for paragraph in paragraphs:
        assert " ".join(paragraph.split()) in text, paragraph
    assert lines(text)[0] == f"# {ARTICLE_TITLE}", lines(text)[:3]
    assert "## How the engine was organised" in lines(text), "the h2 is not an ATX heading"
    assert "## Its parts" in lines(text)
    assert re.search(r"^\s*[-*+]\s+The mill, doing the four arithmetic operations$", text, re.M), "no list"
    assert re.search(r"^\|\s*Part\s*\|\s*Capacity\s*\|$", text, re.M), "no table header row"
    assert re.search(r"^\|\s*:?-{3,}:?\s*\|\s*:?-{3,}:?\s*\|$", text, re.M), "no table rule"
    assert re.search(r"^\|\s*Store\s*\|\s*1000 numbers\s*\|$", text, re.M), "no table row"
    assert "[the Science Museum's notes on the engine](https://example.org/babbage/engine)" in text
    # What the user typed into the secret fields is nowhere.
    for secret in SECRETS.values():
        assert secret not in text, secret
    assert no_lone_surrogates(text)


async def test_a_long_page_is_capped_at_256_kib_and_says_so(tb: ToolsBrowser, page_server: str) -> None:
    url = f"{page_server}/long_article.html"
    page_obj = await tb.running.new_page(url)
    try:
        await page_obj.wait_for_function("window.built === true")
        page = await page_of(tb, url)
        async with tb.session() as session:
            contents = await read_text(session, uri_of(tb.descriptor.instance, page["id"], "text"))
    finally:
        await page_obj.close()
    text, meta = contents.text, contents.meta or {}
    first, blank, *_ = lines(text)
    print(f"long page: first line {first!r}, _meta {meta}")
    assert first.startswith("> webctx: truncated") and "256 KiB" in first, first
    assert blank == ""
    assert meta.get("truncated") is True, meta
    assert isinstance(meta.get("bytes"), int) and meta["bytes"] > TEXT_CAP, meta
    body = text.split("\n\n", 1)[1]
    assert 0.9 * TEXT_CAP < len(body.encode("utf-8")) <= TEXT_CAP
    assert no_lone_surrogates(text)  # cut on a character boundary
    assert "Paragraph 0: café déjà vu 😀" in body and "Paragraph 3499" not in body


async def test_an_excluded_site_has_no_link_and_its_text_is_refused(
    tb: ToolsBrowser, other_origin: str
) -> None:
    url = f"{other_origin}/index.html"  # http://localhost:<port>: excluded alone, the rest stays
    tab = await open_background_tab(tb.running, url)
    try:
        page = await page_of(tb, url)
        uri = uri_of(tb.descriptor.instance, page["id"], "text")
        await set_settings(tb.running, excludedSites=["localhost"])
        answer = await current_until(tb, lambda a: page_with_url(a, url) is None)
        assert uri not in all_links(answer)
        async with tb.session() as session:
            assert uri not in [r.uri for r in await listed(session)]
            await refusal(session, uri, "not_shared")
    finally:
        await set_settings(tb.running, excludedSites=[])
        await close_tab(tb.running, tab)


async def test_a_background_tab_reads_its_text_but_not_a_screenshot_and_the_active_tab_is_captured(
    tb: ToolsBrowser, article: Page, page_server: str
) -> None:
    active_url, background_url = f"{page_server}{ARTICLE}", f"{page_server}/index.html"
    instance = tb.descriptor.instance
    tab = await open_background_tab(tb.running, background_url)
    await set_settings(tb.running, screenshots=True)
    try:
        answer = await current_until(
            tb, lambda a: "screenshot" in links_of(page_with_url(a, active_url) or {})
        )
        active, background = page_with_url(answer, active_url), page_with_url(answer, background_url)
        assert active is not None and background is not None
        shot = links_of(active)["screenshot"]
        assert shot["uri"] == uri_of(instance, active["id"], "screenshot")
        assert shot["mimeType"] in ("image/png", "image/jpeg") and shot["name"] == ARTICLE_TITLE
        # A background tab: no link in `current` (kept as small as before, protocol/resources.py
        # without_background_links), its text in resources/list, never a screenshot.
        assert links_of(background) == {}

        async with tb.session() as session:
            listed_uris = [r.uri for r in await listed(session)]
            assert shot["uri"] in listed_uris
            assert uri_of(instance, background["id"], "text") in listed_uris
            assert uri_of(instance, background["id"], "screenshot") not in listed_uris
            await refusal(session, uri_of(instance, background["id"], "screenshot"), "not_capturable")
            text = await read_text(session, uri_of(instance, background["id"], "text"))
            assert "The engine might compose elaborate pieces of music" in text.text

            # The active tab: a PNG or JPEG of the viewport (1280 x 720 CSS px, DPR 1 here).
            contents = await read_one(session, shot["uri"])
            assert isinstance(contents, types.BlobResourceContents), type(contents)
            small = check_image(contents)
            assert small["scale"] == 1 and (small["width"], small["height"]) == (1280, 720), small

            # A viewport wider than 1,600 px is scaled down to a longest side of 1,600.
            await article.set_viewport_size({"width": 2400, "height": 1200})
            try:
                big = check_image(await read_one(session, shot["uri"]))  # type: ignore[arg-type]
            finally:
                await article.set_viewport_size({"width": 1280, "height": 720})
        assert (big["width"], big["height"]) == (1600, 800) and 0.66 < big["scale"] < 0.67, big
    finally:
        await set_settings(tb.running, screenshots=False)
        await close_tab(tb.running, tab)


def check_image(contents: types.BlobResourceContents) -> dict[str, Any]:
    """Check a screenshot's blob against its mimeType and `_meta` (design16.md); return `_meta`."""
    assert isinstance(contents, types.BlobResourceContents), type(contents)
    mime, width, height = image_size(blob_bytes(contents))
    meta = dict(contents.meta or {})
    print(f"screenshot: {mime} {width}x{height}, _meta {meta}")
    assert mime == contents.mime_type
    assert max(width, height) <= MAX_SIDE
    assert (meta.get("width"), meta.get("height")) == (width, height), meta
    assert isinstance(meta.get("devicePixelRatio"), int | float) and meta["devicePixelRatio"] > 0, meta
    assert isinstance(meta.get("scale"), int | float) and 0 < meta["scale"] <= 1, meta
    return meta


async def test_a_closed_tab_and_another_instance_are_gone(tb: ToolsBrowser, page_server: str) -> None:
    url = f"{page_server}/other.html"
    tab = await open_background_tab(tb.running, url)
    page = await page_of(tb, url)
    uri = uri_of(tb.descriptor.instance, page["id"], "text")
    async with tb.session() as session:
        assert (await read_text(session, uri)).text  # readable while open
        # The same page id under another instance (a restarted provider, design.md §2): gone.
        await refusal(session, uri_of(OTHER_INSTANCE, page["id"], "text"), "gone")
        # A page id this instance never issued.
        await refusal(session, uri_of(tb.descriptor.instance, "tab-987654", "text"), "unknown")
        # HostClient answers it `gone` itself: no running provider has that instance (design.md §7).
        with pytest.raises(WebctxError) as gone:
            await tb.host.read_resource(uri_of(OTHER_INSTANCE, page["id"], "text"))
        assert gone.value.code == "gone", gone.value
        await close_tab(tb.running, tab)
        await current_until(tb, lambda a: page_with_url(a, url) is None)
        await refusal(session, uri, "gone")
        assert uri not in [r.uri for r in await listed(session)]


async def test_switching_page_text_off_removes_the_links_and_refuses_reads(
    tb: ToolsBrowser, article: Page, page_server: str
) -> None:
    url = f"{page_server}{ARTICLE}"
    instance = tb.descriptor.instance
    page = await page_of(tb, url)
    text_uri, shot_uri = uri_of(instance, page["id"], "text"), uri_of(instance, page["id"], "screenshot")
    async with tb.session() as session:
        # Screenshots are off by default: no link, and a read of the active tab's is refused.
        assert "screenshot" not in links_of(page)
        assert shot_uri not in [r.uri for r in await listed(session)]
        await refusal(session, shot_uri, "switched_off")

        await set_settings(tb.running, pageText=False)
        try:
            answer = await current_until(tb, lambda a: not all_links(a))
            assert page_with_url(answer, url) is not None  # the page is still reported, without links
            assert [r.uri for r in await listed(session) if r.uri.startswith("webctx://" + instance)] == []
            await refusal(session, text_uri, "switched_off")
        finally:
            await set_settings(tb.running, pageText=True)
        await page_of(tb, url)  # the link is back
        assert (await read_text(session, text_uri)).text


@ERAS
async def test_a_new_tab_sends_one_resources_list_changed(
    tb: ToolsBrowser, article: Page, page_server: str, legacy: bool
) -> None:
    await page_of(tb, f"{page_server}{ARTICLE}")  # the active tab: a page that reports (see below)
    await expect_one_list_changed_per_tab(tb, f"{page_server}/index.html", legacy=legacy)


KNOWN_BUG_BLANK_IN_FRONT = (
    "Known bug: while the active tab is one whose content script never reports "
    "(about:blank here; also pages extensions cannot script), the worker pushes `complete: false` "
    "once and then nothing (tree_push.js sends only when the tree differs), and the provider "
    "refreshes its resource list only on complete pushes (serving.py tree_changed), so a tab "
    "opening sends no resources/list_changed until some client asks `current`."
)


async def test_a_new_tab_sends_resources_list_changed_while_the_active_tab_is_about_blank(
    tb: ToolsBrowser, page_server: str
) -> None:
    blank = await tb.running.worker_eval("async () => (await chrome.tabs.create({url: 'about:blank'})).id")
    try:
        await current_until(tb, lambda a: [p.get("url") for p in focused_pages(a)] == ["about:blank"])
        silent = False
        try:
            await expect_one_list_changed_per_tab(tb, f"{page_server}/index.html", legacy=True, limit_s=2)
        except* TimeoutError:  # (out of the SDK client's task group)
            silent = True
        if silent:
            pytest.xfail(KNOWN_BUG_BLANK_IN_FRONT)  # passes once fixed; then delete this
    finally:
        await close_tab(tb.running, blank)


def focused_pages(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The Pages with `focused: true` in a `current` answer."""
    return find_all(answer["root"], lambda e: e.get("role") == "Page" and bool(e.get("focused")))


async def expect_one_list_changed_per_tab(
    tb: ToolsBrowser, url: str, *, legacy: bool, limit_s: float = 10
) -> None:
    """Open background tabs of `url` (a query each) under a list_changed watcher: the first within
    `limit_s` (it also proves the client's stream is up: a 2025 GET stream opens lazily), then one
    notification for each further tab, and one when a tab closes."""
    tabs: list[int] = []
    async with watch_list_changed(tb.descriptor, legacy=legacy, kind="resources") as watcher:
        try:
            async with asyncio.timeout(limit_s):
                while not watcher.times:
                    tabs.append(await open_background_tab(tb.running, f"{url}?warmup{len(tabs)}"))
                    await asyncio.sleep(0.5)
            for n in range(2):
                count = await quiet(watcher)  # past any late notification of the previous change
                tabs.append(await open_background_tab(tb.running, f"{url}?n{n}"))
                await watcher.next_after(count)
                await asyncio.sleep(0.5)  # a page load changes the tree several times: one set change
                assert len(watcher.times) == count + 1, (n, watcher.times[count:])
            count = await quiet(watcher)
            await close_tab(tb.running, tabs.pop())
            await watcher.next_after(count)
        finally:
            for tab in tabs:
                await close_tab(tb.running, tab)


async def quiet(watcher: ChangeWatcher, *, for_s: float = 0.5) -> int:
    """Wait until no notification arrived for `for_s` seconds; return how many there were."""
    while True:
        count = len(watcher.times)
        await asyncio.sleep(for_s)
        if len(watcher.times) == count:
            return count
