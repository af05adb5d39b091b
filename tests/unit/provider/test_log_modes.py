"""The native host's log under `umask 000`, through a real `python -m native_host`
(tests/support/host_process.py): folder 0700 (and the parents it made), native-host.log 0600
("Also" c; log_files.py). Rotation's new files: tests/unit/test_log_files.py."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from native_host.paths import log_dir
from tests.support.host_process import Host, ready_descriptor

pytestmark = pytest.mark.skipif(os.name != "posix", reason="modes and umask are POSIX")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


async def test_the_hosts_log_folder_and_file_are_private_under_umask_000(spawn: Callable[[], Any]) -> None:
    old = os.umask(0)
    try:
        host: Host = await spawn()  # inherits umask 000, as from a careless session
    finally:
        os.umask(old)
    await host.hello()
    await ready_descriptor(host)
    folder = log_dir()
    assert (mode(folder.parent), mode(folder)) == (0o700, 0o700)  # ~/.local/state/webctx and its log/
    assert mode(folder / "native-host.log") == 0o600
