"""macOS CGWindowID (design.md §1.2 `window`). UNTESTED: webctx's tests run on Linux only.

Uses Quartz (`pyobjc-framework-Quartz`, not a webctx dependency) when it is importable:
`CGWindowListCopyWindowInfo` lists on-screen windows with their owner pid and bounds in points
(top-left origin, the same coordinates as `location`); the layer-0 window of `browser_pid` whose
bounds match wins. Without Quartz, None.
"""

from __future__ import annotations

from typing import Any

from native_host.protocol.answers import WindowBounds

MAX_MISMATCH_PT = 32.0
"""Sum of the four differences (points) above which a window does not match `bounds`."""


def window_number(bounds: WindowBounds, browser_pid: int) -> int | None:
    """The CGWindowID of `browser_pid`'s window at `bounds` (points), or None."""
    try:
        import Quartz  # lazily: macOS only (pyproject.toml: pyobjc-framework-Quartz on darwin)
    except ImportError:
        return None
    infos: Any = Quartz.CGWindowListCopyWindowInfo(
        Quartz.kCGWindowListOptionOnScreenOnly, Quartz.kCGNullWindowID
    )
    best: tuple[float, int] | None = None
    for info in infos or []:
        if info.get("kCGWindowOwnerPID") != browser_pid or info.get("kCGWindowLayer") != 0:
            continue
        b = info.get("kCGWindowBounds") or {}
        mismatch = (
            abs(float(b.get("X", 0)) - bounds.left)
            + abs(float(b.get("Y", 0)) - bounds.top)
            + abs(float(b.get("Width", 0)) - bounds.width)
            + abs(float(b.get("Height", 0)) - bounds.height)
        )
        if mismatch <= MAX_MISMATCH_PT and (best is None or mismatch < best[0]):
            best = (mismatch, int(info["kCGWindowNumber"]))
    return best[1] if best else None
