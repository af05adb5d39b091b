"""`webctx tools`, `webctx call` and `webctx demo` as a user runs them (design.md §6):
separate `webctx` processes against a real Chromium with the extension, its native host and a page
that registers WebMCP tools (tests/pages/tools.html, the extension's polyfill), found through the
providers folder as any desktop host finds it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from tests.e2e.conftest import CHROMIUM
from tests.e2e.page_tools_harness import TOOLS_PAGE, ToolsBrowser, launch, page_tools_of, wait_for_tools


@pytest_asyncio.fixture
async def tb(tmp_path: Path, page_server: str) -> AsyncIterator[ToolsBrowser]:
    """One browser (polyfill) with tests/pages/tools.html open and its tools registered."""
    async with launch("polyfill", tmp_path / "browser") as running:
        await running.open(TOOLS_PAGE, page_server)
        yield running


async def webctx(*args: str, providers: Path, timeout_s: float = 60.0) -> tuple[int, str, str]:
    """Run `webctx ARGS` as its own process with this providers folder; (exit code, stdout, stderr)."""
    env = {**os.environ, "CONTEXT_PROVIDERS_DIR": str(providers)}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "native_host.cli.main", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    async with asyncio.timeout(timeout_s):
        out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_tools_lists_the_pages_tools_and_call_runs_one_in_the_page(
    tb: ToolsBrowser, page_server: str
) -> None:
    url = f"{page_server}{TOOLS_PAGE}"
    async with tb.session() as session:
        ours = page_tools_of(await wait_for_tools(session, lambda ts: "add" in page_tools_of(ts, url)), url)
    add, boom = ours["add"].name, ours["boom"].name
    pid, providers = str(tb.descriptor.pid), tb.running.providers

    code, out, err = await webctx("tools", "--pid", pid, providers=providers)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"{tb.descriptor.name} ") and lines[1].startswith("current  ")
    [add_line] = [line for line in lines if line.startswith(f"{add}  ")]
    origin = page_server.rstrip("/")
    assert f"page={ours['add'].meta['pageId']}  origin={origin}  read-only" in add_line  # type: ignore[index]
    [boom_line] = [line for line in lines if line.startswith(f"{boom}  ")]
    assert "may act" in boom_line

    code, out, err = await webctx("tools", "--pid", pid, "--json", providers=providers)
    assert code == 0, err
    listed = {tool["name"]: tool for tool in json.loads(out)["tools"]}
    assert listed[add]["_meta"]["toolName"] == "add" and listed[add]["_meta"]["url"] == url

    code, out, err = await webctx("call", add, '{"a": 2, "b": 3}', "--pid", pid, providers=providers)
    assert (code, out, err) == (0, "5\n", "")

    code, out, err = await webctx("call", boom, "--pid", pid, providers=providers)
    assert (code, out) == (1, "")
    assert err == f"webctx: `{boom}` answered with an error: boom happened\n"

    code, out, err = await webctx("call", "current", "--pid", pid, "--json", providers=providers)
    assert code == 0, err
    assert json.loads(out)["structuredContent"]["instance"] == tb.descriptor.instance


async def test_the_demo_calls_the_demo_pages_tool_and_prints_its_result(tmp_path: Path) -> None:
    code, out, err = await webctx("demo", "--browser", CHROMIUM, providers=tmp_path / "providers")
    assert code == 0, err
    assert "MCP tools: current, location, read_page, p1_get_passage\n" in out
    tool_line = "p1_get_passage → “We may say most aptly that the Analytical Engine weaves algebraical pat…”"
    tool_line += "\n"
    assert tool_line in out
    # then the page's text, read through its resource_link: the first lines, each cut
    header, *lines = out.split(tool_line, 1)[1].rstrip("\n").splitlines()
    assert header.startswith("Page text (resources/read webctx://") and header.endswith("/tab-1/text):"), out
    assert 1 <= len(lines) <= 5 and all(line.startswith("  ") and len(line) <= 102 for line in lines), lines
    assert lines[0] == "  # webctx demo: the Analytical Engine"
    assert any(line.startswith("  We may say most aptly") for line in lines), lines

