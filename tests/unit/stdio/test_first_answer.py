"""first_answer.py and handover.py: `initialize` is answered at once, before the SDK is loaded and
before the provider is reached, with `instructions` that are the same at every browser start."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types.version
import pytest

from native_host import __version__, paths
from native_host.provider.descriptor_files import remove_descriptor, write_descriptor
from native_host.provider.http.endpoint import McpEndpoint
from native_host.stdio.first_answer import (
    CAPABILITIES,
    HANDSHAKE_VERSIONS,
    SERVER_INSTRUCTIONS,
    initialize_reply,
    serving,
)
from native_host.stdio.server import StdioBridge
from tests.support.descriptors import make_descriptor
from tests.unit.stdio.test_server import BUNDLE, FakeExtension, connect, fresh_bridge

WEBCTX = Path(sys.executable).with_name("webctx")


def _initialize(id_: Any, version: str = "2025-06-18") -> bytes:
    client = {"name": "probe", "version": "1"}
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    message = {"jsonrpc": "2.0", "id": id_, "method": "initialize", "params": params}
    return json.dumps(message).encode() + b"\n"


def test_the_early_answer_is_what_the_sdk_would_answer() -> None:
    """The hand-written reply names what the bridge's SDK server names, and negotiates the
    version by the SDK's list (the whole reply against the SDK's: the garbage-first test below)."""
    options = StdioBridge().server.create_initialization_options()
    assert (options.server_name, options.server_version, options.instructions) == (
        "webctx", __version__, SERVER_INSTRUCTIONS
    )
    assert HANDSHAKE_VERSIONS == mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS
    newest = HANDSHAKE_VERSIONS[-1]
    for asked, answered in [*((v, v) for v in HANDSHAKE_VERSIONS), ("2026-07-28", newest), ("x", newest)]:
        early = initialize_reply(_initialize(5, asked))
        assert early is not None and early[0] == 5
        assert json.loads(early[1])["result"]["protocolVersion"] == answered


@pytest.mark.parametrize(
    "line",
    [b"{}\n", b"not json\n", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
     b'{"jsonrpc":"2.0","id":true,"method":"initialize","params":{}}\n',
     b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}\n'],
)
def test_anything_but_a_well_formed_initialize_is_left_to_the_sdk(line: bytes) -> None:
    assert initialize_reply(line) is None


def test_only_serving_starts_the_front() -> None:
    assert serving(["mcp"]) and serving(["-v", "mcp", "--pid", "3"])
    assert not serving(["mcp", "--check"]) and not serving(["mcp", "--print-config", "codex"])
    assert not serving(["mcp", "--help"]) and not serving(["context"]) and not serving([])


def _spawn() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(WEBCTX), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=dict(os.environ),
    )


def _exchange(lines: list[bytes], answers: int) -> list[dict[str, Any]]:
    """Send `lines` to a fresh `webctx mcp`, read `answers` lines, close stdin; every message read."""
    with _spawn() as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(b"".join(lines))
            process.stdin.flush()
            read = [process.stdout.readline() for _ in range(answers)]  # a hang: pytest-timeout
            process.stdin.close()
            process.wait(timeout=30)
            read += process.stdout.read().splitlines()
        finally:
            if process.poll() is None:
                process.kill()
    return [json.loads(line) for line in read if line.strip()]


def test_a_fresh_bridge_answers_initialize_early_and_exactly_once() -> None:
    """The real process: the first initialize is answered by hand (the fixed instructions), the
    SDK's own answer to it is dropped, and the session goes on (tools/list answered)."""
    frames = [_initialize(1), b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
              b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n']
    messages = _exchange(frames, 2)
    assert [m.get("id") for m in messages] == [1, 2]
    first = messages[0]["result"]
    assert first == {
        "capabilities": CAPABILITIES, "instructions": SERVER_INSTRUCTIONS, "protocolVersion": "2025-06-18",
        "serverInfo": {"name": "webctx", "version": __version__},
    }
    assert [t["name"] for t in messages[1]["result"]["tools"]] == ["current"]


def test_after_a_garbage_first_line_the_sdk_answers_initialize_as_the_front_would() -> None:
    """The SDK answers an initialize that is not the first line: its answer is the Front's."""
    messages = _exchange([b"garbage\n", _initialize("a")], 2)
    assert messages[0]["error"]["code"] == -32700 and messages[0]["id"] is None
    early = initialize_reply(_initialize("a"))
    assert early is not None
    assert messages[1] == json.loads(early[1])
    assert len(messages) == 2


@asynccontextmanager
async def slow_provider(delay_s: float, *, pid: int, version: str) -> AsyncIterator[McpEndpoint]:
    """A provider endpoint (fake extension) whose descriptor names a TCP relay that holds each new
    connection `delay_s` seconds before passing it on (with the Host header the endpoint checks):
    a provider slow to answer."""
    instance = secrets.token_urlsafe(16)
    endpoint = McpEndpoint(FakeExtension(instance), instance=instance)
    url = await endpoint.start()
    port = int(url.split(":")[2].split("/")[0])

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(delay_s)  # a slow path to the provider is the subject
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, host: bytes = b"") -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data.replace(host, f"127.0.0.1:{port}".encode()) if host else data)
                    await dst.drain()
            except OSError:
                pass
            finally:
                dst.close()

        host = f"127.0.0.1:{relay_port}".encode()
        await asyncio.gather(pipe(reader, up_writer, host), pipe(up_reader, writer))

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    relay_port = server.sockets[0].getsockname()[1]
    relayed = url.replace(f":{port}/", f":{relay_port}/")
    descriptor = make_descriptor(
        bundle_id=BUNDLE, pid=pid, version=version, instance=instance, endpoint=relayed, token=endpoint.token
    )
    path = write_descriptor(paths.providers_dir(), descriptor)
    try:
        yield endpoint
    finally:
        remove_descriptor(path)
        server.close()
        async with asyncio.timeout(10):
            await endpoint.stop()


async def test_initialize_is_answered_before_the_provider_connection_completes() -> None:
    """A provider that takes 2 s to answer: initialize returns at once, the first tools/list
    then waits for the link and returns every tool."""
    async with (
        asyncio.timeout(30),
        slow_provider(2.0, pid=os.getpid(), version="156.0.1.1"),
        fresh_bridge(grace_s=8.0) as bridge,
    ):
        started = time.monotonic()
        async with connect(bridge, "legacy") as (client, _):
            initialized = time.monotonic() - started
            tools = (await client.list_tools()).tools
            listed = time.monotonic() - started
    assert initialized < 1.0
    assert [tool.name for tool in tools] == ["current", "location", "read_page"]
    assert listed >= 2.0


async def test_the_instructions_are_byte_identical_across_two_browser_starts() -> None:
    """Two browsers one after the other (another pid, port, instance and version): a client
    sees the same `instructions` from each, and none of those values in them."""
    seen = []
    for pid, version in ((os.getpid(), "156.0.1.1"), (os.getppid(), "157.0.2.2")):
        async with (
            asyncio.timeout(30),
            slow_provider(0.0, pid=pid, version=version),
            fresh_bridge(grace_s=8.0) as bridge,
            connect(bridge, "legacy") as (client, _),
        ):
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert names == ["current", "location", "read_page"]
            assert bridge.upstream is not None
            seen.append((client.instructions, bridge.upstream.descriptor))
    (first, one), (second, other) = seen
    assert first == second == SERVER_INSTRUCTIONS
    assert one.instance != other.instance and one.pid != other.pid
    for value in (str(one.pid), one.version, one.instance, str(other.pid), other.version, other.instance):
        assert value not in SERVER_INSTRUCTIONS
