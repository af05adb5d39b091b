"""A Chromium to measure: the real extension and native host, started as `webctx demo` starts it.

`launched_browser` starts Debian's Chromium (or `--browser`) headless with a throwaway
`--user-data-dir` (developer mode seeded, the host manifest written into it by
`native_host.install`), N tabs of `tests/pages/index.html` served from 127.0.0.1, the first one
active and holding a selected passage; it yields once the provider's tree shows every tab loaded
and the browser is idle, and stops the browser and what it started by pid afterwards. The browser
keeps a DevTools port open (`--remote-debugging-port=0`): headless Chromium takes one URL on its
command line, so the other tabs are opened over it, and benches drive pages with it
(`cdp_browser`: Playwright over CDP, only while nothing is timed: an attached CDP client slows the
browser's own messaging).

Call this after `bench.environment.isolate`: the browser and the native host write into HOME.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import psutil

from bench.environment import progress
from tests.support.pages import QuietPageHandler, served_pages

if TYPE_CHECKING:
    from native_host.protocol.descriptor import Descriptor

PAGES: Final = Path(__file__).resolve().parent.parent / "tests" / "pages"
PAGE_TITLE: Final = "webctx test page"
SELECTED_ID: Final = "para"
SELECTED_START: Final = "The quick brown fox"
EXTENSION_ID: Final = "kbmgfelnojabkebealaikmhmkcjnbgpl"
"""The extension's id (from the `key` in extension/manifest.json)."""

CALL_TIMEOUT_S: Final = 10.0
"""How long the reference client waits for one MCP call, in seconds."""
READY_TIMEOUT_S: Final = 120.0
"""Browser start → provider up, all tabs loaded and the selection reported, in seconds (plus 0.4 s
per tab: see launched_browser)."""
SETTLE_MAX_S: Final = 30.0
SETTLE_QUIET_PERCENT: Final = 10.0
"""The browser counts as idle when its processes together use less than this much of one core."""

SELECT_SCRIPT: Final = (
    "<script>addEventListener('click', () => { const r = document.createRange();"
    f" r.selectNodeContents(document.getElementById('{SELECTED_ID}'));"
    " const s = getSelection(); s.removeAllRanges(); s.addRange(r); });</script>"
)
"""The page selects #para from its handler of the user's click: webctx reports a page script's
selection only right after the user's input (docs/internals/protocol.md "Only the user's selection");
`click_to_select` makes that click with DevTools input."""


# ---------------------------------------------------------------------------------------------
# Pages


class _PageHandler(QuietPageHandler):
    """tests/pages; `index.html?select` gets an inline script that selects #para on a click."""

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/index.html" and "select" in query.split("&"):
            html = (PAGES / "index.html").read_text(encoding="utf-8")
            body = html.replace("</body>", SELECT_SCRIPT + "\n</body>").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
        else:
            super().do_GET()


@contextlib.contextmanager
def page_server() -> Iterator[str]:
    """Serve tests/pages on 127.0.0.1 from a thread; yield the base URL."""
    with served_pages(PAGES, handler=_PageHandler) as url:
        yield url


@contextlib.asynccontextmanager
async def two_origins(folder: Path) -> AsyncIterator[tuple[str, str]]:
    """Serve `folder` on 127.0.0.1; yield its base url and the same as `localhost` (a second
    origin, for a cross-origin iframe)."""
    with served_pages(folder) as base, served_pages(folder, host="localhost") as other:
        yield base, other


def tab_urls(base: str, tabs: int) -> list[str]:
    """The first tab selects a passage on load; the others are plain copies of the page."""
    return [f"{base}/index.html?select"] + [f"{base}/index.html"] * (tabs - 1)


# ---------------------------------------------------------------------------------------------
# DevTools over HTTP (127.0.0.1 only)


def devtools_port(user_data_dir: Path, deadline: float, alive: Callable[[], None]) -> int:
    """The browser's DevTools port (`--remote-debugging-port=0` writes it to DevToolsActivePort).
    Raises RuntimeError at `deadline` (time.monotonic), and what `alive` raises."""
    active = user_data_dir / "DevToolsActivePort"
    while time.monotonic() < deadline:
        alive()
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(active.read_text().split()[0])
        time.sleep(0.1)
    raise RuntimeError("The browser did not open its DevTools port in time.")


def devtools(port: int, method: str, path: str) -> Any:
    """One request to the browser's DevTools HTTP endpoint; its JSON answer (or its text)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def open_more_tabs(port: int, urls: list[str]) -> None:
    """Open `urls` as new tabs of the window (headless Chromium takes one URL on its command line),
    then make the first tab, the one with the selection, the active one again."""
    for url in urls:
        devtools(port, "PUT", "/json/new?" + url)
    targets = devtools(port, "GET", "/json/list")
    first = [t for t in targets if t.get("type") == "page" and "?select" in str(t.get("url"))]
    if first:
        devtools(port, "GET", f"/json/activate/{first[0]['id']}")


def click_to_select(port: int, deadline: float) -> None:
    """Click (`Input.dispatchMouseEvent`: trusted input) on the passage of the `?select` tab once
    it has loaded, so its script selects the passage (SELECT_SCRIPT). Raises RuntimeError
    when the tab is not loaded by `deadline` (time.monotonic())."""
    from websockets.sync.client import connect

    targets = devtools(port, "GET", "/json/list")
    [tab] = [t for t in targets if t.get("type") == "page" and "?select" in str(t.get("url"))]
    with connect(str(tab["webSocketDebuggerUrl"]), max_size=1 << 24) as ws:
        ids = iter(range(1, 1 << 30))

        def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
            message_id = next(ids)
            ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
            while True:
                reply = json.loads(ws.recv(timeout=max(1.0, deadline - time.monotonic())))
                if reply.get("id") == message_id:
                    return dict(reply.get("result") or {})

        where = {
            "expression": f"""document.readyState === 'complete' && (r => [r.x + 2, r.y + r.height / 2])(
                document.getElementById('{SELECTED_ID}').getClientRects()[0])""",
            "returnByValue": True,
        }
        while not (point := call("Runtime.evaluate", where).get("result", {}).get("value")):
            if time.monotonic() > deadline:
                raise RuntimeError("the tab with the passage did not load in time")
            time.sleep(0.1)
        for kind in ("mousePressed", "mouseReleased"):
            held = 1 if kind == "mousePressed" else 0
            click = {"type": kind, "x": point[0], "y": point[1], "button": "left", "buttons": held}
            click["clickCount"] = 1
            call("Input.dispatchMouseEvent", click)


# ---------------------------------------------------------------------------------------------
# Ready to measure


def walk(element: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """`element` and every element below it, depth first."""
    yield element
    for child in element.get("children") or []:
        yield from walk(child)


def tree_ready(raw: Mapping[str, Any], tabs: int) -> str | None:
    """None when the tree accounts for `tabs` tabs (listed, or counted in a Window's
    `tabsOmitted` above the per-window budget, design.md §2), every listed one loaded with our page, and
    the selected passage in the focused one; else what is still missing."""
    root = raw.get("root") or {}
    pages = [e for e in walk(root) if e.get("role") == "Page"]
    windows = [e for e in walk(root) if e.get("role") == "Window"]
    omitted = sum(int((w.get("attributes") or {}).get("tabsOmitted", 0)) for w in windows)
    loaded = [p for p in pages if p.get("title") == PAGE_TITLE]
    if len(pages) + omitted != tabs or len(loaded) != len(pages):
        return f"{len(loaded)} of {len(pages)} listed tabs loaded, {omitted} omitted, {tabs} opened"
    focused = [p for p in pages if p.get("focused")]
    if len(focused) != 1 or "?select" not in str(focused[0].get("url")):
        return "the tab with the selection is not the focused one"
    texts = [e for e in walk(root) if e.get("role") == "Text" and e.get("selected")]
    starts = [str((t.get("content") or [{}])[0].get("text", "")) for t in texts]
    if len(texts) != 1 or not starts[0].startswith(SELECTED_START):
        return f"{len(texts)} selected Text element(s) instead of the passage"
    return None


async def current_raw(descriptor: Descriptor) -> dict[str, Any]:
    """One `current` through the reference client, in a session of its own; the answer as JSON."""
    from native_host.host import open_session

    async with open_session(descriptor, timeout_s=CALL_TIMEOUT_S) as session:
        return (await session.current()).raw


def wait_until_ready(descriptor: Descriptor, tabs: int, deadline: float, alive: Callable[[], None]) -> None:
    """Ask `current` until `tree_ready`; raise RuntimeError at `deadline` (time.monotonic)."""
    from native_host.errors import WebctxError

    missing = "no answer yet"
    while time.monotonic() < deadline:
        alive()
        try:
            missing = tree_ready(asyncio.run(current_raw(descriptor)), tabs) or ""
        except WebctxError as exc:
            missing = exc.message
        if not missing:
            return
        time.sleep(0.5)
    raise RuntimeError(f"The browser was not ready in time: {missing}.")


def settle(pid: int) -> float:
    """Wait until the browser's processes are idle (SETTLE_QUIET_PERCENT of one core over two
    0.5 s samples in a row), at most SETTLE_MAX_S; return the last reading, in % of one core."""
    seen: dict[int, psutil.Process] = {}
    quiet = 0
    total = 100.0
    deadline = time.monotonic() + SETTLE_MAX_S
    while time.monotonic() < deadline:
        try:
            procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            break
        total = 0.0
        for proc in procs:
            known = seen.setdefault(proc.pid, proc)
            with contextlib.suppress(psutil.Error):
                total += known.cpu_percent(None)  # the first reading of a process is 0.0
        quiet = quiet + 1 if total < SETTLE_QUIET_PERCENT else 0
        if quiet >= 2:
            break
        time.sleep(0.5)
    return total


# ---------------------------------------------------------------------------------------------
# The browser


@dataclass(frozen=True)
class LaunchedBrowser:
    """A browser ready to measure: its provider's descriptor, the browser's main pid, the native
    host's log file and the browser's DevTools port."""

    descriptor: Descriptor
    pid: int
    host_log: Path
    devtools_port: int


@contextlib.contextmanager
def launched_browser(browser: str, tabs: int, workdir: Path) -> Iterator[LaunchedBrowser]:
    """Start `browser` as `webctx demo` does (fresh profile `workdir/udd-<tabs>` with developer
    mode seeded, host manifest installed into it), with `tabs` tabs of the test page, the first one
    holding a selection and active; yield once the tree shows them all and the browser is idle.
    The browser and the processes it started are stopped by pid afterwards. Raises RuntimeError
    when it is not ready within READY_TIMEOUT_S + 0.4 s per tab."""
    from native_host import paths
    from native_host.demo.runner import DemoBrowser, _prepare_providers_folder, _stop_browser, browser_command
    from native_host.install.installer import install

    _prepare_providers_folder()
    user_data_dir = workdir / f"udd-{tabs}"
    (user_data_dir / "Default").mkdir(parents=True)
    (user_data_dir / "Default" / "Preferences").write_text(
        json.dumps({"extensions": {"ui": {"developer_mode": True}}})
    )
    install("chromium", user_data_dir=user_data_dir, launcher_dir=user_data_dir)
    log_path = workdir / f"browser-{tabs}.log"
    with page_server() as base, log_path.open("wb") as log_file:
        urls = tab_urls(base, tabs)
        command = browser_command(browser, user_data_dir, urls[0], load_extension=paths.extension_dir())
        command.insert(-1, "--remote-debugging-port=0")
        started = time.monotonic()
        process: subprocess.Popen[bytes] = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=dict(os.environ),
            start_new_session=True,
        )
        demo = DemoBrowser(browser, process, user_data_dir, urls[0], log_path, progress)
        try:
            # Opening hundreds of tabs on a busy 2-vCPU machine can take minutes: 0.4 s more per tab.
            deadline = started + READY_TIMEOUT_S + 0.4 * tabs
            port = devtools_port(user_data_dir, deadline, demo._check_alive)
            if len(urls) > 1:
                open_more_tabs(port, urls[1:])
            click_to_select(port, deadline)
            descriptor = demo.wait_for_provider(deadline)
            provider_s = time.monotonic() - started
            wait_until_ready(descriptor, tabs, deadline, demo._check_alive)
            loaded_s = time.monotonic() - started
            idle = settle(process.pid)
            progress(
                f"{tabs} tab(s): provider after {provider_s:.1f} s, tabs loaded after {loaded_s:.1f} s, "
                f"browser at {idle:.0f}% CPU; measuring"
            )
            yield LaunchedBrowser(descriptor, process.pid, paths.log_dir() / "native-host.log", port)
        finally:
            _stop_browser(demo)


def capture_root(descriptor: Descriptor, path: Path) -> None:
    """Ask `descriptor` for `current` once and write its `root` element to `path` as JSON (the
    same-size floor answers it: bench/floor.py)."""
    root = asyncio.run(current_raw(descriptor))["root"]
    path.write_text(json.dumps(root, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")


@contextlib.asynccontextmanager
async def cdp_browser(browser: str | None, workdir: Path, tabs: int = 1) -> AsyncIterator[LaunchedBrowser]:
    """`launched_browser` with `tabs` tabs (default one), for a bench that drives pages over CDP
    from asyncio (`playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{running.devtools_port}")`).
    `browser`: the executable (None: as `webctx demo` finds it)."""
    from native_host.demo.browsers import find_browser

    path = browser or find_browser()
    # It is synchronous and runs its own event loops: enter and leave it in a thread.
    stack = contextlib.ExitStack()
    try:
        yield await asyncio.to_thread(stack.enter_context, launched_browser(path, tabs, workdir))
    finally:
        await asyncio.to_thread(stack.close)
