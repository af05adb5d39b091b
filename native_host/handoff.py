"""Several profiles, one provider: the loopback WebSocket between native hosts of one browser (SPEC §3).

```
 profile A's native host (provider: holds the lock, publishes the descriptor)
   HandoffServer ws://127.0.0.1:<port>/handoff   (the descriptor's `handoff`, our addition)
     ▲  Authorization: Bearer <the provider's token, read from the descriptor>; any Origin → 403
     │  follower.hello {instance} ─►   ◄─ current {id}   ─► result {id, result: {root}} | error
 profile B's native host (standby)            FollowerLink: answers from its own extension
```

`current` on the provider (MergingRequester) asks its own extension and every follower at once
and appends each follower's windows to its own Application element. A follower's element ids get
the prefix `f<k>-`, where `k` numbers follower connections for the provider's instance (never
reused), so ids stay unique in the tree and never repeat within the instance, also when a
follower reconnects. A follower that fails or misses the deadline is left out of that answer.
One focus path survives: the profile whose window really has the browser's focus now (each
extension's `windowFocused`, from `chrome.windows.getLastFocused().focused`) keeps its `focused`
marks, the others lose theirs; when none has focus, the provider's own tree keeps its marks.
Requests other than `current` go to the provider's own extension.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
from collections.abc import Callable, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import WebSocketException
from websockets.http11 import Request, Response

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable, WebctxError

if TYPE_CHECKING:
    from native_host.bridge import Requester

log = logging.getLogger(__name__)

PATH: Final = "/handoff"
MAX_MESSAGE_BYTES: Final = 16 << 20
"""Largest WebSocket message either side accepts, in bytes (a tree is small; SPEC §2 budgets)."""
RECONNECT_S: Final = 0.2
"""A follower retries its connection to the provider this often, in seconds."""
STOP_TIMEOUT_S: Final = 0.5
"""Closing the hand-off server may take this long at exit, in seconds (the descriptor is already
removed; the browser SIGKILLs a host ~2 s after closing its port)."""


def prefix_ids(element: dict[str, Any], prefix: str) -> dict[str, Any]:
    """A copy of `element` whose every `id` (recursively) starts with `prefix`."""
    copy = dict(element)
    if isinstance(copy.get("id"), str):
        copy["id"] = prefix + copy["id"]
    children = copy.get("children")
    if isinstance(children, list):
        copy["children"] = [prefix_ids(c, prefix) for c in children if isinstance(c, dict)]
    return copy


def drop_focus(element: dict[str, Any]) -> dict[str, Any]:
    """A copy of `element` with `focused` removed everywhere below and including it."""
    copy = {k: v for k, v in element.items() if k != "focused"}
    children = copy.get("children")
    if isinstance(children, list):
        copy["children"] = [drop_focus(c) for c in children if isinstance(c, dict)]
    return copy


def merge_windows(own: Any, others: list[tuple[list[dict[str, Any]], bool]]) -> Any:
    """`own` (`{root: Application, windowFocused?}`) with the follower windows in `others` (each
    `(windows, windowFocused)`) appended to its root's children. One focus path survives: the
    profile whose window really has the focus (`windowFocused`), else the provider's own."""
    if not isinstance(own, dict) or not isinstance(own.get("root"), dict) or not any(w for w, _ in others):
        return own
    root = dict(own["root"])
    own_windows = [c for c in root.get("children") or [] if isinstance(c, dict)]
    groups = [(own_windows, own.get("windowFocused") is True), *others]
    winner = next((n for n, (_, focused) in enumerate(groups) if focused), 0)
    children: list[dict[str, Any]] = []
    for n, (windows, _) in enumerate(groups):
        children.extend(windows if n == winner else [drop_focus(w) for w in windows])
    root["children"] = children
    return {**own, "root": root}


class _Follower:
    """One connected follower on the provider's side."""

    def __init__(self, number: int, connection: ServerConnection) -> None:
        self.prefix = f"f{number}-"
        self.connection = connection
        self.pending: dict[str, asyncio.Future[Any]] = {}

    async def current(self, request_id: str, deadline_ms: int) -> tuple[list[dict[str, Any]], bool]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        try:
            await self.connection.send(json.dumps({"type": "current", "id": request_id}))
            async with asyncio.timeout(deadline_ms / 1000):
                result = await future
        finally:
            self.pending.pop(request_id, None)
        root = result.get("root") if isinstance(result, dict) else None
        windows = root.get("children") if isinstance(root, dict) else None
        focused = isinstance(result, dict) and result.get("windowFocused") is True
        return [prefix_ids(w, self.prefix) for w in windows or [] if isinstance(w, dict)], focused


class HandoffServer:
    """The provider's side: accepts followers authenticated with the provider's MCP token (SPEC §3)."""

    def __init__(self) -> None:
        self._token = b""
        self._numbers = itertools.count(1)
        self._request_ids = itertools.count(1)
        self.followers: dict[int, _Follower] = {}
        self._server: Server | None = None
        self.url: str | None = None

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.headers.get("Origin") is not None:
            return connection.respond(HTTPStatus.FORBIDDEN, "An Origin header is refused.\n")
        if request.path != PATH:
            return connection.respond(HTTPStatus.NOT_FOUND, "Not found.\n")
        given = request.headers.get("Authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), self._token):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "The provider's token is in its descriptor.\n")
        return None

    async def start(self, token: str) -> str:
        """Listen on 127.0.0.1 (OS-picked port) for followers presenting `token` (the endpoint's
        bearer token, published in the descriptor); return `ws://127.0.0.1:<port>/handoff`."""
        self._token = token.encode()
        self._server = await serve(
            self._serve, "127.0.0.1", 0, process_request=self._check, max_size=MAX_MESSAGE_BYTES
        )
        port = next(iter(self._server.sockets)).getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}{PATH}"
        return self.url

    async def stop(self) -> None:
        """Close every follower connection and stop listening (bounded: STOP_TIMEOUT_S)."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_TIMEOUT_S):
                    await self._server.wait_closed()

    async def _serve(self, connection: ServerConnection) -> None:
        number = next(self._numbers)
        follower = _Follower(number, connection)
        self.followers[number] = follower
        log.info("follower %d connected", number)
        try:
            async for raw in connection:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(message, dict):
                    continue
                future = follower.pending.get(str(message.get("id")))
                if future is None or future.done():
                    continue
                if message.get("type") == "result":
                    future.set_result(message.get("result"))
                else:
                    error = message.get("error")
                    text = str(error.get("message", "")) if isinstance(error, dict) else ""
                    future.set_exception(ExtensionError(text, code="follower_error"))
        except WebSocketException:
            pass
        finally:
            del self.followers[number]
            for future in follower.pending.values():
                if not future.done():
                    future.set_exception(ProviderUnavailable("The follower disconnected."))
            log.info("follower %d disconnected", number)

    async def follower_windows(self, deadline_ms: int) -> list[tuple[list[dict[str, Any]], bool]]:
        """Every follower's `(windows, windowFocused)` (ids prefixed), asked at once; a failing
        follower gives `([], False)`."""
        followers = list(self.followers.values())
        if not followers:
            return []
        results = await asyncio.gather(
            *(f.current(f"p-{next(self._request_ids)}", deadline_ms) for f in followers),
            return_exceptions=True,
        )
        out: list[tuple[list[dict[str, Any]], bool]] = []
        for follower, result in zip(followers, results, strict=True):
            if isinstance(result, BaseException):
                log.info("follower %s left out of current: %s", follower.prefix, type(result).__name__)
                out.append(([], False))
            else:
                out.append(result)
        return out


class MergingRequester:
    """The MCP endpoint's requester: `current` = own extension + every follower (provider only)."""

    def __init__(self, own: Requester, server: HandoffServer, is_provider: Callable[[], bool]) -> None:
        self._own = own
        self._server = server
        self._is_provider = is_provider

    def new_request_id(self) -> str:
        """As `Bridge.new_request_id` (page-tool calls name their id for `tools.cancel`)."""
        return self._own.new_request_id()

    async def request(
        self,
        type_: str,
        body: Mapping[str, Any] | None = None,
        *,
        deadline_ms: int,
        request_id: str | None = None,
    ) -> Any:
        """As `Bridge.request`; for `current` on the provider, follower windows are appended."""
        if type_ != "current" or not self._server.followers or not self._is_provider():
            return await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        own_task = asyncio.ensure_future(
            self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        )
        others = await self._server.follower_windows(max(100, deadline_ms - 200))
        return merge_windows(await own_task, others)


class FollowerLink:
    """A standby host's side: connect to the published provider of our browser and answer its
    `current` requests from our own extension (`own`), until `stop()`."""

    def __init__(self, descriptor_path: Path, own_instance: str, own: Requester, *, deadline_ms: int) -> None:
        self._path = descriptor_path
        self._instance = own_instance
        self._own = own
        self._deadline_ms = deadline_ms
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name="follower-link")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    def _provider(self) -> tuple[str, str] | None:
        try:
            data = json.loads(self._path.read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("instance") == self._instance:
            return None
        url, token = data.get("handoff"), data.get("token")
        if isinstance(url, str) and url.startswith("ws://127.0.0.1:") and isinstance(token, str):
            return url, token
        return None

    async def _run(self) -> None:
        while True:
            provider = self._provider()
            if provider is not None:
                url, token = provider
                try:
                    async with connect(
                        url, additional_headers={"Authorization": f"Bearer {token}"},
                        max_size=MAX_MESSAGE_BYTES, open_timeout=2,
                    ) as connection:
                        log.info("following the provider at %s", url.rsplit(":", 1)[-1])
                        hello = {"type": "follower.hello", "instance": self._instance}
                        await connection.send(json.dumps(hello))
                        answering: set[asyncio.Task[None]] = set()
                        async for raw in connection:
                            task = asyncio.create_task(self._answer(connection, raw))
                            answering.add(task)
                            task.add_done_callback(answering.discard)
                except (OSError, WebSocketException, TimeoutError) as exc:
                    log.info("provider link closed: %s", type(exc).__name__)
            await asyncio.sleep(RECONNECT_S)

    async def _answer(self, connection: Any, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("type") != "current":
            return
        request_id = message.get("id")
        try:
            result = await self._own.request("current", deadline_ms=self._deadline_ms)
            reply: dict[str, Any] = {"type": "result", "id": request_id, "result": result}
        except (DeadlineExceeded, ExtensionError, ProviderUnavailable, WebctxError) as exc:
            reply = {"type": "error", "id": request_id, "error": {"code": exc.code, "message": str(exc)}}
        with contextlib.suppress(WebSocketException):
            await connection.send(json.dumps(reply))


class ProfileHandoff:
    """The hand-off of one native host, whatever its role: the server it would serve followers on,
    the requester its MCP endpoint uses, and the link it follows the provider with while standing by.

    Usage (app.py): `McpEndpoint(handoff.requester, …)`; `url = await handoff.start(token)` goes
    into the descriptor as `handoff`; the publisher's `on_role_change` is `handoff.on_role_change`
    and `handoff.descriptor_path` is the publisher's path; `await handoff.stop()` at exit.
    """

    def __init__(self, own: Requester, *, instance: str, deadline_ms: int = 3000) -> None:
        self._own = own
        self._instance = instance
        self._deadline_ms = deadline_ms
        self.server = HandoffServer()
        self.role = "starting"
        self.requester = MergingRequester(own, self.server, lambda: self.role == "provider")
        self.descriptor_path: Path | None = None
        self._link: FollowerLink | None = None

    async def start(self, token: str) -> str:
        """Start the hand-off server; return its URL for the descriptor."""
        return await self.server.start(token)

    def on_role_change(self, role: str) -> None:
        """Follow the published provider while standing by; stop following once we publish."""
        self.role = role
        if role == "standby" and self.descriptor_path is not None:
            if self._link is None:
                self._link = FollowerLink(
                    self.descriptor_path, self._instance, self._own, deadline_ms=self._deadline_ms
                )
            self._link.start()
        elif self._link is not None:
            self._link.stop()

    async def stop(self) -> None:
        """Stop following and serving (bounded: STOP_TIMEOUT_S)."""
        if self._link is not None:
            self._link.stop()
        await self.server.stop()
