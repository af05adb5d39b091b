"""Work that must never delay the native host's exit: daemon threads
(docs/internals/native-host.md "Fast exit").

```
run_in_daemon_thread(f, *args)   f in a daemon thread → an asyncio future for its result
                                 (app.py: the `mcp` import, identify_browser)
open_reader(stdin)               the browser's pipe as an asyncio.StreamReader; a daemon
                                 reading thread where the loop cannot watch it
```

The browser SIGKILLs a host that outlives stdin EOF by ~2 s, and the host ends with `os._exit`
after its last frame: a thread still importing or blocked must not hold the process, so neither
helper uses the loop's default executor (whose shutdown waits for its threads).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

_T = TypeVar("_T")


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
