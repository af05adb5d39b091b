"""Load: many desktop hosts at once while the user works (issue "One provider per browser, whatever
happens", Load; design.md §1, §2, §4). Bounded in count and time, loopback only.

50 MCP clients (half 2026-07-28, half the 2025-11-25 handshake), each over its own session, make
2,000 `current` calls in all while a script selects text and switches tabs in the browser. Every
call must succeed, every answer must be valid against the element schema (`protocol.answers.CurrentAnswer`,
via the reference host's `check_answer`) and name the descriptor's instance; p50/p99 are printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import statistics
import time
from typing import Final

from playwright.async_api import Page

from native_host.host import ConnectMode, IdBook, open_session
from native_host.protocol.base import ID_PATTERN
from native_host.protocol.descriptor import Descriptor
from tests.e2e.harness import RunningBrowser, select_text
from tests.e2e.tree import walk

CLIENTS: Final = 50
CALLS: Final = 2000
CALL_LIMIT_S: Final = 30.0
"""Each client's own limit per connection and per call, in seconds: generous, because 50 clients
and a browser share 2 cores; a call that needs it is still an answer, and the test reports p99."""
LOAD_LIMIT_S: Final = 150.0
"""The whole load, in seconds."""

ELEMENTS: Final = ("intro", "para", "outro")


async def _agitate(pages: list[Page], stop: asyncio.Event) -> int:
    """Select text and switch tabs until `stop`; return how many changes were made."""
    changes = 0
    for page, element_id in zip(itertools.cycle(pages), itertools.cycle(ELEMENTS), strict=False):
        if stop.is_set():
            break
        with contextlib.suppress(Exception):  # a page busy under load may refuse one step
            await page.bring_to_front()
            await select_text(page, element_id)
            changes += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)
    return changes


async def _client(
    descriptor: Descriptor, mode: ConnectMode, calls: int, latencies: list[float], problems: list[str]
) -> None:
    ids = IdBook()
    try:
        async with open_session(descriptor, mode=mode, timeout_s=CALL_LIMIT_S, id_book=ids) as session:
            for _ in range(calls):
                started = time.perf_counter()
                result = await session.current()  # raises unless valid and of this instance
                latencies.append(time.perf_counter() - started)
                for element in walk(result.raw["root"]):
                    if not ID_PATTERN.match(element["id"]):
                        problems.append(f"bad id {element['id']!r}")
    except Exception as exc:
        problems.append(f"{mode}: {type(exc).__name__}: {exc}")


async def test_fifty_clients_of_both_eras_make_2000_current_calls_while_the_user_works(
    browser: RunningBrowser, page_server: str
) -> None:
    pages = [await browser.new_page(f"{page_server}/{name}") for name in ("index.html", "index.html")]
    pages.append(await browser.new_page(f"{page_server}/other.html"))
    descriptor = await browser.descriptor()

    latencies: list[float] = []
    problems: list[str] = []
    per_client = CALLS // CLIENTS
    stop = asyncio.Event()
    agitator = asyncio.create_task(_agitate(pages, stop))
    started = time.monotonic()
    try:
        async with asyncio.timeout(LOAD_LIMIT_S):
            await asyncio.gather(*(
                _client(descriptor, "auto" if n % 2 else "legacy", per_client, latencies, problems)
                for n in range(CLIENTS)
            ))
    finally:
        stop.set()
        changes = await agitator
    wall_s = time.monotonic() - started

    assert not problems, problems[:5]
    assert len(latencies) == CALLS
    ordered = sorted(latencies)
    p50 = statistics.median(ordered) * 1e3
    p99 = ordered[int(0.99 * len(ordered)) - 1] * 1e3
    print(
        f"\n{CLIENTS} clients, {len(latencies)} `current` calls in {wall_s:.1f} s "
        f"({len(latencies) / wall_s:.0f}/s), {changes} selection/tab changes meanwhile; "
        f"latency p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {ordered[-1] * 1e3:.0f} ms"
    )
    assert changes > 0, "the user did something meanwhile"
