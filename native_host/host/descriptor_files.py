"""The reference host's file checks on the providers folder and each descriptor (design.md §3, §7).

design.md §3 and the concepts page ("Discovery": "The providers folder has permissions 0700 and each
descriptor 0600, which keeps other users of the machine out") say what a provider writes. A host
reading the folder decides what to do when that is not so:

    REFUSE  (ProviderRejected, reason `unsafe_folder` / `unsafe_file`) when another user could have
            written the descriptor: the folder is a symlink or not a folder, the folder or the file
            belongs to another uid, either is group/world-writable, or the file is not a regular
            file (a symlink). A planted descriptor can point the host at a hostile listener on
            127.0.0.1, which then gets the host's requests and feeds it content of its choosing.
    WARN    (still usable, `warning` set) when the folder or the file is only readable by others:
            the descriptor is genuine, but its token leaks to other users of the machine.

The rules themselves (and their order) are `protocol.providers_folder`, shared with the provider;
this module is the host's verdict on each and its words. On Windows the folder lives under
`%LOCALAPPDATA%` (per-user ACLs) and only "symlink" and "not a folder / regular file" are checked.
Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from native_host.errors import ProviderRejected
from native_host.protocol.providers_folder import (
    MAX_DESCRIPTOR_BYTES,
    NO_FOLLOW_READ,
    file_problem,
    folder_problem,
)

__all__ = ["MAX_DESCRIPTOR_BYTES", "check_folder", "read_descriptor_file"]


def check_folder(folder: Path) -> str | None:
    """Return a warning sentence (folder readable by others) or None; raise ProviderRejected
    (reason `unsafe_folder`) when another user could write into `folder` (see module doc).
    Raises OSError when `folder` cannot be inspected (FileNotFoundError when missing)."""
    info = folder.lstat()
    problem = folder_problem(info)
    mode = stat.S_IMODE(info.st_mode)
    if problem == "symlink":
        raise ProviderRejected(
            f"The providers folder {folder} is a symlink; a host does not follow it (another user "
            "could have planted it). Remove the link and restart the browser.",
            reason="unsafe_folder",
        )
    if problem == "wrong_type":
        raise ProviderRejected(f"The providers folder {folder} is not a folder.", reason="unsafe_folder")
    if problem == "other_owner":
        raise ProviderRejected(
            f"The providers folder {folder} belongs to user id {info.st_uid}, not to you; its "
            "descriptors are not trusted. Remove it (the browser recreates it).",
            reason="unsafe_folder",
        )
    if problem == "others_can_write":
        raise ProviderRejected(
            f"The providers folder {folder} is writable by other users (mode {mode:o}), so its "
            f"descriptors are not trusted. Run `chmod 700 {folder}` and restart the browser.",
            reason="unsafe_folder",
        )
    if problem == "others_can_read":
        return (
            f"The providers folder {folder} is open to other users (mode {mode:o}); "
            f"run `chmod 700 {folder}`."
        )
    return None


def read_descriptor_file(path: Path) -> tuple[bytes, str | None]:
    """Read the descriptor at `path` without following a symlink; return `(bytes, warning or None)`.

    Raises ProviderRejected (reason `unsafe_file`) when `path` is not a regular file, belongs to
    another uid or is group/world-writable; OSError when it cannot be read (ELOOP for a symlink
    is reported as `unsafe_file`); ValueError when it is over MAX_DESCRIPTOR_BYTES. The mode is
    taken from the open file, so a swap between the check and the read is caught.
    """
    try:
        fd = os.open(path, NO_FOLLOW_READ)
    except OSError as exc:
        if path.is_symlink():
            raise ProviderRejected(
                f"{path.name} is a symlink; a host only reads regular descriptor files.", reason="unsafe_file"
            ) from None
        raise exc
    with os.fdopen(fd, "rb") as handle:
        warning = _file_verdict(path, os.fstat(handle.fileno()))
        data = handle.read(MAX_DESCRIPTOR_BYTES + 1)
    if len(data) > MAX_DESCRIPTOR_BYTES:
        raise ValueError("descriptor too large")
    return data, warning


def _file_verdict(path: Path, info: os.stat_result) -> str | None:
    """Warning for a descriptor readable by others; ProviderRejected for one others could write."""
    problem = file_problem(info)
    mode = stat.S_IMODE(info.st_mode)
    if problem in ("symlink", "wrong_type"):  # fstat of an open file: never a symlink
        raise ProviderRejected(f"{path.name} is not a regular file.", reason="unsafe_file")
    if problem == "other_owner":
        raise ProviderRejected(
            f"{path.name} belongs to user id {info.st_uid}, not to you; a host does not trust it.",
            reason="unsafe_file",
        )
    if problem == "others_can_write":
        raise ProviderRejected(
            f"{path.name} is writable by other users (mode {mode:o}); a host does not trust it. "
            "Restart the browser to rewrite it.",
            reason="unsafe_file",
        )
    if problem == "others_can_read":
        return (
            f"{path.name} is readable by other users (mode {mode:o}), so its token leaks; "
            f"run `chmod 600 {path}`."
        )
    return None
