"""What bench/peers.py measures: Chrome DevTools MCP and webctx, each started the way a user starts it.

- `devtools_mcp`: Chrome DevTools MCP (pinned `DEVTOOLS_MCP_VERSION`, installed from the npm registry
  into `.cache/bench-peers/` on first use) over stdio, launching its own headless Chromium (the same
  executable as webctx's) with WebMCP on; it opens the bench page and finds its `const` tool.
- `webctx_browser`: the same Chromium with WebMCP on, the extension of a checkout (this one, or the
  `--against` one) loaded by flag and its native host installed into the profile; yields once the
  provider's descriptor names the browser. `http_client` talks to it directly (the bearer token
  from the descriptor), `bridge_client` through `webctx mcp` of the same checkout.

Every child process gets the bench's temp HOME (bench/environment.py); each browser has its own
providers folder so that two checkouts' browsers can run side by side. Processes are ended by pid.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.environment import progress

REPO: Final = Path(__file__).resolve().parent.parent
DEVTOOLS_MCP_VERSION: Final = "1.11.0"
CACHE: Final = REPO / ".cache" / "bench-peers"
TOOL: Final = "const"
"""The bench page's WebMCP tool: `execute: () => 42`."""
READY_S: Final = 120.0
CALL_TIMEOUT_S: Final = 30.0

PAGE_SCRIPT: Final = """<script>
document.modelContext.registerTool({name: "const", description: "A constant.", execute: () => 42});
</script>"""
"""The bench page's tool."""
FIRST_PARAGRAPH: Final = "article p:not(.byline)"
"""What the bench selects with a triple-click before it measures (webctx reports only what a
user's input selected)."""


def bench_page(paragraphs: int = 40) -> str:
    """bench/page_read.py's 40-paragraph article with PAGE_SCRIPT: a page as people read them, so
    that a snapshot of it has the size it has on real pages."""
    from bench.page_read import article_page

    return article_page(paragraphs).replace("</body>", PAGE_SCRIPT + "</body>")


def devtools_mcp_entry() -> Path:
    """The pinned Chrome DevTools MCP's entry script, installed with npm into CACHE when missing.
    Raises RuntimeError naming the npm command when the install fails."""
    entry = (
        CACHE / "node_modules" / "chrome-devtools-mcp" / "build" / "src" / "bin" / "chrome-devtools-mcp.js"
    )
    package = CACHE / "node_modules" / "chrome-devtools-mcp" / "package.json"
    if entry.exists() and json.loads(package.read_text())["version"] == DEVTOOLS_MCP_VERSION:
        return entry
    CACHE.mkdir(parents=True, exist_ok=True)
    command = [
        "npm",
        "install",
        "--prefix",
        str(CACHE),
        "--no-audit",
        "--no-fund",
        "--no-save",
        f"chrome-devtools-mcp@{DEVTOOLS_MCP_VERSION}",
    ]
    progress(f"installing chrome-devtools-mcp {DEVTOOLS_MCP_VERSION} into {CACHE}")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not entry.exists():
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return entry


def browser_executable() -> str:
    """The Chromium both sides run (webctx demo's choice: Debian's chromium here)."""
    from native_host.demo.browsers import find_browser

    return find_browser()


def result_bytes(result: Any) -> int:
    """The bytes of what a tool result hands the client: its text blocks and `structuredContent`
    as compact JSON, UTF-8."""
    size = sum(len(getattr(block, "text", "").encode()) for block in result.content)
    if result.structured_content is not None:
        size += len(json.dumps(result.structured_content, separators=(",", ":")).encode())
    return size


@dataclass
class Peer:
    """A connected Chrome DevTools MCP, its page id and its node process."""

    client: Client
    page_id: int
    pid: int

    async def call_tool(self) -> Any:
        """The page's `const` tool, through `execute_webmcp_tool`."""
        return await self.client.call_tool(
            "execute_webmcp_tool", {"pageId": self.page_id, "toolName": TOOL, "input": "{}"}
        )

    async def context(self) -> Any:
        """Its answer to "what is on this page": `take_snapshot` (the accessibility tree)."""
        return await self.client.call_tool("take_snapshot", {"pageId": self.page_id})


def _spawned(marker: str) -> int:
    """The pid of this process's descendant whose command line contains `marker` (0: none)."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if marker in " ".join(child.cmdline()):
                return child.pid
    return 0


@contextlib.asynccontextmanager
async def devtools_mcp(url: str, env: dict[str, str]) -> AsyncIterator[Peer]:
    """Chrome DevTools MCP with its own headless browser on `url`, its WebMCP tools on; yields once
    the page's tool is listed. Raises TimeoutError after READY_S."""
    args = [
        str(devtools_mcp_entry()),
        "--headless",
        "--isolated",
        f"--executablePath={browser_executable()}",
        "--categoryExperimentalWebmcp",
        "--chromeArg=--enable-features=WebMCP",
        "--chromeArg=--disable-background-networking",
        "--no-usage-statistics",
        "--no-performance-crux",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--chromeArg=--no-sandbox")
    params = StdioServerParameters(command="node", args=args, env={**env, "CI": "1"})
    async with Client(params, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        opened = await client.call_tool("new_page", {"url": url})
        text = "".join(getattr(block, "text", "") for block in opened.content)
        found = re.search(r"^(\d+): .*\[selected\]", text, re.MULTILINE)
        if not found:
            raise RuntimeError(f"new_page did not name the page it opened: {text[:300]}")
        page_id = int(found.group(1))
        async with asyncio.timeout(READY_S):
            while TOOL not in "".join(
                getattr(b, "text", "")
                for b in (await client.call_tool("list_webmcp_tools", {"pageId": page_id})).content
            ):
                await asyncio.sleep(0.05)
        yield Peer(client, page_id, _spawned("chrome-devtools-mcp"))


@dataclass(frozen=True)
class Checkout:
    """A webctx source tree to measure: `name` for the table, `root` the folder."""

    name: str
    root: Path

    def env(self, base: dict[str, str], providers: Path) -> dict[str, str]:
        """`base` with this checkout first on PYTHONPATH and its own providers folder."""
        return {**base, "PYTHONPATH": str(self.root), "CONTEXT_PROVIDERS_DIR": str(providers)}


@dataclass
class WebctxBrowser:
    """A running browser with a checkout's extension and native host."""

    checkout: Checkout
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    descriptor: dict[str, Any]
    launched_wall: float
    """time.time() just before the browser was started."""
    user_data_dir: Path

    async def select_paragraph(self) -> None:
        """Triple-click the page's first paragraph over the DevTools port (`Input.dispatchMouseEvent`:
        input the page sees as trusted), then detach: an attached DevTools client slows the browser's
        own messaging, so nothing stays attached while the bench measures."""
        import urllib.request

        import websockets

        port = int((self.user_data_dir / "DevToolsActivePort").read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            targets = json.load(answer)
        page = next(t for t in targets if t.get("type") == "page" and "peers" in t.get("url", ""))
        async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
            ids = iter(range(1, 1000))

            async def call(method: str, params: dict[str, Any]) -> Any:
                number = next(ids)
                await ws.send(json.dumps({"id": number, "method": method, "params": params}))
                while True:
                    message = json.loads(await ws.recv())
                    if message.get("id") == number:
                        return message.get("result", {})

            where = (
                f"(() => {{ const b = document.querySelector({json.dumps(FIRST_PARAGRAPH)})"
                ".getClientRects()[0]; return [b.x + 20, b.y + b.height / 2]; })()"
            )
            answer = await call("Runtime.evaluate", {"expression": where, "returnByValue": True})
            x, y = answer["result"]["value"]
            for count in (1, 2, 3):
                for kind in ("mousePressed", "mouseReleased"):
                    await call(
                        "Input.dispatchMouseEvent",
                        {"type": kind, "x": x, "y": y, "button": "left", "clickCount": count},
                    )


def _descriptor_of(providers: Path, pid: int) -> dict[str, Any] | None:
    for path in providers.glob("*.json"):
        with contextlib.suppress(OSError, ValueError):
            data: dict[str, Any] = json.loads(path.read_text())
            if data.get("pid") == pid:
                data["_mtime"] = path.stat().st_mtime
                return data
    return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the browser's process group (started with start_new_session), by pid."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


@contextlib.asynccontextmanager
async def webctx_browser(
    checkout: Checkout, url: str, workdir: Path, base_env: dict[str, str]
) -> AsyncIterator[WebctxBrowser]:
    """Chromium with `checkout`'s extension (by flag) and native host on `url`; yields once the
    provider's descriptor names the browser. Raises TimeoutError after READY_S."""
    from native_host.demo.runner import browser_command

    udd = workdir / f"udd-{checkout.name}-{time.monotonic_ns()}"
    (udd / "Default").mkdir(parents=True)
    (udd / "Default" / "Preferences").write_text(json.dumps({"extensions": {"ui": {"developer_mode": True}}}))
    providers = workdir / f"providers-{checkout.name}"
    env = checkout.env(base_env, providers)
    # The launcher must run this checkout's code: install it with the checkout's own installer.
    install = (
        "from pathlib import Path; from native_host.install.installer import install; "
        f"install('chromium', user_data_dir=Path({str(udd)!r}), launcher_dir=Path({str(udd)!r}))"
    )
    subprocess.run(
        [sys.executable, "-c", install], env=env, check=True, capture_output=True, cwd=checkout.root
    )
    command = browser_command(browser_executable(), udd, url, load_extension=checkout.root / "extension")
    command[-1:-1] = ["--enable-features=WebMCP", "--remote-debugging-port=0"]
    launched = time.time()
    log = (workdir / f"browser-{checkout.name}.log").open("ab")
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
        cwd=checkout.root,  # `python -m` puts the working folder first on sys.path, before PYTHONPATH
    )
    try:
        async with asyncio.timeout(READY_S):
            while (descriptor := _descriptor_of(providers, process.pid)) is None:
                if process.poll() is not None:
                    raise RuntimeError(f"the browser exited ({process.returncode}); see {log.name}")
                await asyncio.sleep(0.005)
        yield WebctxBrowser(checkout, env, process, descriptor, launched, udd)
    finally:
        await asyncio.to_thread(_stop, process)
        log.close()
        shutil.rmtree(udd, ignore_errors=True)


@contextlib.asynccontextmanager
async def http_client(descriptor: dict[str, Any]) -> AsyncIterator[Client]:
    """An SDK client on the provider's endpoint with its bearer token (2026-07-28 era)."""
    headers = {"Authorization": f"Bearer {descriptor['token']}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(CALL_TIMEOUT_S, read=300.0)) as http,
        Client(
            streamable_http_client(descriptor["endpoint"], http_client=http),
            mode="auto",
            read_timeout_seconds=CALL_TIMEOUT_S,
        ) as client,
    ):
        yield client


def bridge_command() -> list[str]:
    """`webctx mcp` with this interpreter (the checkout comes first on PYTHONPATH)."""
    return [sys.executable, "-m", "native_host.cli.main", "mcp"]


@contextlib.asynccontextmanager
async def bridge_client(browser: WebctxBrowser) -> AsyncIterator[Client]:
    """An SDK client on `webctx mcp` (stdio) of the browser's checkout, finding that browser."""
    command = bridge_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=browser.env, cwd=browser.checkout.root
    )
    async with Client(params, read_timeout_seconds=CALL_TIMEOUT_S) as client:
        yield client


async def page_tool_name(client: Client) -> str:
    """The exposed MCP name of the bench page's tool, once `tools/list` offers it."""
    async with asyncio.timeout(READY_S):
        while True:
            for tool in (await client.list_tools()).tools:
                if tool.meta and tool.meta.get("toolName") == TOOL:
                    return tool.name
            await asyncio.sleep(0.02)
