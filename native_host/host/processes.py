"""What the OS says about the processes behind a descriptor (design.md §3, §7).

```
expected_bundle_id(process)          the bundle id its executable should publish (macOS: the .app's
                                     Info.plist; elsewhere browser_identity.BROWSERS by file name)
listening_sockets(port)              every TCP socket listening on `port`: (address, pid)
listener_pids(port)                  just their pids (UNKNOWN_PID for another user's)
is_same_or_descendant(pid, ancestor) the listener check: `pid` is `ancestor` or one of its children
front_app_pid()                      the pid of the app that owns the active window (X11), or None
```

The reference host's `check_descriptor`, the conformance kit and the demo all ask these, so a
listener is judged the same way everywhere. Whether a process is alive at all is
`protocol.processes.process_alive` (a zombie is dead). Nothing here raises for a process that
vanished between two questions: that is an answer too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import psutil

from native_host.protocol.browser_identity import app_bundle_info, kind_for

__all__ = [
    "UNKNOWN_PID",
    "BundleIdLookup",
    "ListeningSocket",
    "exe_name",
    "expected_bundle_id",
    "front_app_pid",
    "is_same_or_descendant",
    "listener_pids",
    "listening_sockets",
]

UNKNOWN_PID: Final = -1
"""Stands for a listening process whose pid the OS does not reveal (another user's)."""

BundleIdLookup = Callable[[psutil.Process], "str | None"]
"""Maps a running process to the bundle id it should publish, or None when it cannot tell."""


def expected_bundle_id(process: psutil.Process) -> str | None:
    """The bundle id `process` should publish, derived from its executable; None when unknown.

    macOS: the `CFBundleIdentifier` of the enclosing `.app`. Elsewhere: the same table the native
    host fills `bundleId` from (`browser_identity.BROWSERS`, by executable file name; design.md §3).
    Raises psutil.Error when the process vanished or cannot be inspected.
    """
    try:
        exe = process.exe() or ""
    except psutil.AccessDenied:
        exe = ""
    if sys.platform == "darwin" and exe:
        bundle = app_bundle_info(exe).get("CFBundleIdentifier")  # the one Info.plist reader
        if bundle:
            return bundle
    kind = kind_for(exe or process.name())
    return kind.bundle_id if kind is not None else None


def exe_name(process: psutil.Process) -> str:
    """The file name of `process`'s executable (else its process name) for a message; never raises."""
    try:
        return Path(process.exe()).name or process.name()
    except psutil.Error:
        return "unknown executable"


@dataclass(frozen=True)
class ListeningSocket:
    """One TCP socket in the LISTEN state: its local address (e.g. `"127.0.0.1"`, `"::"`) and the
    pid that holds it (UNKNOWN_PID when the OS will not name it)."""

    address: str
    pid: int


def listening_sockets(port: int) -> list[ListeningSocket]:
    """Every TCP socket listening on `port` (any local address); empty when nobody listens.

    Uses `psutil.net_connections(kind="tcp")`; where the OS refuses that (macOS without root) it
    falls back to scanning this user's processes one by one, which cannot see other users' sockets.
    """
    found: list[ListeningSocket] = []
    try:
        for sconn in psutil.net_connections(kind="tcp"):
            if sconn.status == psutil.CONN_LISTEN and sconn.laddr and sconn.laddr.port == port:
                found.append(ListeningSocket(sconn.laddr.ip, sconn.pid or UNKNOWN_PID))
        return found
    except psutil.AccessDenied:
        pass
    for proc in psutil.process_iter():
        try:
            for conn in proc.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                    found.append(ListeningSocket(conn.laddr.ip, proc.pid))
        except psutil.Error:
            continue
    return found


def listener_pids(port: int) -> set[int]:
    """Pids of the processes listening on TCP `port` (any local address); empty when nobody is.
    A listener the OS will not name (another user's process) is reported as UNKNOWN_PID.
    See `listening_sockets` for how they are found."""
    return {sock.pid for sock in listening_sockets(port)}


def is_same_or_descendant(pid: int, ancestor: int) -> bool:
    """True when `pid` is `ancestor` or one of its (grand)children: the process named by a
    descriptor may hand its port to a child (concepts page, "Security"; design.md §7). False for
    UNKNOWN_PID and for a process that vanished or cannot be inspected. Never raises."""
    if pid == UNKNOWN_PID:
        return False
    if pid == ancestor:
        return True
    try:
        return any(parent.pid == ancestor for parent in psutil.Process(pid).parents())
    except psutil.Error:
        return False


def front_app_pid() -> int | None:
    """The pid of the app that owns the active window, where the OS tells us; else None.

    Linux/X11 only for now: `xprop -root _NET_ACTIVE_WINDOW`, then that window's `_NET_WM_PID`
    (needs `DISPLAY` and `xprop`; each call limited to 1 s). macOS/Windows/Wayland: None.
    """
    if not sys.platform.startswith("linux") or not os.environ.get("DISPLAY"):
        return None
    xprop = shutil.which("xprop")
    if xprop is None:
        return None
    try:
        active = subprocess.run(
            [xprop, "-root", "_NET_ACTIVE_WINDOW"], capture_output=True, text=True, timeout=1, check=False
        ).stdout
        window = active.rsplit(" ", 1)[-1].strip()
        if not window.startswith("0x") or int(window, 16) == 0:
            return None
        owner = subprocess.run(
            [xprop, "-id", window, "_NET_WM_PID"], capture_output=True, text=True, timeout=1, check=False
        ).stdout
        return int(owner.rsplit("=", 1)[-1].strip())
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
