"""Load the extension into a browser over the DevTools pipe (`--remote-debugging-pipe`).

Google-branded Chrome ignores `--load-extension` since version 137; every Chromium-family browser
started with `--remote-debugging-pipe --enable-unsafe-extension-debugging` instead answers
`Extensions.loadUnpacked {path}` on the pipe with the extension's key-derived id, and its service
worker starts (measured: about 14 ms, the first native message 0.24 s later).

The pipe (Chromium's `DevToolsPipeHandler`): the browser reads commands from its fd 3 and writes
answers and events to its fd 4; each message is one JSON object followed by a NUL byte.

    DevToolsPipe.open()        two os.pipe()s; the browser's ends go to fds 3 and 4 in the child
                               only (`child_setup`), ours stay non-inheritable
    call(method, params)       send {"id", "method", "params"}\\0, read until the answer with that id
                               (events and other answers are skipped), or DevToolsError
    load_extension(path)       Browser.getVersion, then Extensions.loadUnpacked; an error names
                               the browser's product and version
    open_page(url)             navigate the browser's first tab (started on about:blank) to url,
                               once the extension is loaded, and select its passage with a real
                               triple-click (`select_by_triple_click`)

POSIX only: Windows passes fds 3 and 4 through the C runtime's handle table, which `subprocess`
cannot fill (the demo falls back to --load-extension there, runner.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Final

from native_host.errors import WebctxError

if sys.platform != "win32":
    import fcntl  # imported here, not in the forked child (child_setup runs between fork and exec)

PIPE_FLAGS: Final[tuple[str, ...]] = ("--remote-debugging-pipe", "--enable-unsafe-extension-debugging")
"""The switches that make the browser listen on fds 3/4 and offer the `Extensions` domain."""

BROWSER_READS_FD: Final = 3
BROWSER_WRITES_FD: Final = 4
"""The fixed descriptor numbers Chromium's pipe handler uses (`--remote-debugging-pipe`)."""

DEVTOOLS_TIMEOUT_S: Final = 15.0
"""How long one DevTools call may take, in seconds (loadUnpacked takes ~14 ms on an idle machine;
the browser itself may need a few seconds to start on a busy one)."""

MAX_MESSAGE_BYTES: Final = 16 * 1024 * 1024
"""Largest DevTools message read before giving up, in bytes (answers here are under 1 KiB; this only
bounds the buffer if the browser sent something unexpected without a NUL)."""

_HIGH_FD: Final = 10
"""child_setup first copies our ends above this, so dup2 onto 3/4 cannot overwrite one with the other."""


class DevToolsError(WebctxError):
    """A DevTools call failed: the browser answered with an error, closed the pipe, or was too slow."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="devtools_failed")


@dataclass
class DevToolsPipe:
    """Our ends of the two pipes (`to_browser` is written, `from_browser` read) and the browser's
    ends (`child_read`, `child_write`), which the browser gets as fds 3 and 4 and we close after
    the browser has started (`parent_started`)."""

    to_browser: int
    from_browser: int
    child_read: int | None
    child_write: int | None
    _next_id: int = 0
    _buffer: bytearray = field(default_factory=bytearray)

    @classmethod
    def open(cls) -> DevToolsPipe:
        """Two new pipes; all four ends are non-inheritable (os.pipe's default, PEP 446), so no
        other child of this process, and no child of the browser, gets them."""
        child_read, to_browser = os.pipe()
        from_browser, child_write = os.pipe()
        return cls(to_browser, from_browser, child_read, child_write)

    def child_setup(self) -> None:
        """Runs in the forked child before exec (Popen `preexec_fn`): put the browser's ends on
        fds 3 and 4, inheritable. Only async-signal-safe system calls (fcntl, dup2). Popen's
        close_fds then closes every other descriptor except `pass_fds` (3, 4)."""
        assert self.child_read is not None and self.child_write is not None
        if sys.platform != "win32":  # never called on Windows (runner.py uses --load-extension there)
            read_copy = fcntl.fcntl(self.child_read, fcntl.F_DUPFD, _HIGH_FD)
            write_copy = fcntl.fcntl(self.child_write, fcntl.F_DUPFD, _HIGH_FD)
            os.dup2(read_copy, BROWSER_READS_FD)  # inheritable by default
            os.dup2(write_copy, BROWSER_WRITES_FD)

    def parent_started(self) -> None:
        """Close the browser's ends here once it has them, so its exit shows as EOF on ours."""
        for fd in (self.child_read, self.child_write):
            if fd is not None:
                os.close(fd)
        self.child_read = self.child_write = None

    def close(self) -> None:
        """Close every end still open (idempotent)."""
        self.parent_started()
        for fd in (self.to_browser, self.from_browser):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.to_browser = self.from_browser = -1

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             timeout_s: float | None = None, session_id: str | None = None) -> dict[str, Any]:
        """Send one command (to the browser, or to the target `session_id` is attached to) and
        return its `result` object, waiting up to `timeout_s` seconds (default
        DEVTOOLS_TIMEOUT_S). Raises DevToolsError with the browser's own error message
        (`error.message`), or when the pipe closes or the time is up first."""
        self._next_id += 1
        message_id = self._next_id
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        data = json.dumps(message).encode() + b"\0"
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.to_browser, view):]
        except OSError as exc:
            raise DevToolsError(f"{method}: the browser closed its DevTools pipe ({exc.strerror})") from None
        deadline = time.monotonic() + (DEVTOOLS_TIMEOUT_S if timeout_s is None else timeout_s)
        while True:
            answer = self._read_message(method, deadline)
            if answer.get("id") != message_id:
                continue  # an event, or the answer to an earlier call
            error = answer.get("error")
            if isinstance(error, dict):
                raise DevToolsError(f"{method}: {error.get('message', error)}")
            result = answer.get("result")
            return result if isinstance(result, dict) else {}

    def _read_message(self, method: str, deadline: float) -> dict[str, Any]:
        """The next NUL-terminated JSON object from the browser (non-objects are skipped)."""
        while True:
            end = self._buffer.find(b"\0")
            if end >= 0:
                raw = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    return message
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DevToolsError(f"{method}: no answer within the time limit")
            ready, _, _ = select.select([self.from_browser], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 65536)
            if not chunk:
                raise DevToolsError(f"{method}: the browser closed its DevTools pipe (did it exit?)")
            self._buffer += chunk
            if len(self._buffer) > MAX_MESSAGE_BYTES:
                raise DevToolsError(f"{method}: a DevTools message over {MAX_MESSAGE_BYTES} bytes")


def load_extension(pipe: DevToolsPipe, extension_dir: str, browser: str) -> tuple[str, str]:
    """Ask the browser for its version, then load `extension_dir` unpacked; returns (product, the
    extension id the browser derived from the manifest's key), e.g. ("HeadlessChrome/156.0.…",
    "hgmokg…"). Raises WebctxError (code `extension_not_loaded`) naming `browser` and its product
    and version when the browser cannot load it (too old for `Extensions.loadUnpacked`, a policy
    that forbids unpacked extensions, a broken manifest) or does not answer."""
    try:
        version = pipe.call("Browser.getVersion")
    except DevToolsError as exc:
        raise WebctxError(
            f"{browser} did not answer on the DevTools pipe ({exc.message}). `webctx demo` needs a "
            "Chromium-family browser that supports --remote-debugging-pipe.",
            code="extension_not_loaded",
        ) from None
    product = str(version.get("product") or "an unknown version")
    try:
        loaded = pipe.call("Extensions.loadUnpacked", {"path": extension_dir})
    except DevToolsError as exc:
        raise WebctxError(
            f"{browser} ({product}) could not load the webctx extension over DevTools: {exc.message}. "
            "`webctx demo` needs a browser with Extensions.loadUnpacked (recent Chrome, Chromium, "
            "Edge or Brave) that allows unpacked extensions; update it, or pass another with --browser.",
            code="extension_not_loaded",
        ) from None
    return product, str(loaded.get("id", ""))


def open_page(pipe: DevToolsPipe, url: str, select_id: str | None = None) -> None:
    """Navigate the browser's first tab to `url` (Target.attachToTarget, Page.navigate,
    Target.detachFromTarget), then, given `select_id`, select that element's text as a user does
    (`select_by_triple_click`). The demo starts the browser on about:blank and calls this after
    load_extension: a page that loaded before the extension has no WebMCP polyfill when its
    `load` handlers run, so the demo page's tool was never registered (about 1 run in 9).
    Raises DevToolsError when the browser has no tab, refuses the navigation, or the element
    does not appear."""
    targets = pipe.call("Target.getTargets").get("targetInfos", [])
    page = next((t for t in targets if isinstance(t, dict) and t.get("type") == "page"), None)
    if page is None:
        raise DevToolsError("Target.getTargets: the browser has no tab to open the demo page in")
    attached = pipe.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})
    session = str(attached["sessionId"])
    try:
        navigated = pipe.call("Page.navigate", {"url": url}, session_id=session)
        if navigated.get("errorText"):
            raise DevToolsError(f"Page.navigate: {navigated['errorText']}")
        if select_id is not None:
            select_by_triple_click(pipe, session, select_id)
    finally:
        with contextlib.suppress(DevToolsError):
            pipe.call("Target.detachFromTarget", {"sessionId": session})


def select_by_triple_click(pipe: DevToolsPipe, session: str, element_id: str) -> None:
    """Once the page the `session` is attached to has loaded, triple-click the first line of the
    element with id `element_id` (`Input.dispatchMouseEvent`, input the page sees as trusted):
    the extension reports only a selection the user's own input made, never one a page script
    made (docs/internals/protocol.md "Only the user's selection"). Coordinates are CSS px in the viewport.
    Raises DevToolsError when the element has no box within DEVTOOLS_TIMEOUT_S."""
    where = f"""new Promise((resolve) => {{
      const measure = () => {{
        const box = document.getElementById({json.dumps(element_id)})?.getClientRects()[0];
        resolve(box ? [box.x + Math.min(20, box.width / 2), box.y + box.height / 2] : null);
      }};
      if (document.readyState === "complete") measure();
      else addEventListener("load", measure, {{once: true}});
    }})"""
    deadline = time.monotonic() + DEVTOOLS_TIMEOUT_S
    while True:  # right after Page.navigate the old about:blank may still answer
        evaluate = {"expression": where, "awaitPromise": True, "returnByValue": True}
        answer = pipe.call("Runtime.evaluate", evaluate, session_id=session)
        point = answer.get("result", {}).get("value")
        if isinstance(point, list) and len(point) == 2:
            break
        if time.monotonic() > deadline:
            raise DevToolsError(f"Runtime.evaluate: the page has no element #{element_id} to select")
        time.sleep(0.1)
    x, y = float(point[0]), float(point[1])
    for count in (1, 2, 3):
        for kind in ("mousePressed", "mouseReleased"):
            held = 1 if kind == "mousePressed" else 0
            mouse = {"type": kind, "x": x, "y": y, "button": "left", "buttons": held, "clickCount": count}
            pipe.call("Input.dispatchMouseEvent", mouse, session_id=session)
