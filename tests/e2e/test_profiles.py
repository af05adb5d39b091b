"""Several profiles, one provider (design.md §3; issue "One provider per browser, whatever happens").

Headless Chromium cannot open a second profile in a running browser (a second launch on the same
user-data-dir aborts: "Failed to create a ProcessSingleton"), so these tests run Chromium headed on
an Xvfb display of their own, and open the second profile the way a user's desktop does: a second
`chromium --profile-directory=…` that hands its command line to the running browser.

Measured (Chromium 156): each profile with the extension starts its own native host, both children
of the one browser process; closing every window of a profile does NOT end its native host (the
profile stays loaded with its extension), so a takeover happens when the provider's host goes away
(its extension stopped, disabled, reloaded, or the host crashed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from playwright.async_api import async_playwright

from native_host import paths
from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from native_host.protocol.processes import process_alive
from tests.e2e.conftest import BROWSER_ARGS, CHROMIUM
from tests.e2e.harness import end_leftovers, install_host_manifest
from tests.e2e.transitions import DescriptorWatch, DesktopCaller
from tests.e2e.tree import walk

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="needs Xvfb (apt-get install xvfb)")

TAKEOVER_LIMIT_S = 1.0
"""The issue's bound: a remaining native host publishes within 1 s after the provider's goes away."""

PROFILES = ("Default", "Profile 2")
OTHER_TITLE = "Other page"


@pytest.fixture
def display() -> Iterator[str]:
    """A private Xvfb display (`:<n>`), ended by pid after the test."""
    read_fd, write_fd = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    try:
        with os.fdopen(read_fd) as pipe:
            number = pipe.readline().strip()
        assert number.isdigit(), "Xvfb did not report its display"
        yield f":{number}"
    finally:
        xvfb.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            xvfb.wait(timeout=5)
        if xvfb.poll() is None:
            xvfb.kill()
            xvfb.wait(timeout=5)


def native_hosts(browser_pid: int) -> list[int]:
    """Pids of the native hosts the browser process started (its children running native_host)."""
    found = []
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(browser_pid).children():
            with contextlib.suppress(psutil.Error):
                if "native_host" in " ".join(child.cmdline()) and process_alive(child.pid):
                    found.append(child.pid)
    return found


def read_descriptors(folder: Path) -> list[Descriptor]:
    found = []
    for path in sorted(folder.glob("*.json")):
        with contextlib.suppress(OSError, ValueError):
            found.append(Descriptor.model_validate(json.loads(path.read_text())))
    return found


async def until(condition: object, limit_s: float, what: str) -> float:
    """Wait until `condition()` is truthy; return the seconds it took."""
    start = time.monotonic()
    try:
        async with asyncio.timeout(limit_s):
            while not condition():  # type: ignore[operator]
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"not within {limit_s} s: {what}") from None
    return time.monotonic() - start


@contextlib.asynccontextmanager
async def two_profiles(
    user_data_dir: Path, display: str, second_url: str = "about:blank", extra_args: tuple[str, ...] = ()
) -> AsyncIterator[tuple[int, list[int]]]:
    """One headed Chromium with the extension in two profiles of `user_data_dir` (`extra_args` on
    its command line); yields the browser pid and the native host pids in start order."""
    for profile in PROFILES:
        (user_data_dir / profile).mkdir(parents=True, exist_ok=True)
        (user_data_dir / profile / "Preferences").write_text(
            json.dumps({"extensions": {"ui": {"developer_mode": True}}})
        )
    install_host_manifest(user_data_dir)
    env = {**os.environ, "DISPLAY": display}
    providers = paths.providers_dir()
    started: list[int] = []
    async with async_playwright() as pw:
        context = await pw.chromium.launch_persistent_context(
            str(user_data_dir),
            executable_path=CHROMIUM,
            headless=False,
            args=[*BROWSER_ARGS, *extra_args, f"--profile-directory={PROFILES[0]}"],
            env=env,
        )
        try:
            await until(lambda: read_descriptors(providers), 20, "the first profile's provider")
            browser_pid = read_descriptors(providers)[0].pid
            started.extend(native_hosts(browser_pid))
            assert len(started) == 1
            # What the desktop does when the user opens the second profile: a second command line,
            # handed to the running browser ("Opening in existing browser session.").
            second = subprocess.run(
                [CHROMIUM, f"--user-data-dir={user_data_dir}", f"--profile-directory={PROFILES[1]}",
                 "--no-sandbox", *BROWSER_ARGS, second_url],
                env=env, capture_output=True, timeout=30, check=False,
            )
            assert second.returncode == 0, second.stderr.decode(errors="replace")[-500:]
            await until(lambda: len(native_hosts(browser_pid)) == 2, 20, "the second profile's native host")
            started.extend(pid for pid in native_hosts(browser_pid) if pid not in started)
            yield browser_pid, started
        finally:
            hosts = set(started) | set(native_hosts(browser_pid)) if started else set()
            with contextlib.suppress(Exception):
                await context.close()
            end_leftovers(hosts)


def tab_titles(raw: dict[str, Any]) -> list[str]:
    return [str(e.get("title")) for e in walk(raw["root"]) if e.get("role") == "Page"]


def has_follower_tab(raw: dict[str, Any], title: str) -> bool:
    """True when a follower's window (id `f<k>-…`) holds a Page titled `title`."""
    windows = [w for w in raw["root"].get("children", []) if w["id"].startswith("f")]
    return any(title in tab_titles({"root": w}) for w in windows)


async def tree_until(host: HostClient, pid: int, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first `current` answer for which `wanted` holds (a follower may still be connecting)."""
    async with asyncio.timeout(10.0):
        while True:
            raw = (await host.current(pid)).raw
            if wanted(raw):
                return raw
            await asyncio.sleep(0.1)


def focused_windows(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in raw["root"].get("children", []) if w.get("focused")]


def check_unique_ids(raw: dict[str, Any]) -> None:
    ids = [e["id"] for e in walk(raw["root"])]
    assert len(ids) == len(set(ids)), "ids are unique across profiles"
    focused = [e["id"] for e in raw["root"].get("children", []) if e.get("focused")]
    assert len(focused) <= 1, "one focus path"


async def test_two_profiles_start_two_native_hosts_and_publish_one_descriptor_then_take_over(
    tmp_path: Path, display: str, page_server: str
) -> None:
    providers = paths.providers_dir()
    other = f"{page_server}/other.html"
    async with two_profiles(tmp_path / "udd", display, other) as (browser_pid, hosts):
        first, second = hosts
        # Both hosts are up (the second one's endpoint too); only the first publishes.
        await asyncio.sleep(1.5)
        published = read_descriptors(providers)
        assert [d.listener_pid for d in published] == [first], "one descriptor, the first host's"
        assert published[0].pid == browser_pid
        host = HostClient(folder=providers, timeout_s=5)
        # The tree shows both profiles' windows: the second profile's tab comes through its host.
        raw = await tree_until(host, browser_pid, lambda raw: has_follower_tab(raw, OTHER_TITLE))
        assert raw["instance"] == published[0].instance
        check_unique_ids(raw)
        # The second profile's window, opened last, has the browser's focus: the one focus path is
        # there, although each profile marks its own last-focused window (windowFocused decides).
        raw = await tree_until(host, browser_pid, lambda raw: focused_windows(raw) != [])
        assert [w["id"][:1] for w in focused_windows(raw)] == ["f"]

        # The provider's host goes away for good (crash: no chance to clean up): the other takes over.
        caller = DesktopCaller(providers)
        async with DescriptorWatch(providers, browser_pid).running() as watch, caller.running():
            killed_at = time.monotonic()
            os.kill(first, signal.SIGKILL)
            took = await until(
                lambda: [d.listener_pid for d in read_descriptors(providers)] == [second],
                5, "the second profile's host takes over",
            )
            # The first profile's extension reconnects: its new host must stand by, not publish.
            await until(lambda: len(native_hosts(browser_pid)) == 2, 10, "a new host for the first profile")
            await asyncio.sleep(1.0)
        print(f"\ntakeover {took * 1e3:.0f} ms after the provider host was SIGKILLed "
              f"(limit {TAKEOVER_LIMIT_S * 1e3:.0f} ms; {time.monotonic() - killed_at:.1f} s watched)")
        assert took <= TAKEOVER_LIMIT_S
        assert watch.most_at_once == 1
        # A desktop host calling throughout got answers from the published instance or clean errors.
        caller.check()
        print(f"desktop host meanwhile: {caller.summary()}")
        taken = read_descriptors(providers)
        assert [d.listener_pid for d in taken] == [second]
        assert taken[0].instance != published[0].instance, "a new instance, a new descriptor"
        assert {o.instance for o in caller.answered} <= {published[0].instance, taken[0].instance}
        # The first profile's new host follows the new provider: both profiles are in the tree again.
        raw = await tree_until(
            host, browser_pid, lambda raw: any(w["id"].startswith("f") for w in raw["root"]["children"])
        )
        assert raw["instance"] == taken[0].instance
        assert OTHER_TITLE in tab_titles(raw)
        check_unique_ids(raw)

        # A graceful exit this time (SIGTERM: descriptor withdrawn, lock released and unlinked):
        # the first profile's new host takes over just as fast.
        [standby] = [pid for pid in native_hosts(browser_pid) if pid != second]
        stopped_at = time.monotonic()
        os.kill(second, signal.SIGTERM)
        took = await until(
            lambda: [d.listener_pid for d in read_descriptors(providers)] == [standby],
            5, "the first profile's host takes over after a graceful exit",
        )
        print(f"takeover {took * 1e3:.0f} ms after the provider host was sent SIGTERM "
              f"({time.monotonic() - stopped_at:.2f} s)")
        assert took <= TAKEOVER_LIMIT_S
        raw = await tree_until(
            host, browser_pid, lambda raw: any(w["id"].startswith("f") for w in raw["root"]["children"])
        )
        assert raw["instance"] == read_descriptors(providers)[0].instance
        check_unique_ids(raw)
