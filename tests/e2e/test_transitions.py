"""One provider per browser through everything a real browser does (issue "One provider per browser,
whatever happens", Lifecycle; design.md §3, §4, §7).

Each test drives one transition for real while a desktop host (`DesktopCaller`) keeps asking
`current` and `DescriptorWatch` samples the providers folder: every call gets a checked answer or a
clean error within its limit, there is never more than one descriptor for the browser, and (except
after a SIGKILL, which nobody can clean up after) never one naming a listener that is gone.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import time
from pathlib import Path

import pytest
from playwright.async_api import Page

from native_host.errors import ProviderRejected
from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from tests.e2e.conftest import EXTENSION_ID, launched_browser
from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.transitions import (
    DescriptorWatch,
    DesktopCaller,
    stop_service_worker,
)
from tests.e2e.tree import selected_texts

EXIT_LIMIT_S = 3.0
"""A native host whose port closed must be gone within this, in seconds (the browser SIGKILLs at 2 s
after a port disconnect; the host itself exits on EOF in ~0.2-0.6 s, docs/internals/native-host.md)."""


async def _gone(pid: int, path: Path | None = None, *, limit_s: float = EXIT_LIMIT_S) -> float:
    """Wait until `pid` has exited (and `path`, if given, is gone); return the seconds it took."""
    start = time.monotonic()
    async with asyncio.timeout(limit_s):
        while process_alive(pid) or (path is not None and path.exists()):
            await asyncio.sleep(0.02)
    return time.monotonic() - start


def _path(browser: RunningBrowser, descriptor: Descriptor) -> Path:
    return browser.providers / f"{descriptor.bundle_id}-{descriptor.pid}.json"


async def _selected_in(host: HostClient, descriptor: Descriptor, *, limit_s: float = 5.0) -> list[str]:
    """Texts of the selected Text elements in `current`, asked until one shows up (≤ `limit_s`)."""
    async with asyncio.timeout(limit_s):
        while True:
            result = await host.current(descriptor.pid)
            assert result.answer.instance == descriptor.instance
            texts = [t["content"][0]["text"] for t in selected_texts(result.raw)]
            if texts:
                return texts
            await asyncio.sleep(0.1)


async def _select_fresh(page: Page, element_id: str) -> None:
    """Select a different element first, so the content script sees a real change."""
    await page.evaluate("() => getSelection().removeAllRanges()")
    await select_text(page, element_id)


def _check_watch(watch: DescriptorWatch, *, allow_dead: frozenset[str] = frozenset()) -> None:
    assert watch.most_at_once <= 1, "never two descriptors for one browser"
    dead = [(i, pid) for i, pid in watch.dead_listener_seen if i not in allow_dead]
    assert not dead, f"a descriptor named a listener that was gone: {dead[:3]}"


async def _extensions_page(browser: RunningBrowser) -> Page:
    page = await browser.context.new_page()
    await page.goto("chrome://extensions")
    return page


async def _set_enabled(page: Page, enabled: bool) -> None:
    """Switch the extension off or on as the user does in chrome://extensions."""
    await page.evaluate(
        "([id, enabled]) => chrome.management.setEnabled(id, enabled)", [EXTENSION_ID, enabled]
    )


# ---------------------------------------------------------------------------------------------


async def test_a_stopped_service_worker_withdraws_the_descriptor_and_its_restart_publishes_a_new_one(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    assert old.listener_pid is not None
    await select_text(page, "para")
    assert await _selected_in(host, old)

    caller = DesktopCaller(browser.providers)
    async with DescriptorWatch(browser.providers, old.pid).running() as watch, caller.running():
        await caller.answered_by(old.instance, count=3)  # a few answered calls before the transition
        await stop_service_worker(browser.context)
        took = await _gone(old.listener_pid, _path(browser, old))
        # The worker restarts on its next event: here a tab loading a page.
        await browser.new_page(f"{page_server}/other.html")
        new = await browser.descriptor(not_instance=old.instance)
        await caller.answered_by(new.instance)
    print(f"\nworker stopped → host gone + descriptor removed in {took:.2f} s; {caller.summary()}")

    assert new.instance != old.instance and new.listener_pid != old.listener_pid
    _check_watch(watch)
    caller.check()
    assert {o.instance for o in caller.answered} <= {old.instance, new.instance}
    assert caller.answered[-1].instance == new.instance
    # The content script in the tab that was open all along still reports its selection.
    await page.bring_to_front()
    await _select_fresh(page, "para")
    assert any(text.startswith("The quick brown fox") for text in await _selected_in(host, new))


async def test_disabling_and_enabling_the_extension_moves_the_provider_and_reinjects_content_scripts(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    assert old.listener_pid is not None
    extensions = await _extensions_page(browser)

    caller = DesktopCaller(browser.providers)
    async with DescriptorWatch(browser.providers, old.pid).running() as watch, caller.running():
        await caller.answered_by(old.instance, count=3)  # a few answered calls before the transition
        await _set_enabled(extensions, False)
        took = await _gone(old.listener_pid, _path(browser, old))
        assert not list(browser.providers.glob("*.json")), "no provider while the extension is off"
        await _set_enabled(extensions, True)
        new = await browser.descriptor(not_instance=old.instance)
        await caller.answered_by(new.instance)
    print(f"\ndisabled → host gone + descriptor removed in {took:.2f} s; {caller.summary()}")

    _check_watch(watch)
    caller.check()
    assert caller.answered[-1].instance == new.instance
    await extensions.close()
    # The tab was open all along and was not reloaded: its content script was injected again.
    await page.bring_to_front()
    await _select_fresh(page, "para")
    assert any(text.startswith("The quick brown fox") for text in await _selected_in(host, new))


async def test_reloading_the_extension_reinjects_content_scripts_into_open_tabs(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    assert old.listener_pid is not None

    caller = DesktopCaller(browser.providers)
    async with DescriptorWatch(browser.providers, old.pid).running() as watch, caller.running():
        await caller.answered_by(old.instance, count=3)  # a few answered calls before the transition
        await browser.worker_eval("() => { chrome.runtime.reload(); }")
        new = await browser.descriptor(not_instance=old.instance)
        await _gone(old.listener_pid)
        await caller.answered_by(new.instance)
    print(f"\nreload: {caller.summary()}")

    _check_watch(watch)
    caller.check()
    assert caller.answered[-1].instance == new.instance
    await page.bring_to_front()
    await _select_fresh(page, "para")
    assert any(text.startswith("The quick brown fox") for text in await _selected_in(host, new))


async def test_a_sigkilled_native_host_is_replaced_and_its_ids_are_gone(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    page = await browser.new_page(f"{page_server}/index.html")
    old = await browser.descriptor()
    assert old.listener_pid is not None
    await select_text(page, "para")
    await _selected_in(host, old)
    old_ids = [element["id"] for element in selected_texts((await host.current(old.pid)).raw)]
    assert host.owner_of(old_ids[0]).instance == old.instance

    caller = DesktopCaller(browser.providers)
    async with DescriptorWatch(browser.providers, old.pid).running() as watch, caller.running():
        await caller.answered_by(old.instance, count=3)  # a few answered calls before the transition
        killed_at = time.monotonic()
        os.kill(old.listener_pid, signal.SIGKILL)
        new = await browser.descriptor(not_instance=old.instance, timeout_s=10)
        replaced_s = time.monotonic() - killed_at
        await caller.answered_by(new.instance)
    print(f"\nhost SIGKILLed → new descriptor in {replaced_s:.2f} s; {caller.summary()}")

    assert new.listener_pid is not None and new.listener_pid != old.listener_pid
    # Only the killed host's own descriptor may have been seen stale (nobody could remove it).
    _check_watch(watch, allow_dead=frozenset({old.instance}))
    assert watch.instances[-1] == new.instance
    assert [p.name for p in browser.providers.glob("*.json")] == [_path(browser, new).name]
    caller.check()
    assert caller.answered[-1].instance == new.instance
    # A desktop host holding the old ids is told they are gone, never given the new instance's.
    with pytest.raises(ProviderRejected) as refused:
        host.owner_of(old_ids[0])
    assert refused.value.reason == "unknown_id"
    fresh = await host.current(new.pid)
    assert fresh.answer.instance == new.instance
    for element_id in old_ids:
        owner = host.ids.owner_of(element_id)
        assert owner is None or owner.instance == new.instance


async def test_a_deleted_providers_folder_is_recreated_with_its_modes(
    browser: RunningBrowser, page_server: str, host: HostClient
) -> None:
    descriptor = await browser.descriptor()
    folder = browser.providers
    caller = DesktopCaller(folder)
    async with caller.running():
        await caller.answered_by(descriptor.instance, count=3)  # a few answered calls before the transition
        deleted_at = time.monotonic()
        for path in folder.iterdir():
            path.unlink()
        folder.rmdir()
        again = await browser.descriptor(timeout_s=5)
        rewritten_s = time.monotonic() - deleted_at
        await caller.answered_by(again.instance, after=deleted_at)
    print(f"\nproviders folder deleted → descriptor back in {rewritten_s:.2f} s; {caller.summary()}")

    assert again.instance == descriptor.instance, "the same host publishes again"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(_path(browser, again).stat().st_mode) == 0o600
    caller.check()
    assert caller.answered[-1].instance == descriptor.instance
    assert (await host.current(again.pid)).answer.instance == descriptor.instance


async def test_after_browser_and_host_are_sigkilled_the_next_native_host_removes_the_stale_descriptor(
    tmp_path: Path, page_server: str, browser: RunningBrowser
) -> None:
    old = await browser.descriptor()
    assert old.listener_pid is not None
    stale = _path(browser, old)
    # Kill the host first, so it cannot remove its descriptor on the EOF the browser's death causes.
    os.kill(old.listener_pid, signal.SIGKILL)
    os.kill(old.pid, signal.SIGKILL)
    await _gone(old.listener_pid)  # a zombie until init reaps it: gone for our purposes
    assert stale.exists(), "nobody could remove it"

    async with launched_browser(tmp_path / "udd2") as second:
        new = await second.descriptor(not_instance=old.instance)
        async with asyncio.timeout(5):
            while stale.exists():
                await asyncio.sleep(0.05)
        assert [p.name for p in second.providers.glob("*.json")] == [_path(second, new).name]
