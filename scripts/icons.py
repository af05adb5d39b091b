#!/usr/bin/env python3
"""Rasterize the extension's toolbar icons: extension/popup/icons/*.svg → PNGs.

    python3 scripts/icons.py           write icon{,-off,-broken}-{16,32,48,128}.png next to the SVGs
    python3 scripts/icons.py --check   exit 1 when a checked-in PNG differs from what this makes

The SVGs are the source; the PNGs are checked in with this script (the manifest and
`chrome.action.setIcon` name them, and the browser cannot rasterize an SVG for the toolbar). The
SVGs use a small subset on purpose, so no imaging library or browser is needed: `<rect>` (x, y,
width, height, rx, fill) and `<line>` (x1, y1, x2, y2, stroke, stroke-width; round caps), painted
in document order over a transparent canvas, each pixel sampled SUPERSAMPLE² times for smooth
edges. Anything else in the SVG is an error naming it, so the source and the PNGs cannot drift.
Standard library only; the output is deterministic (tests/unit/test_icons.py runs --check).
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ICON_DIR: Final = Path(__file__).resolve().parent.parent / "extension" / "popup" / "icons"
SIZES: Final = (16, 32, 48, 128)
"""The sizes Chromium asks for: toolbar 16/32 (1x/2x), chrome://extensions 48, the store 128."""
VARIANTS: Final = ("icon", "icon-off", "icon-broken")
"""One SVG each: provider on, provider off, provider broken (service_worker/action_icon.js)."""
SUPERSAMPLE: Final = 4
SVG_NS: Final = "{http://www.w3.org/2000/svg}"

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Shape:
    """A filled rounded rectangle (kind "rect") or a round-capped segment (kind "line"), in the
    SVG's viewBox units; `a`..`d` are x, y, width, height for a rect and x1, y1, x2, y2 for a line;
    `r` is the corner radius or half the stroke width."""

    kind: str
    a: float
    b: float
    c: float
    d: float
    r: float
    colour: RGB

    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of the area the shape can cover."""
        if self.kind == "rect":
            return self.a, self.b, self.a + self.c, self.b + self.d
        return (min(self.a, self.c) - self.r, min(self.b, self.d) - self.r,
                max(self.a, self.c) + self.r, max(self.b, self.d) + self.r)

    def covers(self, x: float, y: float) -> bool:
        """Whether the point (x, y) is inside the shape."""
        if self.kind == "rect":
            x0, y0, x1, y1 = self.bounds()
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                return False
            r = min(self.r, self.c / 2, self.d / 2)
            cx = min(max(x, x0 + r), x1 - r)  # the nearest point of the inner rectangle
            cy = min(max(y, y0 + r), y1 - r)
            return (x - cx) ** 2 + (y - cy) ** 2 <= r * r
        dx, dy = self.c - self.a, self.d - self.b
        t = max(0.0, min(1.0, ((x - self.a) * dx + (y - self.b) * dy) / (dx * dx + dy * dy or 1.0)))
        return (x - self.a - t * dx) ** 2 + (y - self.b - t * dy) ** 2 <= self.r * self.r


def _colour(text: str | None, where: str) -> RGB:
    if text is None or len(text) != 7 or not text.startswith("#"):
        raise ValueError(f"{where}: colours are #rrggbb, got {text!r}")
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def _numbers(element: ET.Element) -> Callable[..., float]:
    """A reader of `element`'s numeric attributes: num(name) or num(name, default); KeyError when missing."""
    def num(name: str, default: float | None = None) -> float:
        value = element.attrib.get(name)
        if value is None:
            if default is None:
                raise KeyError(f"<{element.tag}> has no {name}")
            return default
        return float(value)
    return num


def parse_svg(text: str, where: str = "svg") -> tuple[float, list[Shape]]:
    """(the viewBox's width, the shapes in paint order) of an icon SVG. Raises ValueError for a
    non-square viewBox or an element or attribute outside the subset in the module docstring."""
    root = ET.fromstring(text)
    box = [float(v) for v in root.attrib["viewBox"].split()]
    if box[:2] != [0.0, 0.0] or box[2] != box[3]:
        raise ValueError(f"{where}: the viewBox must be square from 0 0, got {box}")
    shapes: list[Shape] = []
    for element in root:
        tag = element.tag.removeprefix(SVG_NS)
        num = _numbers(element)
        if tag == "rect":
            shapes.append(Shape("rect", num("x"), num("y"), num("width"), num("height"),
                                num("rx", 0), _colour(element.get("fill"), where)))
        elif tag == "line":
            shapes.append(Shape("line", num("x1"), num("y1"), num("x2"), num("y2"),
                                num("stroke-width") / 2, _colour(element.get("stroke"), where)))
        elif not isinstance(element.tag, str) or tag == "desc":
            continue  # comments and descriptions draw nothing
        else:
            raise ValueError(f"{where}: <{tag}> is outside the subset scripts/icons.py draws")
    return box[2], shapes


def rasterize(view: float, shapes: list[Shape], size: int) -> bytes:
    """RGBA rows (non-premultiplied, 8 bits a channel) of the shapes scaled to `size` by `size` px."""
    n = SUPERSAMPLE
    scale = view / size
    # Premultiplied float accumulators, composited with "source over" per sub-sample.
    pixels = [[0.0, 0.0, 0.0, 0.0] for _ in range(size * size)]
    for shape in shapes:
        x0, y0, x1, y1 = shape.bounds()
        px0, py0 = max(0, math.floor(x0 / scale)), max(0, math.floor(y0 / scale))
        px1, py1 = min(size, math.ceil(x1 / scale)), min(size, math.ceil(y1 / scale))
        red, green, blue = (c / 255 for c in shape.colour)
        for py in range(py0, py1):
            for px in range(px0, px1):
                # Both shapes are convex: a pixel whose four corners are inside is covered whole.
                corners = all(shape.covers((px + i) * scale, (py + j) * scale)
                              for i in (0, 1) for j in (0, 1))
                hits = n * n if corners else sum(
                    shape.covers((px + (i + 0.5) / n) * scale, (py + (j + 0.5) / n) * scale)
                    for i in range(n) for j in range(n)
                )
                if hits == 0:
                    continue
                alpha = hits / (n * n)
                p = pixels[py * size + px]
                keep = 1 - alpha
                p[0] = red * alpha + p[0] * keep
                p[1] = green * alpha + p[1] * keep
                p[2] = blue * alpha + p[2] * keep
                p[3] = alpha + p[3] * keep
    out = bytearray()
    for r, g, b, a in pixels:
        if a == 0:
            out += b"\0\0\0\0"
        else:
            out += bytes(round(min(1.0, v / a) * 255) for v in (r, g, b)) + bytes([round(a * 255)])
    return bytes(out)


def encode_png(size: int, rgba: bytes) -> bytes:
    """A PNG (8-bit RGBA, filter 0 on every row, zlib level 9) of `size` by `size` RGBA rows."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    stride = size * 4
    raw = b"".join(b"\0" + rgba[y * stride:(y + 1) * stride] for y in range(size))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def render_all(icon_dir: Path = ICON_DIR) -> dict[Path, bytes]:
    """Every PNG this script makes: path → bytes (`<variant>-<size>.png` beside `<variant>.svg`)."""
    out: dict[Path, bytes] = {}
    for variant in VARIANTS:
        source = icon_dir / f"{variant}.svg"
        view, shapes = parse_svg(source.read_text(encoding="utf-8"), source.name)
        for size in SIZES:
            out[icon_dir / f"{variant}-{size}.png"] = encode_png(size, rasterize(view, shapes, size))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the PNGs, or with --check compare them; 0 when written or equal, 1 when stale."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    stale = []
    for path, data in render_all().items():
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(path.name)
        else:
            path.write_bytes(data)
    if stale:
        print(f"stale icons (run python3 scripts/icons.py): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
