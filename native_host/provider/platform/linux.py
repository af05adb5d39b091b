"""X11 window ids (design.md §1.2 `window`) with python-xlib.

The browser's top-level windows carry `_NET_WM_PID` (Chromium sets it on every top-level X
window). Among the viewable ones owned by `browser_pid`, the one whose root-relative geometry is
closest to `bounds` wins. X11 coordinates are device pixels; points = pixels / device scale
factor, which Chromium takes from `--force-device-scale-factor` or the X resources, so the match
also tries the scale that makes the sizes agree. No DISPLAY, no python-xlib, no X server or no
such window → None (a headless browser has no window).
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Final

from native_host.protocol.answers import WindowBounds

log = logging.getLogger(__name__)

MAX_MISMATCH_PX = 64.0
"""A window whose position and size differ from `bounds` by more than this (sum of the four
differences, in device pixels) is not the browser window asked about."""


RETRY_AFTER_S: Final = 60.0
"""After the display failed to open, `window_number` answers None at once for this long: python-xlib
leaks a socket per failed connection attempt, and `location` may be asked many times a second."""

_failed_at: dict[str, float] = {}
"""DISPLAY value → when opening it last failed (time.monotonic seconds)."""


def window_number(bounds: WindowBounds, browser_pid: int) -> int | None:
    """The X11 window id of `browser_pid`'s top-level window at `bounds` (points), or None."""
    name = os.environ.get("DISPLAY")
    if not name:
        return None
    failed = _failed_at.get(name)
    if failed is not None and time.monotonic() - failed < RETRY_AFTER_S:
        return None
    try:
        from Xlib import X, display  # type: ignore[import-untyped]
        from Xlib.error import XError  # type: ignore[import-untyped]
    except ImportError:
        log.info("python-xlib is not installed; `window` is omitted")
        return None
    try:
        dpy = display.Display(name)
    except Exception:
        log.info("cannot open the X display; `window` is omitted for %g s", RETRY_AFTER_S)
        _failed_at[name] = time.monotonic()
        return None
    _failed_at.pop(name, None)
    try:
        root = dpy.screen().root
        pid_atom = dpy.intern_atom("_NET_WM_PID")
        best: tuple[float, int] | None = None
        for window in _top_levels(root):
            try:
                prop = window.get_full_property(pid_atom, X.AnyPropertyType)
                if prop is None or not prop.value or int(prop.value[0]) != browser_pid:
                    continue
                attrs = window.get_attributes()
                if attrs.map_state != X.IsViewable:
                    continue
                geometry = window.get_geometry()
                origin = window.translate_coords(root, 0, 0)
            except XError:
                continue
            x, y = -origin.x, -origin.y
            mismatch = _mismatch(bounds, x, y, geometry.width, geometry.height)
            if mismatch <= MAX_MISMATCH_PX and (best is None or mismatch < best[0]):
                best = (mismatch, int(window.id))
        return best[1] if best else None
    finally:
        dpy.close()


def _top_levels(root: Any) -> list[Any]:
    """The root's children and their children: under a reparenting window manager the client
    window sits one level below the frame."""
    found: list[Any] = []
    for child in root.query_tree().children:
        found.append(child)
        try:
            found.extend(child.query_tree().children)
        except Exception:
            continue
    return found


def _mismatch(bounds: WindowBounds, x: int, y: int, width: int, height: int) -> float:
    """Smallest sum of |differences| in device pixels over plausible scale factors (1, 1.25 … 3)."""
    scales = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
    return min(
        abs(bounds.left * s - x) + abs(bounds.top * s - y) + abs(bounds.width * s - width)
        + abs(bounds.height * s - height)
        for s in scales
    )
