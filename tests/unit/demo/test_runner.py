"""`webctx demo` refuses a providers folder the native host would refuse, before it starts a browser
(demo/runner.py asks the native host's own rule, protocol/providers_folder.py); stopping the demo
counts a zombie native host as gone (protocol/processes.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from native_host import paths
from native_host.demo.runner import DemoBrowser, _prepare_providers_folder, _stop_browser
from native_host.errors import ProvidersFolderError
from tests.support.descriptors import make_descriptor
from tests.support.waiting import wait_until

pytestmark = pytest.mark.skipif(os.name != "posix", reason="owner and mode rules are POSIX-only")


def test_a_missing_folder_is_created_private() -> None:
    folder = _prepare_providers_folder()
    assert folder == paths.providers_dir().absolute()
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_folder_others_can_read_is_refused_with_the_chmod_fix() -> None:
    folder = paths.providers_dir()
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    with pytest.raises(ProvidersFolderError, match=r"readable by other users.*chmod 700"):
        _prepare_providers_folder()


def test_a_symlinked_folder_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    folder = paths.providers_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(real)
    with pytest.raises(ProvidersFolderError, match="is a symlink or another user's"):
        _prepare_providers_folder()


@pytest.fixture
def orphan_zombie() -> Iterator[int]:
    """The pid of a zombie that is not our child: a holder process forks a child that exits, and
    never waits for it (as a PID 1 that does not reap would not). Ended with its holder."""
    code = (
        "import os, sys, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0)\n"
        "print(pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None
        pid = int(holder.stdout.readline())
        wait_until(lambda: psutil.Process(pid).status() == psutil.STATUS_ZOMBIE,
                   message="the child to become a zombie")
        yield pid
    finally:
        holder.kill()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()


def test_stopping_the_demo_does_not_wait_for_a_zombie_native_host(tmp_path: Path, orphan_zombie: int) -> None:
    """A zombie counts as gone (protocol/processes.py); psutil.wait_procs
    waited out its 3 + 2 s on one whose parent never reaps it."""
    browser = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    demo = DemoBrowser(
        "python", browser, tmp_path, "http://127.0.0.1:1/", tmp_path / "log", lambda _: None,
        descriptor=make_descriptor(listener_pid=orphan_zombie),
    )
    started = time.monotonic()
    _stop_browser(demo)
    took = time.monotonic() - started
    assert browser.returncode is not None
    assert took < 2.0, f"stopping took {took:.1f} s"
