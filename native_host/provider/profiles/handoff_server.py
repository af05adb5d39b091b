"""The provider's side of the hand-off: the loopback WebSocket that follower hosts connect to
(docs/design.md "Discovery: the descriptor"; the messages: protocol/handoff.py). Just over 400
lines: the limits a hostile follower meets live in handoff_limits.py; what is left here is the
follower connection and the server that calls them.

```
follower ── ws://127.0.0.1:<port>/handoff ──► process_request: security.refusal (Origin 403 →
                                              Host 421 → bearer 401), then the path (404)
         ─► follower.hello {instance}     ──► FollowerConnection k (k: by instance, HandoffServer)
         ─► tools.changed                 ──► FollowerTools.update (follower_tools.py)
         ─► tree                          ──► FollowerConnection.set_tree (merged without asking;
                                              its page links rewritten to ours, merge.py),
                                              then on_tree_change (the endpoint's page resources)
         ◄─ current | location | tools.* | page.read  ◄── FollowerConnection.request (a Requester)
         ─► result | error                ──► its Correlator (correlator.py, ids p-<n>)
disconnect ──► pending requests fail (ProviderUnavailable), its tools leave tools/list,
               on_tree_change (its page resources leave resources/list)
```

`k` numbers follower host instances for the provider's instance: a new follower instance gets a
new `k`, a follower that reconnects keeps its `k` (its ids and tool names stay valid), so ids
stay unique in the merged tree and never mean two things within the instance (merge.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import WebSocketException
from websockets.http11 import Request, Response

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.answers import Element
from native_host.protocol.handoff import (
    HANDOFF_PATH,
    HELLO_TIMEOUT_S,
    MAX_TREE_MESSAGE_BYTES,
    PROVIDER_REQUEST_ADAPTER,
    FollowerHello,
    FollowerToolsChanged,
    FollowerTree,
    HandoffError,
    HandoffResult,
    encode,
)
from native_host.protocol.native import MAX_JSON_DEPTH, exceeds_depth
from native_host.provider.http.connections import ACCEPT_BATCH, HEADER_TIMEOUT_S, widen_listen_queue
from native_host.provider.http.refusal_log import REFUSALS
from native_host.provider.http.security import loopback_hosts, refusal
from native_host.provider.port.correlator import Correlator, numbered_ids
from native_host.provider.port.tree_cache import check_tree_depth
from native_host.provider.profiles.handoff_limits import (
    CLOSE_TOO_BIG,
    CLOSE_TRY_AGAIN,
    LEFT_OUT,
    MAX_QUEUED_MESSAGES,
    HandoffSlots,
    MessageWindow,
    TreeBudget,
    connection_class,
    flush_logs,
    is_reply,
    parse_off_loop,
)
from native_host.provider.profiles.merge import FOLLOWER_ID, Windows, follower_windows, strip_prefix

if TYPE_CHECKING:
    from native_host.provider.profiles.follower_tools import FollowerTools

log = logging.getLogger(__name__)

STOP_TIMEOUT_S: Final = 0.5
"""Closing the hand-off server may take this long at exit, in seconds (the descriptor is already
removed; the browser SIGKILLs a host ~2 s after closing its port)."""

FOLLOWER_GONE: Final = "The other profile's native host disconnected."
"""Why a request to a follower that went away fails (ProviderUnavailable)."""


class FollowerConnection:
    """One connected follower on the provider's side; a `bridge.Requester` that reaches the
    follower's extension through its host (ids lose the `f<k>-` prefix on the way). `number` is
    its `k`; `ids` mints request ids (shared by every follower of the provider: `p-<n>`)."""

    def __init__(
        self,
        number: int,
        connection: ServerConnection,
        ids: Callable[[], str],
        instances: tuple[str, str] | None = None,
        budget: TreeBudget | None = None,
    ) -> None:
        self.number = number
        self.prefix = f"f{number}-"
        self.instances = instances
        """`(the follower's instance, ours)`: its page-resource links become ours (merge.py)."""
        self.connection = connection
        self.pending = Correlator(ids)
        """Our requests waiting for the follower's `result`/`error`."""
        self.tool_names: Mapping[str, str] = {}
        """The follower's exposed tool names → the provider's (follower_tools.py)."""
        self.tree: dict[str, Any] | None = None
        """The follower's last pushed complete tree (`{root, windowFocused}`), else None."""
        self._windows: Windows | None = None
        """`tree` as `current` gives it (prefixed ids, our tool names), made once per tree."""
        self.budget = budget if budget is not None else TreeBudget()
        """Every follower's kept trees, in bytes (handoff_limits.py), shared by the server's followers."""
        self.left_out = False
        """Its last tree did not fit the budget: `current` leaves this follower out, unasked."""
        self.window = MessageWindow(connection)
        """The largest message this connection takes now (handoff_limits.py)."""
        self._reply_bytes: dict[str, int] = {}

    def set_tree(self, message: FollowerTree, size: int = 0) -> None:
        """A `tree` from the follower (`size`: its message's bytes): kept when complete, of the
        right shape (checked once here, as an answers.Element), nested no deeper than
        MAX_JSON_DEPTH and within the followers' TreeBudget, else forgotten (its
        `current` is asked again; over the budget it is left out of `current` instead)."""
        self._windows = None
        root = message.root
        self.tree = None
        self.left_out = False
        self.budget.release(self.number)
        if message.complete is not True or root is None:
            return
        if not self.budget.claim(self.number, size):
            self.left_out = True
            LEFT_OUT.event(
                "pushed", f"follower {self.prefix} left out of current: its {size:,}-byte tree is over "
                f"the followers' {self.budget.limit:,}-byte budget",
            )
            return
        if exceeds_depth(root):
            log.info("follower %s sent a tree nested deeper than %d levels", self.prefix, MAX_JSON_DEPTH)
            self.budget.release(self.number)
            return
        try:
            Element.model_validate(root)
        except ValidationError:
            log.info("follower %s sent a tree of the wrong shape", self.prefix)
            self.budget.release(self.number)
            return
        self.tree = {"root": root, "windowFocused": message.window_focused is True}

    def rename_tools(self, tool_names: Mapping[str, str]) -> None:
        """The follower's tool names → ours changed (follower_tools.py): windows name tools again."""
        self.tool_names = tool_names
        self._windows = None

    def cached_windows(self) -> Windows | None:
        """`(windows, windowFocused)` from the pushed tree, or None when there is none (no windows
        when its tree was left out for the budget)."""
        if self.left_out:
            return [], False
        if self.tree is None:
            return None
        if self._windows is None:
            self._windows = follower_windows(self.tree, self.prefix, self.tool_names, self.instances)
        return self._windows

    def new_request_id(self) -> str:
        """A fresh id `p-<n>` (unique across the provider's followers)."""
        return self.pending.new_id()

    async def request(
        self,
        type_: str,
        body: Mapping[str, Any] | None = None,
        *,
        deadline_ms: int,
        request_id: str | None = None,
    ) -> Any:
        """As `Bridge.request`, through the follower: a protocol/handoff.py request `{**body, type,
        id, deadlineMs}` (pageId and elementId without our prefix). Raises DeadlineExceeded,
        ExtensionError (the follower's extension's code), ProviderUnavailable (the follower is
        gone), ValueError (a request the hand-off does not carry)."""
        if request_id is None:
            request_id = self.new_request_id()
        message = PROVIDER_REQUEST_ADAPTER.validate_python(
            {**strip_prefix(body, self.prefix), "type": type_, "id": request_id, "deadlineMs": deadline_ms}
        )
        data = encode(message)

        async def send() -> None:
            try:
                await self.connection.send(data)
            except WebSocketException:
                raise ProviderUnavailable(FOLLOWER_GONE) from None

        big = type_ in self.window.requests
        if big:
            self.window.open()
        try:
            return await self.pending.call(request_id, send, deadline_ms=deadline_ms)
        except TimeoutError:
            raise DeadlineExceeded(
                f"The other profile's native host did not answer `{type_}` within {deadline_ms} ms."
            ) from None
        finally:
            if big:
                self.window.close()

    async def current(self, deadline_ms: int) -> Windows:
        """The follower's windows, asked (`current`): `(windows, windowFocused)`, ids prefixed.
        Raises as `request`, and TooDeep for a tree nested deeper than MAX_JSON_DEPTH (the caller
        leaves this follower out)."""
        request_id = self.new_request_id()
        self._reply_bytes[request_id] = 0
        try:
            result = await self.request("current", deadline_ms=deadline_ms, request_id=request_id)
        finally:
            size = self._reply_bytes.pop(request_id, 0)
        if not self.budget.fits(self.number, size):
            LEFT_OUT.event(
                "asked", f"follower {self.prefix} left out of current: its {size:,}-byte answer is over "
                f"the followers' {self.budget.limit:,}-byte budget",
            )
            return [], False
        check_tree_depth(result)
        return follower_windows(result, self.prefix, self.tool_names, self.instances)

    def on_reply(self, message: HandoffResult | HandoffError, size: int = 0) -> None:
        """The follower's answer to one of our requests (`size`: its message's bytes; dropped when
        nobody waits for it)."""
        if isinstance(message, HandoffResult):
            if message.id in self._reply_bytes:  # a `current` of ours (`current` reads it)
                self._reply_bytes[message.id] = size
            self.pending.resolve(message.id, message.result)
        else:
            error = message.error
            self.pending.fail(message.id, ExtensionError(error.message, code=error.code or "follower_error"))

    def close(self) -> None:
        """The connection closed: every waiting and later request fails with ProviderUnavailable."""
        self.pending.close(FOLLOWER_GONE)
        self.budget.release(self.number)


class HandoffServer:
    """The provider's side: accepts followers authenticated with the provider's MCP token, behind
    the MCP endpoint's own loopback checks (security.py; design.md §1, §3). `tools` receives followers'
    page tools (follower_tools.py); `instance` (ours) is what followers' page-resource links are
    rewritten to (merge.py); `on_tree_change` hears each follower tree and each disconnect (the
    endpoint compares its page resources: page_resources.py)."""

    def __init__(self, tools: FollowerTools | None = None, *, instance: str | None = None) -> None:
        self._tools = tools
        self._instance = instance
        self.on_tree_change: Callable[[], None] | None = None
        self._token = b""
        self._allowed_hosts: tuple[bytes, ...] = ()
        self._numbers = itertools.count(1)
        self._by_instance: dict[str, int] = {}
        self._request_ids = numbered_ids("p-")
        self.followers: dict[int, FollowerConnection] = {}
        """Connected followers by `k`."""
        self._server: Server | None = None
        self.url: str | None = None
        self.slots = HandoffSlots()
        """Live hand-off connections: pending and followers, capped (handoff_limits.py)."""
        self._budget = TreeBudget()

    def _number_for(self, hello: object) -> int:
        """`k` of a new follower connection: the one its host instance had before (a reconnect
        keeps its ids and tool names), else a new one; never one that is connected now."""
        if isinstance(hello, FollowerHello):
            known = self._by_instance.get(hello.instance)
            if known is not None and known not in self.followers:
                return known
            number = next(self._numbers)
            self._by_instance[hello.instance] = number
            return number
        return next(self._numbers)

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        """websockets' `process_request`: the loopback checks (security.refusal), then the path."""
        # As ASGI gives them: lower-case names, the bytes sent (websockets decoded them as ISO-8859-1).
        headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers.raw_items()
        ]
        refused = refusal(headers, allowed_hosts=self._allowed_hosts, token=self._token)
        if refused is not None:
            REFUSALS.refused("hand-off", refused.status, refused.message)  # rate-limited
            response = connection.respond(HTTPStatus(refused.status), refused.message + "\n")
            for name, value in refused.headers:
                response.headers[name.decode("latin-1")] = value.decode("latin-1")
            return response
        if request.path != HANDOFF_PATH:
            return connection.respond(HTTPStatus.NOT_FOUND, "Not found.\n")
        return None

    async def start(self, token: str) -> str:
        """Listen on 127.0.0.1 (OS-picked port) for followers presenting `token` (the endpoint's
        bearer token, published in the descriptor); return `ws://127.0.0.1:<port>/handoff`."""
        self._token = token.encode()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))
            self._server = await serve(
                self._serve, sock=sock, process_request=self._check,
                # raised per connection while a big reply is awaited (handoff_limits.MessageWindow)
                max_size=MAX_TREE_MESSAGE_BYTES,
                max_queue=MAX_QUEUED_MESSAGES,  # then TCP backpressure: a flood is not buffered
                create_connection=connection_class(self.slots),  # the connection caps, from the accept
                backlog=ACCEPT_BATCH,  # asyncio's accepts per loop turn too: a flood's batch stays small
                compression=None,  # loopback: deflating multi-MiB page-tool results only costs CPU
                open_timeout=HEADER_TIMEOUT_S,  # the handshake's deadline, as the MCP endpoint's headers'
            )
        except OSError:
            sock.close()
            raise
        widen_listen_queue(sock)  # a real follower's SYN waits in the kernel's queue, not dropped
        port = sock.getsockname()[1]
        self._allowed_hosts = loopback_hosts(port)
        self.url = f"ws://127.0.0.1:{port}{HANDOFF_PATH}"
        return self.url

    async def stop(self) -> None:
        """Close every follower connection and stop listening (bounded: STOP_TIMEOUT_S)."""
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_TIMEOUT_S):
                    await self._server.wait_closed()
        flush_logs()

    async def _serve(self, connection: ServerConnection) -> None:
        try:
            async with asyncio.timeout(HELLO_TIMEOUT_S):
                hello = await parse_off_loop(await connection.recv())
        except (TimeoutError, ValueError, WebSocketException):
            return
        if not self.slots.promote(connection):
            reason = f"The provider serves {self.slots.max_followers} followers at most."
            await connection.close(CLOSE_TRY_AGAIN, reason)
            return
        number = self._number_for(hello)
        instances = None
        if isinstance(hello, FollowerHello) and self._instance is not None:
            instances = (hello.instance, self._instance)
        follower = FollowerConnection(number, connection, self._request_ids, instances, self._budget)
        self.followers[number] = follower
        log.info("follower %d connected", number)
        try:
            async for raw in connection:
                if len(raw) > MAX_TREE_MESSAGE_BYTES and not is_reply(raw):
                    reason = f"Only a reply may be over {MAX_TREE_MESSAGE_BYTES} bytes."
                    await connection.close(CLOSE_TOO_BIG, reason)
                    break
                try:
                    message = await parse_off_loop(raw)
                except ValueError:
                    continue
                if isinstance(message, FollowerToolsChanged):
                    if self._tools is not None:
                        await self._tools.update(number, follower.prefix, follower, message.tools)
                        follower.rename_tools(self._tools.names_of(number))
                elif isinstance(message, FollowerTree):
                    follower.set_tree(message, len(raw))
                    self._tree_changed()
                elif isinstance(message, HandoffResult | HandoffError):
                    follower.on_reply(message, len(raw))
        except WebSocketException:
            pass
        finally:
            del self.followers[number]
            follower.close()
            if self._tools is not None:
                await self._tools.remove(number)
            self._tree_changed()
            log.info("follower %d disconnected", number)

    def _tree_changed(self) -> None:
        if self.on_tree_change is not None:
            try:
                self.on_tree_change()
            except Exception:
                log.exception("on_tree_change failed")

    def follower_of(self, element_id: str) -> tuple[bool, FollowerConnection | None]:
        """Whether `element_id` is a follower's (`f<k>-…`), and that follower when connected."""
        match = FOLLOWER_ID.fullmatch(element_id)
        if match is None:
            return False, None
        return True, self.followers.get(int(match.group(1)))

    def cached_follower_windows(self) -> list[Windows] | None:
        """Every follower's `(windows, windowFocused)` from its pushed tree, or None when some
        follower has none (then `follower_windows` asks)."""
        out = []
        for follower in self.followers.values():
            cached = follower.cached_windows()
            if cached is None:
                return None
            out.append(cached)
        return out

    async def follower_windows(self, deadline_ms: int) -> list[Windows]:
        """Every follower's `(windows, windowFocused)` (ids prefixed): from its pushed tree, else
        asked (all at once, within `deadline_ms` ms); a failing follower gives `([], False)`."""
        followers = list(self.followers.values())
        if not followers:
            return []
        results = await asyncio.gather(
            *(self._windows_of(f, deadline_ms) for f in followers),
            return_exceptions=True,
        )
        out: list[Windows] = []
        for follower, result in zip(followers, results, strict=True):
            if isinstance(result, BaseException):
                log.info("follower %s left out of current: %s", follower.prefix, type(result).__name__)
                out.append(([], False))
            else:
                out.append(result)
        return out

    @staticmethod
    async def _windows_of(follower: FollowerConnection, deadline_ms: int) -> Windows:
        cached = follower.cached_windows()
        if cached is not None:
            return cached
        return await follower.current(deadline_ms)
