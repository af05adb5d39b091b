"""What a native host runs once the worker's `hello` says it may serve: the MCP endpoint, the
hand-off server and the descriptor publisher (design.md §1, §3; docs/internals/native-host.md "Lifecycle").

```
start(hello, endpoint module)   identify the browser (daemon thread) ‖ await the endpoint import
                                FollowerTools + ProfileHandoff (handoff.py): several profiles, one provider
                                McpEndpoint(handoff.requester).start() ─► handoff.start(token)
                                Descriptor ─► DescriptorPublisher.start(): provider (lock held,
                                descriptor written) | standby (we follow the browser's provider)
role change                     handoff.on_role_change; once we publish: event provider.ready {port}
following the provider          event provider.ready {port: the provider's, viaProvider: true}
an MCP read                     event activity {entry} (activity.py: who read which ids; the popup, badge)
page tools, pushed tree         kept, and passed on to the endpoint and the hand-off once they exist
withdraw()                      remove the descriptor if it still names our instance (first, at stop)
stop()                          the hand-off server, then uvicorn (≤ STOP_TIMEOUT_S)
```

The endpoint module (endpoint.py: `mcp`, uvicorn) and the hand-off (websockets) are imported
only here and only when serving, so the `hello` reply never waits for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from native_host import __version__, paths
from native_host.protocol.browser_identity import BrowserIdentity, identify_browser
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.native import (
    PAGE_TOOL_DEADLINE_MS,
    ActivityEvent,
    Hello,
    ProviderReady,
    ToolsChanged,
)
from native_host.protocol.version import PROTOCOL_VERSION
from native_host.provider.daemon_threads import run_in_daemon_thread
from native_host.provider.port.chain import RequestChain, Requester
from native_host.provider.port.tree_cache import PushedTree, TreeCache
from native_host.provider.publisher import DescriptorPublisher

if TYPE_CHECKING:  # imported for real in `start`: they take about a second
    from native_host.provider.http.endpoint import McpEndpoint
    from native_host.provider.profiles.handoff import ProfileHandoff

log = logging.getLogger(__name__)

PAGE_TOOL_DEADLINE_ENV: Final = "WEBCTX_PAGE_TOOL_DEADLINE_MS"
"""Environment variable overriding the page-tool call deadline (ms; design.md §5 "default 60 s")."""

STOP_TIMEOUT_S: Final = 1.0
"""How long stopping the MCP endpoint may take, in seconds (the browser SIGKILLs at ~2 s)."""


def page_tool_deadline_ms() -> int:
    """The page-tool call deadline in ms: WEBCTX_PAGE_TOOL_DEADLINE_MS when it is a positive
    integer, else 60 000 (design.md §5)."""
    raw = os.environ.get(PAGE_TOOL_DEADLINE_ENV, "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return PAGE_TOOL_DEADLINE_MS


class Serving:
    """The serving side of one native host: MCP endpoint, hand-off server, descriptor.

    `bridge` reaches our worker over the native port; `tree_cache` holds the tree it pushed;
    `alive()` is false once the port closed; `instance` is the host's instance; `send_event`
    writes an event frame to the worker without waiting; `stopping` is set once the host shuts down;
    `started_at` is the process start on the `time.monotonic()` clock (for the log's timings).
    `endpoint`, `handoff` and `publisher` are None until `start` made them.
    """

    def __init__(
        self,
        bridge: Requester,
        tree_cache: TreeCache,
        *,
        alive: Callable[[], bool],
        instance: str,
        send_event: Callable[[dict[str, Any]], None],
        stopping: asyncio.Event,
        started_at: float,
    ) -> None:
        # Requests to the extension, in the order they pass (design.md §4; chain.py):
        #   own: the tree our worker pushed (`current` without a round trip) ─► the native port
        #   our MCP clients: the other profiles (handoff.merge, added by `start`) ─► own's layers
        self.own: Final = RequestChain([PushedTree(tree_cache, alive)], terminal=bridge)
        """Our extension alone: what a provider we follow is answered from."""
        self.requester: Requester = self.own
        """What our MCP endpoint asks."""
        self._instance = instance
        self._tree = tree_cache.reply
        self._send_event = send_event
        self._stopping = stopping
        self._started_at = started_at
        self.endpoint: McpEndpoint | None = None
        self.handoff: ProfileHandoff | None = None
        self.publisher: DescriptorPublisher | None = None
        self._page_tools: ToolsChanged | None = None
        self._own_port: int | None = None

    def _ms_since_start(self) -> float:
        return (time.monotonic() - self._started_at) * 1e3

    async def start(self, hello: Hello, endpoint_module: Awaitable[ModuleType]) -> None:
        """Start the MCP endpoint, then write the descriptor (design.md §1, §3). `endpoint_module` is
        endpoint.py, being imported. Raises on failure (fatal: the host exits 1 after removing
        what it wrote)."""
        browser = hello.browser
        identity_future: asyncio.Future[BrowserIdentity] = run_in_daemon_thread(
            identify_browser, browser.name if browser else None, browser.version if browser else None
        )
        module = await endpoint_module
        log.info("mcp imported %.0f ms after start", self._ms_since_start())
        from native_host.provider.profiles.follower_tools import FollowerTools
        from native_host.provider.profiles.handoff import ProfileHandoff  # websockets: only when serving

        # Several profiles, one provider (design.md §3): `current`, `location` and page tools also
        # reach the hosts that follow us; while we stand by, we follow the provider.
        follower_tools = FollowerTools(
            deadline_ms=page_tool_deadline_ms(), on_change=self._follower_tools_changed
        )
        self.handoff = handoff = ProfileHandoff(
            self.own, instance=self._instance, tools=follower_tools, on_provider=self._on_provider_port
        )
        self.requester = RequestChain([handoff.merge, *self.own.layers], terminal=self.own.terminal)
        self.endpoint = endpoint = module.McpEndpoint(
            self.requester,
            instance=self._instance,
            page_tool_deadline_ms=page_tool_deadline_ms(),
            follower_tools=follower_tools,
            cached_tree=lambda: handoff.merge.cached_current(self._tree()),
        )
        # Followers' trees change the page resources too (resources/list_changed).
        handoff.server.on_tree_change = endpoint.tree_changed
        # Who read what: each read goes to our worker for the popup and the badge.
        endpoint.activity.on_record = lambda entry: self._send_event(
            ActivityEvent(entry=entry.to_wire()).to_wire()
        )
        # Our pushed tree goes on to the provider while we follow it (handoff.py).
        handoff.set_tree(self._tree())
        if self._page_tools is not None:
            await endpoint.set_page_tools(self._page_tools.tools)
            handoff.set_page_tools(self._page_tools.to_wire()["tools"])
        url = await endpoint.start()
        handoff_url = await handoff.start(endpoint.token)
        identity = await identity_future
        descriptor = Descriptor(
            protocol=PROTOCOL_VERSION,
            bundle_id=identity.bundle_id,
            name=identity.name,
            version=identity.version,
            pid=identity.pid,
            instance=self._instance,
            endpoint=url,
            token=endpoint.token,
            listener_pid=os.getpid(),
            handoff=handoff_url,  # our addition: where this browser's other native hosts connect
            # our addition: what runs on both sides, for `webctx doctor`'s `versions` check
            host_version=__version__,
            extension_version=hello.extension.version if hello.extension else None,
            extension_protocol=hello.protocol,
        )
        if self._stopping.is_set():
            return
        # One descriptor per browser process: the publisher takes the browser's provider lock,
        # keeps the descriptor written (a deleted folder is recreated) and takes over when the
        # provider host of another profile exits (publisher.py).
        self._own_port = urlsplit(url).port
        self.publisher = DescriptorPublisher(
            paths.providers_dir(), descriptor, on_role_change=self._on_role_change
        )
        role = self.publisher.start()
        log.info("provider ready %.0f ms after start (%s)", self._ms_since_start(), role)

    async def set_page_tools(self, changed: ToolsChanged) -> None:
        """The worker's exposed page tools (`tools.changed`, design.md §5): to the endpoint, and to the
        provider while we follow it (follower_link.py); kept for an endpoint not started yet."""
        self._page_tools = changed
        if self.endpoint is not None:
            await self.endpoint.set_page_tools(changed.tools)
        if self.handoff is not None:
            self.handoff.set_page_tools(changed.to_wire()["tools"])

    def tree_changed(self) -> None:
        """The pushed tree changed or was forgotten (TreeCache's `on_change`): the hand-off passes
        it on to the provider while we follow it (handoff.py), and the endpoint compares its page
        resources (page_resources.py: `resources/list_changed`)."""
        if self.handoff is not None:
            self.handoff.set_tree(self._tree())
        if self.endpoint is not None:
            self.endpoint.tree_changed()

    async def _follower_tools_changed(self) -> None:
        """Another profile's page tools changed: our clients hear `tools/list_changed`."""
        if self.endpoint is not None:
            await self.endpoint.notify_tools_changed()

    def _on_role_change(self, role: str) -> None:
        """The publisher's role changed: the hand-off follows, and the popup hears our port once we
        publish (design.md §3 leaves the popup to us). While we stand by, the port the popup shows is
        the provider's, sent by `_on_provider_port` once we follow it (docs/internals/protocol.md)."""
        if self.handoff is not None:
            self.handoff.on_role_change(role, self.publisher.path if self.publisher is not None else None)
        if role == "provider" and self._own_port is not None:
            self._send_event(ProviderReady(port=self._own_port).to_wire())

    def _on_provider_port(self, port: int) -> None:
        """We follow the browser's provider, whose MCP endpoint is on `port`: tell the popup."""
        self._send_event(ProviderReady(port=port, via_provider=True).to_wire())

    def withdraw(self) -> None:
        """Remove the descriptor, only if it still names our instance (the first step of stopping,
        design.md §3). Never raises."""
        if self.publisher is not None:
            self.publisher.withdraw()

    async def stop(self) -> None:
        """Stop the hand-off server, then the MCP endpoint (bounded by STOP_TIMEOUT_S). Never raises."""
        if self.handoff is not None:
            with contextlib.suppress(Exception):
                await self.handoff.stop()
        if self.endpoint is not None:
            try:
                await self.endpoint.stop(STOP_TIMEOUT_S)
            except Exception:
                log.exception("stopping the MCP endpoint failed")
