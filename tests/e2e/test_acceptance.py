"""The issue's acceptance path, as a new user walks it: `webctx install` with no options, Chromium
with its ordinary profile folder (`~/.config/chromium`, here under the test's HOME) and the
extension loaded, then `webctx doctor` says every link is ok; break one link by hand and doctor
names it (the other failure classes are unit tests in tests/unit/install/test_doctor.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from native_host import paths
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM
from tests.e2e.harness import RunningBrowser, end_leftovers, seed_profile

WEBCTX = str(Path(sys.executable).with_name("webctx"))


def webctx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WEBCTX, *args], capture_output=True, text=True, timeout=90, check=False)


async def test_install_load_and_doctor_says_every_link_is_ok(isolated_home: Path) -> None:
    installed = webctx("install")
    assert installed.returncode == 0, installed.stderr
    assert "Chromium:" in installed.stdout and "Load unpacked" in installed.stdout
    profile = isolated_home / ".config" / "chromium"  # what Chromium uses without --user-data-dir
    seed_profile(profile)
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS, env=dict(os.environ)
        )
        no_worker: Any = None  # only the descriptor waiter is used
        running = RunningBrowser(context, no_worker, profile, paths.providers_dir())
        try:
            await running.descriptor(timeout_s=20.0)
            doctor = await asyncio.to_thread(webctx, "doctor")
            assert doctor.returncode == 0, doctor.stdout
            assert doctor.stdout.rstrip().endswith("Every link is ok.")
            # Break one link by hand: the manifest's path made relative.
            manifest = profile / "NativeMessagingHosts" / "webctx.native_host.json"
            data = json.loads(manifest.read_text())
            manifest.write_text(json.dumps({**data, "path": "webctx-native-host"}))
            broken = await asyncio.to_thread(webctx, "doctor", "--json")
            assert broken.returncode == 1
            names = [c["name"] for c in json.loads(broken.stdout)["checks"] if not c["ok"]]
            assert names == ["manifest.path"]
        finally:
            with contextlib.suppress(Exception):
                await context.close()
            end_leftovers(running.host_pids)
