"""Reach pages of every profile of one Chromium through its DevTools HTTP endpoint.

Playwright's persistent context sees only the profile it launched; a second profile's pages are
targets of the same browser, listed by `--remote-debugging-port`'s `/json/list` (all profiles),
driven here over each target's WebSocket (`Runtime.evaluate`) and closed with `/json/close/<id>`
(a real tab close, as the user's). Loopback only; the port is read from `DevToolsActivePort`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

DEVTOOLS_PORT_ARG = "--remote-debugging-port=0"
"""Add to the browser's command line: the OS picks the port, written to `DevToolsActivePort`."""


class DevTools:
    """The DevTools endpoint of the browser using `user_data_dir`."""

    def __init__(self, user_data_dir: Path) -> None:
        self.port = int((user_data_dir / "DevToolsActivePort").read_text().split()[0])
        self._ids = itertools.count(1)

    def _get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as response:
            return json.loads(response.read() or b"null")

    async def pages(self, kind: str = "page") -> list[dict[str, Any]]:
        """Every target of `kind` (`page`, `service_worker`), of every profile: `{id, url, title,
        webSocketDebuggerUrl, …}`."""
        targets = await asyncio.to_thread(self._get, "/json/list")
        return [t for t in targets if t.get("type") == kind]

    async def page(self, url_part: str, limit_s: float = 20.0) -> dict[str, Any]:
        """The first page target whose URL contains `url_part` (waits for it)."""
        async with asyncio.timeout(limit_s):
            while True:
                for target in await self.pages():
                    if url_part in str(target.get("url")):
                        return target
                await asyncio.sleep(0.1)

    async def evaluate(self, target: dict[str, Any], expression: str) -> Any:
        """`Runtime.evaluate(expression)` in the page's main world (or a worker), awaiting
        promises; its value."""
        async with self.attach(target) as evaluate:
            return await evaluate(expression)

    @contextlib.asynccontextmanager
    async def attach(self, target: dict[str, Any]) -> AsyncIterator[Callable[[str], Awaitable[Any]]]:
        """One DevTools connection to `target`, for several evaluations; yields `evaluate`."""
        async with connect(target["webSocketDebuggerUrl"], max_size=1 << 24, open_timeout=5) as ws:

            async def evaluate(expression: str) -> Any:
                message_id = next(self._ids)
                await ws.send(json.dumps({
                    "id": message_id, "method": "Runtime.evaluate",
                    "params": {"expression": expression, "awaitPromise": True, "returnByValue": True},
                }))
                async with asyncio.timeout(10):
                    while True:
                        reply = json.loads(await ws.recv())
                        if reply.get("id") == message_id:
                            break
                result = reply.get("result", {})
                if "exceptionDetails" in result:
                    raise AssertionError(f"page script failed: {result['exceptionDetails'].get('text')}")
                return result.get("result", {}).get("value")

            yield evaluate

    async def drag_across(self, target: dict[str, Any], element_js: str) -> None:
        """Select the text of the element `element_js` names (one line) as a user does: a real
        mouse drag (`Input.dispatchMouseEvent`, trusted input) from the left half of its first
        character to the right half of its last; webctx reports only a selection the user's input
        made (docs/internals/protocol.md "Only the user's selection")."""
        x0, x1, y = await self.evaluate(
            target,
            f"""(() => {{ const t = ({element_js}).firstChild, r = document.createRange(), n = t.data.length;
                 r.setStart(t, 0); r.setEnd(t, 1); const a = r.getBoundingClientRect();
                 r.setStart(t, n - 1); r.setEnd(t, n); const b = r.getBoundingClientRect();
                 return [a.x + 0.5, b.x + b.width - 0.5, a.y + a.height / 2]; }})()""",
        )
        steps = [("mouseMoved", x0, 0), ("mousePressed", x0, 1)]
        steps += [("mouseMoved", x0 + (x1 - x0) * i / 8, 1) for i in range(1, 9)]
        steps.append(("mouseReleased", x1, 0))
        async with connect(target["webSocketDebuggerUrl"], max_size=1 << 24, open_timeout=5) as ws:
            for kind, x, buttons in steps:
                moved = kind == "mouseMoved"
                params = {
                    "type": kind, "x": x, "y": y, "buttons": buttons,
                    "button": "none" if moved and not buttons else "left", "clickCount": 0 if moved else 1,
                }
                message_id = next(self._ids)
                message = {"id": message_id, "method": "Input.dispatchMouseEvent", "params": params}
                await ws.send(json.dumps(message))
                async with asyncio.timeout(10):
                    while json.loads(await ws.recv()).get("id") != message_id:
                        pass

    async def wait_for(self, target: dict[str, Any], expression: str, limit_s: float = 5.0) -> Any:
        """Evaluate `expression` until it is truthy (bounded); return its value."""
        async with asyncio.timeout(limit_s):
            while not (value := await self.evaluate(target, expression)):
                await asyncio.sleep(0.05)
        return value

    async def close(self, target: dict[str, Any]) -> None:
        """Close the tab (as the user closing it)."""
        def close() -> None:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/close/{target['id']}", timeout=5):
                pass

        await asyncio.to_thread(close)
