"""Keep a live MCP connection to the browser provider the bridge should use (design.md §7, issue #8).

```
ProviderLink.run()  forever:
  survey(): discover() → pick_provider()  (--pid; else the front browser, else the one last in
                                           front, else the only or newest one)
    └─ open_session()                      (native_host.host: token, no Origin, time limits)
        ├─ on_change(upstream)             the bridge exposes its tools, sends list_changed
        ├─ upstream `subscriptions/listen` → re-list tools → on_change(upstream, always=True)
        │                                  resources list_changed → on_resources_change(upstream)
        └─ re-discover every poll_interval_s (or when woken) until the pick changes
  on_change(None)                          no provider: the bridge falls back
```

A connection that fails or ends is never fatal: the loop waits `poll_interval_s` (or a `wake()`)
and tries again. `settled()` waits (at most `connect_grace_s`) for the end of the first attempt
(connected and announced, nothing found, or failed), so a client's first `tools/list` and
`resources/list` see what the link found rather than the fallback; `last_survey` and
`last_failure` say what that was (a call's "cannot reach a browser" error, stdio/check.py).

Just over 400 lines: one state machine (connect, announce, follow, forward list changes) whose
parts share the link's state; the forwarding of tools and resources to clients is stdio/notify.py.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

import anyio
import psutil
from mcp import types
from mcp.client.subscriptions import ListenNotSupportedError
from mcp.shared.subscriptions import ResourcesListChanged

from native_host import paths
from native_host.errors import WebctxError
from native_host.host import (
    BundleIdLookup,
    ProviderInfo,
    ProviderSession,
    choose_provider,
    discover,
    expected_bundle_id,
    front_app_pid,
    open_session,
)
from native_host.protocol.browser_identity import BROWSERS
from native_host.protocol.client_info import BRIDGE_CLIENT_NAME
from native_host.protocol.descriptor import Descriptor

log = logging.getLogger(__name__)

_T = TypeVar("_T")

NO_PROVIDER_MESSAGE: Final = (
    "No browser provider running; start the browser with the webctx extension "
    "(`webctx doctor` checks the install)."
)
"""What the bridge answers (a call's `isError` text, a read's error) while no provider is live."""

POLL_INTERVAL_S: Final = 1.0
"""How often the link re-reads the providers folder, in seconds."""

CONNECT_GRACE_S: Final = 2.0
"""`live()` waits up to this long (seconds) for a provider to be connected."""

CONNECT_TIMEOUT_S: Final = 5.0
"""Limit for connecting to a provider, in seconds (host.open_session)."""

ON_CHANGE_TIMEOUT_S: Final = 2.0
"""Limit for the `on_change(None)` call made while letting go of a provider, in seconds (it runs
shielded, also while shutting down)."""

OnChange = Callable[["Upstream | None", bool], Awaitable[None]]
"""`await on_change(upstream, always)`: the live provider changed (None: there is none), or, with
`always`, the provider said its tool list changed."""

OnResourcesChange = Callable[["Upstream"], Awaitable[None]]
"""`await on_resources_change(upstream)`: the live provider said its resource list changed."""


def folder_source() -> str:
    """How `default_providers_folder()` chose its folder, for people: `CONTEXT_PROVIDERS_DIR`,
    `XDG_RUNTIME_DIR`, `/run/user/<uid>, as XDG_RUNTIME_DIR is unset`, or the OS default."""
    if os.environ.get("CONTEXT_PROVIDERS_DIR"):
        return "CONTEXT_PROVIDERS_DIR"
    if not sys.platform.startswith("linux"):
        return "the default for this OS"
    if os.environ.get("XDG_RUNTIME_DIR"):
        return "XDG_RUNTIME_DIR"
    if default_providers_folder() != paths.providers_dir():
        return f"/run/user/{os.getuid()}, as XDG_RUNTIME_DIR is unset"
    return "the default, as XDG_RUNTIME_DIR is unset and there is no /run/user/<uid>/context-providers"


def default_providers_folder() -> Path:
    """`paths.providers_dir()`, except on Linux when neither CONTEXT_PROVIDERS_DIR nor
    XDG_RUNTIME_DIR is set and `/run/user/<uid>/context-providers` exists: then that folder.

    MCP clients start stdio servers with a minimal environment (the SDKs pass on HOME, PATH, USER
    and a few more, not XDG_RUNTIME_DIR), while the browser, started in the desktop session,
    publishes under `$XDG_RUNTIME_DIR` (design.md §3)."""
    folder = paths.providers_dir()
    if sys.platform.startswith("linux") and not (
        os.environ.get("CONTEXT_PROVIDERS_DIR") or os.environ.get("XDG_RUNTIME_DIR")
    ):
        session = Path(f"/run/user/{os.getuid()}/context-providers")
        if session.is_dir():
            return session
    return folder


def _start_time(descriptor: Descriptor) -> float:
    try:
        return psutil.Process(descriptor.pid).create_time()
    except psutil.Error:
        return 0.0


BROWSER_BUNDLE_IDS: Final = frozenset(kind.bundle_id for kind in BROWSERS)


def is_browser_provider(descriptor: Descriptor) -> bool:
    """True for a browser's provider: a bundle id of browser_identity.BROWSERS, or a descriptor
    with `listenerPid` (webctx's own addition, design.md §3). Native apps share the providers folder."""
    return descriptor.bundle_id in BROWSER_BUNDLE_IDS or descriptor.listener_pid is not None


def pick_provider(
    providers: Sequence[ProviderInfo],
    pid: int | None = None,
    *,
    front_pid: Callable[[], int | None] = front_app_pid,
    started: Callable[[Descriptor], float] = _start_time,
    last_front: int | None = None,
) -> Descriptor:
    """The browser provider the bridge connects to (design.md §7, issue #8), among the browser providers
    (`is_browser_provider`) only: `pid` when given; else the front app's provider when the front
    app is one; else the one of `last_front` (the browser last seen in front: while the user types
    in the MCP client, the client is the front app); else the only, or the most recently started
    (`started(descriptor)`, seconds since the epoch), usable provider.
    Raises ProviderUnavailable (none usable) or ProviderRejected (`pid` was rejected)."""
    providers = [p for p in providers if p.descriptor is None or is_browser_provider(p.descriptor)]
    usable = [p.descriptor for p in providers if p.usable and p.descriptor is not None]
    if pid is not None or len(usable) <= 1:
        return choose_provider(providers, pid, front_pid=front_pid)
    front = front_pid()
    for wanted in (front, last_front):
        for descriptor in usable:
            if wanted is not None and descriptor.pid == wanted:
                return descriptor
    return max(usable, key=started)


@dataclass(frozen=True)
class Survey:
    """One look at the providers folder: the `folder` read, every descriptor `found` there with its
    verdict (host.discover), the one `chosen` (pick_provider) or None, and then `miss`, the error
    that says why none was (ProviderUnavailable or ProviderRejected); `front` is the front app's
    pid at the time (None: unknown); `readable` is False when the folder exists but could not be
    listed (then `found` is empty and `miss` says why)."""

    folder: Path
    found: list[ProviderInfo]
    chosen: Descriptor | None
    miss: WebctxError | None = None
    front: int | None = None
    readable: bool = True


def survey(
    folder: Path | None = None,
    pid: int | None = None,
    *,
    identify: BundleIdLookup = expected_bundle_id,
    front_pid: Callable[[], int | None] = front_app_pid,
    last_front: int | None = None,
) -> Survey:
    """Discover and pick as the bridge does (blocking: it reads files and asks the OS about
    processes and ports). `folder` defaults to `default_providers_folder()`; `pid` pins one
    browser; `last_front` is the browser last seen in front (pick_provider). Never raises a
    WebctxError: an unreadable folder or no usable provider is the survey's `miss`."""
    folder = default_providers_folder() if folder is None else folder
    try:
        found = discover(folder, identify=identify)
    except WebctxError as exc:
        return Survey(folder, [], None, exc, readable=False)
    front = front_pid()
    try:
        chosen = pick_provider(found, pid, front_pid=lambda: front, last_front=last_front)
    except WebctxError as exc:
        return Survey(folder, found, None, exc, front)
    return Survey(folder, found, chosen, None, front)


@dataclass
class Upstream:
    """The live connection to one provider: its descriptor, session and tool list (as the provider
    lists it). `gone` is set when the link lets go of it; calls in flight on it should then end."""

    descriptor: Descriptor
    session: ProviderSession
    tools: list[types.Tool] = field(default_factory=list)
    gone: anyio.Event = field(default_factory=anyio.Event)

    async def unless_gone(self, call: Callable[[], Awaitable[_T]]) -> _T | None:
        """`await call()`, cancelled when the link lets go of this provider (`gone`): its result,
        or None when the provider went first. An exception of `call` is raised as it is."""
        outcome: list[_T] = []
        failure: list[Exception] = []  # raised below, outside the task group (no ExceptionGroup)
        async with anyio.create_task_group() as tg:

            async def run() -> None:
                try:
                    outcome.append(await call())
                except Exception as exc:
                    failure.append(exc)
                tg.cancel_scope.cancel()

            async def watch_gone() -> None:
                await self.gone.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(run)
            tg.start_soon(watch_gone)
        if failure:
            raise failure[0]
        return outcome[0] if outcome else None


class ProviderLink:
    """The supervisor: keeps `upstream` connected to the provider `pick_provider` names.

    `folder` is the providers folder (default `default_providers_folder()`, re-read each time);
    `pid` pins one browser. `identify` and `front_pid` are the host package's, injectable for tests.
    `on_change` hears every change (see OnChange), `on_resources_change` the provider's resources
    list_changed (see OnResourcesChange). Run `await link.run()` in a task; cancel it to stop.
    """

    def __init__(
        self,
        on_change: OnChange,
        *,
        folder: Path | None = None,
        pid: int | None = None,
        identify: BundleIdLookup = expected_bundle_id,
        front_pid: Callable[[], int | None] = front_app_pid,
        poll_interval_s: float = POLL_INTERVAL_S,
        connect_grace_s: float = CONNECT_GRACE_S,
        on_resources_change: OnResourcesChange | None = None,
    ) -> None:
        self.folder = folder
        self.pid = pid
        self.identify = identify
        self.front_pid = front_pid
        self.poll_interval_s = poll_interval_s
        self.connect_grace_s = connect_grace_s
        self.upstream: Upstream | None = None
        self._on_change = on_change
        self._on_resources_change = on_resources_change
        self._connected = anyio.Event()
        self._wake = anyio.Event()
        self._last_miss: str | None = None
        self._last_front: int | None = None
        self._first_attempt = anyio.Event()
        self.last_survey: Survey | None = None
        """The latest look at the providers folder (None before the first)."""
        self.last_failure: str | None = None
        """Why the latest connection to the chosen provider failed; None once one succeeds."""

    def wake(self) -> None:
        """Re-read the providers folder now instead of at the next poll (e.g. after a failed call)."""
        self._wake.set()

    async def live(self) -> Upstream | None:
        """The connected provider; when there is none, wake the loop and wait up to
        `connect_grace_s` seconds for one. None when still none: never waits longer."""
        if self.upstream is not None:
            return self.upstream
        self.wake()
        with anyio.move_on_after(self.connect_grace_s):
            await self._connected.wait()
        return self.upstream

    async def settled(self) -> None:
        """Return once the first attempt to reach a provider has ended (connected and `on_change`
        told, nothing usable found, or the connection failed), or after `connect_grace_s` seconds,
        whichever comes first; at once after that (a client's first look)."""
        with anyio.move_on_after(self.connect_grace_s):
            await self._first_attempt.wait()

    async def run(self) -> None:
        """Forever: pick a provider, connect, serve it until it goes or is replaced, then again."""
        while True:
            descriptor = await self._pick()
            if descriptor is None:
                await self._on_change(None, False)
                self._first_attempt.set()
                await self._sleep_or_wake(self.poll_interval_s)
                continue
            try:
                async with open_session(
                    descriptor, mode="auto", timeout_s=CONNECT_TIMEOUT_S, client_name=BRIDGE_CLIENT_NAME
                ) as session:
                    await self._attach(Upstream(descriptor, session))
            except Exception as exc:  # the provider vanished or refused us; never end the bridge
                self.last_failure = describe_failure(exc)
                log.info("provider pid %s: %s", descriptor.pid, self.last_failure)
                self._first_attempt.set()
                await self._sleep_or_wake(self.poll_interval_s)

    async def _pick(self) -> Descriptor | None:
        def look() -> Survey:
            return survey(
                self.folder, self.pid, identify=self.identify, front_pid=self.front_pid,
                last_front=self._last_front,
            )

        found = await anyio.to_thread.run_sync(look)
        self.last_survey = found
        if found.chosen is None:
            message = found.miss.message if found.miss is not None else "no provider"
            if message != self._last_miss:  # log changes only: this runs every POLL_INTERVAL_S
                log.info("no provider: %s", message)
            self._last_miss = message
            return None
        if found.chosen.pid == found.front:
            self._last_front = found.front
        self._last_miss = None
        return found.chosen

    async def _sleep_or_wake(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            await self._wake.wait()
        self._wake = anyio.Event()

    async def _attach(self, upstream: Upstream) -> None:
        d = upstream.descriptor
        try:
            upstream.tools = await upstream.session.list_tools()
            log.info("connected to %s pid %s (listener %s) over MCP %s",
                     d.name, d.pid, d.listener_pid, upstream.session.protocol_version)
            self.upstream = upstream
            self.last_failure = None
            self._connected.set()
            await self._on_change(upstream, False)
            self._first_attempt.set()  # after on_change: the bridge exposes this provider's tools
            async with anyio.create_task_group() as tg:

                async def until(watcher: Callable[[Upstream], Any]) -> None:
                    await watcher(upstream)
                    tg.cancel_scope.cancel()

                tg.start_soon(until, self._follow_upstream_changes)
                tg.start_soon(until, self._watch_descriptor)
        finally:
            upstream.gone.set()
            if self.upstream is upstream:
                self.upstream = None
                self._connected = anyio.Event()
            log.info("let go of provider pid %s", d.pid)
            with anyio.CancelScope(shield=True) as scope:  # also while shutting down, but bounded
                scope.deadline = anyio.current_time() + ON_CHANGE_TIMEOUT_S
                await self._on_change(None, False)

    async def _follow_upstream_changes(self, upstream: Upstream) -> None:
        """Re-list the provider's tools on each upstream tools list_changed, pass on its resources
        list_changed; return when the stream ends (the provider went away). Providers without
        `subscriptions/listen` are only polled."""
        client = upstream.session.client
        try:
            async with client.listen(tools_list_changed=True, resources_list_changed=True) as subscription:
                async for event in subscription:
                    if isinstance(event, ResourcesListChanged):
                        if self._on_resources_change is not None:
                            await self._on_resources_change(upstream)
                        continue
                    upstream.tools = await upstream.session.list_tools()
                    await self._on_change(upstream, True)
        except ListenNotSupportedError:
            await anyio.sleep_forever()
        except Exception as exc:
            pid = upstream.descriptor.pid
            log.info("provider pid %s: change stream ended: %s", pid, describe_failure(exc))

    async def _watch_descriptor(self, upstream: Upstream) -> None:
        """Return when the provider the bridge would pick now is not `upstream` (gone, restarted,
        replaced by the front app's, or failing a design.md §7 check)."""
        while True:
            await self._sleep_or_wake(self.poll_interval_s)
            now = await self._pick()
            if now is None or now.instance != upstream.descriptor.instance:
                return


def describe_failure(exc: BaseException) -> str:
    """One sentence for a failure to reach a provider: a WebctxError's message, else `Type: text`
    (the first of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc.message if isinstance(exc, WebctxError) else f"{type(exc).__name__}: {exc}"
