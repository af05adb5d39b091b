"""Load on one page's tools (issue "One provider per browser, whatever happens", Load; design.md §5).

20 concurrent page-tool calls to one page over real HTTP: 18 `add` calls with their own
arguments, one `slow` call the client cancels, one `never` call that runs into the page-tool
deadline (WEBCTX_PAGE_TOOL_DEADLINE_MS, 5 s here). Every other call returns its own result.
Polyfill mode only (the native-WebMCP path is the same code from the content script on;
tests/e2e/test_page_tools_calls.py covers both modes one call at a time).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import anyio
import pytest

from tests.e2e.page_tools_harness import (
    DEADLINE_MS,
    launch,
    page_tools_of,
    text_of,
    wait_for_tools,
    wait_until,
)

CALLS = 20


async def test_twenty_concurrent_calls_to_one_page_one_cancelled_one_timing_out(
    tmp_path: Path, page_server: str
) -> None:
    async with launch("polyfill", tmp_path) as tb:
        page = await tb.open("/tools.html", page_server)
        url = f"{page_server}/tools.html"
        async with tb.session(timeout_s=DEADLINE_MS / 1000 + 10) as session:
            wanted = {"add", "slow", "never"}
            listed = await wait_for_tools(session, lambda ts: wanted <= set(page_tools_of(ts, url)))
            tools = page_tools_of(listed, url)
            adds = [
                asyncio.ensure_future(session.call_tool(tools["add"].name, {"a": n, "b": 1000}))
                for n in range(CALLS - 2)
            ]
            started = time.monotonic()
            never = asyncio.ensure_future(session.call_tool(tools["never"].name, {}))
            slow = asyncio.ensure_future(session.call_tool(tools["slow"].name, {}))
            with anyio.fail_after(5):
                await wait_until(page, "window.events.includes('slow:started')")
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow
            with anyio.fail_after(DEADLINE_MS / 1000 + 10):
                results = await asyncio.gather(*adds)
                timed_out = await never
            never_s = time.monotonic() - started

        for n, result in enumerate(results):
            assert not result.is_error and text_of(result) == str(n + 1000), f"call {n} got another's result"
        assert timed_out.is_error is True and "did not answer" in text_of(timed_out)
        assert DEADLINE_MS / 1000 <= never_s < DEADLINE_MS / 1000 + 3
        await wait_until(page, "window.events.includes('slow:aborted')")
        print(f"\n{CALLS - 2} add calls answered with their own results; `never` ended after {never_s:.2f} s "
              f"(deadline {DEADLINE_MS / 1000:g} s); `slow` cancelled and aborted in the page")
