"""One descriptor per browser process, kept true for as long as this host runs (design.md §3).

```
start()    take the provider lock `.<bundleId>-<pid>.lock` in the providers folder (flock, never
           blocking): held → provider, write the descriptor; not held → standby (another native
           host of the same browser, e.g. another profile, is the provider)
watch      every WATCH_INTERVAL_S:
             provider: lock file gone or replaced (folder deleted) → take it again, else step down;
                       descriptor missing or naming another instance → write it again (the folder
                       is recreated 0700 by write_descriptor); ours with a mode other
                       than 0600 (a `chmod 644`) → set back to 0600
             standby:  try the lock; got it → write our descriptor (takeover: the provider's host
                       exited or was killed, which releases its flock at once)
withdraw() remove the descriptor only while it still names our instance, then release the lock
```

The lock is an advisory `flock` on a dotfile (desktop hosts read `*.json` only; stale-descriptor
cleanup skips dotfiles). The kernel drops it when its holder dies, SIGKILL included, so a crashed
provider never blocks a takeover. After taking it, the file at the path must still be the file we
locked (a provider that withdrew unlinks it): else the lock is worthless and we try again.
Without `fcntl` (Windows) every host is a provider: last writer wins, and `withdraw` still only
removes its own descriptor.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from native_host.errors import ProvidersFolderError
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.providers_folder import lock_name
from native_host.provider.descriptor_files import (
    FILE_MODE,
    descriptor_name,
    ensure_providers_folder,
    reassert_file_mode,
    write_descriptor,
)

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

WATCH_INTERVAL_S: Final = 0.2
"""How often the descriptor, the lock and (standby) the provider's lock are checked, in seconds.
A takeover happens within this (plus one descriptor write) after the provider's host exits."""


class ProviderLock:
    """An exclusive, non-blocking `flock` on `path`, released when closed or when the process dies."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while we hold the lock and `path` still names the locked file."""
        if self._fd is None:
            return False
        try:
            mine, there = os.fstat(self._fd), os.stat(self.path, follow_symlinks=False)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)

    def try_acquire(self) -> bool:
        """Take the lock if nobody holds it; True when held afterwards. Creates the file (0600) and
        may raise OSError/ProvidersFolderError when the folder cannot be used."""
        if self.held:
            return True
        self.release()
        if sys.platform == "win32" or fcntl is None:  # no flock: every host is a provider
            return True
        ensure_providers_folder(self.path.parent)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        if not self.held:  # the file was unlinked between our open and our flock
            self.release()
            return False
        return True

    def release(self, *, unlink: bool = False) -> None:
        """Give the lock up (idempotent); with `unlink`, remove the file first if it is ours."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if unlink:
            with contextlib.suppress(OSError):
                mine, there = os.fstat(fd), os.stat(self.path, follow_symlinks=False)
                if (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
                    os.unlink(self.path)
        os.close(fd)


def remove_stale_locks(folder: Path) -> list[Path]:
    """Remove provider lock files in `folder` that nobody holds (their provider was killed before
    it could remove its own); return them. A host that opened one just before we unlinked it sees
    the path no longer names its file (`ProviderLock.held`) and tries again. Never raises."""
    if fcntl is None:
        return []
    removed: list[Path] = []
    try:
        candidates = [p for p in folder.glob(".*.lock") if p.is_file() and not p.is_symlink()]
    except OSError:
        return []
    for path in candidates:
        lock = ProviderLock(path)
        try:
            if lock.try_acquire():
                lock.release(unlink=True)
                removed.append(path)
        except (OSError, ProvidersFolderError):
            lock.release()
    return removed


def names_instance(path: Path, instance: str) -> bool:
    """True when the descriptor at `path` exists and its `instance` is `instance`."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("instance") == instance


class DescriptorPublisher:
    """Publishes `descriptor` in `folder` while this host is the browser's provider (design.md §3).

    `role` is "starting" until `start`, "provider" while our descriptor is published, "standby"
    while another host of the same browser holds the lock, "stopped" after `withdraw`.
    `on_role_change(role)` is called on every change (handoff.py follows the provider on standby).
    """

    def __init__(
        self,
        folder: Path,
        descriptor: Descriptor,
        *,
        interval_s: float = WATCH_INTERVAL_S,
        on_role_change: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = folder
        self._on_role_change = on_role_change
        self.descriptor = descriptor
        self.path: Final = folder / descriptor_name(descriptor.bundle_id, descriptor.pid)
        self.lock = ProviderLock(folder / lock_name(descriptor.bundle_id, descriptor.pid))
        self.role = "starting"
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None

    def start(self) -> str:
        """Claim the lock and publish (or stand by); start watching. Returns the role. Raises
        ProvidersFolderError (nothing written) for an unsafe folder, OSError if writing fails."""
        self._step()
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="descriptor-watch")
        return self.role

    def withdraw(self) -> bool:
        """Stop watching, remove the descriptor if it still names our instance (a newer host of the
        same browser may have replaced it), release the lock. Never raises; True if removed."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        removed = False
        if names_instance(self.path, self.descriptor.instance):
            try:
                self.path.unlink()
                removed = True
                log.info("descriptor removed: %s", self.path.name)
            except OSError as exc:
                log.warning("could not remove descriptor %s: %s", self.path.name, exc.strerror)
        self.lock.release(unlink=True)
        self.role = "stopped"
        return removed

    def _set_role(self, role: str) -> None:
        if role != self.role:
            log.info("role: %s → %s (%s)", self.role, role, self.path.name)
            self.role = role
            if self._on_role_change is not None:
                self._on_role_change(role)

    def _step(self) -> None:
        """One check: keep or take the lock, keep the descriptor written while we are provider."""
        if not self.lock.held and not self.lock.try_acquire():
            if self.role == "provider":
                log.warning("lost the provider lock of %s; standing by", self.path.name)
            self._set_role("standby")
            return
        if not names_instance(self.path, self.descriptor.instance):
            if self.role == "provider":
                log.warning("descriptor %s vanished or was replaced; writing it again", self.path.name)
            write_descriptor(self.folder, self.descriptor)
        else:
            reassert_file_mode(self.path)
        self._set_role("provider")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                self._step()
            except (OSError, ProvidersFolderError) as exc:
                log.warning("descriptor check failed (will retry): %s", exc)
