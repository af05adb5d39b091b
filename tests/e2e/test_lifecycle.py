"""The native host lives exactly as long as its browser (design.md §3, §4; chromium-recipe.md §4.3)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from native_host.errors import ProviderRejected
from native_host.host import HostClient
from native_host.protocol.processes import process_alive
from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.transitions import DesktopCaller
from tests.e2e.tree import selected_texts


async def _gone_within(pid: int, path: Path | None, limit_s: float) -> float:
    """Wait until process `pid` has exited (and `path`, if given, is gone); return the seconds it took."""
    start = time.monotonic()
    async with asyncio.timeout(limit_s):
        while True:
            if not process_alive(pid) and (path is None or not path.exists()):
                return time.monotonic() - start
            await asyncio.sleep(0.02)


def _descriptor_path(browser: RunningBrowser, bundle_id: str, pid: int) -> Path:
    return browser.providers / f"{bundle_id}-{pid}.json"


async def test_closing_the_browser_ends_the_native_host_and_removes_the_descriptor(
    browser: RunningBrowser, page_server: str
) -> None:
    descriptor = await browser.descriptor()
    path = _descriptor_path(browser, descriptor.bundle_id, descriptor.pid)
    assert path.exists()
    assert descriptor.listener_pid is not None
    await browser.context.close()
    await _gone_within(descriptor.listener_pid, path, 2.0)


async def test_killing_the_browser_ends_the_native_host_and_removes_the_descriptor(
    browser: RunningBrowser, page_server: str
) -> None:
    descriptor = await browser.descriptor()
    path = _descriptor_path(browser, descriptor.bundle_id, descriptor.pid)
    assert descriptor.listener_pid is not None
    host = psutil.Process(descriptor.listener_pid)
    assert descriptor.pid in {p.pid for p in host.parents()}, "pid names the browser, an ancestor of the host"
    caller = DesktopCaller(browser.providers)
    async with caller.running():
        await asyncio.sleep(0.3)
        os.kill(descriptor.pid, signal.SIGKILL)
        took = await _gone_within(descriptor.listener_pid, path, 2.0)
        await asyncio.sleep(0.3)
    print(f"\nbrowser SIGKILLed → host gone, descriptor removed in {took:.2f} s (limit 2 s)")
    print(f"desktop host meanwhile: {caller.summary()}")
    caller.check()
    assert {o.instance for o in caller.answered} <= {descriptor.instance}


async def test_reloading_the_extension_starts_a_new_instance_and_old_ids_are_gone(
    browser: RunningBrowser, page_server: str, ask_current: Any, host: HostClient
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    await select_text(page, "para")
    await asyncio.sleep(0.05)
    old_answer = await ask_current(old)
    old_ids = [t["id"] for t in selected_texts(old_answer)]
    assert old_ids
    owner = host.owner_of(old_ids[0])
    assert (owner.pid, owner.instance) == (old.pid, old.instance)

    await browser.worker_eval("() => { chrome.runtime.reload(); }")
    new = await browser.descriptor(not_instance=old.instance)
    assert new.instance != old.instance
    assert new.listener_pid != old.listener_pid
    assert old.listener_pid is not None
    await _gone_within(old.listener_pid, None, 3.0)  # the old host exits; its file name is reused
    # The reference host keeps (provider, instance) with every id: the old ones are now gone.
    with pytest.raises(ProviderRejected) as refused:
        host.owner_of(old_ids[0])
    assert refused.value.reason == "unknown_id"
    new_answer = await ask_current(new)
    assert new_answer["instance"] == new.instance
    for element_id in old_ids:
        owner = host.ids.owner_of(element_id)
        assert owner is None or owner.instance == new.instance, "an old id never maps to the old instance"
