"""The provider's MCP endpoint: Streamable HTTP on 127.0.0.1, both MCP eras (SPEC §1).

```
desktop host ──HTTP──► uvicorn (pre-bound 127.0.0.1:0 socket, embedded in the host's loop)
                       └─ LoopbackGuard (Origin 403 → Host 421 → bearer 401; security.py)
                          └─ ShortErrorBodies (every other error body: one-line JSON-RPC; error_bodies.py)
                          └─ SDK Streamable HTTP app at /mcp/<random> (its own Host allow-list too)
                             └─ ProviderServer: tools/list, tools/call, subscriptions/listen
                                ├─ ToolSpec table: `current` → Requester.request("current") → extension
                                │                  `location` → Requester.request("location", {elementId})
                                │                               + platform.window_number (OS window id)
                                ├─ PageToolTable (page_tools.py): `p<n>_…` → tools.call → page (SPEC §5)
                                └─ follower_tools (follower_tools.py): `p<n>f<k>_…` → another
                                   profile's host → its page (SPEC §3, handoff.py)
```

This module imports `mcp` and `uvicorn` (about a second): `app.py` imports it in a thread while it
answers the worker's `hello`. The tool table is data (`ToolSpec` rows). Page tools change at run
time (`set_page_tools`); every change reaches clients of both eras as
`notifications/tools/list_changed` (list_changed.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol, cast

import uvicorn
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS
from pydantic import ValidationError

from native_host import __version__
from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.answers import CurrentAnswer, WindowBounds
from native_host.protocol.base import ID_PATTERN
from native_host.protocol.native import (
    CURRENT_DEADLINE_MS,
    LOCATION_DEADLINE_MS,
    PAGE_TOOL_DEADLINE_MS,
    LocationReply,
    PageTool,
)
from native_host.protocol.version import PROTOCOL_VERSION
from native_host.provider.bridge import Requester
from native_host.provider.error_bodies import ShortErrorBodies
from native_host.provider.list_changed import ListChangedBroadcaster
from native_host.provider.page_tools import PageToolTable
from native_host.provider.platform import has_windows, window_number
from native_host.provider.security import LoopbackGuard

log = logging.getLogger(__name__)

EXTENSION_ID: Final = "dev.context-providers/context"
"""The provider protocol's MCP extension identifier (SPEC §1 "Server capabilities")."""

EXTENSIONS: Final[dict[str, dict[str, Any]]] = {EXTENSION_ID: {"protocol": PROTOCOL_VERSION}}
"""`capabilities.extensions`, declared to clients of both eras."""

SERVER_NAME: Final = "webctx"

NO_ARGUMENTS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}
"""`inputSchema` of tools that take no arguments (`current`)."""

SESSION_IDLE_TIMEOUT_S: Final = 600.0
"""A 2025-era MCP session with no request and no open stream for this long is closed, in seconds."""

MAX_SESSIONS: Final = 256
"""At most this many MCP sessions at once; more get HTTP 503 (a loopback provider has a few hosts)."""

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


ToolRunner = Callable[[dict[str, Any]], Awaitable[types.CallToolResult]]

WindowFinder = Callable[[WindowBounds], Awaitable["int | None"]]
"""Maps the browser window's bounds (points) to the OS window number, or None where there is none."""

LOCATION_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "id": {
            "type": "string",
            "description": "An element id from the `current` answer of this provider instance.",
        }
    },
    "required": ["id"],
    "additionalProperties": False,
}
"""`inputSchema` of `location` (SPEC §1.2)."""


def id_error(code: str, sentence: str) -> types.CallToolResult:
    """The `location` error result: `isError` with `structuredContent: {"error": {code, message}}`
    (SPEC §1.2; `code` is `unknown_id` or `invalid_id`)."""
    return tool_error(sentence, error={"code": code, "message": sentence})


@functools.cache
def _browser_pid() -> int:
    """The browser's main pid (it does not change during the host's life)."""
    from native_host.protocol.browser_identity import find_browser_process

    return find_browser_process()[0]


async def default_window_finder(bounds: WindowBounds) -> int | None:
    """`platform.window_number` for the browser that started this host, off the event loop; None
    at once where there can be no window (`platform.has_windows()` false: e.g. no DISPLAY)."""
    if not has_windows():
        return None
    return await asyncio.to_thread(lambda: window_number(bounds, _browser_pid()))


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: its `tools/list` entry and the coroutine that runs a call with the call's
    `arguments` (never None; `{}` when absent)."""

    tool: types.Tool
    run: ToolRunner


def tool_error(sentence: str, **structured: Any) -> types.CallToolResult:
    """An `isError: true` tool result whose only content is `sentence` (SPEC §1: never an
    internal exception text); `structured` becomes `structuredContent` when given."""
    return types.CallToolResult(
        content=[types.TextContent(text=sentence)], is_error=True, structured_content=structured or None
    )


def json_result(value: dict[str, Any], text: str | None = None) -> types.CallToolResult:
    """A tool result with `structuredContent` = `value` and one text block holding the same JSON
    (compact, UTF-8), as SPEC §1.1 asks of `current`; `text` is that JSON when already made."""
    if text is None:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=value)


class ProviderServer(Server[Any]):
    """The low-level SDK server with `tools.listChanged: true` in both eras.

    The SDK derives handshake-era `listChanged` from NotificationOptions, which its runner never
    passes, so `get_capabilities` sets it; in the 2026-07-28 era it follows from the registered
    `subscriptions/listen` handler (research/mcp-sdk.md §2.1, §2.4).
    """

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        """The SDK's capabilities with `tools.listChanged` forced on (SPEC §1)."""
        capabilities = super().get_capabilities(
            notification_options, experimental_capabilities, extensions, protocol_version=protocol_version
        )
        if capabilities.tools is not None:
            capabilities.tools = types.ToolsCapability(list_changed=True)
        return capabilities


async def advertise_extensions(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """ServerMiddleware: put `capabilities.extensions` back into a handshake-era `initialize`
    result, whose per-version sieve drops it (SPEC §1; research/mcp-sdk.md §6.1)."""
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict):
        capabilities = result.get("capabilities")
        if isinstance(capabilities, dict):
            capabilities.setdefault("extensions", {}).update(EXTENSIONS)
    return result


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
    """The MCP endpoint of one native-host instance (SPEC §1).

    `requester` reaches the extension (a `bridge.Bridge`); `instance` is the host's instance
    (16 random bytes, URL-safe base64); `current_deadline_ms` bounds the `current` request and
    `page_tool_deadline_ms` one page-tool call (default 60 s, SPEC §5).
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
    ) -> None:
        self.token: Final = secrets.token_urlsafe(32)
        self.path: Final = f"/mcp/{secrets.token_urlsafe(16)}"
        self._requester = requester
        self._instance = instance
        self._current_deadline_ms = current_deadline_ms
        self._current_memo: tuple[object, dict[str, Any], str] | None = None
        """The last `current` reply object, its checked answer and JSON text: a pushed tree
        (tree_cache.py) is the same object until the next push, so it is checked and encoded once."""
        self._location_deadline_ms = location_deadline_ms
        self._window_finder = window_finder
        self._graceful_shutdown_s = graceful_shutdown_s
        self._bus = InMemorySubscriptionBus()
        self._listen = ListenHandler(self._bus)
        self.list_changed = ListChangedBroadcaster(self._bus)
        self.page_tools = PageToolTable(requester, page_tool_deadline_ms, on_change=self.notify_tools_changed)
        self.follower_tools: ToolSource | None = None
        """Other profiles' page tools (follower_tools.FollowerTools), listed after our own."""
        self._tools: dict[str, ToolSpec] = {spec.tool.name: spec for spec in self._builtin_tools()}
        self.server = self._build_server()
        self._port: int | None = None
        self._uvicorn: _EmbeddedUvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    # -- tools -----------------------------------------------------------------------------------

    def _builtin_tools(self) -> list[ToolSpec]:
        current = types.Tool(
            name="current",
            title="Current browser context",
            description=(
                "What the user has open in the browser and is pointing at: windows, tabs (title, URL), "
                "the focused tab and the selected text, as a tree of elements. Takes no arguments."
            ),
            input_schema=NO_ARGUMENTS_SCHEMA,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
        location = types.Tool(
            name="location",
            title="Where an element is on screen",
            description=(
                "Where the element with this id (from `current`) is on screen now: `state` visible, "
                "offscreen or gone; `rects` in global display points (one per line of selected text); "
                "`window`, the OS window number; `avoid`, a region a popover should not cover."
            ),
            input_schema=LOCATION_SCHEMA,
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
        return [ToolSpec(current, self._run_current), ToolSpec(location, self._run_location)]

    async def _run_location(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """SPEC §1.2: check the id, ask the extension where it is, add the OS window number."""
        element_id = arguments.get("id")
        well_formed = isinstance(element_id, str) and ID_PATTERN.fullmatch(element_id) is not None
        if set(arguments) != {"id"} or not well_formed or not isinstance(element_id, str):
            return id_error(
                "invalid_id",
                "`location` takes {\"id\": \"<element id>\"} with an id from `current` "
                "(1 to 128 letters, digits, `-` or `_`).",
            )
        try:
            reply = await self._requester.request(
                "location", {"elementId": element_id}, deadline_ms=self._location_deadline_ms
            )
        except DeadlineExceeded:
            return tool_error(
                f"The browser did not answer within {self._location_deadline_ms} ms. Try again."
            )
        except ExtensionError as exc:
            if exc.code in ("unknown_id", "invalid_id"):
                what = "was never issued by" if exc.code == "unknown_id" else "is not a valid id of"
                return id_error(
                    exc.code, f"The id {element_id!r} {what} this provider instance; ask `current` again."
                )
            return tool_error(f"The browser extension could not locate the element (code {exc.code}).")
        except ProviderUnavailable:
            return tool_error(
                "The browser extension is no longer connected. Reopen the browser and try again."
            )
        try:
            parsed = LocationReply.model_validate(reply)
        except ValidationError as exc:
            log.warning("location: the extension's reply failed validation (%d errors)", exc.error_count())
            return tool_error("The browser extension sent a location of the wrong shape. Update webctx.")
        answer = parsed.location.to_wire()
        answer.pop("window", None)
        if parsed.window_bounds is not None and parsed.location.state != "gone":
            try:
                window = await self._window_finder(parsed.window_bounds)
            except Exception:
                log.warning("location: finding the OS window failed", exc_info=True)
                window = None
            if window is not None:
                answer["window"] = window
        return json_result(answer)

    async def _run_current(self, arguments: dict[str, Any]) -> types.CallToolResult:
        """SPEC §1.1: ask the extension for the tree, wrap it as `{protocol, instance, root}`."""
        if arguments:
            return tool_error("The `current` tool takes no arguments; call it with {}.")
        try:
            reply = await self._requester.request("current", deadline_ms=self._current_deadline_ms)
        except DeadlineExceeded:
            return tool_error(
                f"The browser did not answer within {self._current_deadline_ms} ms. "
                "It may be busy; try again in a moment."
            )
        except ExtensionError as exc:
            return tool_error(
                f"The browser extension could not report the current context (code {exc.code})."
            )
        except ProviderUnavailable:
            return tool_error(
                "The browser extension is no longer connected. Reopen the browser and try again."
            )
        memo = self._current_memo
        if memo is not None and memo[0] is reply:
            return json_result(memo[1], memo[2])
        root = reply.get("root") if isinstance(reply, dict) else None
        answer = {"protocol": PROTOCOL_VERSION, "instance": self._instance, "root": root}
        try:
            CurrentAnswer.model_validate(answer)
        except ValidationError as exc:
            log.warning("current: the extension's tree failed validation (%d errors)", exc.error_count())
            return tool_error("The browser extension sent a context tree of the wrong shape. Update webctx.")
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        self._current_memo = (reply, answer, text)
        return json_result(answer, text)

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
        """Replace the exposed page tools with the worker's list (`tools.changed`, SPEC §5); when
        the list changed, every connected client hears `tools/list_changed`."""
        await self.page_tools.update(tools)

    async def notify_tools_changed(self) -> None:
        """Tell every connected client, of both eras, that the tool list changed (coalesced:
        list_changed.py)."""
        self.list_changed.notify()

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
            if spec is None:
                return await call_page_tool(params)
            try:
                return await spec.run(dict(params.arguments or {}))
            except (MCPError, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("tool %s failed unexpectedly", spec.tool.name)
                return tool_error(
                    f"The tool `{spec.tool.name}` failed unexpectedly; the details are in the webctx log."
                )

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
            version=__version__,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            on_subscriptions_listen=self._listen,
            get_tool_input_schema=self.tool_input_schema,
        )
        server.extensions.update(EXTENSIONS)
        server.middleware.append(advertise_extensions)
        server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self.list_changed.on_initialized
        )
        return server

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
        guard = LoopbackGuard(ShortErrorBodies(cast(Any, app)), port=port, token=self.token)
        config = uvicorn.Config(
            cast(Any, guard),
            log_config=None,
            access_log=False,
            lifespan="on",
            ws="none",
            proxy_headers=False,
            server_header=False,
            # annotated `int`, but only ever passed to asyncio.wait_for, which takes seconds as float
            timeout_graceful_shutdown=cast(int, self._graceful_shutdown_s),
        )
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
                raise RuntimeError("The MCP endpoint failed to start; see the webctx log.")
            await self.stop()
            raise RuntimeError(f"The MCP endpoint did not start within {START_TIMEOUT_S:g} s.")
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
        if task is None or server is None or task.done():
            return
        self._listen.close()
        self.list_changed.close()
        server.should_exit = True
        done, _ = await asyncio.wait({task}, timeout=timeout_s)
        if not done:
            log.warning("MCP endpoint did not stop within %.1f s; cancelling it", timeout_s)
            server.force_exit = True
            task.cancel()
            await asyncio.wait({task}, timeout=0.2)
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.warning("MCP endpoint ended with an error: %s", type(task.exception()).__name__)
        log.info("MCP endpoint stopped")
