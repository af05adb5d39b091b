"""`location` on a real X11 screen: a headed Chromium under Xvfb (the test starts Xvfb itself).

The reported rects must cover the selection highlight's pixels on the captured screen, and
`window` must be the X11 id of the top-level window that shows the page there (design.md §1.2). Xvfb
runs at device scale factor 1, so a point is a pixel. Skipped without Xvfb or python-xlib
(`scripts/setup.sh --with-tests` installs both).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from native_host.host import HostClient
from tests.e2e.conftest import launched_browser
from tests.e2e.gestures import element_js, select_between
from tests.e2e.tree import selected_texts

Xlib = pytest.importorskip("Xlib")
from Xlib import X, display  # noqa: E402

SCREEN = (1280, 900)
SCREEN_SPEC = f"{SCREEN[0]}x{SCREEN[1]}x24"
MAGENTA = (255, 0, 255)
HIGHLIGHT_CSS = "::selection { background: rgb(255, 0, 255); color: rgb(255, 0, 255); }"
"""Paints the selection (text included) in one colour that nothing else on screen has."""
EDGE_PX = 2
"""A highlight pixel may lie this far above or below a reported rect (the highlight fills the line
box, the rect is the text's box; both are rounded to device pixels)."""
NEWLINE_PX = 10
"""…and this far right of it: Chromium paints a space-wide newline marker after a line whose
selection goes on into the next block (one space of 16 px monospace is 9.6 px)."""
MIN_COVERAGE = 0.8
"""At least this share of each reported rect must be highlight pixels."""


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A fresh Xvfb on a free display number (`-displayfd`); yields the DISPLAY value."""
    binary = shutil.which("Xvfb")
    if binary is None:
        pytest.skip("Xvfb is not installed; run scripts/setup.sh --with-tests")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [binary, "-displayfd", str(write_fd), "-screen", "0", SCREEN_SPEC, "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()  # Xvfb writes it once it accepts connections
        assert number.isdigit(), "Xvfb did not start"
        yield f":{number}"
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)


def highlight_pixels(name: str) -> set[tuple[int, int]]:
    """Every screen pixel painted MAGENTA, as (x, y)."""
    dpy = display.Display(name)
    try:
        root = dpy.screen().root
        image = root.get_image(0, 0, SCREEN[0], SCREEN[1], X.ZPixmap, 0xFFFFFFFF)
        data: bytes = image.data
    finally:
        dpy.close()
    found: set[tuple[int, int]] = set()
    b, g, r = MAGENTA[2], MAGENTA[1], MAGENTA[0]
    start = 0
    needle = bytes((b, g, r))
    while (index := data.find(needle, start)) != -1:  # 32 bits per pixel: B, G, R, pad
        start = index + 1
        if index % 4 == 0:
            pixel = index // 4
            found.add((pixel % SCREEN[0], pixel // SCREEN[0]))
    return found


async def settled_highlight(name: str, timeout_s: float = 10.0) -> set[tuple[int, int]]:
    """The highlight pixels once two captures in a row agree (the compositor has drawn the frame)."""
    previous: set[tuple[int, int]] = set()
    async with asyncio.timeout(timeout_s):
        while True:
            pixels = await asyncio.to_thread(highlight_pixels, name)
            if pixels and pixels == previous:
                return pixels
            previous = pixels
            await asyncio.sleep(0.05)


def window_at(name: str, x: int, y: int) -> int:
    """The id of the top-level X11 window that shows the screen point (x, y)."""
    dpy = display.Display(name)
    try:
        root = dpy.screen().root
        return int(root.translate_coords(root, x, y).child.id)
    finally:
        dpy.close()


async def test_rects_cover_the_highlight_pixels_and_window_is_the_x11_window(
    tmp_path: Path, page_server: str, xvfb: str
) -> None:
    env = {**os.environ, "DISPLAY": xvfb}
    args = ("--window-position=60,40", "--window-size=900,700")
    os.environ["DISPLAY"] = xvfb  # the native host inherits the browser's env; host_client reads ours
    try:
        async with launched_browser(
            tmp_path / "udd", extra_args=args, real_window=True, headless=False, env=env
        ) as browser:
            descriptor = await browser.descriptor()
            page = browser.context.pages[0] if browser.context.pages else await browser.context.new_page()
            await page.goto(f"{page_server}/pointing.html")
            await page.add_style_tag(content=HIGHLIGHT_CSS)
            # The user selects from line 1's fifth character to line 2's eleventh: click, Shift+click.
            await select_between(page, (element_js("line1"), 4), (element_js("line2"), 11))
            host = HostClient(folder=browser.providers, timeout_s=10.0)
            [text] = selected_texts((await host.current(descriptor.pid)).raw)
            where = (await host.location(text["id"])).to_wire()
            pixels = await settled_highlight(xvfb)

            assert where["state"] == "visible"
            rects = where["rects"]
            assert len(rects) == 2
            assert pixels, "no highlight on screen"

            def inside(p: tuple[int, int], r: dict[str, float], edge: float, right: float) -> bool:
                x, y = p
                across = r["x"] - edge <= x < r["x"] + r["w"] + right
                return across and r["y"] - edge <= y < r["y"] + r["h"] + edge

            stray = [p for p in pixels if not any(inside(p, r, EDGE_PX, NEWLINE_PX) for r in rects)]
            assert stray == [], f"{len(stray)} highlight pixels outside the rects, e.g. {stray[:5]}"
            for r in rects:
                area = int(r["w"]) * int(r["h"])
                covered = sum(1 for p in pixels if inside(p, r, 0, 0))
                assert covered >= MIN_COVERAGE * area, (r, covered, area)

            first = rects[0]
            shown_by = window_at(xvfb, int(first["x"] + first["w"] / 2), int(first["y"] + first["h"] / 2))
            assert where["window"] == shown_by
    finally:
        os.environ.pop("DISPLAY", None)
