"""framing.py: native-messaging frames both ways (design.md §4, docs/internals/protocol.md "Frames")."""

from __future__ import annotations

import asyncio
import io
import json
import struct
from typing import Any

import pytest

from native_host.errors import FrameError
from native_host.protocol.json_text import decode_frame, replace_lone_surrogates
from native_host.protocol.native import MAX_HOST_TO_BROWSER_BYTES
from native_host.provider.port.framing import FrameWriter, iter_frames, read_frame, split_into_chunks


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def obj_frame(value: Any) -> bytes:
    return frame(json.dumps(value).encode())


def reader_with(*chunks: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    if eof:
        reader.feed_eof()
    return reader


async def collect(reader: asyncio.StreamReader, **kwargs: Any) -> list[dict[str, Any]]:
    async with asyncio.timeout(5):
        return [item async for item in iter_frames(reader, **kwargs)]


def parse_frames(data: bytes) -> list[dict[str, Any]]:
    """Split a host → browser byte stream into frames; fails on anything that is not a frame."""
    frames = []
    offset = 0
    while offset < len(data):
        assert len(data) - offset >= 4, "a partial header"
        (length,) = struct.unpack_from("=I", data, offset)
        body = data[offset + 4 : offset + 4 + length]
        assert len(body) == length, "a partial frame"
        assert length <= MAX_HOST_TO_BROWSER_BYTES
        frames.append(json.loads(body.decode("utf-8")))
        offset += 4 + length
    return frames


async def test_good_frames_are_read_in_order() -> None:
    reader = reader_with(
        obj_frame({"type": "hello", "id": "w-1"}), obj_frame({"type": "result", "id": "h-1"})
    )
    assert await collect(reader) == [{"type": "hello", "id": "w-1"}, {"type": "result", "id": "h-1"}]


async def test_length_prefix_is_native_endian_and_split_reads_work() -> None:
    data = obj_frame({"type": "x", "text": "é" * 10})
    reader = reader_with(eof=False)

    async def feed() -> None:
        for byte in data:
            reader.feed_data(bytes([byte]))
            await asyncio.sleep(0)
        reader.feed_eof()

    feeder = asyncio.create_task(feed())
    assert await collect(reader) == [{"type": "x", "text": "é" * 10}]
    await feeder


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        (b"\xff\xfe{}", "invalid UTF-8"),
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "not an object"),
        (b'{"id": "w-1"}', "no string `type`"),
        (b'{"type": 7}', "no string `type`"),
        (b"", "invalid JSON"),
    ],
)
async def test_bad_frames_are_dropped_and_reading_continues(body: bytes, fault: str) -> None:
    reader = reader_with(frame(body), obj_frame({"type": "hello", "id": "w-2"}))
    with pytest.raises(FrameError, match=fault):
        await read_frame(reader)
    assert await collect(reader) == [{"type": "hello", "id": "w-2"}]


async def test_oversized_frame_is_skipped_without_losing_step() -> None:
    oversized = struct.pack("=I", 5000) + b"x" * 5000
    reader = reader_with(oversized, obj_frame({"type": "hello", "id": "w-3"}))
    assert await collect(reader, max_frame_bytes=1000) == [{"type": "hello", "id": "w-3"}]


async def test_oversized_frame_is_discarded_in_chunks_not_buffered(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    original = asyncio.StreamReader.readexactly

    async def spy(self: asyncio.StreamReader, n: int) -> bytes:
        reads.append(n)
        return await original(self, n)

    monkeypatch.setattr(asyncio.StreamReader, "readexactly", spy)
    monkeypatch.setattr("native_host.provider.port.framing.DISCARD_CHUNK_BYTES", 64)
    reader = reader_with(struct.pack("=I", 1000) + b"y" * 1000, obj_frame({"type": "ok"}))
    assert await collect(reader, max_frame_bytes=100) == [{"type": "ok"}]
    assert max(reads) == 64  # never the 1000-byte frame at once
    assert reads.count(64) == 1000 // 64


async def test_truncated_frame_at_eof_ends_reading(caplog: pytest.LogCaptureFixture) -> None:
    reader = reader_with(obj_frame({"type": "a"}), struct.pack("=I", 100) + b'{"type"')
    assert await collect(reader) == [{"type": "a"}]
    assert "mid-frame" in caplog.text


async def test_truncated_header_at_eof_ends_reading() -> None:
    reader = reader_with(obj_frame({"type": "a"}), b"\x05\x00")
    assert await collect(reader) == [{"type": "a"}]


async def test_clean_eof_returns_none() -> None:
    assert await read_frame(reader_with()) is None


def test_lone_surrogates_become_replacement_characters() -> None:
    body = b'{"type": "x", "t": "a\\ud800b", "list": ["\\udfff"], "\\ud801k": 1, "pair": "\\ud83d\\ude00"}'
    value = decode_frame(body)
    assert value == {"type": "x", "t": "a\ufffdb", "list": ["\ufffd"], "\ufffdk": 1, "pair": "😀"}
    assert replace_lone_surrogates({"a": ["\udc00", 1, None]}) == {"a": ["\ufffd", 1, None]}


def test_bad_frame_errors_never_contain_the_content() -> None:
    with pytest.raises(FrameError) as info:
        decode_frame(b'{"secret page text": ')
    assert "secret" not in str(info.value)


async def test_writer_writes_one_native_endian_frame_and_flushes() -> None:
    class Flushing(io.BytesIO):
        flushed = 0

        def flush(self) -> None:
            self.flushed += 1

    out = Flushing()
    await FrameWriter(out).send({"type": "current", "id": "h-1"})
    data = out.getvalue()
    assert data[:4] == struct.pack("=I", len(data) - 4)
    assert json.loads(data[4:]) == {"type": "current", "id": "h-1"}
    assert out.flushed == 1


async def test_writer_replaces_lone_surrogates() -> None:
    out = io.BytesIO()
    await FrameWriter(out).send({"type": "result", "id": "h-1", "result": "a\ud800"})
    assert parse_frames(out.getvalue()) == [{"type": "result", "id": "h-1", "result": "a\ufffd"}]


def reassemble(frames: list[dict[str, Any]]) -> Any:
    assert all(f["type"] == "chunk" for f in frames)
    groups = {f["of"] for f in frames}
    assert len(groups) == 1
    count = frames[0]["count"]
    assert [f["index"] for f in frames] == list(range(count))
    return json.loads("".join(f["data"] for f in frames))


@pytest.mark.parametrize(
    "filler",
    [
        "a",  # plain ASCII
        '"',  # grows to 2 bytes when escaped inside `data`
        "\\",  # likewise
        "\x01",  # grows to 6 bytes (\u0001)
        "é",  # 2 bytes of UTF-8
        "😀",  # 4 bytes of UTF-8, one code point
        'x"\\\n😀é\x7f',  # a mix
    ],
)
async def test_large_messages_are_split_into_chunks_of_at_most_1_mib(filler: str) -> None:
    message = {"type": "tools.call", "id": "h-9", "input": {"text": filler * (1_500_000 // len(filler))}}
    out = io.BytesIO()
    await FrameWriter(out).send(message)
    frames = parse_frames(out.getvalue())
    assert len(frames) >= 2
    assert reassemble(frames) == message


async def test_a_message_of_exactly_the_limit_is_one_frame() -> None:
    base = {"type": "result", "id": "h-1", "result": ""}
    overhead = len(json.dumps(base, separators=(",", ":")).encode())
    message = {**base, "result": "z" * (MAX_HOST_TO_BROWSER_BYTES - overhead)}
    out = io.BytesIO()
    await FrameWriter(out).send(message)
    assert parse_frames(out.getvalue()) == [message]
    out = io.BytesIO()
    await FrameWriter(out).send({**base, "result": "z" * (MAX_HOST_TO_BROWSER_BYTES - overhead + 1)})
    assert parse_frames(out.getvalue())[0]["type"] == "chunk"


def test_split_into_chunks_respects_a_small_budget() -> None:
    text = json.dumps({"type": "x", "data": '"\x02😀' * 500}, ensure_ascii=False)
    bodies = split_into_chunks(text, group="c-1", max_frame_bytes=600)
    assert all(len(body) <= 600 for body in bodies)
    assert "".join(json.loads(body)["data"] for body in bodies) == text


async def test_concurrent_sends_do_not_interleave_chunk_groups() -> None:
    out = io.BytesIO()
    writer = FrameWriter(out)
    big = {"type": "x", "id": "h-1", "data": "q" * 2_500_000}
    small = {"type": "current", "id": "h-2"}
    await asyncio.gather(writer.send(big), writer.send(small))
    frames = parse_frames(out.getvalue())
    chunk_frames = [f for f in frames if f["type"] == "chunk"]
    assert reassemble(chunk_frames) == big
    positions = [i for i, f in enumerate(frames) if f["type"] == "chunk"]
    assert positions == list(range(positions[0], positions[0] + len(positions)))
    assert small in frames


def test_a_frame_nested_deeper_than_python_allows_is_dropped_not_fatal() -> None:
    """Regression (fresh-user report B1): 1000 nested arrays raised RecursionError and killed the host."""
    body = b'{"type":"result","id":"h-1","result":' + b"[" * 5000 + b"]" * 5000 + b"}"
    with pytest.raises(FrameError, match="invalid JSON"):
        decode_frame(body)
