"""The e2e harness: a running browser with the webctx extension, and what tests do with it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest
from playwright.async_api import BrowserContext, Page, Worker

from native_host.install import manifests
from native_host.protocol.descriptor import Descriptor
from tests.e2e.gestures import Input, select_element_text


@dataclass
class RunningBrowser:
    """One running Chromium with the webctx extension; `worker` is the extension's service worker."""

    context: BrowserContext
    worker: Worker
    user_data_dir: Path
    providers: Path
    host_pids: set[int] = field(default_factory=set)

    async def descriptor(self, *, timeout_s: float = 20.0, not_instance: str | None = None) -> Descriptor:
        """Wait for a provider descriptor in the providers folder (other than `not_instance`'s)."""
        async with asyncio.timeout(timeout_s):
            while True:
                for path in sorted(self.providers.glob("*.json")) if self.providers.is_dir() else []:
                    try:
                        found = Descriptor.model_validate(json.loads(path.read_text()))
                    except (OSError, ValueError):
                        continue  # being written; the rename is atomic, a retry will see it whole
                    if found.instance != not_instance:
                        if found.listener_pid:
                            self.host_pids.add(found.listener_pid)
                        return found
                await asyncio.sleep(0.05)

    async def new_page(self, url: str) -> Page:
        """Open `url` in a new tab of the current window and wait for it to load."""
        page = await self.context.new_page()
        await page.goto(url)
        return page

    async def worker_eval(self, script: str, arg: Any = None) -> Any:
        """Evaluate `script` (a function expression) in the extension's service worker."""
        return await self.worker.evaluate(script, arg)


def isolated_env(root: Path) -> dict[str, str]:
    """HOME, XDG_* and CONTEXT_PROVIDERS_DIR under `root`, as tests/conftest.py's per-test
    `isolated_home` sets them; for browsers shared by a module, which start before any test's
    fixture runs and must not use the real user's folders either. Creates the home folder."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "CONTEXT_PROVIDERS_DIR": str(root / "providers"),
    }


@contextlib.contextmanager
def isolated_environment(root: Path) -> Iterator[None]:
    """Set `isolated_env(root)` in os.environ (and drop XDG_RUNTIME_DIR) until the block ends."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in isolated_env(root).items():
            patch.setenv(name, value)
        patch.delenv("XDG_RUNTIME_DIR", raising=False)
        yield


def seed_profile(
    user_data_dir: Path, *, allow_incognito: bool = False, allow_file_access: bool = False
) -> None:
    """Turn developer mode on, or `chrome.runtime.reload()` disables an unpacked extension
    (chromium-recipe.md §9.1). `allow_incognito`: the extension starts allowed in incognito, as
    if the user had switched "Allow in Incognito" on in chrome://extensions (Chromium 156 keeps
    the `extensions.settings.<id>.incognito` flag it finds in Preferences; Linux does not enforce
    the Secure Preferences MACs). `allow_file_access`: as if the user had switched "Allow access
    to file URLs" on (`newAllowFileAccess`), so content scripts run in file:// pages."""
    prefs: dict[str, Any] = {"extensions": {"ui": {"developer_mode": True}}}
    flags: dict[str, bool] = {}
    if allow_incognito:
        flags["incognito"] = True
    if allow_file_access:
        flags["newAllowFileAccess"] = True
    if flags:
        prefs["extensions"]["settings"] = {manifests.extension_id(): flags}
    (user_data_dir / "Default").mkdir(parents=True, exist_ok=True)
    (user_data_dir / "Default" / "Preferences").write_text(json.dumps(prefs))


def install_host_manifest(user_data_dir: Path) -> None:
    """Run the real `webctx install` for this profile (host manifest + launcher)."""
    webctx = Path(sys.executable).with_name("webctx")
    subprocess.run(
        [str(webctx), "install", "--browser", "chromium", "--user-data-dir", str(user_data_dir)],
        check=True,
        capture_output=True,
        timeout=60,
    )


def end_leftovers(pids: set[int]) -> None:
    """End native hosts this test started that are still running (by pid, never by name)."""
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(pid)
            if "native_host" in " ".join(proc.cmdline()):
                proc.send_signal(signal.SIGKILL)


async def select_text(page: Page, element_id: str, *, how: Input = Input.REAL) -> None:
    """Select the whole text of the element with `element_id`: by default with real input (a click
    and a Shift+click, tests/e2e/gestures.py), `how=Input.API` with `addRange`."""
    await select_element_text(page, element_id, how=how)
