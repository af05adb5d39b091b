"""scripts/setup.sh on macOS: no apt-get, the browser found from the same table
as `webctx demo` (install/programs.py), a clear message when there is none.

macOS is faked: `uname` answers Darwin and PATH holds only the few tools the script needs before
it stops (no apt-get, no sudo, no browser). A Chrome app in ~/Applications is one a Linux box can
hold; /Applications and a real macOS shell (bash 3.2, BSD tools) stay untested here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SETUP = REPO / "scripts" / "setup.sh"
BASH = shutil.which("bash")

pytestmark = pytest.mark.skipif(BASH is None or os.name != "posix", reason="needs bash")


def fake_mac(tmp_path: Path) -> dict[str, str]:
    """An environment whose `uname` says Darwin and whose PATH has no apt-get, sudo or browser."""
    fake_bin = tmp_path / "fake-bin"
    fake_bin.mkdir()
    uname = fake_bin / "uname"
    uname.write_text("#!/bin/sh\necho Darwin\n")
    uname.chmod(0o755)
    (fake_bin / "python3").symlink_to(sys.executable)
    for tool in ("dirname", "env"):
        found = shutil.which(tool)
        assert found is not None
        (fake_bin / tool).symlink_to(found)
    home = tmp_path / "mac-home"
    home.mkdir()
    return {"PATH": str(fake_bin), "HOME": str(home), "LANG": "C"}


def run_setup(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    assert BASH is not None
    return subprocess.run(
        [BASH, str(SETUP), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_on_macos_without_a_browser_setup_says_how_to_get_one_and_never_tries_apt(tmp_path: Path) -> None:
    env = fake_mac(tmp_path)
    result = run_setup(env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "no Chromium-family browser found" in result.stderr
    assert "https://www.google.com/chrome/" in result.stderr
    assert "brew install --cask chromium" in result.stderr
    assert "apt-get" not in result.stdout + result.stderr


def test_on_macos_setup_finds_chrome_in_the_users_applications(tmp_path: Path) -> None:
    env = fake_mac(tmp_path)
    chrome = Path(env["HOME"]) / "Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    chrome.parent.mkdir(parents=True)
    chrome.write_text("#!/bin/sh\n")
    chrome.chmod(0o755)
    result = run_setup(env, "--find-browser")
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout == f"==> browser: {chrome}\n"
