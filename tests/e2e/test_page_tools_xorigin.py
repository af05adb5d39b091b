"""Cross-origin iframe tools end to end (design.md §5 scenario 11).

Runs twice, like test_page_tools_calls.py: against native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill. The top page is served from 127.0.0.1 (`page_server`), its
frames from localhost on another port (`other_origin`): tests/pages/xorigin.html embeds a frame
without `allow="tools"`, one with it whose tool is private, and one with it whose tools are
exposed to the top origin. The desktop host sees exactly what the top document's own
`getTools({fromOrigins:[frameOrigin]})` lists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Frame, Page

from tests.e2e.page_tools_harness import (
    DEADLINE_MS,
    ToolsBrowser,
    browser_per_mode,
    monotonic_ms,
    page_tools_of,
    text_of,
    wait_for_tools,
)
from tests.support.pages import QuietPageHandler, served_pages

pytestmark = pytest.mark.asyncio(loop_scope="module")

PAGES = Path(__file__).parent.parent / "pages"

TOP_GET_TOOLS = """async (child) => {
  const names = async (options) =>
    (await document.modelContext.getTools(options)).map((t) => `${t.name}@${t.origin}`);
  const out = {own: await names(), fromChild: await names({fromOrigins: [child]})};
  try {
    await document.modelContext.getTools({fromOrigins: ["http://insecure.example"]});
    out.insecure = "resolved";
  }
  catch (error) { out.insecure = error.name; }
  return out;
}"""
"""The top document's own view: without fromOrigins, with the frames' origin, with an insecure one."""


# One browser per WebMCP mode for the whole module.
tb = browser_per_mode("xorigin-tools")


async def frames_done(page: Page) -> dict[str, Frame]:
    """The three child frames by mode, once each has finished its registrations."""
    by_mode: dict[str, Frame] = {}
    started = monotonic_ms()
    while len(by_mode) < 3:
        assert monotonic_ms() - started < 10_000, [f.url for f in page.frames]
        for frame in page.frames:
            for mode in ("noallow", "private", "exposed"):
                if f"mode={mode}" in frame.url and mode not in by_mode:
                    by_mode[mode] = frame
        await page.wait_for_timeout(50)
    for frame in by_mode.values():
        await frame.wait_for_function("window.done === true", timeout=10_000)
    return by_mode


async def test_cross_origin_frame_tools_follow_allow_and_exposed_to(
    tb: ToolsBrowser, page_server: str, other_origin: str
) -> None:
    url = f"{page_server}/xorigin.html?child={other_origin}"
    page = await tb.open(f"/xorigin.html?child={other_origin}", page_server)
    try:
        frames = await frames_done(page)
        # The browser's (or the polyfill's) answers inside the frames.
        assert await frames["noallow"].evaluate("window.results") == {
            "noallow": "NotAllowedError",
            "getTools": "NotAllowedError",
        }
        assert await frames["private"].evaluate("window.results") == {"private": "ok"}
        assert await frames["exposed"].evaluate("window.results") == {
            "exposed": "ok",
            "slow": "ok",
            "insecure": "SecurityError",
        }
        # The top document's own view.
        view = await page.evaluate(TOP_GET_TOOLS, other_origin)
        assert view == {
            "own": [f"top_tool@{page_server}"],
            "fromChild": [
                f"frame_exposed@{other_origin}",
                f"frame_slow@{other_origin}",
                f"top_tool@{page_server}",
            ],
            "insecure": "SecurityError",
        }
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "frame_slow" in page_tools_of(ts, url))
            ours = page_tools_of(tools, url)
            assert set(ours) == {"top_tool", "frame_exposed", "frame_slow"}  # not private_tool, noallow_tool
            exposed = ours["frame_exposed"]
            meta = exposed.meta or {}
            assert meta["frameOrigin"] == other_origin
            assert meta["frameUrl"] == f"{other_origin}/xorigin_child.html?mode=exposed"
            assert meta["origin"] == page_server and meta["url"] == url
            assert "frameOrigin" not in (ours["top_tool"].meta or {})
            assert other_origin in (exposed.description or "")
            result = await session.call_tool(exposed.name, {"x": 3})
            assert not result.is_error, text_of(result)
            assert result.structured_content == {"origin": other_origin, "doubled": 6}

            # Removing the frame removes its tools.
            await page.evaluate("document.getElementById('exposed').remove()")
            await wait_for_tools(session, lambda ts: set(page_tools_of(ts, url)) == {"top_tool"})
    finally:
        await page.close()


async def test_a_frame_navigating_mid_call_is_an_error_and_its_tools_leave(
    tb: ToolsBrowser, page_server: str, other_origin: str
) -> None:
    url = f"{page_server}/xorigin.html?child={other_origin}"
    page = await tb.open(f"/xorigin.html?child={other_origin}", page_server)
    try:
        frames = await frames_done(page)
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "frame_slow" in page_tools_of(ts, url))
            slow = page_tools_of(tools, url)["frame_slow"]
            call = asyncio.ensure_future(session.call_tool(slow.name, {}))
            await frames["exposed"].wait_for_function("window.events.includes('slow:started')", timeout=5000)
            started = monotonic_ms()
            await page.evaluate(
                "(src) => { document.getElementById('exposed').src = src; }", f"{other_origin}/index.html"
            )
            async with asyncio.timeout(DEADLINE_MS / 1000):
                result = await call
            assert result.is_error is True
            assert monotonic_ms() - started < DEADLINE_MS
            await wait_for_tools(session, lambda ts: set(page_tools_of(ts, url)) == {"top_tool"})
    finally:
        await page.close()


class _NotOriginKeyedHandler(QuietPageHandler):
    """tests/pages with `Origin-Agent-Cluster: ?0`: the page may set document.domain."""

    def end_headers(self) -> None:
        self.send_header("Origin-Agent-Cluster", "?0")
        super().end_headers()


@pytest.fixture(scope="module")
def not_origin_keyed() -> Iterator[str]:
    """tests/pages on a fresh 127.0.0.1 port, served with `Origin-Agent-Cluster: ?0`."""
    with served_pages(PAGES, handler=_NotOriginKeyedHandler) as url:
        yield url


NOT_ORIGIN_KEYED_JS = """async () => {
  const out = {originAgentCluster: window.originAgentCluster};
  try {
    await document.modelContext.registerTool({name: "a", description: "d", execute: () => 1});
    out.register = "resolved";
  }
  catch (error) { out.register = `${error.name}: ${error.message}`; }
  try { await document.modelContext.getTools(); out.getTools = "resolved"; }
  catch (error) { out.getTools = error.name; }
  return out;
}"""


async def test_a_document_that_is_not_origin_keyed_gets_security_error(
    tb: ToolsBrowser, not_origin_keyed: str
) -> None:
    """Chromium's behaviour (document.domain usable → SecurityError), in both modes."""
    page = await tb.running.new_page(f"{not_origin_keyed}/index.html")
    try:
        assert await page.evaluate(NOT_ORIGIN_KEYED_JS) == {
            "originAgentCluster": False,
            "register": (
                "SecurityError: document.modelContext cannot be used when document.domain is enabled."
            ),
            "getTools": "SecurityError",
        }
    finally:
        await page.close()


async def test_cancelling_a_call_aborts_the_frames_own_signal(
    tb: ToolsBrowser, page_server: str, other_origin: str
) -> None:
    url = f"{page_server}/xorigin.html?child={other_origin}"
    page = await tb.open(f"/xorigin.html?child={other_origin}", page_server)
    try:
        frames = await frames_done(page)
        async with tb.session() as session:
            tools = await wait_for_tools(session, lambda ts: "frame_slow" in page_tools_of(ts, url))
            ours = page_tools_of(tools, url)
            call = asyncio.ensure_future(session.call_tool(ours["frame_slow"].name, {}))
            await frames["exposed"].wait_for_function("window.events.includes('slow:started')", timeout=5000)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await frames["exposed"].wait_for_function("window.events.includes('slow:aborted')", timeout=5000)
            # The session and the frame's tools still work.
            result = await session.call_tool(ours["frame_exposed"].name, {"x": 5})
            assert result.structured_content == {"origin": other_origin, "doubled": 10}
    finally:
        await page.close()
