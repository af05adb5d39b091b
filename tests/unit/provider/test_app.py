"""app.py / __main__.py: the real `python -m native_host` process, driven over its stdin/stdout.

The test plays the extension: it writes frames to the host's stdin and answers the host's
`current` requests, and it plays a desktop host over MCP with the descriptor's endpoint and token.
HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into tmp_path (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import stat
import struct
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Literal

import httpx2
import psutil
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from native_host.paths import log_dir
from tests.support.processes import reaped_pid

ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"
ROOT = {"id": "app", "role": "Application", "title": "Chromium", "attributes": {"version": "156.0.1"}}
HELLO = {
    "type": "hello",
    "id": "w-1",
    "protocol": "0.2.0",
    "extension": {"id": "abcdefghijklmnopabcdefghijklmnop", "version": "0.1.0"},
    "browser": {"name": "Chromium", "version": "156.0.8078.114", "userAgent": "Mozilla/5.0"},
    "settings": {"enabled": True},
}
WAIT_S = 15.0
"""Limit for anything the host does at start (the `mcp` import can take seconds on a busy machine)."""

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")


def encode(value: Any) -> bytes:
    body = json.dumps(value).encode()
    return struct.pack("=I", len(body)) + body


async def wait_until(
    predicate: Callable[[], bool], timeout_s: float = WAIT_S, what: str = "condition"
) -> None:
    """Poll `predicate` every 20 ms until it holds; fail after `timeout_s` seconds."""
    try:
        async with asyncio.timeout(timeout_s):
            while not predicate():
                await asyncio.sleep(0.02)
    except TimeoutError:
        pytest.fail(f"timed out after {timeout_s} s waiting for {what}")


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
                if frame.get("type") == "current" and self.answer_current:
                    self.current_requests += 1
                    await self.send({"type": "result", "id": frame["id"], "result": {"root": ROOT}})
                    continue
                await self.frames.put(frame)
        finally:
            self.stdout_closed.set()

    async def send_raw(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(data)
        await stdin.drain()

    async def send(self, value: Any) -> None:
        await self.send_raw(encode(value))

    async def receive(self, timeout_s: float = WAIT_S) -> dict[str, Any]:
        async with asyncio.timeout(timeout_s):
            return await self.frames.get()

    async def hello(self, **changes: Any) -> dict[str, Any]:
        await self.send({**HELLO, **changes})
        reply = await self.receive()
        assert reply["type"] == "result" and reply["id"] == changes.get("id", "w-1")
        result: dict[str, Any] = reply["result"]
        return result

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    async def wait_exit(self, timeout_s: float) -> int:
        async with asyncio.timeout(timeout_s):
            return await self.process.wait()


def providers_dir() -> Path:
    return Path(os.environ["CONTEXT_PROVIDERS_DIR"])


def descriptors() -> list[Path]:
    folder = providers_dir()
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def log_text() -> str:
    path = log_dir() / "native-host.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.fixture
async def spawn(tmp_path: Path) -> AsyncIterator[Callable[[], Any]]:
    hosts: list[Host] = []

    async def start() -> Host:
        spawned_at = time.monotonic()
        # stderr goes to a file: an unread pipe could fill up and block the host
        with (tmp_path / f"host-{len(hosts)}.stderr").open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "native_host",
                ORIGIN,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=tmp_path,
                env=dict(os.environ),
            )
        host = Host(process, spawned_at)
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()
        await asyncio.wait({host._reader}, timeout=5)
        assert host.garbage == [], "the host wrote something other than frames to stdout"


async def ready_descriptor(host: Host) -> dict[str, Any]:
    await wait_until(lambda: bool(descriptors()), what="the descriptor")
    [path] = descriptors()
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@contextlib.asynccontextmanager
async def mcp_client(descriptor: dict[str, Any], mode: Literal["legacy", "auto"]) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {descriptor['token']}"}) as http,
        Client(
            streamable_http_client(descriptor["endpoint"], http_client=http),
            mode=mode,
            read_timeout_seconds=10,
        ) as client,
    ):
        yield client


async def test_hello_is_answered_before_mcp_is_imported(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    result = await host.hello()
    hello_ms = (time.monotonic() - host.spawned_at) * 1e3
    assert set(result) == {"instance", "protocol", "listening"}
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", result["instance"])
    assert result["protocol"] == "0.2.0" and result["listening"] is True
    await ready_descriptor(host)
    ready_ms = (time.monotonic() - host.spawned_at) * 1e3
    print(f"spawn → hello reply {hello_ms:.0f} ms; spawn → descriptor {ready_ms:.0f} ms")
    assert hello_ms < ready_ms
    answered = re.search(r"hello w-1 .* answered (\d+) ms after start", log_text())
    imported = re.search(r"mcp imported (\d+) ms after start", log_text())
    assert answered and imported, log_text()
    assert int(answered.group(1)) < int(imported.group(1))


async def test_descriptor_has_the_right_fields_and_modes(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    result = await host.hello()
    descriptor = await ready_descriptor(host)
    [path] = descriptors()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(providers_dir().stat().st_mode) == 0o700
    assert set(descriptor) == {
        "protocol",
        "bundleId",
        "name",
        "version",
        "pid",
        "instance",
        "endpoint",
        "token",
        "listenerPid",
        "handoff",  # our addition: where this browser's other profiles' hosts connect (SPEC §3)
    }
    assert descriptor["protocol"] == "0.2.0"
    # our python is no browser: the hello's browser name picks the table row
    assert (descriptor["bundleId"], descriptor["name"]) == ("org.chromium.Chromium", "Chromium")
    assert descriptor["version"] == "156.0.8078.114"
    assert descriptor["instance"] == result["instance"]
    assert descriptor["listenerPid"] == host.process.pid
    me = psutil.Process()
    assert descriptor["pid"] in {me.pid, *(parent.pid for parent in me.parents())}
    assert path.name == f"org.chromium.Chromium-{descriptor['pid']}.json"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp/[A-Za-z0-9_-]{22}", descriptor["endpoint"])
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", descriptor["token"])
    assert re.fullmatch(r"ws://127\.0\.0\.1:\d+/handoff", descriptor["handoff"])
    listening = [c for c in psutil.Process(host.process.pid).net_connections("tcp") if c.status == "LISTEN"]
    urls = (descriptor["endpoint"], descriptor["handoff"])
    assert sorted((c.laddr.ip, c.laddr.port) for c in listening) == sorted(
        ("127.0.0.1", int(url.split(":")[2].split("/")[0])) for url in urls
    )
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert descriptor["token"] not in log_text()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_bad_frames_do_not_kill_it_and_current_still_works(
    spawn: Callable[[], Any], mode: Literal["legacy", "auto"]
) -> None:
    host: Host = await spawn()
    result = await host.hello()
    descriptor = await ready_descriptor(host)
    oversized = (64 << 20) + 1
    await host.send_raw(struct.pack("=I", oversized) + b"\x00" * oversized)  # declared and actually sent
    await host.send_raw(struct.pack("=I", 4) + b"\xff\xfe\xfd\xfc")  # invalid UTF-8
    await host.send_raw(struct.pack("=I", 9) + b"{not json")  # invalid JSON
    await host.send_raw(encode([1, 2, 3]))  # not an object
    await host.send({"id": "w-5"})  # no type
    await host.send({"type": "no.such.type", "id": "w-6"})  # unknown type
    await host.send({"type": "hello"})  # wrong shape
    await host.send({"type": "result", "id": "h-999", "result": 1})  # reply nobody waits for
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode) as client:
        answer = await client.call_tool("current", {})
    assert answer.is_error is False
    assert answer.structured_content == {"protocol": "0.2.0", "instance": result["instance"], "root": ROOT}
    assert host.current_requests == 1
    assert host.process.returncode is None
    log = log_text()
    for fault in (
        "over the 67108864-byte limit",
        "invalid UTF-8",
        "invalid JSON",
        "not an object",
        "no string `type`",
        "unknown type",
        "wrong shape",
        "no request is waiting",
    ):
        assert fault in log


async def test_an_error_from_the_extension_is_an_is_error_result(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    host.answer_current = False

    async def answer_with_error() -> None:
        request = await host.receive()
        assert request["type"] == "current"
        await host.send(
            {"type": "error", "id": request["id"], "error": {"code": "internal_error", "message": "x"}}
        )

    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, "auto") as client:
        answering = asyncio.create_task(answer_with_error())
        result = await client.call_tool("current", {})
        await answering
    assert result.is_error is True


async def test_a_second_hello_gets_the_same_instance(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    first = await host.hello()
    second = await host.hello(id="w-2")
    assert first["instance"] == second["instance"]
    await ready_descriptor(host)
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert log_text().count("MCP endpoint listening") == 1


async def test_current_answers_from_the_pushed_tree_and_a_new_hello_forgets_it(
    spawn: Callable[[], Any],
) -> None:
    host: Host = await spawn()
    result = await host.hello()
    descriptor = await ready_descriptor(host)
    pushed = {**ROOT, "title": "pushed"}
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, "auto") as client:
        await host.send({"type": "tree", "complete": True, "root": pushed, "windowFocused": True})
        await host.send({"type": "tree", "complete": True, "root": {"id": "bad id!"}})  # refused
        await wait_until(lambda: "dropped a tree frame of the wrong shape" in log_text(), what="the refusal")
        for _ in range(3):
            answer = await client.call_tool("current", {})
            expected = {"protocol": "0.2.0", "instance": result["instance"], "root": pushed}
            assert answer.structured_content == expected
        assert host.current_requests == 0
        await host.send({"type": "tree", "complete": False})  # a page must be asked: pull
        await host.send({"type": "tree", "complete": True, "root": {"id": "bad id!"}})  # a marker behind it
        await wait_until(lambda: log_text().count("dropped a tree frame") == 2, what="the frames read")
        answer = await client.call_tool("current", {})
        assert answer.structured_content is not None and answer.structured_content["root"] == ROOT
        assert host.current_requests == 1
        await host.send({"type": "tree", "complete": True, "root": pushed})
        await host.hello(id="w-2")  # the worker starts over: its old tree is forgotten
        answer = await client.call_tool("current", {})
        assert answer.structured_content is not None and answer.structured_content["root"] == ROOT
        assert host.current_requests == 2


async def test_switched_off_means_no_descriptor_and_no_port(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    result = await host.hello(settings={"enabled": False})
    assert result["listening"] is False
    connections = psutil.Process(host.process.pid).net_connections("tcp")
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert connections == []
    assert descriptors() == []
    assert "MCP endpoint listening" not in log_text()


@pytest.mark.parametrize("how", ["eof", "sigterm", "sigint"])
async def test_exit_removes_the_descriptor_quickly_even_with_a_client_connected(
    spawn: Callable[[], Any], how: str
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    connected = asyncio.Event()
    leave = asyncio.Event()

    async def legacy_client() -> None:  # holds its GET stream open
        with contextlib.suppress(Exception):
            async with mcp_client(descriptor, "legacy") as client:
                await client.call_tool("current", {})
                connected.set()
                await leave.wait()

    client_task = asyncio.create_task(legacy_client())
    try:
        async with asyncio.timeout(WAIT_S):
            await connected.wait()
        stopped_at = time.monotonic()
        if how == "eof":
            host.close_stdin()
        else:
            host.process.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        code = await host.wait_exit(2)
        exit_ms = (time.monotonic() - stopped_at) * 1e3
        print(f"{how} → exit {exit_ms:.0f} ms")
        assert code == 0
        assert exit_ms < 2000
        assert descriptors() == []
    finally:
        leave.set()
        client_task.cancel()
        await asyncio.gather(client_task, return_exceptions=True)
    log = log_text()
    assert log.index("descriptor removed") < log.index("MCP endpoint stopped")


async def test_stale_descriptors_are_cleaned_up_at_start(spawn: Callable[[], Any]) -> None:
    folder = providers_dir()
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o700)
    gone_pid = reaped_pid()
    stale = folder / "org.chromium.Chromium-1234.json"
    stale.write_text(
        json.dumps(
            {
                "protocol": "0.2.0",
                "bundleId": "org.chromium.Chromium",
                "name": "Chromium",
                "version": "1",
                "pid": 1234,
                "instance": "old",
                "endpoint": "http://127.0.0.1:1/mcp/x",
                "token": "t",
                "listenerPid": gone_pid,
            }
        )
    )
    foreign = folder / "com.example.App-99.json"
    foreign.write_text(json.dumps({"protocol": "0.2.0", "bundleId": "com.example.App", "pid": 99}))
    host: Host = await spawn()
    await wait_until(lambda: not stale.exists(), what="the stale descriptor to go")
    assert foreign.exists()
    host.close_stdin()
    assert await host.wait_exit(5) == 0


@pytest.mark.parametrize("unsafe", ["mode 0755", "symlink", "another user's"])
async def test_an_unsafe_providers_folder_is_refused_in_the_hello_reply_and_nothing_is_written(
    spawn: Callable[[], Any], tmp_path: Path, unsafe: str
) -> None:
    folder = providers_dir()
    if unsafe == "symlink":
        real = tmp_path / "elsewhere"
        real.mkdir(mode=0o700)
        folder.symlink_to(real, target_is_directory=True)
        looked_at = real
    else:
        folder.mkdir(mode=0o700)
        looked_at = folder
        if unsafe == "mode 0755":
            os.chmod(folder, 0o755)
        else:
            os.chown(folder, 65534, 65534)
    host: Host = await spawn()
    result = await host.hello()
    # It says why instead of listening, and stays connected (no exit, so no restart loop).
    assert result["listening"] is False
    assert "providers folder" in result["problem"] and "restart the browser" in result["problem"]
    assert psutil.Process(host.process.pid).net_connections("tcp") == []
    host.close_stdin()
    assert await host.wait_exit(5) == 0
    assert list(looked_at.iterdir()) == []


def test_claimed_stdout_carries_only_frames(tmp_path: Path) -> None:
    """A stray print, a C-level write to fd 1 and a child process all land on stderr."""
    script = (
        "import os, subprocess, sys\n"
        "from native_host.__main__ import claim_stdout\n"
        "out = claim_stdout()\n"
        "print('stray print')\n"
        "os.write(1, b'raw fd 1 write\\n')\n"
        "subprocess.run([sys.executable, '-c', 'print(\"child output\")'], check=True)\n"
        "out.write(b'\\x02\\x00\\x00\\x00{}'); out.flush()\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=30, cwd=tmp_path, check=True
    )
    assert completed.stdout == struct.pack("=I", 2) + b"{}"
    assert b"stray print" in completed.stderr
    assert b"raw fd 1 write" in completed.stderr
    assert b"child output" in completed.stderr


async def test_provider_ready_names_the_descriptor_s_port_and_never_the_token(
    spawn: Callable[[], Any],
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    await wait_until(lambda: bool(host.provider_ready), what="provider.ready")
    port = int(descriptor["endpoint"].split(":")[2].split("/")[0])
    assert host.provider_ready == [{"type": "provider.ready", "port": port}]
