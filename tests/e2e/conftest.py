"""Real Chromium + the real extension + the real native host, driven as a desktop host would.

Fixtures go from wide to narrow: `page_server` (session: tests/pages on 127.0.0.1), `browser`
(per test: a fresh profile with developer mode seeded and the host manifest installed by
`webctx install --user-data-dir`, Playwright driving Debian's Chromium through
`executable_path`; never `playwright install`). The desktop side of every test goes through
`native_host.host` over real HTTP with the real token.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from native_host import paths
from native_host.host import HostClient
from native_host.protocol.descriptor import Descriptor
from tests.e2e.harness import RunningBrowser, end_leftovers, install_host_manifest, seed_profile
from tests.support.pages import served_pages

CHROMIUM = os.environ.get("WEBCTX_TEST_CHROMIUM", "/usr/lib/chromium/chromium")
PAGES = Path(__file__).resolve().parent.parent / "pages"
EXTENSION = paths.extension_dir()
EXTENSION_ID = "kbmgfelnojabkebealaikmhmkcjnbgpl"

BROWSER_ARGS = [
    f"--disable-extensions-except={EXTENSION}",
    f"--load-extension={EXTENSION}",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under e2e/ is a browser test; skip them all when Chromium is missing."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)
            if not Path(CHROMIUM).exists():
                item.add_marker(pytest.mark.skip(reason=f"no Chromium at {CHROMIUM}; run scripts/setup.sh"))


@pytest.fixture(scope="session")
def page_server() -> Iterator[str]:
    """Serve tests/pages on 127.0.0.1 (content scripts need http, not file://); yield the base URL."""
    with served_pages(PAGES) as url:
        yield url


@pytest.fixture(scope="session")
def other_origin() -> Iterator[str]:
    """tests/pages again, as a second origin: `http://localhost:<another port>` (cross-origin
    iframes; design.md §2)."""
    with served_pages(PAGES, host="localhost") as url:
        yield url


@contextlib.asynccontextmanager
async def launched_browser(
    user_data_dir: Path,
    *,
    extra_args: tuple[str, ...] = (),
    real_window: bool = False,
    headless: bool = True,
    env: dict[str, str] | None = None,
    allow_incognito: bool = False,
    keep_profile: bool = False,
) -> AsyncIterator[RunningBrowser]:
    """Chromium on a fresh profile at `user_data_dir` with the extension loaded and its native host
    registered; closed (and its native hosts ended) after. Tests that restart the browser call it.
    `real_window`: no Playwright viewport emulation, so the page sees the window's real geometry and
    device scale factor (the `location` tests need that); `extra_args` go to Chromium; `headless`
    False with `env` naming a DISPLAY runs a real window (the X11 tests); `allow_incognito` starts
    the extension allowed in incognito (harness.seed_profile); `keep_profile` keeps the profile
    after, for a second launch on it (a browser restart: the extension's storage survives)."""
    seed_profile(user_data_dir, allow_incognito=allow_incognito)
    install_host_manifest(user_data_dir)
    providers = paths.providers_dir()
    running: RunningBrowser | None = None
    try:
        async with async_playwright() as pw:
            context = await pw.chromium.launch_persistent_context(
                str(user_data_dir),
                executable_path=CHROMIUM,
                headless=headless,
                args=[*BROWSER_ARGS, *extra_args],
                no_viewport=real_window,
                env=dict(os.environ) if env is None else env,
            )
            try:
                worker = context.service_workers[0] if context.service_workers else None
                if worker is None:
                    worker = await context.wait_for_event("serviceworker", timeout=15_000)
                running = RunningBrowser(context, worker, user_data_dir, providers)
                yield running
            finally:
                with contextlib.suppress(Exception):
                    await context.close()
    finally:
        if running is not None:
            end_leftovers(running.host_pids)
        if not keep_profile:
            shutil.rmtree(user_data_dir, ignore_errors=True)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[RunningBrowser]:
    """A fresh Chromium with the extension loaded and its native host registered; closed after."""
    async with launched_browser(tmp_path / "udd") as running:
        yield running


@pytest.fixture
def host(browser: RunningBrowser) -> HostClient:
    """The reference desktop host, reading this test's providers folder."""
    return HostClient(folder=browser.providers, timeout_s=10.0)


@pytest.fixture
def ask_current(host: HostClient) -> Callable[..., Awaitable[dict[str, Any]]]:
    """`await ask_current(descriptor, legacy=False)`: call `current` through the reference host
    (real HTTP, real token) and return the exact `structuredContent`."""

    async def ask(descriptor: Descriptor, *, legacy: bool = False) -> dict[str, Any]:
        host.mode = "legacy" if legacy else "auto"
        result = await host.current(descriptor.pid)
        assert result.descriptor.instance == descriptor.instance
        return result.raw

    return ask
