"""The providers-folder safety check, with the standard library only (SPEC §3).

Kept apart from descriptor.py (pydantic, psutil) so that `early_hello.py` can refuse an unsafe
folder in its `hello` reply before the slow imports. descriptor.py re-exports it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from native_host.errors import ProvidersFolderError

_POSIX: Final = os.name == "posix"


def check_providers_folder(folder: Path) -> None:
    """Raise ProvidersFolderError unless the existing `folder` is a real directory (not a symlink),
    owned by this user, with no group/world permission bits (SPEC §3)."""
    try:
        info = folder.lstat()
    except OSError as exc:
        raise ProvidersFolderError(f"Cannot inspect the providers folder {folder}: {exc.strerror}.") from None
    if stat.S_ISLNK(info.st_mode):
        raise ProvidersFolderError(
            f"The providers folder {folder} is a symlink; refusing to use it. "
            "Remove the link and restart the browser."
        )
    if not stat.S_ISDIR(info.st_mode):
        raise ProvidersFolderError(
            f"The providers folder {folder} is not a folder. Remove it and restart the browser."
        )
    if not _POSIX:
        return
    if info.st_uid != os.geteuid():
        raise ProvidersFolderError(
            f"The providers folder {folder} belongs to user id {info.st_uid}, not to you; "
            "refusing to use it. Remove it (it is recreated) and restart the browser."
        )
    if info.st_mode & 0o077:
        raise ProvidersFolderError(
            f"The providers folder {folder} is accessible to other users "
            f"(mode {stat.S_IMODE(info.st_mode):o}). Run `chmod 700 {folder}` and restart the browser."
        )
