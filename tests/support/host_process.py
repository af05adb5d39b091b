"""A real `python -m native_host` process, driven over its stdin/stdout as the browser drives it.

The test plays the extension: it writes frames to the host's stdin and answers the host's
`current` requests (Host), and it plays a desktop host over MCP with the descriptor's endpoint and
token (mcp_client). The process reads HOME, XDG_* and CONTEXT_PROVIDERS_DIR from the environment
it is started with (tests/conftest.py points them into tmp_path); tests/unit/provider/conftest.py
starts it (`spawn`). POSIX only: pipes and signals.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal

import httpx2
from mcp import Client
from mcp.client.session import MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from native_host.paths import log_dir
from tests.support.waiting import until

ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
"""The caller origin the browser passes as the host's first argument."""
ROOT = {"id": "app", "role": "Application", "title": "Chromium", "attributes": {"version": "156.0.1"}}
"""The root Host answers every `current` request with (while `answer_current`)."""
HELLO = {
    "type": "hello",
    "id": "w-1",
    "protocol": "0.2.0",
    "extension": {"id": "abcdefghijklmnopabcdefghijklmnop", "version": "0.1.0"},
    "browser": {"name": "Chromium", "version": "156.0.8078.114", "userAgent": "Mozilla/5.0"},
    "settings": {"enabled": True},
}
"""The worker's first frame, as Chromium's extension sends it (`Host.hello` overrides fields)."""
WAIT_S = 15.0
"""Limit for anything the host does at start (the `mcp` import can take seconds on a busy machine)."""


def encode(value: Any) -> bytes:
    """`value` as one native-messaging frame: 4-byte native-order length, then UTF-8 JSON (design.md §4)."""
    body = json.dumps(value).encode()
    return struct.pack("=I", len(body)) + body


async def wait_until(
    predicate: Callable[[], bool], timeout_s: float = WAIT_S, what: str = "condition"
) -> None:
    """tests/support/waiting.until with this module's start-up limit (WAIT_S) as the default."""
    await until(predicate, timeout_s=timeout_s, message=what)


class Host:
    """A running `python -m native_host`: frames in, frames out, and everything it wrote to stdout."""

    def __init__(self, process: asyncio.subprocess.Process, spawned_at: float) -> None:
        self.process = process
        self.spawned_at = spawned_at
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.garbage: list[str] = []
        self.stdout_closed = asyncio.Event()
        self.current_requests = 0
        self.answer_current = True
        self.provider_ready: list[dict[str, Any]] = []
        self.activity: list[dict[str, Any]] = []
        """The `activity` events (one per MCP read), kept aside from the replies."""
        self._reader = asyncio.create_task(self._read_stdout())

    async def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                try:
                    header = await stdout.readexactly(4)
                except asyncio.IncompleteReadError as exc:
                    if exc.partial:
                        self.garbage.append(f"partial header {exc.partial!r}")
                    return
                (length,) = struct.unpack("=I", header)
                if length > 1 << 20:
                    self.garbage.append(f"a frame of {length} bytes (text on stdout? {header!r})")
                    return
                body = await stdout.readexactly(length)
                try:
                    frame = json.loads(body.decode("utf-8"))
                except ValueError:
                    self.garbage.append(f"not JSON: {body[:80]!r}")
                    return
                if frame.get("type") == "provider.ready":  # an event; kept aside from the replies
                    self.provider_ready.append(frame)
                    continue
                if frame.get("type") == "activity":  # an event too
                    self.activity.append(frame)
                    continue
                if frame.get("type") == "current" and self.answer_current:
                    self.current_requests += 1
                    await self.send({"type": "result", "id": frame["id"], "result": {"root": ROOT}})
                    continue
                await self.frames.put(frame)
        finally:
            self.stdout_closed.set()

    async def send_raw(self, data: bytes) -> None:
        """Write `data` to the host's stdin as is (a frame or garbage)."""
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(data)
        await stdin.drain()

    async def send(self, value: Any) -> None:
        """Write `value` as one frame."""
        await self.send_raw(encode(value))

    async def receive(self, timeout_s: float = WAIT_S) -> dict[str, Any]:
        """The next frame the host wrote that is no event (`provider.ready`, `activity`) and no
        answered `current`; TimeoutError after `timeout_s` seconds."""
        async with asyncio.timeout(timeout_s):
            return await self.frames.get()

    async def hello(self, **changes: Any) -> dict[str, Any]:
        """Send HELLO with `changes`; return the result of the host's reply to it."""
        await self.send({**HELLO, **changes})
        reply = await self.receive()
        assert reply["type"] == "result" and reply["id"] == changes.get("id", "w-1")
        result: dict[str, Any] = reply["result"]
        return result

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    async def wait_exit(self, timeout_s: float) -> int:
        """The host's exit code; TimeoutError if it runs on for `timeout_s` seconds."""
        async with asyncio.timeout(timeout_s):
            return await self.process.wait()


def providers_dir() -> Path:
    """The providers folder the spawned host publishes in (CONTEXT_PROVIDERS_DIR)."""
    return Path(os.environ["CONTEXT_PROVIDERS_DIR"])


def descriptors() -> list[Path]:
    """The descriptor files in the providers folder, sorted; none if the folder does not exist."""
    folder = providers_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def log_text() -> str:
    """Everything the host wrote to its log file so far ("" before the file exists)."""
    path = log_dir() / "native-host.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


async def ready_descriptor(host: Host) -> dict[str, Any]:
    """Wait (up to WAIT_S) for the one descriptor in the providers folder; return its JSON."""
    await wait_until(lambda: bool(descriptors()), what="the descriptor")
    [path] = descriptors()
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@contextlib.asynccontextmanager
async def mcp_client(
    descriptor: dict[str, Any],
    mode: Literal["legacy", "auto"],
    *,
    keep_alive: bool = True,
    client_info: Implementation | None = None,
    message_handler: MessageHandlerFnT | None = None,
) -> AsyncIterator[Client]:
    """An SDK client of the descriptor's endpoint with its token: 2025-11-25 (`legacy`) or 2026-07-28;
    with `keep_alive=False` every request opens a new TCP connection; `client_info` is the name
    and version it declares (the SDK's default: `mcp` 0.1.0); `message_handler` hears the server's
    notifications (handshake era: on the GET stream)."""
    limits = httpx2.Limits() if keep_alive else httpx2.Limits(max_keepalive_connections=0)
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {descriptor['token']}"}, limits=limits) as http,
        Client(
            streamable_http_client(descriptor["endpoint"], http_client=http),
            mode=mode,
            read_timeout_seconds=10,
            client_info=client_info,
            message_handler=message_handler,
        ) as client,
    ):
        yield client
