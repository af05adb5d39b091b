"""early_hello.py: the worker's hello is answered before the slow imports (design.md §4): on a pipe, and
in the real `python -m native_host` (tests/support/host_process.py) before `mcp` is imported."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import struct
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from native_host import __version__
from native_host.provider.port.early_hello import EARLY_MAX_BYTES, answer_first_hello
from tests.support.host_process import Host, log_text, ready_descriptor

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the early path needs select() on a pipe")

HELLO = {"type": "hello", "id": "w-1", "protocol": "0.2.0", "settings": {"enabled": True}}


def frame(value: Any) -> bytes:
    data = json.dumps(value).encode()
    return struct.pack("=I", len(data)) + data


def replies(out: io.BytesIO) -> list[dict[str, Any]]:
    data, found = out.getvalue(), []
    while data:
        (length,) = struct.unpack("=I", data[:4])
        found.append(json.loads(data[4 : 4 + length]))
        data = data[4 + length :]
    return found


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        with contextlib.suppress(OSError):
            os.close(fd)


def test_a_hello_is_answered_with_the_instance_and_listening(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, frame(HELLO) + frame({"type": "result", "id": "h-9", "result": 1}))
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    [reply] = replies(out)
    assert reply == {
        "type": "result", "id": "w-1",
        "result": {
            "instance": early.instance, "protocol": "0.2.0", "version": __version__, "listening": True
        },
    }
    assert early.hello == HELLO and early.listening and early.unread == b""
    # the next frame is still in the pipe, for app.py
    assert os.read(read_fd, 4) == frame({"type": "result", "id": "h-9", "result": 1})[:4]


def test_switched_off_says_not_listening(pipe: tuple[int, int]) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, frame({**HELLO, "settings": {"enabled": False}}))
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    assert replies(out)[0]["result"]["listening"] is False and not early.listening


def test_an_unsafe_providers_folder_is_refused_in_the_reply(pipe: tuple[int, int], tmp_path: Path) -> None:
    folder = Path(os.environ["CONTEXT_PROVIDERS_DIR"])
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    read_fd, write_fd = pipe
    os.write(write_fd, frame(HELLO))
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    result = replies(out)[0]["result"]
    assert result["listening"] is False and "chmod 700" in result["problem"]
    assert early.problem == result["problem"]


@pytest.mark.parametrize(
    "first",
    [
        frame({"type": "result", "id": "x", "result": 1}),
        struct.pack("=I", 5) + b"nope!",
        struct.pack("=I", EARLY_MAX_BYTES + 1),
        b"\x01\x00",
    ],
    ids=["not a hello", "not JSON", "too large", "cut short"],
)
def test_anything_else_is_left_unread_for_app_py(pipe: tuple[int, int], first: bytes) -> None:
    read_fd, write_fd = pipe
    os.write(write_fd, first)
    os.close(write_fd)
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    assert out.getvalue() == b"" and early.hello is None
    assert early.unread == first[: len(early.unread)] and early.unread


def test_nothing_arriving_leaves_everything_to_app_py(pipe: tuple[int, int]) -> None:
    read_fd, _ = pipe
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    assert out.getvalue() == b"" and early.hello is None and early.unread == b""


async def test_hello_is_answered_before_mcp_is_imported(spawn: Callable[[], Any]) -> None:
    host: Host = await spawn()
    result = await host.hello()
    hello_ms = (time.monotonic() - host.spawned_at) * 1e3
    assert set(result) == {"instance", "protocol", "version", "listening"}
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


def test_a_lone_surrogate_in_the_id_comes_back_as_u_fffd_on_a_pipe(pipe: tuple[int, int]) -> None:
    """One text rule for both paths (protocol/json_text.py): the early reply is
    valid UTF-8 with U+FFFD, never a `\\ud800` escape the worker would turn back into a lone
    surrogate."""
    read_fd, write_fd = pipe
    os.write(write_fd, frame({**HELLO, "id": "w-\ud800"}))  # json.dumps writes the `\ud800` escape
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    body = out.getvalue()[4:]
    assert b"\\ud800" not in body.lower()
    assert json.loads(body.decode("utf-8", errors="strict"))["id"] == "w-\ufffd"
    assert early.hello is not None and early.hello["id"] == "w-\ufffd"


async def test_the_early_and_a_later_hello_answer_a_lone_surrogate_alike(spawn: Callable[[], Any]) -> None:
    """The real host: the first hello (answered by early_hello.py, before the
    slow imports) and a later one (app.py, framing.py) with the id "w-\\ud800", sent as a JSON
    escape, are both answered with "w-\\ufffd" in valid UTF-8."""
    host: Host = await spawn()
    await host.send({**HELLO, "id": "w-\ud800"})
    first = await host.receive()  # host_process decodes every frame as strict UTF-8
    await ready_descriptor(host)  # the slow imports are done: the next hello is app.py's
    await host.send({**HELLO, "id": "w-\ud800"})
    later = await host.receive()
    assert first["type"] == later["type"] == "result"
    assert first["id"] == later["id"] == "w-\ufffd"
    assert re.search(r"hello w-\ufffd .* answered \d+ ms after start \(early\)", log_text()), log_text()


def test_a_first_frame_too_deep_for_json_loads_is_left_to_app_py(pipe: tuple[int, int]) -> None:
    """The early path parses by the same rule as framing.py (protocol/json_text.py), which turns
    Python's RecursionError into a dropped frame: it used to escape answer_first_hello and end
    the host at start."""
    read_fd, write_fd = pipe
    body = b'{"type": "hello", "id": "w-1", "protocol": "0.2.0", "x": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
    data = struct.pack("=I", len(body)) + body
    os.write(write_fd, data)
    out = io.BytesIO()
    early = answer_first_hello(read_fd, out)
    assert out.getvalue() == b"" and early.hello is None and early.unread == data
