"""The doctor's checks on the providers folder (design.md §3): it is safe (yours, not a symlink, mode
0700) or not there yet, and no descriptor in it names a listener that is gone.

A broken folder gets the one fix for what its lstat shows (a symlink, not a folder, another
user's, or a mode open to others); the native host recreates a removed folder with mode 0700.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Iterator
from pathlib import Path

from native_host import paths
from native_host.errors import ProvidersFolderError
from native_host.install.doctor_check import Check, broken, ok
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from native_host.protocol.providers_folder import check_providers_folder, folder_problem


def check_providers_dir(folder: Path | None = None) -> Check:
    """The providers folder is safe (design.md §3), or missing (created 0700 on first use)."""
    folder = folder or paths.providers_dir()
    if not os.path.lexists(folder):
        return ok("providers.folder", f"The providers folder {folder} does not exist yet; the native "
                  "host creates it (mode 0700).")
    try:
        check_providers_folder(folder)
    except ProvidersFolderError as exc:
        message, fix = _providers_folder_problem(folder, str(exc))
        return broken("providers.folder", message, fix)
    return ok("providers.folder", f"The providers folder {folder} is yours and private (0700).")


def _providers_folder_problem(folder: Path, fallback: str) -> tuple[str, str]:
    """(what is wrong, the one fix) for an unsafe providers folder, from its lstat; `fallback` (the
    ProvidersFolderError sentence) when it cannot be inspected. The native host recreates a
    removed folder with mode 0700 (design.md §3)."""
    quoted = shlex.quote(str(folder))
    try:
        info = folder.lstat()
    except OSError:
        return fallback, "check the folder's path and permissions, then restart the browser"
    problem = folder_problem(info)  # the provider's own rules (protocol/providers_folder.py)
    if problem == "symlink":
        return (f"The providers folder {folder} is a symlink, which the native host refuses.",
                f"rm {quoted} (removes the link only; the folder is recreated), then restart the browser")
    if problem == "wrong_type":
        return (f"The providers folder {folder} is not a folder.",
                f"rm {quoted} (it is recreated as a folder), then restart the browser")
    if problem == "other_owner":
        return (f"The providers folder {folder} belongs to user id {info.st_uid}, not to you.",
                f"remove it as that user or root (`rm -r {quoted}`; it is recreated), then restart "
                "the browser")
    mode = stat.S_IMODE(info.st_mode)
    return (f"The providers folder {folder} is accessible to other users (mode {mode:o}).",
            f"chmod 700 {quoted}, then restart the browser")


def _descriptors(folder: Path) -> Iterator[tuple[Path, Descriptor]]:
    # Only readable, valid descriptors: an unreadable file names no listener to look for.
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        return
    for path in files:
        try:
            yield path, Descriptor.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            continue


def check_stale(folder: Path | None = None) -> Check:
    """Descriptors whose listener (`listenerPid`, else `pid`) is no longer running."""
    folder = folder or paths.providers_dir()
    stale = [path for path, d in _descriptors(folder) if not process_alive(d.listener_pid or d.pid)]
    if stale:
        names = " ".join(shlex.quote(str(p)) for p in stale)
        return broken("providers.stale", f"{len(stale)} descriptor(s) name a listener that is gone: "
                      f"{', '.join(p.name for p in stale)}.", f"rm {names}")
    return ok("providers.stale", "No stale descriptors.")
