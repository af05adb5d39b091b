"""Several profiles, one provider: the loopback WebSocket between native hosts of one browser (SPEC §3).

```
 profile A's native host (provider: holds the lock, publishes the descriptor)
   HandoffServer ws://127.0.0.1:<port>/handoff   (the descriptor's `handoff`, our addition)
     ▲  Authorization: Bearer <the provider's token, read from the descriptor>; any Origin → 403
     │  follower.hello {instance} ─►  tools.changed {tools} ─►  (follower_tools.py → tools/list)
     │  tree {complete, root?, windowFocused?} ─►  the follower's pushed tree, on every change
     │  ◄─ current | location | tools.call | tools.cancel {id, deadlineMs, …}
     │  ─► result {id, result} | error {id, error: {code, message}}
 profile B's native host (standby)            FollowerLink (follower_link.py): its own extension
```

`current` on the provider (MergingRequester) appends each follower's windows to its own
Application element. A follower pushes its tree on every change (`tree`, from its own pushed tree:
tree_cache.py), so the provider merges the trees it holds without a round trip; a follower with no
complete tree (none yet, or `complete: false`) is asked at once, as is our own extension when our
own cache has none. A follower's element ids get the prefix `f<k>-`, where `k` numbers follower
host instances for the provider's instance: a new follower instance gets a new `k`, a follower
that reconnects keeps its `k` (its ids and tool names stay valid), so ids stay unique in the tree
and never mean two things within the instance. A
follower that fails or misses the deadline is left out of that answer. `location` of an id
`f<k>-…` goes to follower `k` (prefix stripped); when that follower is gone, the answer is `gone`.
A follower's page tools are the provider's MCP tools (follower_tools.py); calls go to it.
One focus path survives: the profile whose window really has the browser's focus now (each
extension's `windowFocused`, from `chrome.windows.getLastFocused().focused`) keeps its `focused`
marks, the others lose theirs; when none has focus, the provider's own tree keeps its marks.
Other requests go to the provider's own extension.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import operator
import re
from collections.abc import Callable, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import WebSocketException
from websockets.http11 import Request, Response

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.answers import Element
from native_host.provider.profiles.follower_link import MAX_MESSAGE_BYTES, FollowerLink, encode

if TYPE_CHECKING:
    from native_host.provider.bridge import Requester
    from native_host.provider.profiles.follower_tools import FollowerTools

log = logging.getLogger(__name__)

PATH: Final = "/handoff"
HELLO_TIMEOUT_S: Final = 2.0
"""A follower must send `follower.hello` this soon after connecting, in seconds."""
STOP_TIMEOUT_S: Final = 0.5
"""Closing the hand-off server may take this long at exit, in seconds (the descriptor is already
removed; the browser SIGKILLs a host ~2 s after closing its port)."""


def prefix_ids(
    element: dict[str, Any], prefix: str, tool_names: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A copy of `element` whose every `id` (recursively) starts with `prefix`; a Page's
    `attributes.tools` (the follower's exposed names) become the provider's names in `tool_names`
    (follower_tools.py), names it does not hold are left out."""
    copy = dict(element)
    if isinstance(copy.get("id"), str):
        copy["id"] = prefix + copy["id"]
    attributes = copy.get("attributes")
    if tool_names is not None and isinstance(attributes, dict) and isinstance(attributes.get("tools"), list):
        names = [tool_names[n] for n in attributes["tools"] if isinstance(n, str) and n in tool_names]
        copy["attributes"] = {**attributes, "tools": names}
    children = copy.get("children")
    if isinstance(children, list):
        copy["children"] = [prefix_ids(c, prefix, tool_names) for c in children if isinstance(c, dict)]
    return copy


def strip_prefix(body: Mapping[str, Any] | None, prefix: str) -> dict[str, Any]:
    """`body` with the follower `prefix` taken off its `pageId` and `elementId` (the follower's
    extension knows its ids without it)."""
    out = dict(body or {})
    for key in ("pageId", "elementId"):
        value = out.get(key)
        if isinstance(value, str) and value.startswith(prefix):
            out[key] = value[len(prefix):]
    return out


FOLLOWER_ID: Final = re.compile(r"f(\d+)-(.+)", re.DOTALL)
"""A follower's element id in the merged tree: `f<k>-<the follower's own id>`."""

GONE_REPLY: Final[dict[str, Any]] = {"location": {"state": "gone", "rects": []}}
"""The `location` reply for an id of a follower connection that is gone (SPEC §1.2 `gone`)."""


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
    """One connected follower on the provider's side; a `bridge.Requester` that reaches the
    follower's extension through its host (ids lose the `f<k>-` prefix on the way)."""

    def __init__(self, number: int, connection: ServerConnection, ids: Callable[[], str]) -> None:
        self.number = number
        self.prefix = f"f{number}-"
        self.connection = connection
        self.pending: dict[str, asyncio.Future[Any]] = {}
        self.tool_names: Mapping[str, str] = {}
        """The follower's exposed tool names → the provider's (follower_tools.py)."""
        self._ids = ids
        self.tree: dict[str, Any] | None = None
        """The follower's last pushed complete tree (`{root, windowFocused}`), else None."""
        self._windows: tuple[list[dict[str, Any]], bool] | None = None
        """`tree` as `current` gives it (prefixed ids, our tool names), made once per tree."""

    def set_tree(self, message: Mapping[str, Any]) -> None:
        """A `tree` from the follower: kept when complete and of the right shape (checked once
        here), else forgotten (its `current` is asked again)."""
        self._windows = None
        root = message.get("root")
        self.tree = None
        if message.get("complete") is not True or not isinstance(root, dict):
            return
        try:
            Element.model_validate(root)
        except ValidationError:
            log.info("follower %s sent a tree of the wrong shape", self.prefix)
            return
        self.tree = {"root": root, "windowFocused": message.get("windowFocused") is True}

    def tools_renamed(self) -> None:
        """`tool_names` changed: the cached windows name tools again."""
        self._windows = None

    def cached_windows(self) -> tuple[list[dict[str, Any]], bool] | None:
        """`(windows, windowFocused)` from the pushed tree, or None when there is none."""
        if self.tree is None:
            return None
        if self._windows is None:
            self._windows = self._windows_of(self.tree)
        return self._windows

    def _windows_of(self, result: Any) -> tuple[list[dict[str, Any]], bool]:
        root = result.get("root") if isinstance(result, dict) else None
        windows = root.get("children") if isinstance(root, dict) else None
        focused = isinstance(result, dict) and result.get("windowFocused") is True
        names = self.tool_names
        return [prefix_ids(w, self.prefix, names) for w in windows or [] if isinstance(w, dict)], focused

    def new_request_id(self) -> str:
        """A fresh id `p-<n>` (unique across the provider's followers)."""
        return self._ids()

    async def request(
        self,
        type_: str,
        body: Mapping[str, Any] | None = None,
        *,
        deadline_ms: int,
        request_id: str | None = None,
    ) -> Any:
        """As `Bridge.request`, through the follower: `{type, id, deadlineMs, **body}` (pageId and
        elementId without our prefix). Raises DeadlineExceeded, ExtensionError (the follower's
        extension's code), ProviderUnavailable (the follower is gone)."""
        if request_id is None:
            request_id = self.new_request_id()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        message = {**strip_prefix(body, self.prefix), "type": type_, "id": request_id}
        message["deadlineMs"] = deadline_ms
        try:
            try:
                await self.connection.send(encode(message))
            except WebSocketException:
                raise ProviderUnavailable("The other profile's native host disconnected.") from None
            try:
                async with asyncio.timeout(deadline_ms / 1000):
                    return await future
            except TimeoutError:
                raise DeadlineExceeded(
                    f"The other profile's native host did not answer `{type_}` within {deadline_ms} ms."
                ) from None
        finally:
            self.pending.pop(request_id, None)

    async def current(self, request_id: str, deadline_ms: int) -> tuple[list[dict[str, Any]], bool]:
        result = await self.request("current", deadline_ms=deadline_ms, request_id=request_id)
        return self._windows_of(result)


class HandoffServer:
    """The provider's side: accepts followers authenticated with the provider's MCP token (SPEC §3)."""

    def __init__(self) -> None:
        self._token = b""
        self._numbers = itertools.count(1)
        self._by_instance: dict[str, int] = {}
        self._request_ids = itertools.count(1)
        self.followers: dict[int, _Follower] = {}
        self.tools: FollowerTools | None = None
        """Where followers' page tools go (set by ProfileHandoff; follower_tools.py)."""
        self._server: Server | None = None
        self.url: str | None = None

    def _next_request_id(self) -> str:
        return f"p-{next(self._request_ids)}"

    def _number_for(self, hello: Any) -> int:
        """`k` of a new follower connection: the one its host instance had before (a reconnect
        keeps its ids and tool names), else a new one; never one that is connected now."""
        instance = hello.get("instance") if isinstance(hello, dict) else None
        if isinstance(instance, str) and hello.get("type") == "follower.hello":
            known = self._by_instance.get(instance)
            if known is not None and known not in self.followers:
                return known
            number = next(self._numbers)
            self._by_instance[instance] = number
            return number
        return next(self._numbers)

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
            self._serve, "127.0.0.1", 0, process_request=self._check, max_size=MAX_MESSAGE_BYTES,
            compression=None,  # loopback: deflating multi-MiB page-tool results only costs CPU
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
        try:
            async with asyncio.timeout(HELLO_TIMEOUT_S):
                hello = json.loads(await connection.recv())
        except (TimeoutError, ValueError, WebSocketException):
            return
        number = self._number_for(hello)
        follower = _Follower(number, connection, self._next_request_id)
        self.followers[number] = follower
        log.info("follower %d connected", number)
        try:
            async for raw in connection:
                try:
                    message = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(message, dict):
                    await self._on_message(follower, message)
        except WebSocketException:
            pass
        finally:
            del self.followers[number]
            for future in follower.pending.values():
                if not future.done():
                    future.set_exception(ProviderUnavailable("The other profile's native host disconnected."))
            if self.tools is not None:
                await self.tools.remove(number)
            log.info("follower %d disconnected", number)

    async def _on_message(self, follower: _Follower, message: dict[str, Any]) -> None:
        """A follower's `tools.changed` (its page tools), or a reply to one of our requests."""
        if message.get("type") == "tools.changed":
            if self.tools is not None:
                await self.tools.update(follower.number, follower.prefix, follower, message.get("tools"))
                follower.tool_names = self.tools.names_of(follower.number)
                follower.tools_renamed()
            return
        if message.get("type") == "tree":
            follower.set_tree(message)
            return
        future = follower.pending.get(str(message.get("id")))
        if future is None or future.done():
            return
        if message.get("type") == "result":
            future.set_result(message.get("result"))
        else:
            error = message.get("error")
            error = error if isinstance(error, dict) else {}
            code = str(error.get("code") or "follower_error")
            future.set_exception(ExtensionError(str(error.get("message", "")), code=code))

    def follower_of(self, element_id: str) -> tuple[bool, _Follower | None]:
        """Whether `element_id` is a follower's (`f<k>-…`), and that follower when connected."""
        match = FOLLOWER_ID.fullmatch(element_id)
        if match is None:
            return False, None
        return True, self.followers.get(int(match.group(1)))

    def cached_follower_windows(self) -> list[tuple[list[dict[str, Any]], bool]] | None:
        """Every follower's `(windows, windowFocused)` from its pushed tree, or None when some
        follower has none (then `follower_windows` asks)."""
        out = []
        for follower in self.followers.values():
            cached = follower.cached_windows()
            if cached is None:
                return None
            out.append(cached)
        return out

    async def follower_windows(self, deadline_ms: int) -> list[tuple[list[dict[str, Any]], bool]]:
        """Every follower's `(windows, windowFocused)` (ids prefixed): from its pushed tree, else
        asked (all at once); a failing follower gives `([], False)`."""
        followers = list(self.followers.values())
        if not followers:
            return []
        results = await asyncio.gather(
            *(self._windows_of(f, deadline_ms) for f in followers),
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

    async def _windows_of(self, follower: _Follower, deadline_ms: int) -> tuple[list[dict[str, Any]], bool]:
        cached = follower.cached_windows()
        if cached is not None:
            return cached
        return await follower.current(self._next_request_id(), deadline_ms)


class MergingRequester:
    """The MCP endpoint's requester: `current` = own extension + every follower (provider only)."""

    def __init__(self, own: Requester, server: HandoffServer, is_provider: Callable[[], bool]) -> None:
        self._own = own
        self._server = server
        self._is_provider = is_provider
        self._memo: tuple[tuple[Any, ...], Any] | None = None

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
        """As `Bridge.request`; for `current` on the provider, follower windows are appended;
        `location` of a follower's id (`f<k>-…`) goes to that follower (`gone` when it is)."""
        if type_ == "location" and self._is_provider():
            element_id = (body or {}).get("elementId")
            element_id = element_id if isinstance(element_id, str) else ""
            is_follower, follower = self._server.follower_of(element_id)
            if is_follower:
                if follower is None:
                    return GONE_REPLY
                return await follower.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        if type_ != "current" or not self._server.followers or not self._is_provider():
            return await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        cached = self._server.cached_follower_windows()
        if cached is not None:  # every follower pushed its tree: no round trip to them
            own = await self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
            return self._merged(own, cached)
        own_task = asyncio.ensure_future(
            self._own.request(type_, body, deadline_ms=deadline_ms, request_id=request_id)
        )
        others = await self._server.follower_windows(max(100, deadline_ms - 200))
        return merge_windows(await own_task, others)

    def _merged(self, own: Any, others: list[tuple[list[dict[str, Any]], bool]]) -> Any:
        """`merge_windows(own, others)`, the same object while neither changed (pushed trees are
        the same objects until their next push), so the endpoint checks and encodes it once."""
        key = (own, *(windows for windows, _ in others), *(focused for _, focused in others))
        memo = self._memo
        if memo is not None and len(memo[0]) == len(key) and all(map(operator.is_, memo[0], key)):
            return memo[1]
        merged = merge_windows(own, others)
        self._memo = (key, merged)
        return merged


class ProfileHandoff:
    """The hand-off of one native host, whatever its role: the server it would serve followers on,
    the requester its MCP endpoint uses, and the link it follows the provider with while standing by.

    Usage (app.py): `McpEndpoint(handoff.requester, …)`; `handoff.server.tools` is the endpoint's
    `follower_tools`; `url = await handoff.start(token)` goes into the descriptor as `handoff`;
    the publisher's `on_role_change` is `handoff.on_role_change` and `handoff.descriptor_path` is
    the publisher's path; `handoff.set_page_tools(…)` on every `tools.changed` of our extension;
    `on_provider(port)` hears the provider's MCP port while we stand by (the popup shows it);
    `handoff.set_tree(…)` on every change of our pushed tree (tree_cache.py), passed on while we follow;
    `await handoff.stop()` at exit.
    """

    def __init__(
        self,
        own: Requester,
        *,
        instance: str,
        deadline_ms: int = 3000,
        tools: FollowerTools | None = None,
        on_provider: Callable[[int], None] | None = None,
    ) -> None:
        self._own = own
        self._instance = instance
        self._deadline_ms = deadline_ms
        self._on_provider = on_provider
        self.server = HandoffServer()
        self.server.tools = tools
        self.role = "starting"
        self.requester = MergingRequester(own, self.server, lambda: self.role == "provider")
        self.descriptor_path: Path | None = None
        self._link: FollowerLink | None = None
        self._page_tools: list[dict[str, Any]] = []
        self._tree: dict[str, Any] | None = None

    def set_tree(self, reply: dict[str, Any] | None) -> None:
        """Our own pushed tree (tree_cache.py `reply()`): passed on to the provider while we follow."""
        self._tree = reply
        if self._link is not None:
            self._link.set_tree(reply)

    async def start(self, token: str) -> str:
        """Start the hand-off server; return its URL for the descriptor."""
        return await self.server.start(token)

    def set_page_tools(self, tools: list[dict[str, Any]]) -> None:
        """Our extension's page tools (wire shape): streamed to the provider while we follow."""
        self._page_tools = tools
        if self._link is not None:
            self._link.set_tools(tools)

    def on_role_change(self, role: str) -> None:
        """Follow the published provider while standing by; stop following once we publish."""
        self.role = role
        if role == "standby" and self.descriptor_path is not None:
            if self._link is None:
                self._link = FollowerLink(
                    self.descriptor_path, self._instance, self._own,
                    deadline_ms=self._deadline_ms, on_provider=self._on_provider,
                )
                self._link.set_tools(self._page_tools)
                self._link.set_tree(self._tree)
            self._link.start()
        elif self._link is not None:
            self._link.stop()

    async def stop(self) -> None:
        """Stop following and serving (bounded: STOP_TIMEOUT_S)."""
        if self._link is not None:
            self._link.stop()
        await self.server.stop()
