"""Native-messaging frames: a 4-byte native-endian length, then that many bytes of UTF-8 JSON (design.md §4).

```
read side  (browser → host)   StreamReader ──► read_frame() ──► iter_frames() ──► dict objects
                                               bad frame: consumed, FrameError   logged, dropped
write side (host → browser)   FrameWriter.send(message) ──► one frame, or `chunk` frames if > 1 MiB
```

Both sides take stream objects (an `asyncio.StreamReader`, a binary file with `write`/`flush`), so
unit tests push bytes through an in-memory pipe. The rules are pinned in docs/internals/protocol.md "Frames";
the text rule (UTF-8, lone surrogates → U+FFFD) is protocol/json_text.py's, shared with early_hello.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import struct
from collections.abc import AsyncIterator
from typing import Any, BinaryIO, Final

from native_host.errors import FrameError
from native_host.protocol.json_text import decode_frame, encode_json
from native_host.protocol.native import MAX_BROWSER_TO_HOST_BYTES, MAX_HOST_TO_BROWSER_BYTES, ChunkFrame

log = logging.getLogger(__name__)

HEADER: Final = struct.Struct("=I")
"""The length prefix: 4 bytes, native byte order, unsigned (Chromium's native-messaging format)."""

DISCARD_CHUNK_BYTES: Final = 1 << 20
"""Read size while skipping an oversized frame, in bytes: the frame is never buffered whole."""

CHUNK_ENVELOPE_BYTES: Final = 256
"""Room kept in every `chunk` frame for everything but the escaped `data` text, in bytes (the real
envelope `{"type":"chunk","of":"c-…","index":…,"count":…,"data":""}` is under 100)."""

async def read_frame(
    reader: asyncio.StreamReader, *, max_frame_bytes: int = MAX_BROWSER_TO_HOST_BYTES
) -> dict[str, Any] | None:
    """Read one frame from `reader` and return its object, or None at a clean EOF.

    Raises FrameError after consuming a bad frame whole, so the stream stays in step: a declared
    length above `max_frame_bytes` (default 64 MiB) is skipped in 1 MiB reads without buffering;
    see `decode_frame` for the rest. Raises EOFError for a frame cut short by EOF (header or body).
    """
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise EOFError(f"EOF inside a frame header ({len(exc.partial)} of 4 bytes).") from None
    (length,) = HEADER.unpack(header)
    if length > max_frame_bytes:
        remaining = length
        while remaining:
            try:
                skipped = await reader.readexactly(min(remaining, DISCARD_CHUNK_BYTES))
            except asyncio.IncompleteReadError as exc:
                got = length - remaining + len(exc.partial)
                raise EOFError(f"EOF inside an oversized frame ({got} of {length} bytes).") from None
            remaining -= len(skipped)
        raise FrameError(f"Dropped a frame of {length} bytes: over the {max_frame_bytes}-byte limit.")
    try:
        payload = await reader.readexactly(length)
    except asyncio.IncompleteReadError as exc:
        raise EOFError(f"EOF inside a frame ({len(exc.partial)} of {length} bytes).") from None
    return decode_frame(payload)


async def iter_frames(
    reader: asyncio.StreamReader, *, max_frame_bytes: int = MAX_BROWSER_TO_HOST_BYTES
) -> AsyncIterator[dict[str, Any]]:
    """Yield every good frame's object until EOF. Bad frames are logged (size and fault, never the
    content) and dropped; a frame truncated by EOF is logged and ends the iteration (design.md §4)."""
    while True:
        try:
            frame = await read_frame(reader, max_frame_bytes=max_frame_bytes)
        except FrameError as exc:
            log.warning("%s", exc)
            continue
        except EOFError as exc:
            log.warning("Native port closed mid-frame: %s", exc)
            return
        if frame is None:
            return
        yield frame


def _escaped_size(text: str) -> int:
    """Bytes that `text` takes as a compact JSON string body (quotes excluded), in UTF-8."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8")) - 2


def split_into_chunks(
    text: str, *, group: str, max_frame_bytes: int = MAX_HOST_TO_BROWSER_BYTES
) -> list[bytes]:
    """Split the JSON `text` of one message into encoded `chunk` frame bodies, each at most
    `max_frame_bytes` (default 1 MiB) including the envelope, cut on code-point boundaries.

    Escaping inside `data` can grow a slice (a `"` becomes `\\"`, a control character `\\u00XX`),
    so every slice is measured after escaping and shrunk until it fits.
    """
    budget = max_frame_bytes - CHUNK_ENVELOPE_BYTES
    slices: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + budget)  # a code point is ≥ 1 byte, so never more than `budget`
        while True:
            size = _escaped_size(text[start:end])
            if size <= budget:
                break
            # shrink in proportion to the overshoot, at least by one code point
            end = start + max(1, min(end - start - 1, (end - start) * budget // size))
        slices.append(text[start:end])
        start = end
    count = len(slices)
    bodies = [
        encode_json(ChunkFrame(of=group, index=index, count=count, data=data).to_wire())
        for index, data in enumerate(slices)
    ]
    assert all(len(body) <= max_frame_bytes for body in bodies)
    return bodies


class FrameWriter:
    """Writes messages to the browser as frames on a binary stream (the host's real stdout).

    One asyncio.Lock orders the writers, so a message's chunk frames are never interleaved with
    another message. The stream is written and flushed synchronously: frames are small and the
    browser reads its pipe at once. Raises OSError (e.g. BrokenPipeError) when the port is gone.
    """

    def __init__(self, stream: BinaryIO, *, max_frame_bytes: int = MAX_HOST_TO_BROWSER_BYTES) -> None:
        self._stream = stream
        self._max_frame_bytes = max_frame_bytes
        self._lock = asyncio.Lock()
        self._groups = itertools.count(1)

    async def send(self, message: dict[str, Any]) -> None:
        """Write `message` as one frame, or as `chunk` frames when its UTF-8 JSON exceeds
        `max_frame_bytes` (default 1 MiB; docs/internals/protocol.md "chunk")."""
        body = encode_json(message)
        async with self._lock:
            if len(body) <= self._max_frame_bytes:
                self._write(body)  # not logged: bridge.py logs one line per request (hot path)
                return
            group = f"c-{next(self._groups)}"
            text = body.decode("utf-8")
            chunks = split_into_chunks(text, group=group, max_frame_bytes=self._max_frame_bytes)
            for chunk in chunks:
                self._write(chunk)
                await asyncio.sleep(0)  # let the loop breathe between 1 MiB writes
            log.debug(
                "sent %s message id=%s (%d bytes) as %d chunk frames (%s)",
                message.get("type"),
                message.get("id"),
                len(body),
                len(chunks),
                group,
            )

    def _write(self, body: bytes) -> None:
        self._stream.write(HEADER.pack(len(body)) + body)
        self._stream.flush()
