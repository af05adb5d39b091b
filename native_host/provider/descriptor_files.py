"""The provider descriptor: providers-folder checks, atomic 0600 write, removal, stale cleanup (design.md §3).

```
ensure_providers_folder(folder)        create 0700, or refuse a symlink / another user's / group-world access
write_descriptor(folder, descriptor)   <bundleId>-<pid>.json, 0600, temp file + os.replace
reassert_file_mode(path)               our descriptor found with another mode → back to 0600
remove_descriptor(path)                idempotent
remove_stale_descriptors(folder)       parseable descriptors whose listenerPid is no longer running
```

The folder and file rules (modes, symlinks, owner) are `protocol.providers_folder`, shared with
the reference host. On Windows the folder lives under `%LOCALAPPDATA%` (per-user ACLs); the owner
and mode checks are POSIX-only and skipped there.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import stat
import sys
from pathlib import Path

from pydantic import ValidationError

from native_host.errors import ProvidersFolderError
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.providers_folder import (
    FILE_MODE,
    FOLDER_MODE,
    NO_FOLLOW_READ,
    check_providers_folder,
    descriptor_name,
    is_own_regular_file,
)

__all__ = [
    "FILE_MODE",
    "FOLDER_MODE",
    "check_providers_folder",
    "descriptor_name",
    "ensure_providers_folder",
    "reassert_file_mode",
    "remove_descriptor",
    "remove_stale_descriptors",
    "write_descriptor",
]

log = logging.getLogger(__name__)

def ensure_providers_folder(folder: Path) -> Path:
    """Create `folder` with mode 0700 if missing (parents with default modes), then check it as
    `check_providers_folder` does; return it. Raises ProvidersFolderError, creating nothing, when
    an existing `folder` is unsafe (design.md §3)."""
    if not os.path.lexists(folder):
        folder.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=FOLDER_MODE)
            if sys.platform != "win32":
                os.chmod(folder, FOLDER_MODE)  # mkdir's mode is filtered by the umask
    check_providers_folder(folder)
    return folder


def write_descriptor(folder: Path, descriptor: Descriptor) -> Path:
    """Write `<bundleId>-<pid>.json` into `folder` (mode 0600, temp file + atomic rename); return its path.

    Creates `folder` (0700) if missing. Raises ProvidersFolderError, writing nothing, if `folder`
    is a symlink, another user's, or group/world accessible (design.md §3); OSError if writing fails
    (the temp file is removed).
    """
    ensure_providers_folder(folder)
    target = folder / descriptor_name(descriptor.bundle_id, descriptor.pid)
    temp = folder / f".{target.name}.{secrets.token_hex(4)}.tmp"
    data = (json.dumps(descriptor.to_wire(), indent=2) + "\n").encode("utf-8")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            if sys.platform != "win32":
                os.fchmod(handle.fileno(), FILE_MODE)  # O_CREAT's mode is filtered by the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    log.info("descriptor written: %s (%d bytes)", target.name, len(data))
    return target


def reassert_file_mode(path: Path) -> bool:
    """Set the descriptor at `path` back to FILE_MODE (0600) when it has another mode (someone ran
    `chmod 644` on it: a host warns about or refuses such a file, design.md §3, §7); return True if it
    was changed. Only a regular file of ours is touched (opened without following a symlink).
    POSIX only; never raises OSError (a failure is logged and gives False)."""
    if sys.platform == "win32":  # ACLs, not modes, govern access there
        return False
    try:
        fd = os.open(path, NO_FOLLOW_READ)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        mode = stat.S_IMODE(info.st_mode)
        if not is_own_regular_file(info) or mode == FILE_MODE:
            return False
        os.fchmod(fd, FILE_MODE)
    except OSError as exc:
        log.warning("could not restore mode 600 on %s: %s", path.name, exc.strerror)
        return False
    finally:
        os.close(fd)
    log.warning("descriptor %s had mode %o; set it back to 600", path.name, mode)
    return True


def remove_descriptor(path: Path) -> bool:
    """Remove the descriptor at `path`; return True if it existed. Never raises for a missing file;
    other OSErrors are logged and reported as False."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        log.warning("could not remove descriptor %s: %s", path.name, exc.strerror)
        return False
    log.info("descriptor removed: %s", path.name)
    return True


def remove_stale_descriptors(folder: Path) -> list[Path]:
    """Remove descriptors in `folder` whose `listenerPid` is no longer running (design.md §3); return them.

    Only regular `*.json` files owned by this user that parse as a descriptor with a
    `listenerPid` are considered; anything else (other providers' files without `listenerPid`,
    unparsable files, symlinks) is left alone. Does nothing when `folder` is missing or unsafe
    (logged). Never raises OSError.
    """
    if not os.path.lexists(folder):
        return []
    try:
        check_providers_folder(folder)
        entries = list(folder.iterdir())
    except (ProvidersFolderError, OSError) as exc:
        log.warning("stale-descriptor cleanup skipped: %s", exc)
        return []
    removed: list[Path] = []
    for path in entries:
        if path.suffix != ".json" or path.name.startswith("."):
            continue
        try:
            info = path.lstat()
            if not is_own_regular_file(info):
                continue
            descriptor = Descriptor.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            continue
        pid = descriptor.listener_pid
        if pid is None or pid == os.getpid() or process_alive(pid, started_before=info.st_mtime):
            continue
        if remove_descriptor(path):
            log.info("stale descriptor removed: %s (listenerPid %d gone)", path.name, pid)
            removed.append(path)
    return removed
