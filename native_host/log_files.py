"""Our log folder and log files, private whatever the umask ("Also" c).

Every log folder and file webctx creates goes through here: the native host's `native-host.log`
(`__main__.py`), the CLI's `cli.log` (`cli/main.py`), the bridge's `mcp.log` (`cli/mcp.py`) and
the demo browser's output (`demo/runner.py`).

```
private_log_folder()        paths.log_dir(), every folder we create 0700 (chmod after mkdir:
                            the umask cannot widen it), the log folder itself set back to 0700
PrivateRotatingFileHandler  a RotatingFileHandler whose every open, rollover's new file included
                            (`doRollover` reopens through `_open`), is `open_private_text`
private_fd(path, append)    O_CREAT 0600 + fchmod 0600 (an existing file set back to 0600), never
                            through a symlink (O_NOFOLLOW: ELOOP instead of writing elsewhere);
                            open_private_text / open_private_binary wrap it
```

Under `umask 000` `mkdir(mode=0o700, parents=True)` still makes the missing parents 0777 and
`open()` makes files 0666; the log lines name pids, ports and timings, and a world-writable parent
lets another user swap the log folder. The owner/mode calls are POSIX-only (Windows: per-user ACLs
under `%LOCALAPPDATA%`).
"""

from __future__ import annotations

import io
import logging.handlers
import os
import sys
from pathlib import Path
from typing import BinaryIO, Final

from native_host import paths

FOLDER_MODE: Final = 0o700
"""Mode of the log folder and of every parent folder webctx creates for it."""

FILE_MODE: Final = 0o600
"""Mode of every log file, rotated ones included."""

def make_private_folder(folder: Path) -> Path:
    """Create `folder` and its missing parents, each 0700 whatever the umask; an existing `folder`
    is set back to 0700 (an older webctx made it 0755); existing parents are left alone. Returns
    `folder`. Raises OSError when a folder cannot be made or changed."""
    missing: list[Path] = []
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate):
            break
        missing.append(candidate)
    for candidate in reversed(missing):
        try:
            candidate.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # another host (another profile) made it just now
            continue
        if sys.platform != "win32":
            os.chmod(candidate, FOLDER_MODE)  # mkdir's mode is filtered by the umask only
    if sys.platform != "win32":
        os.chmod(folder, FOLDER_MODE)
    return folder


def private_log_folder() -> Path:
    """`paths.log_dir()`, created or set private (`make_private_folder`). Raises OSError."""
    return make_private_folder(paths.log_dir())


def private_fd(path: Path, *, append: bool) -> int:
    """A write-only fd on log file `path`, appending or (`append=False`) truncating: created 0600,
    an existing file set back to 0600, never through a symlink. The caller owns the fd. Raises
    OSError (ELOOP for a symlink)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_APPEND if append else os.O_TRUNC
    fd = os.open(path, flags, FILE_MODE)
    if sys.platform != "win32":
        try:
            os.fchmod(fd, FILE_MODE)  # O_CREAT's mode is filtered by the umask; an old file may be 0644
        except OSError:
            os.close(fd)
            raise
    return fd


def open_private_text(path: Path) -> io.TextIOWrapper:
    """`path` opened as `private_fd(append=True)`, UTF-8 text (a log handler's stream)."""
    return open(private_fd(path, append=True), "a", encoding="utf-8")


def open_private_binary(path: Path) -> BinaryIO:
    """`path` opened as `private_fd(append=False)`, binary (a child process's output)."""
    return open(private_fd(path, append=False), "wb")


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """`RotatingFileHandler` whose file is opened with `open_private_text` (0600, no symlink), at
    start and after every rollover (`doRollover` reopens through `_open`). Same arguments; the
    file is always appended to in UTF-8."""

    def _open(self) -> io.TextIOWrapper:
        return open_private_text(Path(self.baseFilename))


def rotating_log_file(name: str, *, max_bytes: int, backup_count: int) -> PrivateRotatingFileHandler:
    """A `PrivateRotatingFileHandler` for `<log folder>/<name>` (folder made by
    `private_log_folder`), UTF-8, rotated above `max_bytes` bytes with `backup_count` old files.
    Raises OSError when the folder or file cannot be made."""
    path = private_log_folder() / name
    return PrivateRotatingFileHandler(path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8")
