"""The native host's lifecycle, in one asyncio loop (SPEC §3, §4; docs/native-host.md).

```
start      (the first hello was usually answered already, by early_hello.py, with its instance)
           start importing endpoint.py in a thread · read frames from stdin · clean up stale
           descriptors and unheld provider lock files
hello      answer at once {instance, protocol, listening}; if settings.enabled is not false:
           import done → start the MCP endpoint and the hand-off server (handoff.py) → the
           publisher (publisher.py) takes the browser's provider lock and writes the descriptor,
           or stands by and follows the provider → `provider.ready {port}` (ours once we publish;
           the provider's, with `viaProvider: true`, while we follow it)
result/    routed to the waiting request (bridge.py)
error
tools.     the exposed page tools → McpEndpoint.set_page_tools (kept until the endpoint exists),
changed    and to the provider while we follow it (follower_link.py)
tree       the worker's pushed `current` answer → TreeCache (tree_cache.py): `current` answers
           from it without a round trip while it is complete; every hello forgets it
stop       stdin EOF, SIGTERM, SIGINT, fatal error → remove the descriptor FIRST (if still ours),
           fail pending requests, stop the hand-off server and uvicorn (≤ 1 s each), exit
```
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, BinaryIO, Final, NoReturn, TypeVar
from urllib.parse import urlsplit

from pydantic import ValidationError

from native_host import paths
from native_host.errors import ProvidersFolderError, WebctxError
from native_host.protocol.browser_identity import BrowserIdentity, identify_browser
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.native import (
    BROWSER_FRAME_ADAPTER,
    NATIVE_MESSAGE_TYPES,
    ErrorFrame,
    Hello,
    HelloReply,
    ProviderReady,
    ResultFrame,
    ToolsChanged,
    TreePush,
)
from native_host.protocol.version import PROTOCOL_VERSION, protocol_supported
from native_host.provider import bench_ping
from native_host.provider.bridge import Bridge
from native_host.provider.descriptor_files import check_providers_folder, remove_stale_descriptors
from native_host.provider.framing import FrameWriter, iter_frames
from native_host.provider.publisher import DescriptorPublisher, remove_stale_locks
from native_host.provider.tree_cache import CachingRequester, TreeCache

if TYPE_CHECKING:  # imported for real in a thread: it takes about a second
    from native_host.provider.early_hello import EarlyHello
    from native_host.provider.endpoint import McpEndpoint
    from native_host.provider.profiles.handoff import ProfileHandoff

log = logging.getLogger(__name__)

MCP_MODULE: Final = "native_host.provider.endpoint"
"""Imported in a thread at start, so `hello` is answered before `mcp` has loaded."""

PAGE_TOOL_DEADLINE_ENV: Final = "WEBCTX_PAGE_TOOL_DEADLINE_MS"
"""Environment variable overriding the page-tool call deadline (ms; SPEC §5 "default 60 s")."""

STOP_TIMEOUT_S: Final = 1.0
"""How long stopping the MCP endpoint may take, in seconds (the browser SIGKILLs at ~2 s)."""

_T = TypeVar("_T")


def mint_instance() -> str:
    """A new instance id: 16 random bytes, URL-safe base64 without padding (22 characters)."""
    return secrets.token_urlsafe(16)


def run_in_daemon_thread(function: Callable[..., _T], *args: Any) -> asyncio.Future[_T]:
    """Run `function(*args)` in a daemon thread; return a future for its result.

    Unlike `asyncio.to_thread`, a thread still running at exit (a slow import, a hung
    `--version`) never delays the exit: the loop's executor shutdown does not wait for it.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(result: _T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]  # result is a _T when error is None

    def work() -> None:
        try:
            result = function(*args)
        except BaseException as exc:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(settle, None, exc)
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(settle, result, None)

    name = f"webctx-{getattr(function, '__name__', 'worker')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return future


async def open_reader(stdin: BinaryIO, prefix: bytes = b"") -> asyncio.StreamReader:
    """An asyncio.StreamReader over `stdin` (a pipe from the browser), yielding `prefix` first
    (bytes already read from it). Falls back to a reading thread when the loop cannot watch it (a
    regular file, Windows' proactor on a console)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    if prefix:
        reader.feed_data(prefix)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except (ValueError, OSError, NotImplementedError):
        fd = stdin.fileno()

        def pump() -> None:
            while True:
                try:
                    data = os.read(fd, 1 << 16)
                except OSError:
                    data = b""
                try:
                    if not data:
                        loop.call_soon_threadsafe(reader.feed_eof)
                        return
                    loop.call_soon_threadsafe(reader.feed_data, data)
                except RuntimeError:  # the loop is closed
                    return

        threading.Thread(target=pump, name="webctx-stdin", daemon=True).start()
    return reader


class NativeHost:
    """One native-host process: the port to the worker, the MCP endpoint, the descriptor.

    `reader` yields the browser's frames, `writer` writes ours; `origin` is the calling
    extension's origin (argv[1], e.g. `chrome-extension://<id>/`); `started_at` is the process's
    start on the `time.monotonic()` clock (for the timings in the log). `run()` returns the exit code.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: FrameWriter,
        *,
        origin: str | None = None,
        started_at: float | None = None,
        early: EarlyHello | None = None,
    ) -> None:
        self.instance: Final = early.instance if early is not None else mint_instance()
        self._early = early
        self.started_at = time.monotonic() if started_at is None else started_at
        self.origin = origin
        self.bridge = Bridge(writer.send)
        self.tree_cache = TreeCache()
        self.requester = CachingRequester(self.bridge, self.tree_cache, lambda: not self.bridge.closed)
        self.endpoint: McpEndpoint | None = None
        self.descriptor_path: Path | None = None
        self.publisher: DescriptorPublisher | None = None
        self.handoff: ProfileHandoff | None = None
        self.exit_code = 0
        self._reader = reader
        self._writer = writer
        self._stop = asyncio.Event()
        self._stop_reason = ""
        self._tasks: set[asyncio.Task[None]] = set()
        self._provider_task: asyncio.Task[None] | None = None
        self._mcp_module: asyncio.Future[ModuleType] | None = None
        self._page_tools: ToolsChanged | None = None
        self._own_port: int | None = None
        self._bench_tasks: set[asyncio.Task[None]] = set()

    def _ms_since_start(self) -> float:
        return (time.monotonic() - self.started_at) * 1e3

    # -- running ---------------------------------------------------------------------------------

    async def run(self) -> int:
        """Serve until stdin EOF, SIGTERM, SIGINT or a fatal error; then shut down and return the
        exit code (0, or 1 after a fatal error)."""
        log.info("native host started: pid %d, origin %s", os.getpid(), self.origin)
        try:
            self._install_signal_handlers()
            bench_ping.install(self.bridge, self._bench_tasks)
            self._mcp_module = run_in_daemon_thread(importlib.import_module, MCP_MODULE)
            early = self._early
            if early is not None and early.hello is not None:  # answered before our imports
                try:
                    hello = BROWSER_FRAME_ADAPTER.validate_python(early.hello)
                except ValidationError:
                    log.warning("the early-answered hello has the wrong shape; not serving")
                else:
                    if isinstance(hello, Hello):
                        await self._on_hello(hello, answered=early)
            self._spawn(self._read_port(), "read-port")
            asyncio.get_running_loop().call_soon(self._clean_stale_descriptors)
            await self._stop.wait()
        finally:
            await self.shutdown()
        log.info("native host exiting (%s), code %d", self._stop_reason, self.exit_code)
        return self.exit_code

    def request_stop(self, reason: str, *, exit_code: int = 0) -> None:
        """Begin shutting down (idempotent; the first reason wins, a non-zero code sticks)."""
        if exit_code:
            self.exit_code = exit_code
        if not self._stop.is_set():
            self._stop_reason = reason
            log.info("stopping: %s", reason)
            self._stop.set()

    def _spawn(self, coroutine: Any, name: str) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            return
        if isinstance(error, WebctxError):
            log.error("%s failed: %s", task.get_name(), error)
        else:
            log.error("%s failed unexpectedly", task.get_name(), exc_info=error)
        self.request_stop(f"fatal error in {task.get_name()}", exit_code=1)

    def _install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            name = signal.Signals(signum).name
            try:
                loop.add_signal_handler(signum, self.request_stop, name)
            except (NotImplementedError, RuntimeError):  # Windows: no loop signal handlers
                signal.signal(signum, self._signal_handler(loop, name))

    def _signal_handler(
        self, loop: asyncio.AbstractEventLoop, name: str
    ) -> Callable[[int, FrameType | None], None]:
        def handle(_signum: int, _frame: FrameType | None) -> None:
            loop.call_soon_threadsafe(self.request_stop, name)

        return handle

    def _clean_stale_descriptors(self) -> None:
        removed = remove_stale_descriptors(paths.providers_dir())
        if removed:
            log.info("removed %d stale descriptor(s)", len(removed))
        if paths.providers_dir().is_dir() and remove_stale_locks(paths.providers_dir()):
            log.info("removed unheld provider lock file(s)")

    # -- the native port ---------------------------------------------------------------------------

    async def _read_port(self) -> None:
        async for frame in iter_frames(self._reader):
            await self._dispatch(frame)
        self.request_stop("stdin EOF")

    async def _dispatch(self, frame: dict[str, Any]) -> None:
        type_ = frame["type"]
        if type_ not in ("hello", "result", "error", "tools.changed", "tree"):
            what = "host-to-worker" if type_ in NATIVE_MESSAGE_TYPES else "unknown"
            log.warning("dropped a frame of %s type %r", what, type_[:40])
            return
        try:
            parsed = BROWSER_FRAME_ADAPTER.validate_python(frame)
        except ValidationError as exc:
            log.warning("dropped a %s frame of the wrong shape (%d errors)", type_, exc.error_count())
            return
        if isinstance(parsed, TreePush):
            self.tree_cache.update(parsed, frame)
        elif isinstance(parsed, Hello):
            self.tree_cache.clear()  # ids may start over; the worker pushes again after the reply
            await self._on_hello(parsed)
        elif isinstance(parsed, ResultFrame | ErrorFrame):
            self.bridge.handle_reply(parsed)
        elif isinstance(parsed, ToolsChanged):
            self._page_tools = parsed
            if self.endpoint is not None:
                await self.endpoint.set_page_tools(parsed.tools)
            if self.handoff is not None:
                self.handoff.set_page_tools(parsed.to_wire()["tools"])

    async def _on_hello(self, hello: Hello, *, answered: EarlyHello | None = None) -> None:
        """Answer `hello` (unless `answered` says early_hello.py did) and start the provider."""
        if answered is not None:
            log.info(
                "hello %s from extension %s (protocol %s) answered %.0f ms after start (early); listening=%s",
                hello.id,
                hello.extension.id if hello.extension else "?",
                hello.protocol,
                (answered.answered_at - self.started_at) * 1e3,
                answered.listening,
            )
            if answered.problem:
                log.error("not serving: %s", answered.problem)
            if answered.listening and self._provider_task is None:
                self._provider_task = self._spawn(self._start_provider(hello), "start-provider")
            return
        listening = hello.settings.enabled
        problem = None
        if listening and self._provider_task is None:
            # Refuse an unsafe providers folder before saying we listen (SPEC §3): the host stays
            # connected without a port, so the extension shows why instead of restarting it.
            folder = paths.providers_dir()
            try:
                if folder.exists() or folder.is_symlink():
                    check_providers_folder(folder)
            except ProvidersFolderError as exc:
                listening, problem = False, str(exc)
                log.error("not serving: %s", problem)
        reply = HelloReply(
            instance=self.instance, protocol=PROTOCOL_VERSION, listening=listening, problem=problem
        )
        await self._writer.send({"type": "result", "id": hello.id, "result": reply.to_wire()})
        extension = hello.extension.id if hello.extension else "?"
        log.info(
            "hello %s from extension %s (protocol %s) answered %.0f ms after start; listening=%s",
            hello.id,
            extension,
            hello.protocol,
            self._ms_since_start(),
            listening,
        )
        if not protocol_supported(hello.protocol):
            log.warning("the extension speaks protocol %s, this host %s", hello.protocol, PROTOCOL_VERSION)
        if listening and self._provider_task is None:
            self._provider_task = self._spawn(self._start_provider(hello), "start-provider")

    # -- the provider ------------------------------------------------------------------------------

    async def _start_provider(self, hello: Hello) -> None:
        """Start the MCP endpoint, then write the descriptor (SPEC §1, §3). Raises on failure
        (fatal: the host exits 1 after removing what it wrote)."""
        assert self._mcp_module is not None
        browser = hello.browser
        identity_future: asyncio.Future[BrowserIdentity] = run_in_daemon_thread(
            identify_browser, browser.name if browser else None, browser.version if browser else None
        )
        module = await self._mcp_module
        log.info("mcp imported %.0f ms after start", self._ms_since_start())
        from native_host.provider.profiles.follower_tools import FollowerTools
        from native_host.provider.profiles.handoff import ProfileHandoff  # websockets: only when serving

        # Several profiles, one provider (SPEC §3): `current`, `location` and page tools also
        # reach the hosts that follow us; while we stand by, we follow the provider.
        follower_tools = FollowerTools(deadline_ms=page_tool_deadline_ms())
        self.handoff = handoff = ProfileHandoff(
            self.requester, instance=self.instance, tools=follower_tools, on_provider=self._on_provider_port
        )
        self.endpoint = endpoint = module.McpEndpoint(
            handoff.requester,
            instance=self.instance,
            page_tool_deadline_ms=page_tool_deadline_ms(),
            follower_tools=follower_tools,
        )
        # Our pushed tree goes on to the provider while we follow it (handoff.py).
        self.tree_cache.on_change = lambda: handoff.set_tree(self.tree_cache.reply())
        handoff.set_tree(self.tree_cache.reply())
        follower_tools.on_change = endpoint.notify_tools_changed
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
            instance=self.instance,
            endpoint=url,
            token=endpoint.token,
            listener_pid=os.getpid(),
            handoff=handoff_url,  # our addition: where this browser's other native hosts connect
        )
        if self._stop.is_set():
            return
        # One descriptor per browser process: the publisher takes the browser's provider lock,
        # keeps the descriptor written (a deleted folder is recreated) and takes over when the
        # provider host of another profile exits (publisher.py).
        self._own_port = urlsplit(url).port
        self.publisher = DescriptorPublisher(
            paths.providers_dir(), descriptor, on_role_change=self._on_role_change
        )
        handoff.descriptor_path = self.publisher.path
        role = self.publisher.start()
        self.descriptor_path = self.publisher.path
        log.info("provider ready %.0f ms after start (%s)", self._ms_since_start(), role)

    def _on_role_change(self, role: str) -> None:
        """The publisher's role changed: the hand-off follows, and the popup hears our port once we
        publish (SPEC §3 leaves the popup to us). While we stand by, the port the popup shows is
        the provider's, sent by `_on_provider_port` once we follow it (docs/protocol.md)."""
        if self.handoff is not None:
            self.handoff.on_role_change(role)
        if role == "provider" and self._own_port is not None:
            self._send_event(ProviderReady(port=self._own_port).to_wire())

    def _on_provider_port(self, port: int) -> None:
        """We follow the browser's provider, whose MCP endpoint is on `port`: tell the popup."""
        self._send_event(ProviderReady(port=port, via_provider=True).to_wire())

    def _send_event(self, frame: dict[str, Any]) -> None:
        async def send() -> None:
            with contextlib.suppress(OSError):
                await self._writer.send(frame)

        self._spawn(send(), f"send {frame.get('type')}")

    async def shutdown(self) -> None:
        """Remove the descriptor first, then fail pending requests and stop the MCP endpoint
        (bounded by STOP_TIMEOUT_S). Never raises."""
        provider = self._provider_task
        if provider is not None and not provider.done():
            provider.cancel()
            await asyncio.wait({provider}, timeout=0.2)
        if self.publisher is not None:
            self.publisher.withdraw()  # only if it still names our instance
            self.descriptor_path = None
        self.bridge.close()
        self.tree_cache.clear()
        if self.handoff is not None:
            with contextlib.suppress(Exception):
                await self.handoff.stop()
        if self.endpoint is not None:
            try:
                await self.endpoint.stop(STOP_TIMEOUT_S)
            except Exception:
                log.exception("stopping the MCP endpoint failed")
        for task in list(self._tasks):
            task.cancel()


def page_tool_deadline_ms() -> int:
    """The page-tool call deadline in ms: WEBCTX_PAGE_TOOL_DEADLINE_MS when it is a positive
    integer, else 60 000 (SPEC §5)."""
    from native_host.protocol.native import PAGE_TOOL_DEADLINE_MS

    raw = os.environ.get(PAGE_TOOL_DEADLINE_ENV, "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return PAGE_TOOL_DEADLINE_MS


async def run(
    stdin: BinaryIO,
    frames_out: BinaryIO,
    *,
    origin: str | None = None,
    started_at: float | None = None,
    early: EarlyHello | None = None,
) -> int:
    """Run one native host reading frames from `stdin` and writing frames to `frames_out`;
    return the exit code. `early`: what `early_hello.answer_first_hello` already did."""
    reader = await open_reader(stdin, early.unread if early is not None else b"")
    host = NativeHost(reader, FrameWriter(frames_out), origin=origin, started_at=started_at, early=early)
    return await host.run()


def main(
    argv: Sequence[str] | None = None,
    *,
    frames_out: BinaryIO | None = None,
    started_at: float | None = None,
    early: EarlyHello | None = None,
) -> int:
    """Entry point (`__main__.py`): `argv` is what the browser passes after the program (the
    caller's origin, and on Windows `--parent-window=<n>`); `frames_out` is the claimed stdout;
    `started_at` the `time.monotonic()` of process start. Returns the exit code: 0 after stdin
    EOF/SIGTERM/SIGINT, 1 after a fatal error."""
    args = list(sys.argv[1:] if argv is None else argv)
    origin = next((arg for arg in args if not arg.startswith("--")), None)
    out = frames_out if frames_out is not None else sys.stdout.buffer
    try:
        return asyncio.run(run(sys.stdin.buffer, out, origin=origin, started_at=started_at, early=early))
    except KeyboardInterrupt:
        return 0
    except Exception:
        log.exception("the native host crashed")
        return 1


def flush_and_exit(code: int, frames_out: BinaryIO) -> NoReturn:
    """Flush the frames stream and the logs, then end the process at once with `code`
    (`os._exit`: a daemon thread still importing or blocked cannot delay the exit)."""
    with contextlib.suppress(OSError, ValueError):
        frames_out.flush()
    logging.shutdown()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)
