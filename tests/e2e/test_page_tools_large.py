"""Large page-tool results and arguments end to end (design.md §5), in both WebMCP modes.

Apart from the other page-tools modules because of the deadline: their browsers run with a 5 s
page-tool deadline (so test_page_tools_calls.py's never-answering page costs 5 s), and a 32 MiB
result takes seconds on a loaded 2-core machine (1.9 to 4.4 s at load average 8 to 30, either mode:
one 32 MiB native-messaging frame, which the host decodes and re-encodes as JSON for the client;
docs/internals/native-host.md). Here the native host runs with the product default,
PAGE_TOOL_DEADLINE_MS (60 s).
"""

from __future__ import annotations

import time

import pytest
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    TOOLS_PAGE,
    ToolsBrowser,
    browser_per_mode,
    page_in_new_tab,
    page_tools_of,
    text_of,
    wait_for_tools,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


# One browser per WebMCP mode, its native host on the default page-tool deadline.
tb = browser_per_mode("page-tools-large", deadline_ms=None)


# tests/pages/tools.html in a new tab, its tools registered; closed after the test.
tools_page = page_in_new_tab(TOOLS_PAGE)


async def test_large_results_and_arguments_travel_whole(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session(timeout_s=90) as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "big" in page_tools_of(ts, url)), url)
        started = time.monotonic()
        result = await session.call_tool(ours["big"].name, {"mib": 32})
        big_s = time.monotonic() - started
        assert not result.is_error, text_of(result)[:200]
        assert len(text_of(result)) == 32 * 1024 * 1024
        text = "é" * (1024 * 1024)  # 2 MiB of UTF-8: host → browser in chunks
        started = time.monotonic()
        result = await session.call_tool(ours["size"].name, {"text": text})
        size_s = time.monotonic() - started
        assert result.structured_content == {"length": 1024 * 1024}
    print(f"32 MiB result: {big_s:.2f} s; 2 MiB argument: {size_s:.2f} s")  # pytest -s shows it


async def test_a_result_of_90_mib_of_utf8_is_an_error_naming_the_limit_long_before_the_deadline(
    tb: ToolsBrowser, page_server: str
) -> None:
    """30 Mi euro signs: under the 48 Mi cap on UTF-16 code units, but 90 MiB of UTF-8, over the
    browser's 64 MiB per message. It used to be dropped on the way to the worker, and the call
    waited for its deadline (60 s here); now it answers as soon as the page has produced it."""
    url = f"{page_server}/tool_errors.html"
    page = await tb.open("/tool_errors.html", page_server)
    try:
        async with tb.session(timeout_s=90) as session:
            listed = await wait_for_tools(session, lambda ts: "huge_utf8" in page_tools_of(ts, url))
            ours = page_tools_of(listed, url)
            started = time.monotonic()
            result = await session.call_tool(ours["huge_utf8"].name, {})
            took_s = time.monotonic() - started
            assert result.is_error is True
            assert "larger than 48 MiB of UTF-8" in text_of(result), text_of(result)[:300]
            assert took_s < 30, took_s  # the deadline is 60 s; native WebMCP alone takes ~8 s at load 17
            assert (await session.call_tool(ours["ok"].name, {})).structured_content == {"fine": True}
    finally:
        await page.close()
    print(f"90 MiB UTF-8 result refused in {took_s:.2f} s")  # pytest -s shows it
