"""`webctx mcp`: a stdio MCP server that bridges any MCP client to the browser provider
(design.md §1, §5, §7).

Most MCP clients can send a bearer header, but the provider's port, path and token change at every
browser start, so a direct-HTTP entry breaks at the next restart; some clients only
launch stdio servers. The bridge is a stdio server that follows the browser: it finds the provider
the way the reference desktop host does and proxies to it. (The link, the page resources, the
list_changed delivery, checks and client configs are split out.)

```
MCP client ──stdio──► StdioBridge.server (tools, resources, listen)
                        │ tools/list   ← cached upstream list (fallback: `current` alone)
                        │ tools/call   → upstream call (client cancellation cancels it upstream)
                        │ resources    `webctx://current` (here) + the provider's page resources
                        │              (resources.py: listed and read through)
                        │ list_changed ← upstream list_changed, or the provider changed (notify.py)
                        ▼
                      ProviderLink (provider_link.py): discover → pick_provider → open_session
                        └─ watch: upstream `subscriptions/listen` + re-discover every POLL_INTERVAL_S
                           ▼
                      the browser's provider endpoint (native host, Streamable HTTP on 127.0.0.1)
```

A stdin line that is not a JSON-RPC message is answered with a JSON-RPC error (id null, -32700 or
-32600) and one log line (bad_lines.py); the session goes on.

`initialize` is answered before the SDK is even imported (first_answer.py), with the same
`instructions` at every start; the link connects meanwhile, and a client's first `tools/list` and
`resources/list` wait for its first attempt (at most `connect_grace_s`, ProviderLink.settled), so a
client that lists once sees `location`, `read_page` and the page tools.

When no provider is live, every call answers `isError` saying why and the fix (check.py's words;
after waiting at most `connect_grace_s`, default 2 s, for one to appear): never a hang, never a
crash. Ids seen in `current` answers are kept with the instance that issued them; an id of an
instance that is gone is answered `unknown_id` instead of being sent to a provider that may have re-minted it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Final, cast

import anyio
import httpx2
from mcp import types
from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR, REQUEST_TIMEOUT

from native_host import __version__
from native_host.errors import ProviderRejected
from native_host.host import (
    BundleIdLookup,
    check_answer,
    expected_bundle_id,
    front_app_pid,
)
from native_host.protocol.client_info import ON_BEHALF_OF_META_KEY, declared_client
from native_host.protocol.tools import CURRENT_TOOL, SERVER_NAME, ProviderServer, tool_error
from native_host.stdio.bad_lines import AnsweringReadStream
from native_host.stdio.check import BridgeReport
from native_host.stdio.first_answer import SERVER_INSTRUCTIONS, Front, start_front, take_front
from native_host.stdio.handover import FrontStdin, FrontStdout, WithoutEarlyAnswer
from native_host.stdio.notify import ClientNotifier
from native_host.stdio.provider_link import (
    CONNECT_GRACE_S,
    NO_PROVIDER_MESSAGE,
    POLL_INTERVAL_S,
    ProviderLink,
    Upstream,
    folder_source,
)
from native_host.stdio.resources import ProviderResources

log = logging.getLogger(__name__)

TOOL_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_]{1,48}$")
"""Names the bridge exposes: what every widely used MCP client accepts (design.md §5). Upstream tools
with other names are left out (and logged), since one bad name can hide a client's whole tool set."""

RESOURCE_URI: Final = "webctx://current"
"""The resource holding the JSON of the `current` answer (design.md §1.1)."""

CALL_TIMEOUT_S: Final = 65.0
"""Limit for one proxied call, in seconds: a page tool's own deadline (60 s, design.md §5) plus margin."""

MAX_REMEMBERED_IDS: Final = 10_000
"""Ids remembered with their issuing instance; the oldest are forgotten beyond this."""


CURRENT_RESOURCE: Final = types.Resource(
    uri=RESOURCE_URI,
    name="current",
    title="What I am looking at in the browser",
    description="The browser's `current` context (windows, tabs, selection) as JSON.",
    mime_type="application/json",
)
"""The `resources/list` entry of RESOURCE_URI, listed first."""

FALLBACK_TOOLS: Final = (CURRENT_TOOL,)
"""What `tools/list` shows while no provider is live, so a call reaches the bridge and gets the
clear NO_PROVIDER_MESSAGE instead of the client hiding the server."""

_TRANSPORT_ERRORS: Final = (httpx2.HTTPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError)


def exposable(tools: Sequence[types.Tool]) -> list[types.Tool]:
    """`tools` whose names match TOOL_NAME_PATTERN, in order; the others are logged and dropped."""
    kept = []
    for tool in tools:
        if TOOL_NAME_PATTERN.match(tool.name):
            kept.append(tool)
        else:
            log.warning("not exposing upstream tool with name %r (not ^[A-Za-z0-9_]{1,48}$)", tool.name[:80])
    return kept


class StdioBridge:
    """The bridge's MCP server, kept connected to a provider by `link` (provider_link.ProviderLink).

    `folder` is the providers folder (default `default_providers_folder()`, re-read each time);
    `pid` pins one browser's provider. `identify` and `front_pid` are the host package's defaults,
    injectable for tests. Usage: `async with bridge.running(): …` serves `bridge.server` over any
    transport; `serve_stdio()` does that on this process's stdin/stdout.
    """

    def __init__(
        self,
        *,
        folder: Path | None = None,
        pid: int | None = None,
        identify: BundleIdLookup = expected_bundle_id,
        front_pid: Callable[[], int | None] = front_app_pid,
        poll_interval_s: float = POLL_INTERVAL_S,
        connect_grace_s: float = CONNECT_GRACE_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        self.notifier = ClientNotifier()
        self.link = ProviderLink(
            self._on_provider_change,
            folder=folder,
            pid=pid,
            identify=identify,
            front_pid=front_pid,
            poll_interval_s=poll_interval_s,
            connect_grace_s=connect_grace_s,
            on_resources_change=self._on_resources_change,
        )
        self.resources = ProviderResources(self.link, self.notifier)
        self.call_timeout_s = call_timeout_s
        self._exposed: tuple[str | None, list[types.Tool]] = (None, list(FALLBACK_TOOLS))
        self._issued: OrderedDict[str, str] = OrderedDict()
        self.server = self._build_server()

    @property
    def upstream(self) -> Upstream | None:
        """The connected provider, None while there is none."""
        return self.link.upstream

    # -- serving ---------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[StdioBridge]:
        """Run the provider link for the duration of the block; end it (and the upstream session) after."""
        async with anyio.create_task_group() as tg:
            tg.start_soon(self.link.run, name="webctx-provider-link")
            try:
                yield self
            finally:
                self.notifier.close()
                tg.cancel_scope.cancel()

    async def serve_stdio(self, front: Front | None = None) -> None:
        """Serve MCP on the Front's wire (`front`, default the one `webctx mcp` started at process
        start, first_answer.py, else a new one) until stdin closes. The Front keeps fd 1 for
        frames and points it at stderr, so nothing else reaches the client."""
        front = front or take_front() or start_front()
        stdin, stdout = cast(Any, FrontStdin(front)), cast(Any, FrontStdout(front))
        async with self.running(), stdio_server(stdin, stdout) as (read_stream, write_stream):
            replies = WithoutEarlyAnswer(write_stream, front)
            answering = AnsweringReadStream(read_stream, replies)  # garbage lines get -32700
            await self.server.run(answering, replies, self.server.create_initialization_options())

    def _build_server(self) -> ProviderServer:
        async def on_list_tools(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            await self.link.settled()  # a client's first list: the provider's tools, not the fallback
            return types.ListToolsResult(tools=list(self._exposed[1]))

        async def on_call_tool(
            ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            return await self.call_tool(params.name, dict(params.arguments or {}), on_behalf_of=_served(ctx))

        async def on_list_resources(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListResourcesResult:
            await self.link.settled()  # a client's first list: the provider's pages too
            cursor = params.cursor if params is not None else None
            pages, next_cursor = await self.resources.page(cursor)
            own = [CURRENT_RESOURCE] if cursor is None else []
            return types.ListResourcesResult(resources=own + pages, next_cursor=next_cursor)

        async def on_read_resource(
            ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
        ) -> types.ReadResourceResult:
            if str(params.uri) != RESOURCE_URI:  # a page resource, or unknown (resources.py)
                return await self.resources.read(str(params.uri), _served(ctx))
            result = await self.call_tool("current", {}, on_behalf_of=_served(ctx))
            text = " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
            if result.is_error or result.structured_content is None:
                raise MCPError(INTERNAL_ERROR, text or NO_PROVIDER_MESSAGE)
            body = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
            contents = types.TextResourceContents(uri=RESOURCE_URI, mime_type="application/json", text=body)
            return types.ReadResourceResult(contents=[contents])

        return ProviderServer(
            SERVER_NAME,
            version=__version__,
            instructions=SERVER_INSTRUCTIONS,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            on_list_resources=on_list_resources,
            on_read_resource=on_read_resource,
            on_subscriptions_listen=self.notifier.listen,
            middleware=[self.notifier.remember_legacy_session],
        )

    def no_browser_message(self) -> str:
        """The `isError` text of a call while no provider is live: what the link found and the fix
        (check.py's words), or NO_PROVIDER_MESSAGE before its first look at the folder."""
        found = self.link.last_survey
        if found is None:
            return NO_PROVIDER_MESSAGE
        source = folder_source() if self.link.folder is None else "the bridge's caller"
        return BridgeReport(found, source, self.link.pid, failure=self.link.last_failure).no_browser()

    async def _on_provider_change(self, upstream: Upstream | None, always: bool) -> None:
        """ProviderLink's OnChange: expose the provider's tools (those with client-safe names), or
        FALLBACK_TOOLS when there is no provider; resources/list_changed when the instance changed."""
        if upstream is None:
            await self._expose(None, list(FALLBACK_TOOLS))
        else:
            await self._expose(upstream.descriptor.instance, exposable(upstream.tools), always=always)
        await self.resources.follow(upstream)

    async def _on_resources_change(self, upstream: Upstream) -> None:
        """ProviderLink's OnResourcesChange: the provider's resources list_changed, passed on."""
        await self.resources.changed(upstream)

    async def _expose(self, instance: str | None, tools: list[types.Tool], *, always: bool = False) -> None:
        """Make `tools` (from provider `instance`, None for the fallback) the exposed list and send
        list_changed when the list or the provider changed (or `always`: the provider said so)."""
        old_instance, old_tools = self._exposed
        self._exposed = (instance, tools)
        changed = [t.model_dump() for t in tools] != [t.model_dump() for t in old_tools]
        if always or changed or instance != old_instance:
            log.info("tools changed: %s", [t.name for t in tools])
            await self.notifier.tools_changed()

    # -- calls -----------------------------------------------------------------------------------

    async def call_tool(
        self, name: str, arguments: dict[str, Any], *, on_behalf_of: dict[str, str] | None = None
    ) -> types.CallToolResult:
        """Proxy one `tools/call` to the live provider and return its result as is; `on_behalf_of`
        (`{name, version?}`: our client's clientInfo) goes along in `_meta` (ON_BEHALF_OF_META_KEY).

        No provider live (within `connect_grace_s`), or it goes away mid-call → `isError`
        NO_PROVIDER_MESSAGE. An id of a provider instance that is gone → `isError` `unknown_id`
        (design.md §1.2). The provider's JSON-RPC errors (unknown tool) are raised as the same MCPError.
        Cancelling the caller cancels the upstream call (the SDK client tells the provider).
        """
        upstream = await self.link.live()
        if upstream is None:
            return tool_error(self.no_browser_message())
        id_, live = arguments.get("id"), upstream.descriptor.instance
        if isinstance(id_, str) and self._issued.get(id_, live) != live:
            return tool_error(
                f"Id {id_!r} came from a browser provider that has since restarted; the element is gone. "
                "Call `current` again.",
                error={"code": "unknown_id", "message": "issued by a provider instance that is gone"},
            )
        # the provider's JSON-RPC error (MCPError) is passed on as is
        result = await upstream.unless_gone(lambda: self._forward(upstream, name, arguments, on_behalf_of))
        if result is None:
            log.info("call %s: the provider went away mid-call", name)
            return tool_error(f"The browser provider went away during the call. {NO_PROVIDER_MESSAGE}")
        if name == "current" and not result.is_error:
            try:
                answer = check_answer(upstream.descriptor, result.structured_content)
            except ProviderRejected as exc:
                return tool_error(exc.message)
            self._remember_ids(answer.instance, answer.root.model_dump(by_alias=True))
        return result

    async def _forward(
        self, upstream: Upstream, name: str, arguments: dict[str, Any], on_behalf_of: dict[str, str] | None
    ) -> types.CallToolResult:
        meta = cast(types.RequestParamsMeta, {ON_BEHALF_OF_META_KEY: on_behalf_of}) if on_behalf_of else None
        try:
            with anyio.fail_after(self.call_timeout_s + 1):
                return await upstream.session.client.call_tool(
                    name, arguments, read_timeout_seconds=self.call_timeout_s, meta=meta
                )
        except MCPError as exc:
            if exc.error.code == CONNECTION_CLOSED:
                return self._stopped_answering(name)
            if exc.error.code != REQUEST_TIMEOUT and "timed out" not in exc.error.message:
                raise  # the provider's own JSON-RPC error (unknown tool …), passed on as is
        except TimeoutError:
            pass
        except (*_TRANSPORT_ERRORS, ExceptionGroup):
            return self._stopped_answering(name)
        return tool_error(
            f"The browser did not answer `{name}` within {self.call_timeout_s:g} s; try again in a moment."
        )

    def _stopped_answering(self, name: str) -> types.CallToolResult:
        log.info("call %s: transport failure; re-discovering", name, exc_info=True)
        self.link.wake()
        return tool_error(f"The browser provider stopped answering. {NO_PROVIDER_MESSAGE}")

    def _remember_ids(self, instance: str, element: dict[str, Any]) -> None:
        stack = [element]
        while stack:
            node = stack.pop()
            id_ = node.get("id")
            if isinstance(id_, str):
                self._issued.pop(id_, None)
                self._issued[id_] = instance
            stack.extend(c for c in node.get("children") or [] if isinstance(c, dict))
        while len(self._issued) > MAX_REMEMBERED_IDS:
            self._issued.popitem(last=False)


def _served(ctx: ServerRequestContext[Any, Any]) -> dict[str, str] | None:
    """The clientInfo of the client we serve, `{name, version?}` (None: it declared none): sent
    along with each forwarded call, so the provider records who read (protocol/client_info.py)."""
    served = declared_client(ctx)
    return served.to_wire() if served is not None else None
