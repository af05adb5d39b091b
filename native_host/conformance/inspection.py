"""What the kit learns about a provider without talking to it: the descriptor file and its
folder (modes, owner, symlink), the process the descriptor names (alive, bundle id), and the
sockets listening on the endpoint's port (address, pid, whether that pid is the provider's).

Fills `Evidence` fields; never raises because of what the provider wrote (a missing process or a
refused `psutil` call is evidence too).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from pathlib import Path

import psutil

from native_host.conformance.checks import endpoint_port
from native_host.conformance.evidence import Evidence, Listener
from native_host.host import expected_bundle_id, is_same_or_descendant, listening_sockets
from native_host.protocol.processes import process_alive


def inspect_files(ev: Evidence, path: Path) -> None:
    """Fill `ev` from the descriptor file `path` and its folder: modes (`st_mode & 0o7777`), owner
    and symlink-ness (POSIX only: on Windows, where ACLs govern access, the mode rules are skipped),
    then the descriptor's JSON (or why it cannot be read) (design.md §3)."""
    folder = path.parent
    with contextlib.suppress(OSError):
        ev.folder_is_symlink = stat.S_ISLNK(os.lstat(folder).st_mode)
    if sys.platform != "win32":  # a check the type checker understands (os.getuid is POSIX-only)
        with contextlib.suppress(OSError):
            ev.file_mode = stat.S_IMODE(os.lstat(path).st_mode)
        with contextlib.suppress(OSError):
            info = os.lstat(folder)
            ev.folder_mode = stat.S_IMODE(info.st_mode)
            ev.folder_owned_by_user = info.st_uid == os.getuid()
    try:
        ev.descriptor = json.loads(path.read_bytes())
    except OSError as exc:
        ev.descriptor_error = exc.strerror or type(exc).__name__
    except ValueError:
        ev.descriptor_error = "not valid UTF-8 JSON"


def _listeners(port: int, provider_pid: int) -> list[Listener]:
    """Every listening socket on `port` with its address and pid, and whether that pid is the
    provider or its descendant (the host's own listener check: host.processes). A provider may
    listen from a child process (a helper, a worker), so descendants count too."""
    return [
        Listener(sock.address, sock.pid, is_same_or_descendant(sock.pid, provider_pid))
        for sock in listening_sockets(port)
    ]


def inspect_process(ev: Evidence) -> None:
    """Fill `ev` from the process the descriptor's `pid` names: running or not (a zombie is dead),
    the bundle id it should declare, and the listeners on the endpoint's port. Nothing when the
    descriptor has no positive integer `pid`; a process `psutil` may not inspect counts as running."""
    d = ev.descriptor if isinstance(ev.descriptor, dict) else {}
    pid = d.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return
    try:
        ev.process_running = process_alive(pid)
        if ev.process_running:
            ev.expected_bundle_id = expected_bundle_id(psutil.Process(pid))
    except psutil.NoSuchProcess:
        ev.process_running = False
    except psutil.Error:
        ev.process_running = True
    port = endpoint_port(d.get("endpoint"))
    if port is not None:
        ev.listeners = _listeners(port, pid)
