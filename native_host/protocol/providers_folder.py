"""The providers folder and its descriptor files: the safety rules both sides share (design.md §3, §7).

design.md §3 and the concepts page ("Discovery": "The providers folder has permissions 0700 and each
descriptor 0600, which keeps other users of the machine out"). The rules, in the order they are
checked, each one a `Problem`:

```
symlink            the folder / file is a symlink (it could point anywhere another user chose)
wrong_type         the folder is not a directory / the file is not a regular file
other_owner        it belongs to another uid                                       (POSIX only)
others_can_write   group/world write bit set: another user could have written it   (POSIX only)
others_can_read    any other group/world bit: the token leaks to other users         (POSIX only)
```

`folder_problem` / `file_problem` name the first rule a stat result breaks; each side decides what
that means and says it in its own words: the provider refuses every problem of its folder
(`check_providers_folder`, here so that `early_hello.py` can refuse an unsafe folder in its
`hello` reply before pydantic loads); the reference host (`host.descriptor_files`) refuses what
another user could have written and only warns about what others can read. On Windows the folder
lives under `%LOCALAPPDATA%` (per-user ACLs), so only the first two rules apply.

Standard library only.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Final, Literal

from native_host.errors import ProvidersFolderError

__all__ = [
    "DESCRIPTOR_OR_LOCK",
    "FILE_MODE",
    "FOLDER_MODE",
    "MAX_DESCRIPTOR_BYTES",
    "NO_FOLLOW_READ",
    "Problem",
    "check_providers_folder",
    "check_publishing_names",
    "descriptor_name",
    "file_problem",
    "folder_problem",
    "is_own_regular_file",
    "lock_name",
]

FOLDER_MODE: Final = 0o700
"""Mode of a providers folder a provider creates; an existing one must not grant group/world anything."""

FILE_MODE: Final = 0o600
"""Mode of every descriptor a provider writes."""

MAX_DESCRIPTOR_BYTES: Final = 64 * 1024
"""A descriptor is a few hundred bytes; a larger file is not read (the host refuses it as unreadable)."""

NO_FOLLOW_READ: Final = (
    os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
)
"""`os.open` flags for looking at a descriptor: a symlink fails (ELOOP) instead of being followed,
and a FIFO planted under a descriptor's name does not block the reader."""

Problem = Literal["symlink", "wrong_type", "other_owner", "others_can_write", "others_can_read"]
"""The first rule a providers folder or descriptor file breaks (see the module doc)."""


def folder_problem(info: os.stat_result) -> Problem | None:
    """The first rule the providers folder breaks, from its `lstat()`; None when it is safe."""
    return _problem(info, stat.S_ISDIR)


def file_problem(info: os.stat_result) -> Problem | None:
    """The first rule a descriptor file breaks, from its `lstat()` or the `fstat()` of a file opened
    with NO_FOLLOW_READ; None when it is safe."""
    return _problem(info, stat.S_ISREG)


def is_own_regular_file(info: os.stat_result) -> bool:
    """True for a regular file (not a symlink) that belongs to this user, whatever its mode: a
    descriptor a provider may touch (restore its mode, remove it as stale)."""
    return file_problem(info) not in ("symlink", "wrong_type", "other_owner")


def _problem(info: os.stat_result, right_type: Callable[[int], bool]) -> Problem | None:
    if stat.S_ISLNK(info.st_mode):
        return "symlink"
    if not right_type(info.st_mode):
        return "wrong_type"
    if sys.platform == "win32":  # ACLs, not owners and modes, govern access there
        return None
    if info.st_uid != os.geteuid():
        return "other_owner"
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        return "others_can_write"
    if mode & 0o077:
        return "others_can_read"
    return None


def check_providers_folder(folder: Path) -> None:
    """Raise ProvidersFolderError unless the existing `folder` is a real directory (not a symlink),
    owned by this user, with no group/world permission bits (design.md §3): the provider's side, which
    refuses every `Problem`. Also raised when `folder` cannot be inspected (e.g. missing)."""
    try:
        info = folder.lstat()
    except OSError as exc:
        raise ProvidersFolderError(f"Cannot inspect the providers folder {folder}: {exc.strerror}.") from None
    problem = folder_problem(info)
    if problem == "symlink":
        raise ProvidersFolderError(
            f"The providers folder {folder} is a symlink; refusing to use it. "
            "Remove the link and restart the browser."
        )
    if problem == "wrong_type":
        raise ProvidersFolderError(
            f"The providers folder {folder} is not a folder. Remove it and restart the browser."
        )
    if problem == "other_owner":
        raise ProvidersFolderError(
            f"The providers folder {folder} belongs to user id {info.st_uid}, not to you; "
            "refusing to use it. Remove it (it is recreated) and restart the browser."
        )
    if problem is not None:  # others_can_write, others_can_read
        raise ProvidersFolderError(
            f"The providers folder {folder} is accessible to other users "
            f"(mode {stat.S_IMODE(info.st_mode):o}). Run `chmod 700 {folder}` and restart the browser."
        )


def descriptor_name(bundle_id: str, pid: int) -> str:
    """`<bundleId>-<pid>.json` (design.md §3), e.g. `org.chromium.Chromium-4242.json`."""
    return f"{bundle_id}-{pid}.json"


def lock_name(bundle_id: str, pid: int) -> str:
    """`.<bundleId>-<pid>.lock`: the provider lock of one browser process (a dotfile;
    provider/publisher.py)."""
    return f".{bundle_id}-{pid}.lock"


DESCRIPTOR_OR_LOCK: Final = re.compile(r"(?P<lock>\.)?.+-(?P<pid>[0-9]+)\.(?(lock)lock|json)")
"""A `descriptor_name` or a `lock_name` (any bundleId); `pid` is the browser process's."""


def check_publishing_names(folder: Path, browser_pids: Collection[int]) -> None:
    """Raise ProvidersFolderError, before any `hello` reply says `listening: true`, when `folder`
    holds something other than a regular file of ours (a directory, a symlink, a FIFO, another
    user's file) at a descriptor or provider-lock name (`descriptor_name`, `lock_name`, any
    bundleId) of one of `browser_pids`: the provider could not publish there, and a symlink must
    never be written through. `browser_pids` must include the browser's main pid (the
    hello path does not know it yet: hello.py passes every ancestor). A missing `folder` passes."""
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ProvidersFolderError(f"Cannot list the providers folder {folder}: {exc.strerror}.") from None
    for entry in entries:
        match = DESCRIPTOR_OR_LOCK.fullmatch(entry.name)
        if match is None or int(match.group("pid")) not in browser_pids:
            continue
        try:
            problem = file_problem(entry.stat(follow_symlinks=False))
        except OSError:
            continue  # gone since the listing
        if problem not in ("symlink", "wrong_type", "other_owner"):
            continue  # a regular file of ours: a stale descriptor or lock, replaced or removed as usual
        what = "provider lock" if match.group("lock") else "descriptor"
        found = {"symlink": "a symlink", "wrong_type": "something that is not a file"}.get(
            problem, "another user's file"
        )
        raise ProvidersFolderError(
            f"The providers folder {folder} holds {found} at {entry.name}, where this browser's {what} "
            f"goes; refusing to publish there. Remove {Path(folder) / entry.name} and restart the browser."
        )
