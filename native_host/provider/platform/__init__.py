"""OS window numbers for `location`'s `window`, one module per platform.

```
window_number(bounds, browser_pid)
  ├─ linux.py    X11: the top-level window with `_NET_WM_PID` = browser_pid whose geometry matches
  ├─ macos.py    CGWindowID from CGWindowListCopyWindowInfo (untested here)
  └─ windows.py  HWND from EnumWindows (untested here)
```

Every function returns None where the platform has no such window (headless, Wayland without
XWayland, a missing library) and never raises for that.
"""

from __future__ import annotations

import os
import sys

from native_host.protocol.answers import WindowBounds

__all__ = ["has_windows", "window_number"]


def has_windows() -> bool:
    """False where `window_number` would surely find nothing: Linux without `DISPLAY` (headless,
    a service); cheap, so the `location` hot path skips the lookup there."""
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY"))
    return sys.platform in ("darwin", "win32")


def window_number(bounds: WindowBounds, browser_pid: int) -> int | None:
    """The OS window number of the browser window at `bounds` (points, as chrome.windows gives
    them) owned by `browser_pid`, or None when there is none (design.md §1.2: omitted when headless)."""
    if sys.platform.startswith("linux"):
        from native_host.provider.platform import linux

        return linux.window_number(bounds, browser_pid)
    if sys.platform == "darwin":
        from native_host.provider.platform import macos

        return macos.window_number(bounds, browser_pid)
    if sys.platform == "win32":
        from native_host.provider.platform import windows

        return windows.window_number(bounds, browser_pid)
    return None
