"""app.py: the native host's lifecycle, in the real `python -m native_host` process driven over its
stdin/stdout (tests/support/host_process.py; `spawn` in conftest.py): bad frames survived, replies
routed, a second hello, the pushed tree, switched off, stop (the descriptor removed first), stale
descriptors cleaned up at start.

The test plays the extension: it writes frames to the host's stdin and answers the host's
`current` requests, and it plays a desktop host over MCP with the descriptor's endpoint and token.
HOME, XDG_* and CONTEXT_PROVIDERS_DIR point into tmp_path (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import struct
import time
from collections.abc import Callable
from typing import Any, Literal

import psutil
import pytest

from tests.support.host_process import (
    ROOT,
    WAIT_S,
    Host,
    descriptors,
    encode,
    log_text,
    mcp_client,
    providers_dir,
    ready_descriptor,
    wait_until,
)
from tests.support.processes import reaped_pid

pytestmark = pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes and signals")


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
