"""A standby host's side of the hand-off (SPEC §3 "Several profiles, one provider"; handoff.py).

```
standby host ── connect ws://127.0.0.1:<port>/handoff (Bearer: the descriptor's token) ──► provider
   ─► follower.hello {instance}
   ─► tools.changed {tools}           our extension's page tools, at connect and on every change
   ─► tree {complete, root?, windowFocused?}  our pushed tree (tree_cache.py), at connect and on
                                      every change: the provider merges it without asking
   ◄─ current {id}                     ─► result {id, result} | error {id, error: {code, message}}
   ◄─ location {id, elementId}         (ids without the provider's `f<k>-` prefix)
   ◄─ tools.call {id, pageId, name, input, deadlineMs}
   ◄─ tools.cancel {id, callId}        callId: the provider's id of the tools.call to abort
   on_provider(port)                   the popup says "through the browser's provider, port …"
```

Each request is forwarded to our own extension over our native port (bridge.py) and its answer
or error (with the extension's code: `page_gone`, `unknown_id`, …) goes back. When the link
closes, our page-tool calls still running are cancelled in their pages (`tools.cancel`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from native_host.errors import WebctxError
from native_host.protocol.native import (
    LOCATION_DEADLINE_MS,
    PAGE_TOOL_DEADLINE_MS,
    TOOLS_CANCEL_DEADLINE_MS,
)

if TYPE_CHECKING:
    from native_host.provider.bridge import Requester

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES: Final = 80 << 20
"""Largest WebSocket message either side accepts, in bytes: a page-tool result string may be
48 MiB (docs/protocol.md "Page tools"; browser → host frames are up to 64 MiB), sent as UTF-8
JSON. A reply that would be larger is sent as an `error` with code `result_too_large` instead,
never as a message that would close the link."""
RECONNECT_S: Final = 0.2
"""A follower retries its connection to the provider this often, in seconds."""
CALL_MARGIN_MS: Final = 1000
"""We wait for our extension this much longer than the provider's `deadlineMs`, in ms, so the
provider's deadline (and its `tools.cancel`) always comes first."""


def encode(message: dict[str, Any]) -> bytes:
    """A hand-off message as compact UTF-8 JSON (sent as a binary message: no re-encoding, and
    non-ASCII text is not inflated by `\\u` escapes)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()


def provider_of(descriptor: Any, own_instance: str) -> tuple[str, str, int | None] | None:
    """`(handoff url, token, MCP port)` of a descriptor (parsed JSON) published by another
    instance of our browser, or None (ours, unreadable, or without a loopback `handoff`)."""
    if not isinstance(descriptor, dict) or descriptor.get("instance") == own_instance:
        return None
    url, token, endpoint = descriptor.get("handoff"), descriptor.get("token"), descriptor.get("endpoint")
    if not (isinstance(url, str) and url.startswith("ws://127.0.0.1:") and isinstance(token, str)):
        return None
    port = None
    if isinstance(endpoint, str):
        with contextlib.suppress(ValueError):
            port = urlsplit(endpoint).port
    return url, token, port


class FollowerLink:
    """Connect to the published provider of our browser (the descriptor at `descriptor_path`) and
    serve its requests from our own extension (`own`), until `stop()`. `deadline_ms` bounds a
    `current`; `on_provider(port)` hears the provider's MCP port on every connection."""

    def __init__(
        self,
        descriptor_path: Path,
        own_instance: str,
        own: Requester,
        *,
        deadline_ms: int,
        on_provider: Callable[[int], None] | None = None,
    ) -> None:
        self._path = descriptor_path
        self._instance = own_instance
        self._own = own
        self._deadline_ms = deadline_ms
        self._on_provider = on_provider
        self._task: asyncio.Task[None] | None = None
        self._connection: ClientConnection | None = None
        self._tools: list[dict[str, Any]] = []
        self._tree: dict[str, Any] | None = None
        self._calls: dict[str, str] = {}
        """The provider's tools.call id → ours (the bridge's), while the call runs."""
        self._background: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        """Start following (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="follower-link")

    def stop(self) -> None:
        """Stop following; the connection closes."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def set_tools(self, tools: list[dict[str, Any]]) -> None:
        """Our extension's page tools changed (`tools.changed`, wire shape): pass them on."""
        self._tools = tools
        if self._connection is not None:
            self._spawn(self._send_tools(self._connection))

    def set_tree(self, reply: dict[str, Any] | None) -> None:
        """Our pushed tree changed (`{root, windowFocused}`, or None: none complete): pass it on."""
        self._tree = reply
        if self._connection is not None:
            self._spawn(self._send_tree(self._connection))

    async def _send_tree(self, connection: ClientConnection) -> None:
        tree = self._tree
        message: dict[str, Any] = {"type": "tree", "complete": tree is not None, **(tree or {})}
        with contextlib.suppress(WebSocketException):
            await connection.send(encode(message))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_tools(self, connection: ClientConnection) -> None:
        with contextlib.suppress(WebSocketException):
            await connection.send(encode({"type": "tools.changed", "tools": self._tools}))

    def _provider(self) -> tuple[str, str, int | None] | None:
        try:
            return provider_of(json.loads(self._path.read_bytes()), self._instance)
        except (OSError, ValueError):
            return None

    async def _run(self) -> None:
        while True:
            provider = self._provider()
            if provider is not None:
                url, token, port = provider
                try:
                    async with connect(
                        url, additional_headers={"Authorization": f"Bearer {token}"},
                        max_size=MAX_MESSAGE_BYTES, open_timeout=2, compression=None,
                    ) as connection:
                        await self._follow(connection, url, port)
                except (OSError, WebSocketException, TimeoutError) as exc:
                    log.info("provider link closed: %s", type(exc).__name__)
                finally:
                    self._connection = None
                    self._cancel_calls()
            await asyncio.sleep(RECONNECT_S)

    async def _follow(self, connection: ClientConnection, url: str, port: int | None) -> None:
        log.info("following the provider at %s", url.rsplit(":", 1)[-1])
        await connection.send(encode({"type": "follower.hello", "instance": self._instance}))
        self._connection = connection
        await self._send_tools(connection)
        await self._send_tree(connection)
        if port is not None and self._on_provider is not None:
            self._on_provider(port)
        answering: set[asyncio.Task[None]] = set()
        try:
            async for raw in connection:
                task = asyncio.create_task(self._answer(connection, raw))
                answering.add(task)
                task.add_done_callback(answering.discard)
        finally:
            self._connection = None
            self._cancel_calls()  # before the tasks below forget which calls they ran
            for task in answering:
                task.cancel()

    def _cancel_calls(self) -> None:
        """The provider is gone: abort our page-tool calls still running in their pages."""
        calls, self._calls = list(self._calls.values()), {}
        for call_id in calls:
            self._spawn(self._forward("tools.cancel", {"callId": call_id}, TOOLS_CANCEL_DEADLINE_MS))

    async def _forward(
        self, type_: str, body: dict[str, Any], deadline_ms: int, request_id: str | None = None
    ) -> Any:
        try:
            return await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        except WebctxError as exc:
            log.info("%s for the provider failed: %s", type_, exc.code)
            return None

    async def _answer(self, connection: ClientConnection, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        type_, request_id = message.get("type"), message.get("id")
        asked = message.get("deadlineMs")
        deadline_ms = asked if isinstance(asked, int) and 0 < asked <= PAGE_TOOL_DEADLINE_MS * 10 else None
        own_id: str | None = None
        if type_ == "current":
            body: dict[str, Any] = {}
            wait_ms = deadline_ms or self._deadline_ms
        elif type_ == "location":
            body = {"elementId": message.get("elementId")}
            wait_ms = deadline_ms or LOCATION_DEADLINE_MS
        elif type_ == "tools.call":
            body = {k: message.get(k) for k in ("pageId", "name", "input")}
            wait_ms = (deadline_ms or PAGE_TOOL_DEADLINE_MS) + CALL_MARGIN_MS
            own_id = self._own.new_request_id()
            self._calls[str(request_id)] = own_id
        elif type_ == "tools.cancel":
            target = self._calls.get(str(message.get("callId")))
            if target is None:
                not_running = {"type": "result", "id": request_id, "result": {"cancelled": False}}
                await self._reply(connection, not_running)
                return
            body = {"callId": target}
            wait_ms = deadline_ms or TOOLS_CANCEL_DEADLINE_MS
        else:
            return
        try:
            result = await self._own.request(type_, body, deadline_ms=wait_ms, request_id=own_id)
            reply: dict[str, Any] = {"type": "result", "id": request_id, "result": result}
        except WebctxError as exc:
            reply = {"type": "error", "id": request_id, "error": {"code": exc.code, "message": str(exc)}}
        finally:
            if own_id is not None:
                self._calls.pop(str(request_id), None)
        await self._reply(connection, reply)

    @staticmethod
    async def _reply(connection: ClientConnection, reply: dict[str, Any]) -> None:
        data = encode(reply)
        if len(data) > MAX_MESSAGE_BYTES:
            log.warning("a %d-byte reply is over the hand-off's limit; sent as an error", len(data))
            data = encode({"type": "error", "id": reply.get("id"), "error": {
                "code": "result_too_large", "message": "The result is too large to pass between profiles.",
            }})
        with contextlib.suppress(WebSocketException):
            await connection.send(data)
