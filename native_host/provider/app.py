"""The native host's lifecycle, in one asyncio loop (design.md §3, §4; docs/internals/native-host.md).

```
start      (the first hello was usually answered already, by early_hello.py, with its instance)
           start importing endpoint.py (MCP_MODULE) in a daemon thread (daemon_threads.py) · read
           frames from stdin · clean up stale descriptors and unheld provider lock files
hello      answer at once (hello.py: {instance, protocol, listening, problem?}); if listening:
           Serving.start (serving.py): import done → the MCP endpoint and the hand-off server →
           the publisher takes the browser's provider lock and writes the descriptor, or stands
           by and follows the provider → `provider.ready {port}`
result/    routed to the waiting request (bridge.py)
error
tools.     the exposed page tools → Serving.set_page_tools: the endpoint (kept until it exists),
changed    and the provider while we follow it (follower_link.py)
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
import signal
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, BinaryIO, Final, NoReturn

from pydantic import ValidationError

from native_host import paths
from native_host.errors import WebctxError
from native_host.protocol.native import (
    BROWSER_FRAME_ADAPTER,
    NATIVE_MESSAGE_TYPES,
    ErrorFrame,
    Hello,
    ResultFrame,
    ToolsChanged,
    TreePush,
)
from native_host.protocol.version import version_mismatch
from native_host.provider.daemon_threads import open_reader, run_in_daemon_thread
from native_host.provider.descriptor_files import remove_stale_descriptors
from native_host.provider.port import bench_ping
from native_host.provider.port.bridge import Bridge
from native_host.provider.port.framing import FrameWriter, iter_frames
from native_host.provider.port.hello import hello_result, mint_instance
from native_host.provider.port.tree_cache import TreeCache
from native_host.provider.publisher import remove_stale_locks
from native_host.provider.serving import Serving

if TYPE_CHECKING:
    from native_host.provider.port.early_hello import EarlyHello

log = logging.getLogger(__name__)

MCP_MODULE: Final = "native_host.provider.http.endpoint"
"""Imported in a daemon thread at start (`mcp`, uvicorn: about a second), so `hello` is answered
before `mcp` has loaded; Serving.start awaits it."""


class NativeHost:
    """One native-host process: the port to the worker, and what it serves (serving.py).

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
        self.tree_cache = TreeCache(on_change=self._tree_changed)
        self.exit_code = 0
        self._reader = reader
        self._writer = writer
        self._stop = asyncio.Event()
        self._stop_reason = ""
        self._tasks: set[asyncio.Task[None]] = set()
        self._provider_task: asyncio.Task[None] | None = None
        self._mcp_module: asyncio.Future[ModuleType] | None = None
        self._bench_tasks: set[asyncio.Task[None]] = set()
        self.serving: Final = Serving(
            self.bridge,
            self.tree_cache,
            alive=lambda: not self.bridge.closed,
            instance=self.instance,
            send_event=self._send_event,
            stopping=self._stop,
            started_at=self.started_at,
        )

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
            await self.serving.set_page_tools(parsed)

    def _tree_changed(self) -> None:
        """TreeCache's `on_change` (the cache is made before `serving`, which reads it)."""
        self.serving.tree_changed()

    async def _on_hello(self, hello: Hello, *, answered: EarlyHello | None = None) -> None:
        """Answer `hello` (unless `answered` says early_hello.py did) with hello.py's reply, and
        start serving when it says we listen."""
        extension = hello.extension.id if hello.extension else "?"
        if answered is not None:
            listening = answered.listening
            log.info(
                "hello %s from extension %s (protocol %s) answered %.0f ms after start (early); listening=%s",
                hello.id,
                extension,
                hello.protocol,
                (answered.answered_at - self.started_at) * 1e3,
                listening,
            )
            if answered.problem:
                log.error("not serving: %s", answered.problem)
        else:
            # The folder is checked before the first start only: once serving, we keep serving.
            result = hello_result(
                self.instance, enabled=hello.settings.enabled, check_folder=self._provider_task is None
            )
            listening = result["listening"]
            if "problem" in result:
                log.error("not serving: %s", result["problem"])
            await self._writer.send({"type": "result", "id": hello.id, "result": result})
            log.info(
                "hello %s from extension %s (protocol %s) answered %.0f ms after start; listening=%s",
                hello.id,
                extension,
                hello.protocol,
                self._ms_since_start(),
                listening,
            )
        # On either path (the early one used to skip it).
        mismatch = version_mismatch(hello.protocol, hello.extension.version if hello.extension else None)
        if mismatch is not None:
            log.warning("version mismatch: %s", mismatch.message)
        if listening and self._provider_task is None:
            assert self._mcp_module is not None  # `run` starts the import before any hello
            self._provider_task = self._spawn(self.serving.start(hello, self._mcp_module), "start-provider")

    def _send_event(self, frame: dict[str, Any]) -> None:
        async def send() -> None:
            with contextlib.suppress(OSError):
                await self._writer.send(frame)

        self._spawn(send(), f"send {frame.get('type')}")

    async def shutdown(self) -> None:
        """Remove the descriptor first, then fail pending requests and stop the hand-off server and
        the MCP endpoint (bounded by serving.STOP_TIMEOUT_S). Never raises."""
        provider = self._provider_task
        if provider is not None and not provider.done():
            provider.cancel()
            await asyncio.wait({provider}, timeout=0.2)
        self.serving.withdraw()  # only if it still names our instance
        self.bridge.close()
        self.tree_cache.clear()
        await self.serving.stop()
        for task in list(self._tasks):
            task.cancel()


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
