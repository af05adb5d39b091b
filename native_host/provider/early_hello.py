"""Answer the worker's `hello` before the slow imports (SPEC §4; issue target: spawn → hello ≤ 100 ms).

```
__main__ ─► claim stdout, logging ─► answer_first_hello(stdin fd, frames_out)   stdlib only
              read the first frame (blocking: the worker sends hello as soon as the port opens)
              a hello → mint the instance, check the providers folder, write the result frame
              anything else (or EOF, or a frame over EARLY_MAX_BYTES) → left for app.py, unread
         ─► import app (asyncio, pydantic: 0.1-0.4 s on a busy 2-core VM) ─► app.main(early=…)
```

The reply is what `app.NativeHost._on_hello` would send (`HelloReply`: instance, protocol,
listening, problem); app.py then handles the same hello as already answered (starts the provider)
and parses the bytes in `unread` first, as if they had just arrived.
"""

from __future__ import annotations

import base64
import json
import os
import select
import struct
import time
from typing import Any, BinaryIO, Final

from native_host import paths
from native_host.errors import ProvidersFolderError
from native_host.protocol.providers_folder import check_providers_folder
from native_host.protocol.version import PROTOCOL_VERSION

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

    def __init__(self, instance: str) -> None:
        self.instance = instance
        self.hello: dict[str, Any] | None = None
        self.listening = False
        self.problem: str | None = None
        self.answered_at = 0.0
        self.unread = b""


def mint_instance() -> str:
    """A new instance id: 16 random bytes from `os.urandom`, URL-safe base64 without padding (22
    characters), as `secrets.token_urlsafe(16)` makes it without importing `random` and `hmac`."""
    return base64.urlsafe_b64encode(os.urandom(16)).rstrip(b"=").decode("ascii")


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
        frame = json.loads(body)
    except (ValueError, UnicodeDecodeError):
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
    early = EarlyHello(mint_instance())
    if os.name != "posix":  # select() cannot wait on a Windows pipe: app.py answers instead
        return early
    try:
        ready, _, _ = select.select([stdin_fd], [], [], FIRST_FRAME_WAIT_S)
    except (OSError, ValueError):
        return early
    if not ready:
        return early
    header = _read_exactly(stdin_fd, 4)
    if len(header) < 4:
        early.unread = header
        return early
    (length,) = struct.unpack("=I", header)
    if length > EARLY_MAX_BYTES:
        early.unread = header
        return early
    body = _read_exactly(stdin_fd, length)
    hello = _as_hello(body) if len(body) == length else None
    if hello is None:
        early.unread = header + body
        return early
    listening = hello.get("settings", {}).get("enabled", True) is not False
    problem = None
    if listening:
        # Refuse an unsafe providers folder before saying we listen (SPEC §3), as app.py would.
        folder = paths.providers_dir()
        try:
            if folder.exists() or folder.is_symlink():
                check_providers_folder(folder)
        except ProvidersFolderError as exc:
            listening, problem = False, str(exc)  # app.py logs it
    result: dict[str, Any] = {
        "instance": early.instance, "protocol": PROTOCOL_VERSION, "listening": listening
    }
    if problem is not None:
        result["problem"] = problem
    data = json.dumps({"type": "result", "id": hello["id"], "result": result}, separators=(",", ":")).encode()
    frames_out.write(struct.pack("=I", len(data)) + data)
    frames_out.flush()
    early.hello, early.listening, early.problem = hello, listening, problem
    early.answered_at = time.monotonic()
    return early
