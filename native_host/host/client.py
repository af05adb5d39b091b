"""One object for a desktop host that keeps running, and blocking helpers for the CLI (design.md §7).

```
HostClient                 discover → choose → open_session, one IdBook for every answer
  └─ .location(id)         the id goes only to the provider that issued it, same instance, else `gone`
  └─ .read_resource(uri)   a page resource goes only to the provider of its instance, else `gone`
fetch_current              one `current` from the front/only/--pid provider
current_sync, call_tool_sync, list_tools_sync, locate_sync   the same, blocking (own event loop)
```

The pieces are `host.discovery`, `host.session` and `host.ids`. Nothing here prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import types

from native_host.errors import ProviderRejected, WebctxError
from native_host.host.discovery import ProviderInfo, choose_provider, discover
from native_host.host.ids import IdBook, IdOwner
from native_host.host.processes import BundleIdLookup, expected_bundle_id, front_app_pid
from native_host.host.session import (
    DEFAULT_TIMEOUT_S,
    ConnectMode,
    CurrentResult,
    ProviderSession,
    open_session,
)
from native_host.protocol.answers import LocationAnswer
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.resources import REASON_WORDS, parse_page_uri

__all__ = [
    "HostClient",
    "call_tool_sync",
    "current_sync",
    "fetch_current",
    "list_tools_sync",
    "locate_sync",
]


class HostClient:
    """A desktop host's view of the providers on this machine (design.md §7), with one `IdBook`.

    `folder` defaults to `paths.providers_dir()`; `mode` and `timeout_s` apply to every connection.
    Each call re-reads the providers folder, so a provider that restarted is noticed.
    """

    def __init__(
        self,
        *,
        folder: Path | None = None,
        mode: ConnectMode = "auto",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        identify: BundleIdLookup = expected_bundle_id,
        front_pid: Callable[[], int | None] = front_app_pid,
    ) -> None:
        self.folder = folder
        self.mode: ConnectMode = mode
        self.timeout_s = timeout_s
        self.identify = identify
        self.front_pid = front_pid
        self.ids = IdBook()

    def providers(self) -> list[ProviderInfo]:
        """`discover()` the folder and forget ids of providers that quit or restarted."""
        found = discover(self.folder, identify=self.identify)
        self.ids.refresh(found)
        return found

    def choose(self, pid: int | None = None) -> Descriptor:
        """`choose_provider` over a fresh `providers()` listing."""
        return choose_provider(self.providers(), pid, front_pid=self.front_pid)

    @asynccontextmanager
    async def session(self, pid: int | None = None) -> AsyncIterator[ProviderSession]:
        """An open session to the chosen provider, recording ids into `self.ids`."""
        descriptor = self.choose(pid)
        async with open_session(descriptor, mode=self.mode, timeout_s=self.timeout_s, id_book=self.ids) as s:
            yield s

    async def current(self, pid: int | None = None) -> CurrentResult:
        """Ask the chosen provider for `current` (checked; ids recorded)."""
        async with self.session(pid) as s:
            return await s.current()

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, pid: int | None = None
    ) -> types.CallToolResult:
        """Call MCP tool `name` on the chosen provider; see `ProviderSession.call_tool`."""
        async with self.session(pid) as s:
            return await s.call_tool(name, arguments)

    async def list_tools(self, pid: int | None = None) -> list[types.Tool]:
        """The chosen provider's MCP tools."""
        async with self.session(pid) as s:
            return await s.list_tools()

    async def list_resources(self, pid: int | None = None) -> list[types.Resource]:
        """The chosen provider's listed MCP resources (the pages' text and screenshot
        resources); see `ProviderSession.list_resources`."""
        async with self.session(pid) as s:
            return await s.list_resources()

    async def read_resource(
        self, uri: str, pid: int | None = None, *, timeout_s: float | None = None
    ) -> types.ReadResourceResult:
        """`resources/read` of `uri`, within `timeout_s` seconds (default `self.timeout_s`).

        A page resource (`webctx://<instance>/<pageId>/<kind>`, protocol/resources.py) goes only to
        the live provider running that instance (and only when it is `pid`'s, when given): design.md §7
        "the id goes only to its own provider". When none is, it is answered WebctxError `gone`
        without asking anyone (design.md §2: a restarted instance's resources are gone); when one is
        but `pid` is another's, WebctxError `bad_arguments` naming the right pid. Any other URI
        (`webctx://activity`) goes to the chosen provider. Other errors as
        `ProviderSession.read_resource`: the provider's own words, `.code` its reason word.
        """
        page = parse_page_uri(uri)
        descriptor: Descriptor | None
        if page is None:
            descriptor = self.choose(pid)
        else:
            owners = [
                info.descriptor
                for info in self.providers()
                if info.usable and info.descriptor is not None and info.descriptor.instance == page.instance
            ]
            descriptor = next((d for d in owners if pid is None or d.pid == pid), None)
            if descriptor is None and owners:  # its provider runs: the --pid names another browser
                raise WebctxError(
                    f"{uri} is a page of {owners[0].name} (pid {owners[0].pid}), not of the browser "
                    f"with pid {pid}; leave out --pid, or pass --pid {owners[0].pid}.",
                    code="bad_arguments",
                )
            if descriptor is None:
                raise WebctxError(
                    f"{REASON_WORDS['page_gone']}: {uri} is from a browser provider that has since "
                    "restarted or quit, so the page it named is gone; ask `current` again for the "
                    "pages' new resources.",
                    code=REASON_WORDS["page_gone"],
                )
        async with open_session(descriptor, mode=self.mode, timeout_s=self.timeout_s, id_book=self.ids) as s:
            return await s.read_resource(uri, timeout_s=timeout_s)

    async def location(self, id_: str) -> LocationAnswer:
        """Locate `id_` on the provider that issued it (design.md §7: the id goes only to its own
        provider, and only while that provider runs the same instance).

        An id no live provider issued (never seen, or its provider quit or restarted) is answered
        `gone` without asking anyone, as the concepts page's "Keep the provider with the id" asks.
        Other errors as `ProviderSession.location`.
        """
        try:
            owner = self.owner_of(id_)
        except ProviderRejected:
            return LocationAnswer(state="gone", rects=[])
        async with self.session(owner.pid) as s:
            if s.descriptor.instance != owner.instance:
                return LocationAnswer(state="gone", rects=[])
            return await s.location(id_)

    def owner_of(self, id_: str) -> IdOwner:
        """The live provider that issued `id_`, after re-reading the providers folder.

        Raises ProviderRejected (`unknown_id`) when no provider that is still running with the same
        instance issued it: the element is gone (concepts page, "Keep the provider with the id").
        """
        self.providers()
        owner = self.ids.owner_of(id_)
        if owner is None:
            raise ProviderRejected(
                f"Id {id_!r} was not issued by a provider that is still running with the same instance; "
                "treat the element as gone and ask `current` again.",
                reason="unknown_id",
            )
        return owner


async def fetch_current(
    pid: int | None = None,
    *,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> CurrentResult:
    """Discover, choose (`pid` or the front/only provider), connect and call `current` once."""
    return await HostClient(folder=folder, mode=mode, timeout_s=timeout_s).current(pid)


def current_sync(
    pid: int | None = None,
    *,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> CurrentResult:
    """Blocking `fetch_current` for the CLI (runs its own event loop)."""
    return asyncio.run(fetch_current(pid, folder=folder, mode=mode, timeout_s=timeout_s))


def call_tool_sync(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    pid: int | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> types.CallToolResult:
    """Blocking `HostClient.call_tool` for the CLI."""
    client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
    return asyncio.run(client.call_tool(name, arguments, pid=pid))


def list_tools_sync(
    *,
    pid: int | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> list[types.Tool]:
    """Blocking `HostClient.list_tools` for the CLI."""
    client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
    return asyncio.run(client.list_tools(pid))


def locate_sync(
    id_: str,
    *,
    pid: int | None = None,
    instance: str | None = None,
    folder: Path | None = None,
    mode: ConnectMode = "auto",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> tuple[Descriptor, LocationAnswer]:
    """Blocking `location` for the CLI (a one-shot process keeps no IdBook between runs).

    With `instance` (as `webctx context` printed it), the id is only sent when the chosen
    provider still runs that instance; otherwise the element is `gone` (design.md §7). Without it,
    the id goes to the chosen provider as is, and an id it never issued is its `unknown_id` error.
    """

    async def run() -> tuple[Descriptor, LocationAnswer]:
        client = HostClient(folder=folder, mode=mode, timeout_s=timeout_s)
        descriptor = client.choose(pid)
        if instance is not None and descriptor.instance != instance:
            return descriptor, LocationAnswer(state="gone", rects=[])
        async with open_session(descriptor, mode=mode, timeout_s=timeout_s) as session:
            return descriptor, await session.location(id_)

    return asyncio.run(run())
