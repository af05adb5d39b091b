"""The provider's MCP endpoint: Streamable HTTP on 127.0.0.1, both MCP eras (design.md §1). Just over
400 lines: one object wires the SDK, the server and its lifecycle; its parts (tools, connections,
guard, error bodies, activity, list_changed) already live in their own modules.

```
desktop host ──HTTP──► uvicorn (pre-bound 127.0.0.1:0 socket, embedded in the host's loop)
                       ├─ GuardedH11Protocol: header/body timeouts, connection cap (connections.py)
                       └─ LoopbackGuard (Origin 403 → Host 421 → bearer 401; security.py)
                          └─ ShortErrorBodies (every other error body: one-line JSON-RPC; error_bodies.py)
                          └─ SDK Streamable HTTP app at /mcp/<random> (its own Host allow-list too)
                             └─ ProviderServer (protocol/tools.py): tools/list, tools/call, listen
                                ├─ ToolSpec table (builtin_tools.py): `current` → Requester.request("current")
                                │      `location` → Requester.request("location", {elementId})
                                │                   + platform.window_number (OS window id)
                                │      `read_page` → resources/read of the Page's link (read_page.py)
                                ├─ PageToolTable (page_tools.py): `p<n>_…` → tools.call → page (design.md §5)
                                ├─ follower_tools (follower_tools.py): `p<n>f<k>_…` → another
                                │  profile's host → its page (design.md §3, handoff.py)
                                ├─ every call above ──► ActivityLog (activity.py): who read what
                                ├─ resources/list, resources/read (page_resources.py): each Page's
                                │  text and screenshot ──► Requester.request("page.read"), and
                                │  `webctx://activity` (unlisted) ──► `webctx activity`
                                └─ list_changed.py: tools/list_changed, resources/list_changed
```

This module imports `mcp` and `uvicorn` (about a second): `app.py` imports it in a thread while it
answers the worker's `hello` (MCP_MODULE). Page tools change at run time (`set_page_tools`); every
change reaches clients of both eras as `notifications/tools/list_changed` (list_changed.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
from collections.abc import Callable, Generator, Mapping
from typing import Any, Final, Protocol, cast

import uvicorn
from mcp import types
from mcp.server import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from native_host import __version__
from native_host.protocol.client_info import client_of
from native_host.protocol.native import (
    CURRENT_DEADLINE_MS,
    LOCATION_DEADLINE_MS,
    PAGE_TOOL_DEADLINE_MS,
    PageTool,
)
from native_host.protocol.tools import (
    EXTENSIONS,
    SERVER_NAME,
    ProviderServer,
    tool_error,
)
from native_host.provider.activity import ActivityLog
from native_host.provider.builtin_tools import BuiltinTools, ToolSpec, WindowFinder, default_window_finder
from native_host.provider.http.connections import (
    ACCEPT_BATCH,
    AcceptErrorSummary,
    ConnectionLimits,
    ConnectionTable,
    protocol_class,
    widen_listen_queue,
)
from native_host.provider.http.error_bodies import ShortErrorBodies
from native_host.provider.http.list_changed import ListChangedBroadcaster
from native_host.provider.http.refusal_log import REFUSALS, count_uvicorn_refusals
from native_host.provider.http.request_slots import RequestSlots
from native_host.provider.http.security import LoopbackGuard
from native_host.provider.http.sse_escape import EscapedLineSeparators
from native_host.provider.page_resources import PageResources
from native_host.provider.page_tools import PageToolTable
from native_host.provider.port.bridge import Requester
from native_host.provider.read_page import ReadPage

log = logging.getLogger(__name__)

SESSION_IDLE_TIMEOUT_S: Final = 600.0
"""A 2025-era MCP session with no request and no open stream for this long is closed, in seconds."""

MAX_SESSIONS: Final = 256
"""At most this many 2025-era MCP sessions at once; a new one closes the least recently used idle
session first (request_slots.py; a loopback provider has a few hosts)."""

GRACEFUL_SHUTDOWN_S: Final = 0.4
"""uvicorn's graceful-shutdown limit, in seconds: open SSE streams are cancelled after it."""

STOP_TIMEOUT_S: Final = 1.0
"""Hard limit for `McpEndpoint.stop`, in seconds (the host must exit ~1 s after stdin EOF)."""

START_TIMEOUT_S: Final = 10.0
"""Limit for uvicorn's startup (lifespan + listen), in seconds."""


class ToolSource(Protocol):
    """More tools for `tools/list` and `tools/call` (other profiles' page tools, follower_tools.py)."""

    def tools(self) -> list[types.Tool]:
        """The `tools/list` entries."""
        ...

    def get(self, name: str) -> types.Tool | None:
        """The entry of exposed name `name`, or None."""
        ...

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult | None:
        """Run tool `name`; None when there is no such tool."""
        ...


class _EmbeddedUvicorn(uvicorn.Server):
    """uvicorn inside the host's loop: signals stay the host's, `started` is awaitable."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.started_event = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        """Do not install SIGINT/SIGTERM handlers: app.py owns them."""
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's startup, then signal `started_event`."""
        await super().startup(sockets)
        self.started_event.set()


class McpEndpoint:
    """The MCP endpoint of one native-host instance (design.md §1).

    `requester` reaches the extension (a `bridge.Bridge`); `instance` is the host's instance
    (16 random bytes, URL-safe base64); `current_deadline_ms` and `location_deadline_ms` bound
    the built-in tools' requests and `page_tool_deadline_ms` one page-tool call (default 60 s,
    design.md §5), in ms; `window_finder` gives `location` its OS window number; `follower_tools`,
    other profiles' page tools (follower_tools.FollowerTools), are listed after our own;
    `connection_limits` bounds half-open and live HTTP connections (connections.py);
    `activity` records every tool call's client and returned ids (activity.py);
    `cached_tree` gives the merged `current` result when it is at hand without a round trip
    (page_resources.py compares the listed resources on each push).
    `token` (32 random bytes, URL-safe base64) is minted here, published only in the descriptor,
    never logged. Usage: `url = await endpoint.start()` … `await endpoint.stop()`.
    """

    def __init__(
        self,
        requester: Requester,
        *,
        instance: str,
        current_deadline_ms: int = CURRENT_DEADLINE_MS,
        location_deadline_ms: int = LOCATION_DEADLINE_MS,
        page_tool_deadline_ms: int = PAGE_TOOL_DEADLINE_MS,
        graceful_shutdown_s: float = GRACEFUL_SHUTDOWN_S,
        window_finder: WindowFinder = default_window_finder,
        follower_tools: ToolSource | None = None,
        connection_limits: ConnectionLimits | None = None,
        activity: ActivityLog | None = None,
        cached_tree: Callable[[], Any] | None = None,
    ) -> None:
        self.activity: Final = activity if activity is not None else ActivityLog()
        self.token: Final = secrets.token_urlsafe(32)
        self.path: Final = f"/mcp/{secrets.token_urlsafe(16)}"
        self._graceful_shutdown_s = graceful_shutdown_s
        self.connections: Final = ConnectionTable(connection_limits or ConnectionLimits())
        self._accept_errors: AcceptErrorSummary | None = None
        self._bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        self.list_changed = ListChangedBroadcaster(self._bus)
        # Page resources: every `current` answer, the tool's too, updates the listed set.
        self.page_resources: Final = PageResources(
            requester,
            instance=instance,
            activity=self.activity,
            on_list_changed=lambda: self.list_changed.notify("resources"),
            cached_tree=cached_tree or (lambda: None),
            current_deadline_ms=current_deadline_ms,
        )
        requester = self.page_resources.requester
        self.page_tools = PageToolTable(requester, page_tool_deadline_ms, on_change=self.notify_tools_changed)
        self.follower_tools: Final = follower_tools
        builtin = BuiltinTools(
            requester,
            instance=instance,
            current_deadline_ms=current_deadline_ms,
            location_deadline_ms=location_deadline_ms,
            window_finder=window_finder,
        )
        read_page = ReadPage(self.page_resources, instance=instance)
        self._tools: dict[str, ToolSpec] = {spec.tool.name: spec for spec in (*builtin.specs, read_page.spec)}
        self.server = self._build_server()
        self._port: int | None = None
        self._uvicorn: _EmbeddedUvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    # -- tools -----------------------------------------------------------------------------------

    def tool_input_schema(self, name: str) -> Mapping[str, Any] | None:
        """`inputSchema` of tool `name`, or None for an unknown tool (the SDK's header check hook)."""
        spec = self._tools.get(name)
        if spec is not None:
            return spec.tool.input_schema
        page_tool = self.page_tools.get(name)
        if page_tool is None and self.follower_tools is not None:
            page_tool = self.follower_tools.get(name)
        return page_tool.input_schema if page_tool else None

    async def set_page_tools(self, tools: list[PageTool]) -> None:
        """Replace the exposed page tools with the worker's list (`tools.changed`, design.md §5); when
        the list changed, every connected client hears `tools/list_changed`."""
        await self.page_tools.update(tools)

    async def notify_tools_changed(self) -> None:
        """Tell every connected client, of both eras, that the tool list changed (coalesced:
        list_changed.py)."""
        self.list_changed.notify()

    def tree_changed(self) -> None:
        """A tree was pushed (ours or a follower's): clients hear `resources/list_changed` when the
        set of page resources changed (page_resources.py). Call from the event loop."""
        self.page_resources.tree_changed()

    # -- server ----------------------------------------------------------------------------------

    def _build_server(self) -> ProviderServer:
        async def on_list_tools(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            followers = self.follower_tools.tools() if self.follower_tools is not None else []
            return types.ListToolsResult(
                tools=[spec.tool for spec in self._tools.values()] + self.page_tools.tools() + followers
            )

        async def on_call_tool(
            ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            spec = self._tools.get(params.name)
            if spec is not None and spec.in_context is not None:  # read_page: records its read itself
                return await spec.in_context(ctx, dict(params.arguments or {}))
            page = self._page_of(params.name) if spec is None else None  # before: the tab may go
            if spec is None:
                result = await call_page_tool(params)
            else:
                try:
                    result = await spec.run(dict(params.arguments or {}))
                except (MCPError, asyncio.CancelledError):
                    raise
                except Exception:
                    log.exception("tool %s failed unexpectedly", spec.tool.name)
                    result = tool_error(
                        f"The tool `{spec.tool.name}` failed unexpectedly; the details are in the webctx log."
                    )
            self.activity.record_call(
                client_of(ctx), params.name, params.arguments, result.is_error,
                result.structured_content, page,
            )
            return result

        async def call_page_tool(params: types.CallToolRequestParams) -> types.CallToolResult:
            try:
                result = await self.page_tools.call(params.name, dict(params.arguments or {}))
                if result is None and self.follower_tools is not None:
                    result = await self.follower_tools.call(params.name, dict(params.arguments or {}))
            except (MCPError, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("a page tool call failed unexpectedly")
                return tool_error("The page tool failed unexpectedly; the details are in the webctx log.")
            if result is None:
                raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name[:128]}")
            return result

        server = ProviderServer(
            SERVER_NAME,
            # page resources, and `webctx://activity` (readable, unlisted)
            on_list_resources=self.page_resources.list_resources,
            on_read_resource=self.page_resources.read_resource,
            version=__version__,
            extensions=EXTENSIONS,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            on_subscriptions_listen=self._listen,
            get_tool_input_schema=self.tool_input_schema,
        )
        server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self.list_changed.on_initialized
        )
        return server

    def _page_of(self, name: str) -> dict[str, str] | None:
        """The page of page tool `name` as an activity element (`{kind, id, page, title?}`), or None."""
        info = self.page_tools.info(name)
        if info is not None:
            element = {"kind": "page", "id": info.page_id, "page": info.page_id}
            return element | ({"title": info.page_title[:80]} if info.page_title else {})
        tool = self.follower_tools.get(name) if self.follower_tools is not None else None
        page_id = (tool.meta or {}).get("pageId") if tool is not None else None
        return {"kind": "page", "id": page_id, "page": page_id} if isinstance(page_id, str) else None

    # -- lifecycle -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port on 127.0.0.1 (OS-picked). Raises RuntimeError before `start`."""
        if self._port is None:
            raise RuntimeError("The MCP endpoint has not been started.")
        return self._port

    @property
    def url(self) -> str:
        """The endpoint as the descriptor publishes it: `http://127.0.0.1:<port>/mcp/<random>`."""
        return f"http://127.0.0.1:{self.port}{self.path}"

    async def start(self) -> str:
        """Bind 127.0.0.1:0, start uvicorn in the running loop and return `url` once it accepts
        connections. Raises RuntimeError if uvicorn fails or takes over START_TIMEOUT_S."""
        if self._task is not None:
            raise RuntimeError("The MCP endpoint was already started.")
        # IPPROTO_TCP: asyncio sets TCP_NODELAY only on such sockets (else ~40 ms per response).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.bind(("127.0.0.1", 0))
            sock.listen(128)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self._port = port = sock.getsockname()[1]
        app = self.server.streamable_http_app(
            streamable_http_path=self.path,
            # Loopback with a few desktop hosts: bound what forgotten 2025-era sessions can hold
            # (the SDK's defaults are 30 min and 10,000 sessions, ~40 KB each).
            session_idle_timeout=SESSION_IDLE_TIMEOUT_S,
            max_sessions=MAX_SESSIONS,
            transport_security=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=[f"127.0.0.1:{port}", f"localhost:{port}"],
                allowed_origins=[],
            ),
        )
        # SSE `data:` lines carry no raw U+2028/2029/0085 (sse_escape.py); errors are short JSON, and a
        # wrong path's 404 names the published one; one client cannot hold every connection or
        # session (request_slots.py).
        served = ShortErrorBodies(EscapedLineSeparators(cast(Any, app)), endpoint_path=self.path)
        slots = RequestSlots(served, sessions=self._sessions, max_sessions=MAX_SESSIONS)
        guard = LoopbackGuard(slots, port=port, token=self.token)
        count_uvicorn_refusals()  # garbage from a token-less client is a refusal too
        config = uvicorn.Config(
            cast(Any, guard),
            log_config=None,
            access_log=False,
            lifespan="on",
            ws="none",
            proxy_headers=False,
            server_header=False,
            # connections.py: h11 with header/body timeouts and a connection cap (never httptools,
            # which would skip them); accept in small batches, since uvicorn's backlog is asyncio's
            # accept-loop count too (the kernel queue is widened once started).
            http=protocol_class(self.connections),
            backlog=ACCEPT_BATCH,
            # both annotated `int`, but only ever passed to call_later / wait_for (seconds as float)
            timeout_keep_alive=cast(int, self.connections.limits.keep_alive_timeout_s),
            timeout_graceful_shutdown=cast(int, self._graceful_shutdown_s),
        )
        self._accept_errors = AcceptErrorSummary(asyncio.get_running_loop())
        self._accept_errors.install()
        self._uvicorn = server = _EmbeddedUvicorn(config)
        self._task = asyncio.create_task(self._serve(server, sock), name="mcp-endpoint")
        started = asyncio.create_task(server.started_event.wait())
        try:
            await asyncio.wait(
                {self._task, started}, timeout=START_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            started.cancel()
        if not server.started_event.is_set():
            if self._task.done() and self._task.exception() is not None:
                self._accept_errors.uninstall()
                raise RuntimeError("The MCP endpoint failed to start; see the webctx log.")
            await self.stop()
            raise RuntimeError(f"The MCP endpoint did not start within {START_TIMEOUT_S:g} s.")
        widen_listen_queue(sock)
        log.info("MCP endpoint listening on 127.0.0.1:%d", port)
        return self.url

    @staticmethod
    async def _serve(server: _EmbeddedUvicorn, sock: socket.socket) -> None:
        try:
            await server.serve(sockets=[sock])
        except SystemExit as exc:  # uvicorn's startup failure; must not end the host's loop
            log.error("uvicorn exited with %s during startup", exc.code)
            raise RuntimeError("uvicorn failed to start") from None
        finally:
            sock.close()

    async def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """Stop serving within `timeout_s` seconds (default 1): end listen streams, let uvicorn
        shut down gracefully for up to GRACEFUL_SHUTDOWN_S, then cancel what is left. Idempotent."""
        task, server = self._task, self._uvicorn
        if self._accept_errors is not None:
            self._accept_errors.uninstall()
            self._accept_errors = None
        self.connections.close()
        if task is None or server is None or task.done():
            return
        self._listen.close()
        self.list_changed.close()
        self._end_notification_streams()
        server.should_exit = True
        done, _ = await asyncio.wait({task}, timeout=timeout_s)
        if not done:
            log.warning("MCP endpoint did not stop within %.1f s; cancelling it", timeout_s)
            server.force_exit = True
            task.cancel()
            await asyncio.wait({task}, timeout=0.2)
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.warning("MCP endpoint ended with an error: %s", type(task.exception()).__name__)
        REFUSALS.flush()  # refusals counted but not yet summarised
        log.info("MCP endpoint stopped")

    def _sessions(self) -> dict[str, Any] | None:
        """The SDK's 2025-era sessions by id (its private `_server_instances`, as
        `_end_notification_streams` uses), or None before the app is built or if it went away."""
        try:
            manager = self.server.session_manager
        except RuntimeError:
            return None
        table = getattr(manager, "_server_instances", None)
        return table if isinstance(table, dict) else None

    def _end_notification_streams(self) -> None:
        """End every 2025-era session's GET notification stream (the SDK's public
        `close_standalone_sse_stream`), so that uvicorn finds a finished response instead of a
        stream it must cancel. Left open, uvicorn cancels it after GRACEFUL_SHUTDOWN_S and logs
        "Cancel 1 running task(s)" and an "Exception in ASGI application" traceback at ERROR on
        every browser quit. Requests in flight keep their streams, so their answers
        still go out; a client reconnects its GET stream after ~1 s (the SDKs' default delay), by
        which time uvicorn no longer listens. The SDK's session table is private
        (`_server_instances`): if it goes away, shutdown is as before, only noisier."""
        try:
            manager = self.server.session_manager
        except RuntimeError:  # the app was never built
            return
        for transport in list(getattr(manager, "_server_instances", {}).values()):
            transport.close_standalone_sse_stream()
