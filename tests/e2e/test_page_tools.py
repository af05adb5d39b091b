"""Page tools end to end (SPEC §5): a real Chromium's WebMCP tools, called as a desktop host would.

The whole module runs twice: against the browser's native WebMCP (`--enable-features=WebMCP`) and
against the extension's polyfill (flag off). One browser per mode serves every test of the
module; each test opens its own tab and closes it. Scenarios follow research/webmcp.md §5.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page

from tests.e2e.page_tools_harness import (
    Mode,
    ToolsBrowser,
    launch,
    page_tools_of,
    text_of,
    wait_for_tools,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXPOSED = re.compile(r"^[A-Za-z0-9_]{1,48}$")
LONG_NAME = "t" * 120 + ".long-12"
TOOLS_PAGE = "/tools.html"


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=["native", "polyfill"])
async def tb(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ToolsBrowser]:
    """One browser per WebMCP mode for the whole module."""
    mode: Mode = request.param
    root: Path = tmp_path_factory.mktemp(f"page-tools-{mode}")
    async with launch(mode, root) as running:
        yield running


@pytest_asyncio.fixture(loop_scope="module")
async def tools_page(tb: ToolsBrowser, page_server: str) -> AsyncIterator[Page]:
    """tests/pages/tools.html in a new tab, its tools registered; closed after the test."""
    page = await tb.open(TOOLS_PAGE, page_server)
    try:
        yield page
    finally:
        await page.close()


async def test_page_tools_are_exposed_under_valid_distinct_names_that_route_to_their_own_tool(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        tools = await wait_for_tools(session, lambda ts: "cart-add-item" in page_tools_of(ts, url))
        ours = page_tools_of(tools, url)
        assert {"add", "echo", "cart.add-item", "cart_add_item", "cart-add-item", LONG_NAME} <= set(ours)
        names = [t.name for t in ours.values()]
        assert len(set(names)) == len(names)
        assert all(EXPOSED.match(n) for n in names), names
        page_id = ours["add"].meta["pageId"]  # type: ignore[index]
        n = page_id.removeprefix("tab-")
        assert ours["cart_add_item"].name == f"p{n}_cart_add_item"
        assert ours["add"].name == f"p{n}_add"
        assert ours["add"].annotations is not None and ours["add"].annotations.read_only_hint is True
        assert "webctx tools page" in (ours["add"].description or "")
        assert page_server in (ours["add"].description or "")
        meta = ours["add"].meta or {}
        assert meta["origin"] == page_server and meta["url"] == url and meta["toolName"] == "add"
        assert meta["dev.context-providers/untrusted"] is True
        for original in ("cart.add-item", "cart_add_item", "cart-add-item", LONG_NAME):
            result = await session.call_tool(ours[original].name, {})
            assert not result.is_error, text_of(result)
            assert text_of(result) == ("long" if original == LONG_NAME else original)

        # Stable across a reload of the page.
        before = {k: t.name for k, t in ours.items()}
        await tools_page.reload()
        await tools_page.wait_for_function("window.registered === true", timeout=10_000)
        tools = await wait_for_tools(session, lambda ts: len(page_tools_of(ts, url)) == len(before))
        assert {k: t.name for k, t in page_tools_of(tools, url).items()} == before

        # The Page element lists them in attributes.tools.
        current = await session.current()
        pages = [e for e in _walk(current.raw["root"]) if e.get("id") == page_id]
        assert len(pages) == 1
        assert sorted(pages[0]["attributes"]["tools"]) == sorted(before.values())


def _walk(element: dict[str, object]) -> list[dict[str, object]]:
    out = [element]
    for child in element.get("children", []) or []:  # type: ignore[union-attr]
        out.extend(_walk(child))  # type: ignore[arg-type]
    return out


async def test_results_are_mapped_to_mcp_results(
    tb: ToolsBrowser, tools_page: Page, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url)), url)

        result = await session.call_tool(ours["add"].name, {"a": 2, "b": 3})
        assert not result.is_error and result.structured_content == {"result": 5} and text_of(result) == "5"

        result = await session.call_tool(ours["echo"].name, {"q": [1, "two"]})
        assert result.structured_content == {"youSent": {"q": [1, "two"]}}

        result = await session.call_tool(ours["greet"].name, {})
        assert text_of(result) == "hello from the page" and result.structured_content is None

        result = await session.call_tool(ours["mcp_shape"].name, {})
        assert result.is_error is True and text_of(result) == "shaped"

        result = await session.call_tool(ours["boom"].name, {})
        assert result.is_error is True
        if tb.mode == "polyfill":
            assert "boom happened" in text_of(result)

        for name in ("circular", "bigint"):
            result = await session.call_tool(ours[name].name, {})
            assert result.is_error is True, name

        result = await session.call_tool(ours["unregister_self"].name, {})
        assert not result.is_error and text_of(result) == "still answered"
        await wait_for_tools(session, lambda ts: "unregister_self" not in page_tools_of(ts, url))
        # The tool stays usable after a failure.
        result = await session.call_tool(ours["add"].name, {"a": 1, "b": 1})
        assert result.structured_content == {"result": 2}
