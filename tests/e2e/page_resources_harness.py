"""Harness for the page-on-demand suite (design.md §2 "The page on demand"): the links a Page
carries in `current`, the provider's `resources/list` / `resources/read`, the extension's settings,
and the size of an image without an imaging library.

Everything goes through the real browser, the real extension and native host, and the reference
host (`HostClient` sessions, the MCP SDK client) over real HTTP with the real token.
"""

from __future__ import annotations

import asyncio
import base64
import struct
from typing import Any, Literal

from mcp import types

from native_host.errors import WebctxError
from native_host.host import ProviderSession
from native_host.protocol.resources import READ_ERROR_FIXES
from tests.e2e.harness import RunningBrowser
from tests.e2e.page_tools_harness import ToolsBrowser
from tests.e2e.tree import find_all

Kind = Literal["text", "screenshot"]

TEXT_CAP = 256 * 1024
"""The provider's cap on a page's Markdown, UTF-8 bytes (design16.md: the host sends 262144)."""
MAX_SIDE = 1600
"""The longest side of a screenshot, px."""
OTHER_INSTANCE = "AAAAAAAAAAAAAAAAAAAAAA"
"""A well-formed instance (22 chars of URL-safe base64) that no provider of these tests runs."""

SET_SETTINGS = """async (changes) => {
  const {settings} = await chrome.storage.local.get('settings');
  await chrome.storage.local.set({settings: {...(settings ?? {}), ...changes}}); }"""
"""Change some of the extension's settings (the options page's storage), keeping the others."""


def uri_of(instance: str, page_id: str, kind: Kind) -> str:
    """`webctx://<instance>/<pageId>/<kind>` (design16.md "Resource URIs"), written out here on
    purpose: the test checks the product's URIs against the design, not against itself."""
    return f"webctx://{instance}/{page_id}/{kind}"


def page_with_url(answer: dict[str, Any], url: str) -> dict[str, Any] | None:
    """The Page element showing `url` in a `current` answer, or None."""
    pages = find_all(answer["root"], lambda e: e.get("role") == "Page" and e.get("url") == url)
    assert len(pages) <= 1, pages
    return pages[0] if pages else None


def links_of(page: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A Page's resource_links by kind (`text`, `screenshot`: the URI's last segment)."""
    links = [block for block in page.get("content", []) or [] if block.get("type") == "resource_link"]
    return {link["uri"].rsplit("/", 1)[-1]: link for link in links}


def all_links(answer: dict[str, Any]) -> list[str]:
    """Every resource_link URI anywhere in a `current` answer."""
    return [
        block["uri"]
        for element in find_all(answer["root"], lambda e: True)
        for block in element.get("content", []) or []
        if block.get("type") == "resource_link"
    ]


async def current_until(
    tb: ToolsBrowser, predicate: Any, *, legacy: bool = False, timeout_s: float = 10.0
) -> dict[str, Any]:
    """Ask `current` until `predicate(answer)` holds (the tree follows the browser within ~100 ms,
    more on a busy machine); return that answer. TimeoutError otherwise."""
    async with asyncio.timeout(timeout_s), tb.session(legacy=legacy) as session:
        while True:
            answer = (await session.current()).raw
            if predicate(answer):
                return answer
            await asyncio.sleep(0.1)


async def page_of(tb: ToolsBrowser, url: str, *, timeout_s: float = 10.0) -> dict[str, Any]:
    """The Page showing `url` once its text is offered: a link in `current` for a foreground Page,
    in `resources/list` for a background one (`current` leaves background links out)."""
    async with asyncio.timeout(timeout_s), tb.session() as session:
        while True:
            page = page_with_url((await session.current()).raw, url)
            if page is not None:
                text = uri_of(tb.descriptor.instance, page["id"], "text")
                if page.get("visible") is False:
                    if text in [r.uri for r in await listed(session)]:
                        return page
                elif "text" in links_of(page):
                    return page
            await asyncio.sleep(0.1)


async def read(session: ProviderSession, uri: str) -> types.ReadResourceResult:
    """`resources/read` of `uri` through the reference host (`ProviderSession.read_resource`: the
    session's time limit); WebctxError, `.code` the reason word, when the provider refuses."""
    return await session.read_resource(uri)


async def read_one(
    session: ProviderSession, uri: str
) -> types.TextResourceContents | types.BlobResourceContents:
    """The single contents item of `resources/read` of `uri`, checked to carry that URI."""
    result = await read(session, uri)
    [contents] = result.contents
    assert contents.uri == uri, contents.uri
    return contents


async def read_text(session: ProviderSession, uri: str) -> types.TextResourceContents:
    """`read_one`, checked to be Markdown text."""
    contents = await read_one(session, uri)
    assert isinstance(contents, types.TextResourceContents), type(contents)
    assert contents.mime_type == "text/markdown"
    return contents


async def refusal(session: ProviderSession, uri: str, reason: str) -> str:
    """The provider's message refusing `resources/read` of `uri`, checked to start with and be
    coded as the reason word `reason` (`gone`, `not_shared`, …: protocol/resources.py), through
    the reference host; AssertionError if it answers with contents."""
    try:
        result = await read(session, uri)
    except WebctxError as exc:
        assert exc.code == reason and exc.message.startswith(f"{reason}: "), (exc.code, exc.message)
        # What happened, whole (the real sentences fit), then exactly one fix, said once.
        fix = READ_ERROR_FIXES.get(reason)
        if fix is not None:
            assert exc.message.endswith(" " + fix) and exc.message.count(fix) == 1, exc.message
            assert "…" not in exc.message, exc.message
        return exc.message
    raise AssertionError(f"{uri} was read, not refused: {result.contents!r:.300}")


async def listed(session: ProviderSession) -> list[types.Resource]:
    """The provider's `resources/list` through the reference host."""
    return await session.list_resources()


async def set_settings(running: RunningBrowser, **changes: Any) -> None:
    """Change the extension's settings as the options page stores them (chrome.storage.local)."""
    await running.worker_eval(SET_SETTINGS, changes)


async def open_background_tab(running: RunningBrowser, url: str) -> int:
    """Open `url` in a background tab of the current window (chrome.tabs.create, active: false);
    return its tab id once it has loaded."""
    return int(
        await running.worker_eval(
            """async (url) => {
                 const tab = await chrome.tabs.create({url, active: false});
                 for (let i = 0; i < 200; i += 1) {
                   const now = await chrome.tabs.get(tab.id);
                   if (now.status === "complete" && now.url === url) return tab.id;
                   await new Promise((r) => setTimeout(r, 50));
                 }
                 throw new Error("the background tab did not load");
               }""",
            url,
        )
    )


async def close_tab(running: RunningBrowser, tab_id: int) -> None:
    """Close the tab `tab_id` (chrome.tabs.remove)."""
    await running.worker_eval("(id) => chrome.tabs.remove(id)", tab_id)


def image_size(data: bytes) -> tuple[str, int, int]:
    """(mimeType, width, height) of a PNG (IHDR, PNG spec §11.2.2) or baseline/progressive JPEG
    (the first SOF marker, ITU T.81 §B.2.2). ValueError for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return "image/png", width, height
    if data[:2] == b"\xff\xd8":
        pos = 2
        while pos + 4 <= len(data):
            if data[pos] != 0xFF:
                raise ValueError(f"bad JPEG marker at {pos}")
            marker = data[pos + 1]
            (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
                return "image/jpeg", width, height
            pos += 2 + length
        raise ValueError("no SOF marker in the JPEG")
    raise ValueError(f"not a PNG or JPEG: {data[:8]!r}")


def blob_bytes(contents: types.BlobResourceContents) -> bytes:
    """The decoded bytes of a blob (strict base64: no `data:` prefix, design16.md)."""
    return base64.b64decode(contents.blob, validate=True)


def no_lone_surrogates(text: str) -> bool:
    """True when `text` has no lone UTF-16 surrogate (a cut inside a character leaves one)."""
    return not any("\ud800" <= ch <= "\udfff" for ch in text)
