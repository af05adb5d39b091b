"""A standby host's side of the hand-off (design.md §3 "Several profiles, one provider"; handoff.py;
the messages: protocol/handoff.py).

```
standby host ── connect ws://127.0.0.1:<port>/handoff (Bearer: the descriptor's token) ──► provider
   ─► follower.hello {instance}
   ─► tools.changed {tools}           our extension's page tools, at connect and on every change
   ─► tree {complete, root?, windowFocused?}  our pushed tree (tree_cache.py), at connect and on
                                      every change: the provider merges it without asking
   ◄─ current {id, deadlineMs}         ─► result {id, result} | error {id, error: {code, message}}
   ◄─ location {elementId, id, deadlineMs}   (ids without the provider's `f<k>-` prefix)
   ◄─ tools.call {pageId, name, input, deadlineMs, id}
   ◄─ tools.cancel {callId, id, deadlineMs}  callId: the provider's id of the tools.call to abort
   ◄─ page.read {pageId, kind, maxBytes?, id, deadlineMs}   a page's text or screenshot
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
from native_host.protocol.handoff import (
    BIG_REPLY_REQUESTS,
    MAX_MESSAGE_BYTES,
    MAX_TREE_MESSAGE_BYTES,
    FollowerHello,
    FollowerToolsChanged,
    FollowerTree,
    HandoffCurrent,
    HandoffError,
    HandoffLocation,
    HandoffPageRead,
    HandoffResult,
    HandoffToolsCall,
    encode,
    parse_provider_request,
    wait_ms,
)
from native_host.protocol.native import (
    LOCATION_DEADLINE_MS,
    PAGE_SCREENSHOT_DEADLINE_MS,
    PAGE_TEXT_DEADLINE_MS,
    PAGE_TOOL_DEADLINE_MS,
    TOOLS_CANCEL_DEADLINE_MS,
    ErrorBody,
)

if TYPE_CHECKING:
    from native_host.provider.port.bridge import Requester

log = logging.getLogger(__name__)

RECONNECT_S: Final = 0.2
"""A follower retries its connection to the provider this often, in seconds."""
CALL_MARGIN_MS: Final = 1000
"""We wait for our extension this much longer than the provider's `deadlineMs`, in ms, so the
provider's deadline (and its `tools.cancel`) always comes first."""


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
    `current` the provider sends without a deadline, in ms; `on_provider(port)` hears the
    provider's MCP port on every connection; `tools` and `tree` are our extension's page tools and
    pushed tree so far (`set_tools`, `set_tree` pass on later ones)."""

    def __init__(
        self,
        descriptor_path: Path,
        own_instance: str,
        own: Requester,
        *,
        deadline_ms: int,
        on_provider: Callable[[int], None] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tree: dict[str, Any] | None = None,
    ) -> None:
        self._path = descriptor_path
        self._instance = own_instance
        self._own = own
        self._deadline_ms = deadline_ms
        self._on_provider = on_provider
        self._task: asyncio.Task[None] | None = None
        self._connection: ClientConnection | None = None
        self._tools: list[dict[str, Any]] = tools or []
        self._tree: dict[str, Any] | None = tree
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
        if tree is None:
            message = FollowerTree(complete=False)
        else:
            root, focused = tree.get("root"), tree.get("windowFocused")
            message = FollowerTree(complete=True, root=root, window_focused=focused)
        data = encode(message)
        if len(data) > MAX_TREE_MESSAGE_BYTES:  # the provider would close the link for it
            log.warning("a %d-byte tree is over the hand-off's tree limit; not passed on", len(data))
            data = encode(FollowerTree(complete=False))
        with contextlib.suppress(WebSocketException):
            await connection.send(data)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _send_tools(self, connection: ClientConnection) -> None:
        data = encode(FollowerToolsChanged(tools=self._tools))
        if len(data) > MAX_TREE_MESSAGE_BYTES:  # the provider would close the link for it
            # without their schemas (each then takes any object, as a schema over the
            # extension's own cap does), and as many as fit
            log.warning("a %d-byte tool list is over the hand-off's limit; sent without schemas", len(data))
            tools = [{k: v for k, v in tool.items() if k != "inputSchema"} for tool in self._tools]
            while tools and len(data := encode(FollowerToolsChanged(tools=tools))) > MAX_TREE_MESSAGE_BYTES:
                tools = tools[: len(tools) // 2]
        with contextlib.suppress(WebSocketException):
            await connection.send(data)

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
        await connection.send(encode(FollowerHello(instance=self._instance)))
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
        """Answer one provider request from our own extension (a message that does not parse as
        one is dropped)."""
        try:
            request = parse_provider_request(raw)
        except ValueError:
            return
        own_id: str | None = None
        body: dict[str, Any]
        if isinstance(request, HandoffCurrent):
            body = {}
            wait = wait_ms(request.deadline_ms, self._deadline_ms)
        elif isinstance(request, HandoffLocation):
            body = {"elementId": request.element_id}
            wait = wait_ms(request.deadline_ms, LOCATION_DEADLINE_MS)
        elif isinstance(request, HandoffPageRead):
            body = {"pageId": request.page_id, "kind": request.kind}
            if request.max_bytes is not None:
                body["maxBytes"] = request.max_bytes
            own_default = PAGE_TEXT_DEADLINE_MS if request.kind == "text" else PAGE_SCREENSHOT_DEADLINE_MS
            wait = wait_ms(request.deadline_ms, own_default)
        elif isinstance(request, HandoffToolsCall):
            body = {"pageId": request.page_id, "name": request.name, "input": request.input}
            wait = wait_ms(request.deadline_ms, PAGE_TOOL_DEADLINE_MS) + CALL_MARGIN_MS
            own_id = self._own.new_request_id()
            self._calls[request.id] = own_id
        else:  # HandoffToolsCancel
            target = self._calls.get(request.call_id)
            if target is None:
                await self._reply(connection, HandoffResult(id=request.id, result={"cancelled": False}))
                return
            body = {"callId": target}
            wait = wait_ms(request.deadline_ms, TOOLS_CANCEL_DEADLINE_MS)
        reply: HandoffResult | HandoffError
        try:
            result = await self._own.request(request.type, body, deadline_ms=wait, request_id=own_id)
            reply = HandoffResult(id=request.id, result=result)
        except WebctxError as exc:
            reply = HandoffError(id=request.id, error=ErrorBody(code=exc.code, message=str(exc)))
        finally:
            if own_id is not None:
                self._calls.pop(request.id, None)
        await self._reply(connection, reply, big=request.type in BIG_REPLY_REQUESTS)

    @staticmethod
    async def _reply(
        connection: ClientConnection, reply: HandoffResult | HandoffError, *, big: bool = False
    ) -> None:
        """Send `reply`; one over the hand-off's limit for its request (MAX_MESSAGE_BYTES for a
        `tools.call` or `page.read`, `big`; else MAX_TREE_MESSAGE_BYTES) goes as `result_too_large`."""
        data = encode(reply)
        if len(data) > (MAX_MESSAGE_BYTES if big else MAX_TREE_MESSAGE_BYTES):
            log.warning("a %d-byte reply is over the hand-off's limit; sent as an error", len(data))
            data = encode(HandoffError(id=reply.id, error=ErrorBody(
                code="result_too_large", message="The result is too large to pass between profiles.",
            )))
        with contextlib.suppress(WebSocketException):
            await connection.send(data)
