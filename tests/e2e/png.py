"""A minimal PNG reader for checking screenshots (8-bit RGB/RGBA, not interlaced: what Chromium's
screenshots are), so the tests need no imaging library. PNG spec §9 (filters) and §11 (chunks)."""

from __future__ import annotations

import struct
import zlib
from collections import Counter

Pixel = tuple[int, int, int]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(data: bytes) -> tuple[int, int, list[Pixel]]:
    """Decode `data`; return (width, height, RGB pixels row by row). Raises ValueError otherwise."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, colour {color}, interlace {interlace}")
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    pixels: list[Pixel] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                line[i] = (line[i] + _paeth(a, b, c)) & 0xFF
        pixels += [(line[i], line[i + 1], line[i + 2]) for i in range(0, stride, channels)]
        previous = line
    return width, height, pixels


def background_share(pixels: list[Pixel]) -> float:
    """The share of pixels that have the most common colour (1.0: a blank image)."""
    return Counter(pixels).most_common(1)[0][1] / len(pixels)


def has_colour_near(pixels: list[Pixel], colour: Pixel, *, tolerance: int = 40, at_least: int = 10) -> bool:
    """True when at least `at_least` pixels are within `tolerance` (per channel) of `colour`
    (anti-aliased text has few pixels of its exact colour)."""
    close = sum(1 for p in pixels if all(abs(p[i] - colour[i]) <= tolerance for i in range(3)))
    return close >= at_least
