"""Answer the worker's `hello` before the slow imports (design.md §4; issue target: spawn → hello ≤ 100 ms).

```
__main__ ─► claim stdout, logging ─► answer_first_hello(stdin fd, frames_out)   stdlib only
              read the first frame (blocking: the worker sends hello as soon as the port opens)
              a hello → mint the instance, check the providers folder (and what sits at
              this browser's descriptor and lock names: hello.py), write the result frame
              anything else (or EOF, or a frame over EARLY_MAX_BYTES) → left for app.py, unread
         ─► import app (asyncio, pydantic: 0.1-0.4 s on a busy 2-core VM) ─► app.main(early=…)
```

The reply is the one `app.NativeHost._on_hello` sends, built by the same function (hello.py:
instance, protocol, listening, problem), read and written by the same text rule (protocol/
json_text.py: UTF-8, lone surrogates → U+FFFD); app.py then handles the same
hello as already answered (starts the provider; logs the problem) and parses the bytes in
`unread` first, as if they had just arrived.
"""

from __future__ import annotations

import os
import select
import struct
import time
from typing import Any, BinaryIO, Final

from native_host.errors import FrameError
from native_host.protocol.json_text import decode_frame, encode_json
from native_host.provider.port.hello import hello_result, mint_instance

EARLY_MAX_BYTES: Final = 64 << 10
"""A first frame declaring more than this many bytes is left to app.py (a hello is ~300 bytes)."""

FIRST_FRAME_WAIT_S: Final = 0.25
"""How long to wait for the first frame before leaving everything to app.py, in seconds (the
worker sends `hello` ~2 ms after the port opens, chromium-recipe.md §6)."""


class EarlyHello:
    """What happened before app.py took over: the `instance` minted, the answered `hello` frame
    (None when the first frame was no hello), what the reply said (`listening`, `problem`), when
    (`answered_at`, `time.monotonic()`), and the bytes read but not consumed (`unread`).
    (A plain class: `dataclasses` alone costs ~5 ms of import on the path to the reply.)"""

    def __init__(
        self,
        instance: str,
        *,
        hello: dict[str, Any] | None = None,
        listening: bool = False,
        problem: str | None = None,
        answered_at: float = 0.0,
        unread: bytes = b"",
    ) -> None:
        self.instance = instance
        self.hello = hello
        self.listening = listening
        self.problem = problem
        self.answered_at = answered_at
        self.unread = unread


def _read_exactly(fd: int, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = os.read(fd, count - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _as_hello(body: bytes) -> dict[str, Any] | None:
    try:
        frame = decode_frame(body)  # the same text rule as every later frame (protocol/json_text.py)
    except FrameError:
        return None
    valid = (
        isinstance(frame, dict)
        and frame.get("type") == "hello"
        and isinstance(frame.get("id"), str)
        and isinstance(frame.get("protocol"), str)
        and isinstance(frame.get("settings", {}), dict)
        and isinstance(frame.get("settings", {}).get("enabled", True), bool)
    )
    return frame if valid else None


def answer_first_hello(stdin_fd: int, frames_out: BinaryIO) -> EarlyHello:
    """Read the first frame from `stdin_fd` (waiting at most FIRST_FRAME_WAIT_S for it to start);
    if it is a `hello`, answer it on `frames_out` at once. Never raises for what the browser sent
    (it is left in `unread`); OSError if writing fails."""
    instance = mint_instance()
    if os.name != "posix":  # select() cannot wait on a Windows pipe: app.py answers instead
        return EarlyHello(instance)
    try:
        ready, _, _ = select.select([stdin_fd], [], [], FIRST_FRAME_WAIT_S)
    except (OSError, ValueError):
        return EarlyHello(instance)
    if not ready:
        return EarlyHello(instance)
    header = _read_exactly(stdin_fd, 4)
    if len(header) < 4:
        return EarlyHello(instance, unread=header)
    (length,) = struct.unpack("=I", header)
    if length > EARLY_MAX_BYTES:
        return EarlyHello(instance, unread=header)
    body = _read_exactly(stdin_fd, length)
    hello = _as_hello(body) if len(body) == length else None
    if hello is None:
        return EarlyHello(instance, unread=header + body)
    result = hello_result(instance, enabled=hello.get("settings", {}).get("enabled", True))
    data = encode_json({"type": "result", "id": hello["id"], "result": result})
    frames_out.write(struct.pack("=I", len(data)) + data)
    frames_out.flush()
    return EarlyHello(
        instance,
        hello=hello,
        listening=result["listening"],
        problem=result.get("problem"),
        answered_at=time.monotonic(),
    )
