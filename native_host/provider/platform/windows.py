"""Windows HWND (design.md §1.2 `window`). UNTESTED: webctx's tests run on Linux only.

Uses ctypes only: `EnumWindows` over visible top-level windows, `GetWindowThreadProcessId` for
the owner pid, `GetWindowRect` for the bounds (physical pixels on a DPI-aware process; the match
tolerates the scale by comparing with `GetDpiForWindow`/96). The closest match wins.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from native_host.protocol.answers import WindowBounds

MAX_MISMATCH_PX = 64.0
"""Sum of the four differences (pixels) above which a window does not match `bounds`."""


def window_number(bounds: WindowBounds, browser_pid: int) -> int | None:
    """The HWND (as an integer) of `browser_pid`'s top-level window at `bounds`, or None."""
    if sys.platform != "win32":
        return None
    from ctypes import wintypes

    user32: Any = ctypes.windll.user32  # type: ignore[attr-defined,unused-ignore]
    found: list[tuple[float, int]] = []

    def visit(hwnd: int, _lparam: int) -> bool:
        if not user32.IsWindowVisible(hwnd):
            return True
        pid = wintypes.DWORD()
        user32.GetWindowThreadProcessId(hwnd, ctypes.byref(pid))
        if pid.value != browser_pid:
            return True
        rect = wintypes.RECT()
        user32.GetWindowRect(hwnd, ctypes.byref(rect))
        scale = user32.GetDpiForWindow(hwnd) / 96 if hasattr(user32, "GetDpiForWindow") else 1.0
        mismatch = (
            abs(bounds.left * scale - rect.left)
            + abs(bounds.top * scale - rect.top)
            + abs(bounds.width * scale - (rect.right - rect.left))
            + abs(bounds.height * scale - (rect.bottom - rect.top))
        )
        if mismatch <= MAX_MISMATCH_PX:
            found.append((mismatch, int(hwnd)))
        return True

    callback = ctypes.WINFUNCTYPE(ctypes.c_bool, wintypes.HWND, wintypes.LPARAM)(visit)  # type: ignore[attr-defined,unused-ignore]
    user32.EnumWindows(callback, 0)
    return min(found)[1] if found else None
